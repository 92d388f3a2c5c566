"""The ``easy`` level: simple, human-like play with human mistakes. See docs/bots.md."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from trickroom.bots.levels import game_module
from trickroom.games import Event, Game


class EasyBot:
    level = "easy"

    def __init__(self, seed: int | None = None, budget: float | None = None) -> None:
        self.seed = seed or 0
        self.rng = random.Random(seed)

    def choose(self, game: Game, seat: int, view: dict[str, Any], events: Sequence[Event],
               legal: Sequence[str]) -> str:
        action: str = game_module(game.name).easy_action(game, seat, view, events, legal, self.rng,
                                                           self.seed)
        return action

    def off_turn(self, game: Game, seat: int, view: dict[str, Any], events: Sequence[Event],
                 legal: Sequence[str]) -> str | None:
        module = game_module(game.name)
        if not hasattr(module, "easy_off_turn"):
            return None
        action: str | None = module.easy_off_turn(game, seat, view, events, legal, self.rng, self.seed)
        return action
