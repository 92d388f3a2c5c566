"""Determinized Monte Carlo search: the Mpourloto ``hard`` level's search, and the budget and result types that
Bura's tree search (trickroom.bots.bura.tree) shares.

At a decision the bot repeatedly samples a world (the hidden cards dealt consistently with what its seat has
seen, built into a real match with ``Game.determinized_match``), tries every candidate action in that world and
plays each one out to the end of the hand with a fast heuristic policy for every seat, scoring the result from
its own seat's point of view. Every candidate is tried in the same worlds (common random numbers), so the
comparison between actions is fair even with few samples; the action with the best mean wins, and the level's
heuristic choice breaks ties and is the answer when no world could be searched.

The search stops at its time budget or at an optional cap on worlds (for reproducible tests). It uses its own
seeded RNG and touches no shared state, so it can run in a worker thread or process.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

# Worlds searched before the clock is first looked at: even a tiny budget compares the actions once.
MIN_WORLDS = 1


@dataclass
class Budget:
    seconds: float
    max_worlds: int | None = None

    def deadline(self) -> float:
        return time.perf_counter() + self.seconds


@dataclass
class ActionStats:
    total: float = 0.0
    visits: int = 0

    @property
    def mean(self) -> float:
        return self.total / self.visits if self.visits else float("-inf")


@dataclass
class SearchResult:
    action: str
    worlds: int
    stats: dict[str, ActionStats] = field(default_factory=dict)


World = TypeVar("World")
Sampler = Callable[[random.Random], World | None]
Evaluate = Callable[[World, str, random.Random], float]


def sampled_worlds(sample: Sampler[World], budget: Budget, rng: random.Random) -> Iterator[World]:
    """Worlds from ``sample`` until the budget ends: its time (after MIN_WORLDS) or its cap on worlds. Gives up
    when the first 20 tries find no consistent world."""
    deadline = budget.deadline()
    worlds = failures = 0
    while True:
        if budget.max_worlds is not None and worlds >= budget.max_worlds:
            return
        if worlds >= MIN_WORLDS and time.perf_counter() >= deadline:
            return
        world = sample(rng)
        if world is None:
            failures += 1
            if failures > 20 and worlds == 0:
                return
            continue
        worlds += 1
        yield world


def flat_search(actions: Sequence[str], sample: Sampler[World], evaluate: Evaluate[World], budget: Budget,
                rng: random.Random, fallback: str, shuffle: bool = False, confidence: float = 0.0) -> SearchResult:
    """The action of ``actions`` with the best mean value over sampled worlds.

    ``sample(rng)`` returns a world at this decision (a determinized match, or a game's lighter simulator), or
    None when no consistent world was found; ``evaluate(world, action, rng)`` plays ``action`` in it to the end
    of the hand and returns the value for the searching seat, leaving ``world`` as it was. ``fallback`` (the
    heuristic choice) wins ties and answers when no world was searched. ``shuffle`` tries the actions in a new
    random order in each world.

    ``confidence`` (standard errors): the best action replaces the fallback only when its lead over the fallback,
    world by world, is at least that many standard errors of the mean lead, so that a search with few worlds (a
    loaded machine) does not trade the heuristic's choice for noise. 0 takes the best mean, however slim.
    """
    stats = {action: ActionStats() for action in actions}
    leads = {action: [0.0, 0.0] for action in actions}  # over the fallback, world by world: sum, sum of squares
    worlds = 0
    order = list(actions)
    values: dict[str, float] = {}
    for world in sampled_worlds(sample, budget, rng):
        worlds += 1
        if shuffle:
            rng.shuffle(order)
        for action in order:
            entry = stats[action]
            values[action] = value = evaluate(world, action, rng)
            entry.total += value
            entry.visits += 1
        if fallback in values:
            for action in actions:
                lead = values[action] - values[fallback]
                leads[action][0] += lead
                leads[action][1] += lead * lead
    if worlds == 0:
        return SearchResult(fallback, 0, stats)
    # Every world ran every action, so all means are over the same worlds; the fallback wins exact ties.
    best = max(actions, key=lambda a: (stats[a].mean, a == fallback))
    if confidence > 0 and best != fallback and fallback in stats and not _sure(leads[best], worlds, confidence):
        best = fallback
    return SearchResult(best, worlds, stats)


def _sure(lead: Sequence[float], worlds: int, confidence: float) -> bool:
    """Whether a mean lead (from its sum and sum of squares over ``worlds``) is ``confidence`` standard errors
    above 0. One world is never sure; a lead the same in every world is sure when it is positive."""
    if worlds < 2:
        return False
    mean = lead[0] / worlds
    variance = max(0.0, (lead[1] - worlds * mean * mean) / (worlds - 1))
    return mean > confidence * math.sqrt(variance / worlds)
