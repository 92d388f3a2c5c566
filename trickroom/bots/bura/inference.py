"""Reading the other players' hands from how they played, for the hard level's sampled worlds.

Bura has no duty to follow suit, so no play proves a void; but a player's choices still say a lot. A player who
led a lone seven rarely held a safe ace of trumps; one who threw away a ten instead of taking the trick probably
could not take it; one who did not announce held no combination. The hard level weighs each sampled world by
how well it explains what the others did, assuming they play like the normal level (the heuristic of
``rollout.heuristic_choice``): a world in which a player's recorded move is not the heuristic's choice counts
MISMATCH times as much as one that explains it (a rejection-sampling weight). The weight is soft because people
and other bots do not play like the heuristic; it only shifts the odds towards worlds that fit.

Only a player's recent moves are read back (``RECENT``): the further back, the more unknown cards drawn since.
To rebuild a player's hand at an earlier move, the walk goes back through the events from the sampled hand:
each card drawn since that move (unseen, so which one is unknown) is a random card of the rebuilt hand, and
each card played since comes back into it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from trickroom.bots.bura.memory import card_points
from trickroom.bots.bura.rollout import (
    NORMAL,
    card_mask,
    combination,
    follow_options,
    heuristic_choice,
    lead_options,
    sorted_cards,
)
from trickroom.bots.history import current_hand_events
from trickroom.games import Event

MISMATCH = 0.15  # relative weight of a world in which a recorded move is not the heuristic's choice
RECENT = 3  # moves read back per player
TRIES = 12  # worlds drawn at most for one accepted world
BRANCHES = 64  # choices of drawn cards tried at most for one world (they multiply with every draw read back)


@dataclass
class Move:
    """A play by another seat, with what that seat knew when it chose it."""

    seat: int
    cards: list[str]
    trick: list[tuple[int, list[str]]]  # the current trick before the play
    points: list[int]  # card points taken before the play
    played_mask: int  # cards gone before the play (earlier tricks and this one)
    trump_card_hidden: bool  # the face-up trump card still lies under the stock
    later: int  # players still to play to this trick after it
    decided: bool  # a real choice (not an announced combination played at once)


@dataclass
class Step:
    """One event of the backward walk: a card drawn, a play, or an announcement phase passed in silence."""

    kind: str  # "draw", "play" or "silent"
    seat: int
    card: str | None = None  # a drawn card everybody saw (the face-up trump card)
    move: Move | None = None


@dataclass
class Inference:
    seat: int
    trump: str
    moscow: bool
    trump_card: str | None = None
    steps: list[Step] = field(default_factory=list)
    # Scratch for the world being weighed, reset by ``weight``: choices of drawn cards tried, and the rebuilt
    # states already weighed (different orderings of the same draws lead to them again).
    branches: int = field(default=0, init=False, repr=False)
    seen: dict[Any, float] = field(default_factory=dict, init=False, repr=False)

    def weight(self, hands: dict[int, list[str]]) -> float:
        """How well the sampled ``hands`` (other seat -> cards now) explain the recorded moves: 1.0, or MISMATCH
        for each move that the heuristic would not have made, under the likeliest choice of which cards in the
        rebuilt hands were drawn since (each choice is tried; the first that explains everything ends it)."""
        rebuilt = {seat: list(cards) for seat, cards in hands.items()}
        self.branches = 0
        self.seen = {}
        return self._walk(len(self.steps) - 1, rebuilt, dict.fromkeys(rebuilt, 0))

    def _walk(self, index: int, hands: dict[int, list[str]], counted: dict[int, int]) -> float:
        weight = 1.0
        while index >= 0:
            step = self.steps[index]
            index -= 1
            hand = hands.get(step.seat)
            if hand is None or counted[step.seat] >= RECENT:
                continue
            if step.kind == "draw":
                if step.card is not None and step.card in hand:
                    hand.remove(step.card)
                    continue
                if len(set(hand)) <= 1:
                    if hand:
                        hand.pop()
                    continue
                best = 0.0
                for card in sorted(set(hand)):  # which card came from this draw: try each, within BRANCHES
                    branch = {seat: list(cards) for seat, cards in hands.items()}
                    branch[step.seat].remove(card)
                    key = (index, tuple(sorted((s, tuple(sorted(h))) for s, h in branch.items())),
                           tuple(sorted(counted.items())))
                    if key not in self.seen:
                        self.branches += 1
                        self.seen[key] = self._walk(index, branch, dict(counted))
                    best = max(best, self.seen[key])
                    if best >= 1.0 or self.branches >= BRANCHES:
                        break
                return weight * best
            if step.kind == "silent":
                if len(hand) == 3 and combination(sorted_cards(hand), self.trump, self.moscow) is not None:
                    weight *= MISMATCH
            elif step.move is not None:
                move = step.move
                hand.extend(move.cards)
                if move.decided:
                    weight *= self.likelihood(move, hand)
                counted[step.seat] += 1
        return weight

    def likelihood(self, move: Move, hand: list[str]) -> float:
        """What a world in which the player held ``hand`` counts for ``move``: 1.0 if the heuristic, holding it,
        would have played ``move.cards`` (or had no choice), else MISMATCH. (bench/bura_reading.py puts a model
        fitted to another player's plays here.)"""
        return 1.0 if self._explains(move, hand) else MISMATCH

    def _explains(self, move: Move, hand: list[str]) -> bool:
        """Would the heuristic, holding ``hand``, have played ``move.cards``?"""
        ordered = tuple(sorted_cards(hand))
        options = follow_options(ordered, len(move.trick[0][1])) if move.trick else lead_options(ordered)
        if len(options) <= 1:
            return True
        unseen = ~move.played_mask & ~card_mask(hand) & ((1 << 36) - 1)
        if move.trump_card_hidden and self.trump_card is not None:
            unseen &= ~card_mask([self.trump_card])
        chosen = heuristic_choice(options, move.trick, move.seat, move.points, unseen, self.trump, move.later,
                                  NORMAL)
        return list(options[chosen]) == sorted_cards(move.cards)


def read_moves(view: dict[str, Any], events: Sequence[Event]) -> Inference:
    """The public record of the current hand, ready for ``Inference.weight``."""
    seat = int(view["seat"])
    players = int(view["players"])
    in_hand = sum(1 for flag in view["in_hand"] if flag)
    inference = Inference(seat, view["trump"], view["options"].get("preset") == "moscow")
    points = [0] * players
    played = 0
    trick: list[tuple[int, list[str]]] = []
    trump_card: str | None = None
    trump_card_hidden = True
    announced_trick = False
    phase_seats: list[int] = []
    for event in current_hand_events(events):
        kind = event.get("type")
        if kind == "deal":
            trump_card = event.get("trump_card")
        elif kind == "announce_phase":
            phase_seats = [int(s) for s in event.get("seats", [])]
        elif kind == "announced":
            announcers = {int(a["seat"]) for a in event.get("announcements", []) if "seat" in a}
            announced_trick = bool(event.get("announcements"))
            for other in phase_seats:
                if other != seat and other not in announcers:
                    inference.steps.append(Step("silent", other))
        elif kind == "play":
            player = int(event["seat"])
            cards = list(event["cards"])
            if player != seat:
                move = Move(player, cards, [(s, list(c)) for s, c in trick], points[:], played, trump_card_hidden,
                            in_hand - len(trick) - 1, not announced_trick)
                inference.steps.append(Step("play", player, move=move))
            trick.append((player, cards))
            played |= card_mask(cards)
        elif kind == "trick":
            points[int(event["winner"])] += sum(card_points(c) for c in event["cards"])
            trick = []
            announced_trick = False
        elif kind == "draw":
            player = int(event["seat"])
            if event.get("face_up"):
                trump_card_hidden = False
            if player != seat:
                inference.steps.append(Step("draw", player, card=event.get("card")))
    inference.trump_card = trump_card
    return inference
