"""The waiting line: newcomers come in only as fast as the node can serve them, and play goes first.

A sign-in costs the node a good deal (the name and ban checks, a session, the lobby's snapshot, the arrival told to
the lobby), and a newcomer starts playing at once. When thousands arrive within a minute, taking them all in as
fast as they come fills the event loop, and everyone already at a table waits for every move
(docs/performance.md, *The waiting line*). So each node keeps a line:

- **Who waits**: a login with a guest nickname or an account's name and password, and a new account. A login with
  a session token (someone coming back after a drop, or moving to their table's node) never waits: that person
  is part of the room already, and may have a seat that waits for them.
- **How fast the line moves** (:class:`WaitingLine`, pure): every ``TICK_SECONDS`` the node measures how late its
  own timer fired (the event loop's lag), smoothed over the last few ticks (``SMOOTHING``: one pause of the
  collector does not close the line, a loop that stays behind does). While the lag is within ``line_lag_ms``, the
  number let in per tick grows by one, up to the most that ``line_rate`` allows; each tick beyond it halves that
  number, down to none. And at most ``line_in_flight`` newcomers' sign-ins are under way at once: a burst of
  sign-ins held the database's connections that the moves of people playing needed (on PostgreSQL). So a node that
  keeps up lets everyone straight in, and a full one lets nobody in until it catches up.
- **What a waiting person hears**: their number in line when they join, and again every
  ``ANNOUNCE_SECONDS`` if it has changed (a ``line`` message, docs/protocol.md). Nothing else is asked of them:
  their login is answered (``welcome``, or a refusal) when their turn comes, and a connection that closes leaves
  the line. While waiting they are not closed for not being logged in (``login_timeout``).

``line_lag_ms`` 0 turns the line off: every login is answered at once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from trickroom.narration import translate
from trickroom.server import metrics
from trickroom.server.messages import LineMessage

if TYPE_CHECKING:
    from trickroom.server.connection import Connection
    from trickroom.server.protocol import Login, Register

log = logging.getLogger("trickroom.line")
TICK_SECONDS = 0.05  # how often the line moves, and the event loop's lag is measured
ANNOUNCE_SECONDS = 30.0  # how often a waiting person hears their number again (if it changed)
SMOOTHING = 0.2  # each tick's lag counts this much in the lag the line follows (about the last five ticks)


class WaitingLine:
    """The line's rules, with no clock and no I/O: who passes now, who waits, and who comes in at each tick.

    ``lag_limit`` is in seconds (0: no line, everyone passes); ``most_per_tick`` is the most let in per tick;
    ``most_in_flight`` the most sign-ins under way (let in, their login not yet answered: ``done``)."""

    def __init__(self, lag_limit: float, most_per_tick: int, most_in_flight: int = 8) -> None:
        self.lag_limit = lag_limit
        self.most_per_tick = max(1, most_per_tick)
        self.most_in_flight = max(1, most_in_flight)
        self.in_flight = 0
        self.per_tick = self.most_per_tick  # let in per tick now: one more after each tick on time, halved when late
        self.lag = 0.0  # the event loop's lag, smoothed (seconds)
        self.left_this_tick = self.per_tick  # places left in this tick for a newcomer who finds no line
        self.waiting: dict[str, None] = {}  # keys (connection ids) in order of arrival
        self.passes: set[str] = set()  # let in from the line, their login not yet answered again

    @property
    def open(self) -> bool:
        return self.lag_limit <= 0

    def may_enter(self, key: str) -> bool:
        """Whether the login of ``key`` is answered now: its turn has come, or nobody waits and this tick has
        room. A key that waits keeps its place (a second login while waiting does not jump the line)."""
        if self.open:
            return True
        if key in self.passes:
            self.passes.discard(key)  # (counted in flight when it was let in)
            return True
        if self.waiting or self.left_this_tick <= 0 or self.in_flight >= self.most_in_flight:
            return False
        self.left_this_tick -= 1
        self.in_flight += 1
        return True

    def done(self) -> None:
        """A newcomer's sign-in is over (welcome or refusal)."""
        if self.open:
            return
        self.in_flight = max(0, self.in_flight - 1)

    def join(self, key: str) -> int:
        """``key`` waits (at the end, or where it was); its number in line."""
        if key in self.waiting:
            return self.position(key)
        self.waiting[key] = None
        return len(self.waiting)  # (found at once: thousands joining one by one would each walk the line)

    def leave(self, key: str) -> None:
        self.waiting.pop(key, None)
        if key in self.passes:  # let in, but gone before its login was answered
            self.passes.discard(key)
            self.done()

    def position(self, key: str) -> int:
        """1 for the first in line; 0 for a key not waiting."""
        for number, waiting in enumerate(self.waiting, 1):
            if waiting == key:
                return number
        return 0

    def tick(self, lag: float) -> list[str]:
        """A tick, ``lag`` seconds late: how many may come in per tick from now, and who comes in now (in order)."""
        if self.open:
            return []
        self.lag += SMOOTHING * (lag - self.lag)
        if self.lag > self.lag_limit:
            self.per_tick //= 2
        else:
            self.per_tick = min(self.most_per_tick, self.per_tick + 1)
        self.left_this_tick = self.per_tick
        return self.let_in()

    def let_in(self) -> list[str]:
        """Who comes in now, first in line first, while this tick has places and sign-ins may start."""
        admitted = []
        while self.waiting and self.left_this_tick > 0 and self.in_flight < self.most_in_flight:
            key = next(iter(self.waiting))
            del self.waiting[key]
            self.passes.add(key)
            admitted.append(key)
            self.left_this_tick -= 1
            self.in_flight += 1
        return admitted


Answer = Callable[["Connection", "Login | Register", Any], Coroutine[Any, Any, None]]


class LineKeeper:
    """The line on a node: the ticks on the event loop, the waiting connections with their logins, what they
    hear. ``answer`` answers a login whose turn has come (``Room.answer``: refusals go back on the connection);
    ``spawn`` runs it in the background. ``clock`` (``time.monotonic``, the clock of ``login_timeout``) and the
    ticks (``tick``, from :meth:`run` on the event loop) may be a test's own."""

    def __init__(self, lag_limit_ms: float, rate: float, answer: Answer,
                 spawn: Callable[[Coroutine[Any, Any, None]], None],
                 clock: Callable[[], float] = time.monotonic, in_flight: int = 8) -> None:
        self.line = WaitingLine(lag_limit_ms / 1000, round(rate * TICK_SECONDS), in_flight)
        self.answer, self.spawn, self.clock = answer, spawn, clock
        self.held: dict[str, tuple[Connection, Login | Register, int]] = {}  # key -> (conn, login, number last told)
        self.announced_at = clock()
        self.ticker: asyncio.Task[None] | None = None

    def start(self) -> None:
        if not self.line.open:
            self.ticker = asyncio.get_running_loop().create_task(self.run())

    async def stop(self) -> None:
        if self.ticker is not None:
            self.ticker.cancel()
            self.ticker = None

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + TICK_SECONDS
            await asyncio.sleep(TICK_SECONDS)
            try:
                self.tick(max(0.0, loop.time() - due))
            except Exception:  # a bug here must not stop the line for good
                log.exception("the waiting line could not move")

    def may_enter(self, conn: Connection, msg: Login | Register) -> bool:
        """Whether ``msg`` is answered now; if not, the connection waits in line and hears its number."""
        if self.line.may_enter(conn.id):
            return True
        position = self.line.join(conn.id)
        self.held[conn.id] = (conn, msg, position)
        conn.logged_out_at = None  # waiting is not idling: login_timeout does not close it
        self.tell(conn, position)
        metrics.LINE.set(len(self.line.waiting))
        return False

    def leave(self, conn: Connection) -> None:
        """The connection closed (or logged in another way): it leaves the line."""
        if self.held.pop(conn.id, None) is not None or conn.id in self.line.passes:
            self.line.leave(conn.id)
            metrics.LINE.set(len(self.line.waiting))

    def tick(self, lag: float) -> None:
        self.let_in(self.line.tick(lag))

    def done(self) -> None:
        """A newcomer's sign-in is over: the next in line may start theirs."""
        self.line.done()
        if self.held:
            self.let_in(self.line.let_in())

    def let_in(self, keys: list[str]) -> None:
        for key in keys:
            conn, msg, _ = self.held.pop(key)
            conn.logged_out_at = self.clock()
            self.spawn(self.answer(conn, msg, msg.id))
        metrics.LINE.set(len(self.line.waiting))
        if self.held and self.clock() - self.announced_at >= ANNOUNCE_SECONDS:
            self.announce()

    def announce(self) -> None:
        """Everyone whose number changed since they last heard it hears it again."""
        self.announced_at = self.clock()
        for position, key in enumerate(self.line.waiting, 1):
            conn, msg, told = self.held[key]
            if position != told:
                self.held[key] = (conn, msg, position)
                self.tell(conn, position)

    @staticmethod
    def tell(conn: Connection, position: int) -> None:
        conn.send(LineMessage(type="line", position=position,
                              text=translate("line.waiting", conn.lang, position=position)))
