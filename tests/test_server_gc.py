"""``trickroom serve`` runs Python's cycle collector for a room of long-lived objects (docs/performance.md): what
startup made is frozen out of every collection, and young collections run on a clock, with a full one now and
then (``trickroom.server.collector``), or, if the settings ask for Python's own schedule, less often than its
default."""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from server_helpers import TIMEOUT, Client, ThreadServer

from trickroom.server.collector import CollectionClock
from trickroom.server.main import GC_THRESHOLDS, collections_for, tune_garbage_collector
from trickroom.server.settings import Settings
from trickroom.server.wire import WireProtocol


@pytest.fixture
def automatic_collection_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()


def test_the_room_collects_young_objects_less_often_and_freezes_what_startup_made() -> None:
    before = gc.get_threshold()
    try:
        tune_garbage_collector()
        assert gc.get_threshold() == GC_THRESHOLDS and GC_THRESHOLDS[0] > before[0]
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


class Timer:
    def __init__(self, at: float, callback: Callable[[], None]) -> None:
        self.at, self.callback, self.cancelled = at, callback, False

    def cancel(self) -> None:
        self.cancelled = True


class FakeLoop:
    """A clock and call_later that a test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0
        self.waiting: list[Timer] = []

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        timer = Timer(self.now + delay, callback)
        self.waiting.append(timer)
        return timer

    def run_until(self, when: float) -> None:
        while self.waiting and self.waiting[0].at <= when + 1e-9:
            timer = self.waiting.pop(0)
            self.now = timer.at
            if not timer.cancelled:
                timer.callback()
        self.now = when


def test_the_clock_collects_young_objects_at_each_tick_and_everything_when_a_full_collection_is_due(
        automatic_collection_restored: None) -> None:
    loop, collected = FakeLoop(), []

    def collect(generation: int) -> int:
        collected.append(generation)
        return 0

    clock = CollectionClock(0.25, 60.0, clock=lambda: loop.now, call_later=loop.call_later, collect=collect)
    clock.start()
    assert not gc.isenabled()  # nothing but the clock collects now
    loop.run_until(100.9)
    assert collected == [0, 0, 0]  # at 100.25, 100.5, 100.75
    loop.run_until(160.0)
    assert collected.count(2) == 1 and collected[-1] == 2  # the tick at 160.0: a minute since the start
    loop.run_until(160.6)
    assert collected[-2:] == [0, 0] and collected.count(2) == 1  # then young ones again, a minute to the next
    clock.stop()
    assert gc.isenabled()
    loop.run_until(200.0)
    assert collected.count(2) == 1 and len(collected) == 240 + 2  # no tick after the stop (240 ticks to 160.0)


def test_without_full_collections_the_clock_only_ever_collects_young_objects(
        automatic_collection_restored: None) -> None:
    loop, collected = FakeLoop(), []
    clock = CollectionClock(1.0, 0.0, clock=lambda: loop.now, call_later=loop.call_later,
                            collect=lambda generation: collected.append(generation) or 0)
    clock.start()
    loop.run_until(100.0 + 3600)
    clock.stop()
    assert collected == [0] * 3600


def test_the_settings_choose_the_clock_or_pythons_own_schedule() -> None:
    clock = collections_for(Settings(gc_young_seconds=0.5, gc_full_minutes=30))
    assert clock is not None and (clock.young_every, clock.full_every) == (0.5, 1800)
    assert collections_for(Settings(gc_young_seconds=0)) is None


def test_a_room_runs_its_collection_clock_while_it_is_up(automatic_collection_restored: None, tmp_path: Path) -> None:
    server = ThreadServer(db=f"sqlite:///{tmp_path / 'room.sqlite3'}", bot_workers=0)
    server.app.state.room.collections = CollectionClock(0.05, 0.0)
    server.start()
    try:
        assert not gc.isenabled()
    finally:
        server.stop()
    assert gc.isenabled()


def test_a_closed_connection_is_freed_at_once_with_no_cycle_left_for_a_full_collection(
        automatic_collection_restored: None, tmp_path: Path) -> None:
    server = ThreadServer(db=f"sqlite:///{tmp_path / 'room.sqlite3'}", bot_workers=0).start()
    try:
        client = Client(server.url)
        client.login_guest("Leaver")
        room = server.app.state.room
        (conn,) = room.connections.values()
        assert isinstance(conn.wire, WireProtocol)
        wire = weakref.ref(conn.wire)
        del conn
        gc.disable()  # what frees the connection must be its last reference going, not the collector
        client.close()
        deadline = time.monotonic() + TIMEOUT
        while wire() is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert wire() is None and not room.connections
    finally:
        gc.enable()
        server.stop()
