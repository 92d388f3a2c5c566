"""Bot decisions without holding up anyone else.

The levels that do not search (random, easy, normal: under half a millisecond a decision at the 95th percentile,
arena figures in docs/bots.md) think on the event loop itself, as do every level's off-turn answers (counting, not
search): handing such a decision to a thread cost more than the decision, and the thread needed the interpreter
lock that the loop was waiting for anyway (docs/performance.md). The searching level (hard:
``Settings.bot_budget`` seconds a decision, by default the level's own HARD_BUDGET, 0.9 s) thinks in a pool of
worker processes, ``Settings.bot_workers`` of them (default: one per core; 0: threads in the server process, for
tests), so that the event loop stays free: a person's action never waits behind a bot's search, and the number
of decisions the room makes per second is a setting, not the size of the default thread pool. A decision whose
table moved on meanwhile is dropped: the table checks under its lock that the match is still where the bot saw
it, and a computation still running in a worker when its task is cancelled (the person took the seat back, the
table stopped) finishes and is thrown away.

The same workers answer hints and reviews (``advise``: the hard level's choice with its estimate of every
alternative, trickroom/bots/advice.py). ``busy`` is the room's measure of load for them: the searches in the
workers or waiting for one (hard bots' decisions, hints, review decisions) against ``queue_limit`` (by default
twice the workers). A hint is refused while the room is busy; a review waits (``quiet``) until the searches in
flight leave a worker free, so that the table's bots and hints go first.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from trickroom.bots import make_bot, off_turn_action
from trickroom.bots.advice import advise
from trickroom.bots.search import Budget
from trickroom.games import Event, load_game

INLINE_LEVELS = frozenset({"random", "easy", "normal"})  # no search: cheaper than sending them anywhere


def decide(level: str, seed: int, budget: float | None, game_name: str, options: dict[str, Any], seat: int,
           view: dict[str, Any], events: Sequence[Event], legal: Sequence[str]) -> str:
    """One bot decision from plain data (picklable, for worker processes)."""
    game = load_game(game_name, **options)
    bot = make_bot(level, seed=seed, budget=budget)
    return bot.choose(game, seat, view, events, legal)


def decide_off_turn(level: str, seed: int, budget: float | None, game_name: str, options: dict[str, Any],
                    seat: int, view: dict[str, Any], events: Sequence[Event], legal: Sequence[str]) -> str | None:
    """What a bot does when the game is not waiting for its seat (a Bura claim by exact counting), or None."""
    game = load_game(game_name, **options)
    return off_turn_action(make_bot(level, seed=seed, budget=budget), game, seat, view, events, legal)


def advice_for(game_name: str, options: dict[str, Any], seat: int, view: dict[str, Any], events: Sequence[Event],
               legal: Sequence[str], seed: int, budget: float, max_worlds: int | None) -> dict[str, Any]:
    """The hard level's advice from plain data (picklable, for worker processes), as ``Advice.to_json()``."""
    game = load_game(game_name, **options)
    return advise(game, seat, view, events, legal, seed, Budget(budget, max_worlds)).to_json()


class BotRunner:
    def __init__(self, workers: int, budget: float | None, queue_limit: int | None = None) -> None:
        self.workers = workers
        self.budget = budget
        self.queue_limit = queue_limit if queue_limit is not None else 2 * max(1, workers)
        self.in_flight = 0  # searches running in the workers or waiting for one
        self._pool: Executor | None = None
        self._settled: asyncio.Condition | None = None  # notified when a search ends

    def pool(self) -> Executor:
        if self._pool is None:
            # spawn, not fork: the server process has threads (database drivers, uvicorn).
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))
        return self._pool

    async def choose(self, level: str, seed: int, game_name: str, options: dict[str, Any], seat: int,
                     view: dict[str, Any], events: Sequence[Event], legal: Sequence[str]) -> str:
        args = (level, seed, self.budget, game_name, options, seat, view, list(events), list(legal))
        if level in INLINE_LEVELS:
            return decide(*args)
        choice: str = await self.search(decide, *args)
        return choice

    async def advise(self, game_name: str, options: dict[str, Any], seat: int, view: dict[str, Any],
                     events: Sequence[Event], legal: Sequence[str], seed: int, budget: float,
                     max_worlds: int | None = None) -> dict[str, Any]:
        """The hard level's advice at one decision (``Advice.to_json()``), searched for ``budget`` seconds."""
        advice: dict[str, Any] = await self.search(advice_for, game_name, options, seat, view, list(events),
                                                   list(legal), seed, budget, max_worlds)
        return advice

    async def search(self, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` in a worker process (threads when there are no workers), counted in flight."""
        self.in_flight += 1
        try:
            if self.workers <= 0:
                return await asyncio.to_thread(function, *args)
            return await asyncio.get_running_loop().run_in_executor(self.pool(), function, *args)
        finally:
            self.in_flight -= 1
            settled = self.settled()
            async with settled:
                settled.notify_all()

    def busy(self) -> bool:
        """Too many searches are running or waiting for a worker to take a hint now."""
        return self.in_flight >= self.queue_limit

    def settled(self) -> asyncio.Condition:
        if self._settled is None:
            self._settled = asyncio.Condition()
        return self._settled

    async def quiet(self) -> None:
        """Until the searches in flight leave a worker free (at once if they do)."""
        settled = self.settled()
        async with settled:
            await settled.wait_for(lambda: self.in_flight < max(1, self.workers))

    async def off_turn(self, level: str, seed: int, game_name: str, options: dict[str, Any], seat: int,
                       view: dict[str, Any], events: Sequence[Event], legal: Sequence[str]) -> str | None:
        """The off-turn answer, on the loop: it is counting (every level), not search."""
        return decide_off_turn(level, seed, self.budget, game_name, options, seat, view, list(events), list(legal))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
