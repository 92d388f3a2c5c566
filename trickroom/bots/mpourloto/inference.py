"""Reading the other players' hands from how they played, for the Mpourloto hard level's sampled worlds.

The duty to follow, trump and beat (M8) already tells a lot, and memory.py turns it into cards a player cannot
hold. What is left is choice: a player who led a low club rather than the ace they would have cashed, or who
threw a ten to a partner, chose among legal cards, and the normal level would have chosen otherwise with some
hands. The hard level weighs each sampled world by how well it explains the others' recent free choices,
assuming they play like the normal level (policy.play): a world in which a recorded play is not the one the
normal level would have made with the rebuilt hand counts MISMATCH times as much (a rejection-sampling
weight, soft because people and other bots do not play like the heuristic).

Mpourloto deals every card before the first lead, so a hand at an earlier play is exact: the sampled hand now
and the cards that player has played since. What the player knew then (the cards gone, the trick, the voids
shown before that play) is public and is kept with each recorded play.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trickroom.bots.history import current_hand_events
from trickroom.bots.mpourloto import policy
from trickroom.bots.mpourloto.memory import plays_seen
from trickroom.bots.mpourloto.odds import Odds
from trickroom.games import Event
from trickroom.games.mpourloto import Mpourloto
from trickroom.games.mpourloto.rules import TRICKS, legal_plays, sort_hand

MISMATCH = 0.2  # relative weight of a world in which a recorded play is not the normal level's choice
RECENT = 3  # plays read back per player
TRIES = 6  # worlds drawn at most for one accepted world


@dataclass
class Play:
    """A card played by another seat, with the public position in which that seat chose it."""

    seat: int
    card: str
    since: list[str]  # the cards this seat played from this play on (this one first): its hand then, less now's
    trick: list[tuple[int, str]]  # the trick before the play
    played: list[str]  # the cards gone before the play
    sizes: list[int]  # every seat's hand size before the play
    win_power: int
    partner_winning: bool  # partner relief applies (the option is on and the partner holds the trick)
    forbidden: dict[int, set[str]]  # the voids and higher cards shown before the play (as memory.py infers them)
    odds: Odds | None = field(default=None, repr=False)  # built on first use (Inference._odds)


@dataclass
class Inference:
    trumps: str
    dealer: int
    turned: str | None
    melds: list[dict[str, Any]]
    plays: list[Play] = field(default_factory=list)

    def weight(self, hands: Mapping[int, Sequence[str]], floor: float = 0.0) -> float:
        """How well the sampled ``hands`` (other seat -> cards now) explain the recorded plays: 1.0, times
        MISMATCH for each free choice the normal level would have made differently with that hand. The reading
        stops once the weight is at or below ``floor`` (a sampler that rejects such worlds needs no more)."""
        weight = 1.0
        for play in self.plays:
            hand = sort_hand([*hands[play.seat], *play.since])
            legal = legal_plays(hand, play.trick, self.trumps, play.win_power, play.partner_winning)
            if len(legal) < 2:
                continue
            view = {"phase": "play", "seat": play.seat, "trumps": self.trumps, "hand": hand, "trick": play.trick,
                    "played": play.played, "dealer": self.dealer, "turned_card": self.turned,
                    "melds": self.melds, "hand_sizes": play.sizes}
            odds = None if self.turned in hand else self._odds(play).without(hand)
            if policy.play(view, legal, play.forbidden, odds) != play.card:
                weight *= MISMATCH
                if weight <= floor:
                    break
        return weight

    def _odds(self, play: Play) -> Odds:
        """The odds as ``play.seat`` saw them then, for any hand that does not hold the turned card."""
        if play.odds is None:
            play.odds = Odds({"seat": play.seat, "trumps": self.trumps, "hand": [], "played": play.played,
                              "dealer": self.dealer, "turned_card": self.turned, "melds": self.melds,
                              "hand_sizes": play.sizes}, play.forbidden)
        return play.odds


def read_plays(view: dict[str, Any], events: Sequence[Event]) -> Inference:
    """The others' recent plays of the current hand (RECENT each), ready for ``Inference.weight``."""
    seat = int(view["seat"])
    trumps: str = view["trumps"]
    relief = bool(view["options"].get("partner_relief", False))
    inference = Inference(trumps, int(view["dealer"]), view.get("turned_card"), view["melds"])
    played: list[str] = []
    counts = [0, 0, 0, 0]
    forbidden: dict[int, set[str]] = {s: set() for s in range(4)}
    recorded: list[Play] = []
    for seen in plays_seen(current_hand_events(events), trumps, relief):
        player, card = seen.seat, seen.card
        if player != seat:
            snapshot = {s: set(cards) for s, cards in forbidden.items() if cards}
            recorded.append(Play(player, card, [], seen.trick, list(played), [TRICKS - n for n in counts],
                                 seen.win_power, seen.partner_winning, snapshot))
        # As memory.py, for every seat (this one's plays too: the others read them).
        forbidden[player] |= seen.rules_out((c for c in Mpourloto.deck if c not in played and c != card), trumps)
        for earlier in recorded:
            if earlier.seat == player:
                earlier.since.append(card)
        played.append(card)
        counts[player] += 1
    kept: dict[int, int] = {}
    for play in reversed(recorded):
        if kept.get(play.seat, 0) < RECENT:
            kept[play.seat] = kept.get(play.seat, 0) + 1
            inference.plays.append(play)
    inference.plays.reverse()
    return inference
