"""A failed database write: the requester gets ``error internal`` and nothing changes, in memory or on the wire."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_helpers import Client, ThreadServer, clients, play_rated_bura_match

from trickroom.server.store import Store


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    db = Path(tmp_path_factory.mktemp("writes")) / "room.sqlite3"
    room = ThreadServer(db=f"sqlite:///{db}", bot_workers=0).start()
    yield room
    room.stop()


def fail_once(monkeypatch: pytest.MonkeyPatch, method: str) -> list[str]:
    """Make ``Store.<method>`` raise the next time it is called; returns the list of calls that failed."""
    original = getattr(Store, method)
    failed: list[str] = []

    async def flaky(self: Store, *args: Any, **kwargs: Any) -> Any:
        if not failed:
            failed.append(method)
            raise RuntimeError("database is locked")
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(Store, method, flaky)
    return failed


def test_sit_whose_save_fails_gets_an_error_and_changes_nothing(server: ThreadServer,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    with clients(server.url, "Ann", "Bob") as (ann, bob):
        table = ann.request(type="create", game="bura", options={"players": 2})["table"]
        bob.request(type="watch", table=table)
        failed = fail_once(monkeypatch, "save_table")
        error = ann.request(type="sit", table=table, seat=0)
        assert failed == ["save_table"]
        assert (error["type"], error["code"], error["table"]) == ("error", "internal", table)
        assert error["text"]
        # The seat is still free: Bob can take it, and nobody heard of Ann sitting.
        snapshot = bob.request(type="sit", table=table, seat=0)
        assert snapshot["type"] == "snapshot"
        assert [s["user"]["name"] if s["user"] else None for s in snapshot["info"]["seats"]] == ["Bob", None]
        sat = [m for m in ann.drain() + bob.drain() if m["type"] == "table_event" and m["kind"] == "sat"]
        assert {m["user"]["name"] for m in sat} == {"Bob"}


def test_start_whose_save_fails_leaves_the_table_waiting(server: ThreadServer,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    with clients(server.url, "Cid") as (cid,):
        table = cid.request(type="create", game="bura", options={"players": 2})["table"]
        cid.request(type="sit", table=table, seat=0)
        cid.request(type="bot_add", table=table, level="random", seat=1)
        fail_once(monkeypatch, "save_table")
        error = cid.request(type="start", table=table)
        assert (error["type"], error["code"]) == ("error", "internal")
        assert not [m for m in cid.drain() if m["type"] == "table_event" and m["kind"] == "started"]
        snapshot = cid.request(type="watch", table=table)
        assert snapshot["info"]["status"] == "waiting" and snapshot["view"] is None
        assert cid.request(type="start", table=table)["type"] == "ok"
        assert cid.wait(type="table_event", kind="started")["info"]["status"] == "playing"


def test_action_whose_append_fails_gets_an_error_and_the_match_is_unchanged(
        server: ThreadServer, monkeypatch: pytest.MonkeyPatch) -> None:
    with clients(server.url, "Dan", "Eve") as (dan, eve):
        table = dan.request(type="create", game="bura", options={"players": 2})["table"]
        dan.request(type="sit", table=table, seat=0)
        eve.request(type="sit", table=table, seat=1)
        dan.request(type="start", table=table)
        update = dan.wait(lambda m: m["type"] == "update" and 0 in m["to_act"], table=table)
        action = update["legal"][0]
        dan.drain()
        fail_once(monkeypatch, "append_action")
        error = dan.request(type="act", table=table, action=action)
        assert (error["type"], error["code"]) == ("error", "internal")
        assert not [m for m in dan.drain() if m["type"] == "event"]
        assert dan.request(type="watch", table=table)["view"] == update["view"]
        assert dan.request(type="act", table=table, action=action)["type"] == "ok"
        assert dan.wait(type="event", table=table)["event"]["seat"] == 0


def test_a_match_whose_last_logged_action_ended_it_is_finished_at_restart(tmp_path: Path) -> None:
    """The owner wrote the match's last action and died before writing the end: the next start ends it."""
    import random

    from trickroom.games import load_game
    from trickroom.server.store import TableRow

    db = tmp_path / "ended.sqlite3"
    game = load_game("bura", players=2, scoring="points", hand_limit=1)
    match = game.new_match(seed=5)
    rng = random.Random(5)
    while not match.is_over:
        seat = match.to_act[0]
        legal = match.legal_actions(seat)
        match.apply(seat, rng.choice([a for a in legal if a != "claim"] or legal))

    async def write_log() -> int:
        store = Store(f"sqlite:///{db}")
        await store.migrate()
        number = await store.create_table(TableRow(
            game="bura", options=dict(game.options), settings={"name": "Ended"}, seats=[{"bot": "random"}] * 2,
            host={"id": "g1", "name": "Host", "guest": True}, status="playing", seed=5, first_event_seq=2))
        for index, (seat, action) in enumerate(match.actions, start=1):
            await store.append_action(number, index, seat, action, 100 + index, "bot:random")
        await store.close()
        return number

    number = asyncio.run(write_log())
    room = ThreadServer(db=f"sqlite:///{db}", bot_workers=0).start()
    try:
        with clients(room.url, "Reader") as (reader,):
            history = reader.request(type="history", table=f"t{number}")
            assert history["type"] == "history", history
            assert history["standings"] == match.standings
            assert len(history["actions"]) == len(match.actions)
    finally:
        room.stop()




def test_results_a_node_could_not_record_are_recorded_once_at_the_next_start(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The match's end is written and the node stops before its results land (here every try to record them
    fails, as if the database refused or the node died): the next start records them, and the one after does not
    record them again."""
    db = f"sqlite:///{tmp_path / 'results.sqlite3'}"
    original = Store.record_finished

    async def refused(self: Store, *args: Any, **kwargs: Any) -> bool:
        raise RuntimeError("database is locked")

    monkeypatch.setattr(Store, "record_finished", refused)
    room = ThreadServer(db=db, bot_workers=0).start()
    try:
        account, guest = Client(room.url), Client(room.url)
        account.request(type="register", username="olga", password="secret-55")
        guest.login_guest("Gleb")
        assert play_rated_bura_match(account, guest)["games"] == {}  # the end was heard; no result landed
        account.close()
        guest.close()
    finally:
        room.stop()
    monkeypatch.setattr(Store, "record_finished", original)
    for _ in range(2):  # the first start records the match, the second finds nothing to record
        room = ThreadServer(db=db, bot_workers=0).start()
        try:
            account = Client(room.url)
            account.request(type="login", username="olga", password="secret-55")
            figures = account.request(type="stats")["games"]["bura"]
            assert figures["played"] == 1, figures
            account.close()
        finally:
            room.stop()
