"""A light simulator of Mpourloto's card play, for the hard level's playouts.

From a position in the play phase it plays the hand out with the normal level's card play for every seat, on
plain lists (no events, no views, no next deal), and scores it as the engine does (M8 to M10: the duty to
follow, trump and beat, the last trick's bonus or capo, the melds, mesa). The rules come from the game's own
tables (trickroom.games.mpourloto.rules); the scoring mirrors ``MpourlotoMatch._score_hand``, and a test plays
the same positions through the engine and checks that every one ends with the same points. Bidding, the
exchange and the melds are left to the engine: a search from those phases builds a real match.
"""

from __future__ import annotations

from typing import Any

from trickroom.bots.mpourloto import policy
from trickroom.games.mpourloto.rules import (
    CAPO_BONUS,
    LAST_TRICK_BONUS,
    POINTS,
    POWER,
    TRICKS,
    card_power,
    legal_plays,
    sort_hand,
    taking_power,
)

PLAY_PREFIX = "play "


class PlayWorld:
    """One sampled deal in the play phase: every hand, the trick so far and the points taken."""

    __slots__ = ("card_points", "dealer", "hands", "maker", "meld_points", "melds", "played", "relief", "trick",
                 "tricks_won", "trumps", "turn", "turned", "win_power", "win_seat")

    def __init__(self, view: dict[str, Any], hidden: dict[str, Any]) -> None:
        if view["phase"] != "play":
            raise ValueError("the light simulator starts in the play phase")
        seat = int(view["seat"])
        given = hidden["hands"]
        self.hands: list[list[str]] = [
            list(view["hand"]) if s == seat else sort_hand(given.get(s, given.get(str(s), []))) for s in range(4)]
        for s in range(4):
            if len(self.hands[s]) != view["hand_sizes"][s]:
                raise ValueError(f"seat {s} must hold {view['hand_sizes'][s]} cards")
        self.trumps: str = view["trumps"]
        self.maker = int(view["maker"])
        self.dealer = int(view["dealer"])
        self.turned = view["turned_card"]
        self.melds: list[dict[str, Any]] = view["melds"]  # read only (by the normal level's odds)
        self.relief = bool(view["options"].get("partner_relief", False))
        self.trick = [(int(s), str(c)) for s, c in view["trick"]]
        self.turn = int(view["to_act"][0])
        self.tricks_won = list(view["tricks_won"])
        self.card_points = list(view["card_points"])
        self.meld_points = list(view["meld_points"])
        self.played = list(view["played"])
        self.win_seat, self.win_power = -1, -1
        led = self.trick[0][1][1] if self.trick else ""
        for s, c in self.trick:
            power = card_power(c, self.trumps, led)
            if power > self.win_power:
                self.win_seat, self.win_power = s, power

    def clone(self) -> PlayWorld:
        twin = object.__new__(PlayWorld)
        twin.hands = [list(h) for h in self.hands]
        twin.trumps, twin.maker, twin.dealer, twin.turned = self.trumps, self.maker, self.dealer, self.turned
        twin.melds, twin.relief = self.melds, self.relief
        twin.trick = list(self.trick)
        twin.turn = self.turn
        twin.tricks_won, twin.card_points = list(self.tricks_won), list(self.card_points)
        twin.meld_points, twin.played = self.meld_points, list(self.played)
        twin.win_seat, twin.win_power = self.win_seat, self.win_power
        return twin

    def legal_cards(self) -> list[str]:
        seat = self.turn
        partner_winning = self.relief and bool(self.trick) and self.win_seat == (seat + 2) & 3
        return legal_plays(self.hands[seat], self.trick, self.trumps, self.win_power, partner_winning)

    def view(self, seat: int) -> dict[str, Any]:
        """What the normal level's card play reads of a seat's view."""
        return {"phase": "play", "seat": seat, "trumps": self.trumps, "hand": self.hands[seat],
                "trick": self.trick, "played": self.played, "dealer": self.dealer, "turned_card": self.turned,
                "melds": self.melds, "hand_sizes": [len(h) for h in self.hands]}

    def play(self, card: str) -> int | None:
        """``self.turn`` plays ``card``; the team that took the last trick when the hand ends, else None."""
        seat, trumps = self.turn, self.trumps
        self.hands[seat].remove(card)
        self.played.append(card)
        trick = self.trick
        trick.append((seat, card))
        if len(trick) == 1:
            self.win_seat, self.win_power = seat, POWER[trumps][card]
        elif (power := taking_power(trumps, trick[0][1][1], card, self.win_power)) is not None:
            self.win_seat, self.win_power = seat, power
        if len(trick) < 4:
            self.turn = (seat + 1) & 3
            return None
        points = POINTS[trumps]
        team = self.win_seat & 1
        self.card_points[team] += sum(points[c] for _, c in trick)
        self.tricks_won[team] += 1
        self.trick = []
        self.turn = self.win_seat
        return team if sum(self.tricks_won) == TRICKS else None

    def added(self, last_team: int) -> list[int]:
        """The points the hand adds to each team's score (M10), as ``MpourlotoMatch._score_hand`` counts them."""
        makers = self.maker & 1
        capo = self.tricks_won[1 - last_team] == 0
        totals = [self.meld_points[t] + self.card_points[t] for t in (0, 1)]
        totals[last_team] += CAPO_BONUS if capo else LAST_TRICK_BONUS
        if totals[makers] <= totals[1 - makers]:  # mesa: the other team takes every point
            added = [0, 0]
            added[1 - makers] = totals[0] + totals[1]
            return added
        return totals


def playout(world: PlayWorld, seat: int, action: str | None = None) -> float:
    """Play ``action`` (a ``play CARD`` for the seat to act; None: nothing first), then the rest of the hand with
    the normal level's card play, in ``world`` (changed: pass a clone); ``seat``'s team's points added minus the
    other team's, like ``trickroom.bots.mpourloto.playout`` on the engine."""
    last = world.play(action[len(PLAY_PREFIX):]) if action is not None else None
    while last is None:
        legal = world.legal_cards()
        card = legal[0] if len(legal) == 1 else policy.play(world.view(world.turn), legal)
        last = world.play(card)
    added = world.added(last)
    team = seat & 1
    return float(added[team] - added[1 - team])
