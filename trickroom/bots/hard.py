"""The ``hard`` level: search over sampled worlds. Bura: an information-set tree search on a light simulator
(trickroom.bots.bura.tree); Mpourloto: flat determinized Monte Carlo search over the engine
(trickroom.bots.search).

Thinking time: ``budget`` seconds per decision (default: HARD_BUDGET, the server's figure). A decision with a
single legal action (a claim aside) is answered at once. For reproducible tests, set ``max_worlds`` (a cap on
sampled worlds; in Bura, on tree iterations, each in a new world) and a budget large enough never to be
reached. Claims in Bura are decided by exact counting, never by search.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from trickroom.bots import HARD_BUDGET
from trickroom.bots.levels import game_module
from trickroom.bots.normal import NormalBot
from trickroom.bots.search import Budget, SearchResult
from trickroom.games import Event, Game


class HardBot(NormalBot):
    """Searches its own moves; claims off turn exactly like ``normal`` (inherited ``off_turn``)."""

    level = "hard"

    def __init__(self, seed: int | None = None, budget: float | None = None, max_worlds: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.budget = budget if budget is not None else HARD_BUDGET
        self.max_worlds = max_worlds
        self.last_search: SearchResult | None = None  # for benchmarks and curious tests

    def choose(self, game: Game, seat: int, view: dict[str, Any], events: Sequence[Event],
               legal: Sequence[str]) -> str:
        module = game_module(game.name)
        choices = [a for a in legal if a != "claim"]
        if len(choices) <= 1 or len(legal) <= 1:
            # A claim (decided by counting) or the only move: no thinking needed.
            action: str = module.normal_action(game, seat, view, events, legal, self.rng)
            self.last_search = None
            return action
        budget = Budget(self.budget, self.max_worlds)
        result: SearchResult = module.hard_search(game, seat, view, events, legal, self.rng, budget)
        self.last_search = result
        return result.action
