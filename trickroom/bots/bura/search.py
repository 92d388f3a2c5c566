"""The hard level's search for Bura: flat determinized Monte Carlo on the light simulator (bura.rollout).

The same scheme as trickroom.bots.search.flat_search (sample a world consistent with what the seat saw, try
every candidate action in it, play each to the end of the hand with a heuristic for every seat, keep
the best mean), on the light simulator ``Playout`` instead of the engine, a playout scored by ``value``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

from trickroom.bots.bura.rollout import Playout
from trickroom.bots.search import MIN_WORLDS, ActionStats, Budget, SearchResult

Sampler = Callable[[random.Random], Playout | None]
Value = Callable[[int, list[int]], float]  # (winner, card points per seat) -> value for the searching seat


def search(actions: Sequence[str], sample: Sampler, value: Value, budget: Budget, rng: random.Random,
           fallback: str) -> SearchResult:
    """The action of ``actions`` with the best mean value over sampled worlds; ``fallback`` (the heuristic
    choice) wins ties and answers when no world was searched."""
    stats = {action: ActionStats() for action in actions}
    deadline = budget.deadline()
    worlds = 0
    failures = 0
    while True:
        if budget.max_worlds is not None and worlds >= budget.max_worlds:
            break
        if worlds >= MIN_WORLDS and time.perf_counter() >= deadline:
            break
        if budget.cancel is not None and budget.cancel.is_set():
            break
        playout = sample(rng)
        if playout is None:
            failures += 1
            if failures > 20 and worlds == 0:
                break
            continue
        worlds += 1
        for action in actions:
            winner, points = playout.run(action)
            entry = stats[action]
            entry.total += value(winner, points)
            entry.visits += 1
    if worlds == 0:
        return SearchResult(fallback, worlds, stats)
    # Every world ran every action, so all means share one denominator; the fallback wins exact ties.
    best = max(actions, key=lambda a: (stats[a].total, a == fallback))
    return SearchResult(best, worlds, stats)
