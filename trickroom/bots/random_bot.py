"""The ``random`` level: a uniformly random legal action. For tests and as a floor for the arena."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from trickroom.games import Event, Game


class RandomBot:
    level = "random"

    def __init__(self, seed: int | None = None, budget: float | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game, seat: int, view: dict[str, Any], events: Sequence[Event],
               legal: Sequence[str]) -> str:
        if not legal:
            raise ValueError(f"seat {seat} has no legal action")
        # Off-turn claims are always legal in Bura; a random bot that claimed at random would end most hands
        # at once, so it claims only when nothing else is possible.
        choices = [a for a in legal if a != "claim"] or list(legal)
        return self.rng.choice(choices)
