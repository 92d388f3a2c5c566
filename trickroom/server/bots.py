"""Bot decisions without holding up anyone else.

The levels that do not search (random, easy, normal: well under a millisecond a decision) think in a thread
of the server process. The searching level (hard: 0.7 s of thinking by default) thinks in a pool of worker
processes, ``Settings.bot_workers`` of them (default: one per core; 0: threads in the server process, for tests),
so that the event loop stays free: a person's action never waits behind a bot's search, and the number of
decisions the room makes per second is a setting, not the size of the default thread pool. A decision whose
table moved on is simply dropped: the awaiting task is cancelled, and a computation already running in a
worker finishes and is thrown away.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from functools import cache
from typing import Any

from trickroom.bots import LEVELS, make_bot, off_turn_action
from trickroom.games import Event, load_game

THREAD_LEVELS = frozenset({"random", "easy", "normal"})  # no search: cheaper than sending them to a worker


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


@cache
def acts_off_turn(level: str) -> bool:
    """Whether bots of ``level`` ever act off turn (the random bot never does: no need to ask it)."""
    if level not in LEVELS:
        return False
    try:
        return hasattr(make_bot(level, seed=0), "off_turn")
    except (ImportError, AttributeError):
        return False


class BotRunner:
    def __init__(self, workers: int, budget: float | None) -> None:
        self.workers = workers
        self.budget = budget
        self._pool: Executor | None = None

    def pool(self) -> Executor:
        if self._pool is None:
            # spawn, not fork: the server process has threads (database drivers, uvicorn).
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))
        return self._pool

    async def choose(self, level: str, seed: int, game_name: str, options: dict[str, Any], seat: int,
                     view: dict[str, Any], events: Sequence[Event], legal: Sequence[str]) -> str:
        args = (level, seed, self.budget, game_name, options, seat, view, list(events), list(legal))
        if level in THREAD_LEVELS or self.workers <= 0:
            return await asyncio.to_thread(decide, *args)
        return await asyncio.get_running_loop().run_in_executor(self.pool(), decide, *args)

    async def off_turn(self, level: str, seed: int, game_name: str, options: dict[str, Any], seat: int,
                       view: dict[str, Any], events: Sequence[Event], legal: Sequence[str]) -> str | None:
        """The off-turn answer, in a thread: it is counting (every level), not search."""
        return await asyncio.to_thread(decide_off_turn, level, seed, self.budget, game_name, options, seat, view,
                                       list(events), list(legal))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
