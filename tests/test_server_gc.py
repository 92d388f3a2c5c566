"""``trickroom serve`` tunes Python's garbage collector for a room of long-lived objects (docs/performance.md):
young collections wait for many more new objects, and what startup made is frozen out of full collections."""

from __future__ import annotations

import gc

from trickroom.server.main import GC_THRESHOLDS, tune_garbage_collector


def test_the_room_collects_young_objects_less_often_and_freezes_what_startup_made() -> None:
    before = gc.get_threshold()
    try:
        tune_garbage_collector()
        assert gc.get_threshold() == GC_THRESHOLDS and GC_THRESHOLDS[0] > before[0]
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
