"""A colluding Bura bot, for measuring the collusion flags (docs/moderation.md): never a level players can choose.

A feeder plays like the ``normal`` level, except that it works for one other seat, its *partner*: whenever the
partner is winning the trick when the feeder plays to it, the feeder never takes the trick from it and throws in
the richest cards it can without beating the partner's play. ``share`` is the fraction of such chances it takes
(a careful cheat feeds only now and then); the draw is seeded, so a feeder is reproducible. It claims exactly
like ``normal``: a true claim of its own wins the pot for the pair too.

It is not in :data:`trickroom.bots.LEVELS`: the arena's collusion trial (``trickroom arena --collusion``) makes
feeders itself, with their partner's seat.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from trickroom.bots.bura import claim_now, heuristic_action, normal_off_turn
from trickroom.bots.bura.memory import card_points, remember
from trickroom.bots.bura.policy import keep_value, play_beats
from trickroom.games import Event, Game
from trickroom.games.bura.tables import CLAIM


def winning_play(trick: Sequence[dict[str, Any]], trump: str) -> tuple[int, list[str]] | None:
    """The seat and cards that win the trick so far (B5: the last play that beat the one winning then)."""
    if not trick:
        return None
    seat, cards = int(trick[0]["seat"]), list(trick[0]["cards"])
    for entry in trick[1:]:
        if play_beats(entry["cards"], cards, trump):
            seat, cards = int(entry["seat"]), list(entry["cards"])
    return seat, cards


class FeederBot:
    level = "feeder"

    def __init__(self, partner: int, seed: int | None = None, share: float = 1.0) -> None:
        self.partner = partner
        self.share = share
        self.rng = random.Random(seed)

    def choose(self, game: Game, seat: int, view: dict[str, Any], events: Sequence[Event],
               legal: Sequence[str]) -> str:
        memory = remember(view, events)
        if claim_now(memory, legal):
            return CLAIM
        actions = [a for a in legal if a != CLAIM]
        fed = self.feed(view, actions)
        return fed if fed is not None else heuristic_action(view, actions, memory.points, memory.unseen)

    def feed(self, view: dict[str, Any], actions: Sequence[str]) -> str | None:
        """The richest play that leaves the trick to the partner, when the partner is winning it (and this is
        one of the chances the feeder takes); None otherwise."""
        winning = winning_play(view["trick"], view["trump"])
        if winning is None or winning[0] != self.partner or self.rng.random() >= self.share:
            return None
        trump = view["trump"]
        gifts = [a for a in actions if a.startswith("play ") and not play_beats(a.split()[1:], winning[1], trump)]
        if not gifts:
            return None

        def richness(play: str) -> tuple[int, float]:
            cards = play.split()[1:]
            return sum(card_points(c) for c in cards), -sum(keep_value(c, trump) for c in cards)

        return max(gifts, key=richness)

    def off_turn(self, game: Game, seat: int, view: dict[str, Any], events: Sequence[Event],
                 legal: Sequence[str]) -> str | None:
        return normal_off_turn(game, seat, view, events, legal, self.rng)
