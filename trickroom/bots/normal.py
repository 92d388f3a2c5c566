"""The ``normal`` level: good heuristics, exact memory, no search. See docs/bots.md."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from trickroom.bots.levels import game_module
from trickroom.games import Event, Game


class NormalBot:
    level = "normal"

    def __init__(self, seed: int | None = None, budget: float | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game, seat: int, view: dict[str, Any], events: Sequence[Event],
               legal: Sequence[str]) -> str:
        action: str = game_module(game.name).normal_action(game, seat, view, events, legal, self.rng)
        return action

    def off_turn(self, game: Game, seat: int, view: dict[str, Any], events: Sequence[Event],
                 legal: Sequence[str]) -> str | None:
        module = game_module(game.name)
        if not hasattr(module, "normal_off_turn"):
            return None
        action: str | None = module.normal_off_turn(game, seat, view, events, legal, self.rng)
        return action
