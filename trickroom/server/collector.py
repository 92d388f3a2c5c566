"""When the cycle collector runs in ``trickroom serve``: young collections on a clock, full ones rarely.

Python starts a young collection when the objects made since the last one outnumber those freed by a threshold.
In a room, old objects die about as fast as new ones are made (each table step replaces its state, each frame its
predecessor), so that count stalls: at 10,000 people young collections came every 2 to 26 s and walked 170,000 to
510,000 live objects each, stopping the room for 50 to 350 ms, and middle ones for 300 to 590 ms
(docs/performance.md, "Young collections on a clock, the tables' saves past SQLAlchemy"). On a clock, a young
collection walks only what the last tick made and left alive: every 0.1 s, 1.3 ms at the median and 13 ms at most
at 6000 people.

Automatic collection is then off, so nothing else collects the older generations; but what a young collection
leaves alive does not become cyclic garbage later. After 110 s of a 3000-person evening a full collection found
1,598 unreachable objects, every one of them part of a closed connection, and none at all once a closed connection
let go of its cycles (``wire.py``). A full collection every ``full_every`` seconds (a day by default) is the net
under a path not measured; it stops the room for about 0.5 s at 3000 people and 1.6 s at 10,000, and is logged.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger("trickroom.main")


class Cancellable(Protocol):
    def cancel(self) -> None: ...


CallLater = Callable[[float, Callable[[], None]], Cancellable]  # the event loop's call_later


class CollectionClock:
    """Young collections every ``young_every`` seconds and a full one every ``full_every`` (0: never), on the event
    loop. ``clock``, ``call_later`` and ``collect`` are the real ones unless a test gives its own."""

    def __init__(self, young_every: float, full_every: float, clock: Callable[[], float] = time.monotonic,
                 call_later: CallLater | None = None, collect: Callable[[int], int] = gc.collect) -> None:
        self.young_every, self.full_every = young_every, full_every
        self.clock, self.call_later, self.collect = clock, call_later, collect
        self.last_full = 0.0
        self.timer: Cancellable | None = None

    def start(self) -> None:
        if self.call_later is None:
            self.call_later = asyncio.get_running_loop().call_later
        gc.disable()
        self.last_full = self.clock()
        self.timer = self.call_later(self.young_every, self.tick)

    def tick(self) -> None:
        assert self.call_later is not None
        now = self.clock()
        if self.full_every > 0 and now - self.last_full >= self.full_every:
            found = self.collect(2)
            self.last_full = self.clock()
            log.info("full collection: %d unreachable objects, %.0f ms", found, 1000 * (self.last_full - now))
        else:
            self.collect(0)
        self.timer = self.call_later(self.young_every, self.tick)

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        gc.enable()
