"""Table leases renewed from a thread of their own (several nodes only).

A node whose event loop is busy for seconds (a burst of load on a small machine) would miss renewals made from
it, and its tables would move to other nodes in the middle of play. This keeper renews the node's leases every
third of their length from a thread with its own event loop and database connection, which a busy main loop does
not hold up. The tables whose lease it could not renew (another node took them, or they closed meanwhile) it keeps
for the heartbeat (``unrenewed``), which checks them and drops those another node took. While the keeper renews,
the heartbeat renews nothing itself: renewing every lease from both, each second, was about 4% of three nodes'
CPU per action (docs/performance.md). It renews all of them again when the keeper has fallen silent
(``renewing``).

It renews only while the main loop shows it is alive (``alive()``, called at every heartbeat): a loop that has
said nothing for ``stall_limit`` seconds is hung, and its tables had better move, as after a crash. It renews
only leases this node holds (``Store.renew_leases`` checks the owner), so it can never take a table back from
the node that took it over.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable

from trickroom.server.store import Store

log = logging.getLogger(__name__)


class LeaseKeeper:
    def __init__(self, db_url: str, schema: str | None, node_id: str, lease_seconds: float,
                 stall_limit: float = 15.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.db_url = db_url
        self.schema = schema
        self.node_id = node_id
        self.lease_seconds = lease_seconds
        self.stall_limit = stall_limit
        self.clock = clock
        self._tables: frozenset[int] = frozenset()
        self._last_alive = clock()
        self._renewed_at: float | None = None  # when the last round renewed (clock)
        self._unrenewed: set[int] = set()  # tables a round asked for and did not get, until the loop takes them
        self._unrenewed_lock = threading.Lock()  # (the thread adds to them, the loop takes them)
        self.longest_gap = 0.0  # the longest time between two renewals so far (seconds)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="lease-keeper")

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop renewing (a node handing its tables over must not keep them)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=self.lease_seconds)

    def alive(self, tables: set[int]) -> None:
        """The main loop is alive and owns ``tables`` (called from the loop at every heartbeat)."""
        self._tables = frozenset(tables)
        self._last_alive = self.clock()

    def owns(self, table: int) -> None:
        """The loop has just claimed ``table`` (made it or taken it over): renew it from the next round, not only
        after the next heartbeat (a busy loop's heartbeat can come after the new lease has run out)."""
        self._tables = self._tables | {table}

    def lets_go(self, table: int) -> None:
        """The loop no longer owns ``table`` (closed, handed over, taken by another node)."""
        self._tables = self._tables - {table}

    async def renew(self, store: Store) -> bool:
        """One round: renew the leases of the tables the loop last said it owns, unless the loop has said
        nothing for ``stall_limit`` seconds (it is hung: the leases had better run out). True if it renewed."""
        if self.clock() - self._last_alive > self.stall_limit or not self._tables:
            self._renewed_at = None
            return False
        asked = sorted(self._tables)
        kept = await store.renew_leases(self.node_id, asked, self.lease_seconds)
        if len(kept) < len(asked):
            with self._unrenewed_lock:
                self._unrenewed.update(number for number in asked if number not in kept)
        now = self.clock()
        if self._renewed_at is not None:
            gap = now - self._renewed_at
            self.longest_gap = max(self.longest_gap, gap)
            if gap > self.lease_seconds * 0.8:  # another second late and the leases would have run out
                log.warning("leases renewed %.1f s after the last renewal (lease %.1f s)", gap, self.lease_seconds)
        self._renewed_at = now
        return True

    def renewing(self) -> bool:
        """Whether the keeper renewed within the last two thirds of a lease (two of its rounds): while it does,
        the heartbeat leaves the renewing to it."""
        renewed = self._renewed_at
        return renewed is not None and self.clock() - renewed <= self.lease_seconds * 2 / 3

    def unrenewed(self) -> set[int]:
        """The tables whose lease a round could not renew since the last call (the loop checks them)."""
        with self._unrenewed_lock:
            found, self._unrenewed = self._unrenewed, set()
        return found

    def _run(self) -> None:
        asyncio.run(self._renew_until_stopped())

    async def _renew_until_stopped(self) -> None:
        store = Store(self.db_url, self.schema)
        try:
            while not self._stop.wait(self.lease_seconds / 3):
                try:
                    await self.renew(store)
                except Exception:  # the database hiccuped: the next round (or the heartbeat) tries again
                    log.warning("lease renewal from the keeper thread failed", exc_info=True)
        finally:
            await store.engine.dispose()
