"""Bura from rulings B1-B11, as plainly as possible (see tests/test_reference_crosscheck.py).

Where the rulings leave a choice, this follows docs/rules/bura.md: the announcement pause at the start of
every trick with three cards in hand (not the first trick of the moscow preset), claims by anyone in the hand
at any moment of the play, no claim after the last card, a player leaves when they cannot pay what they owe.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from trickroom import cards

ORDER = "6789JQKTA"  # low to high (B1: A T K Q J 9 8 7 6, high to low)
SUIT_ORDER = "SHDC"
POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
KIND_RANK = {
    "classic": {"bura": 3, "aces": 2, "molodka": 1},
    "moscow": {"moscow": 4, "bura": 3, "little-moscow": 2, "molodka": 1},
}


def card_points(card: str) -> int:
    return POINTS.get(card[0], 0)


def canonical(cards_: Sequence[str]) -> str:
    """Rank high to low, then suits S H D C."""
    return " ".join(sorted(cards_, key=lambda c: (-ORDER.index(c[0]), SUIT_ORDER.index(c[1]))))


def beats(card: str, other: str, trump: str) -> bool:
    """B5: a higher card of the same suit, or a trump against a non-trump."""
    if card[1] == other[1]:
        return ORDER.index(card[0]) > ORDER.index(other[0])
    return card[1] == trump


def play_beats(play: Sequence[str], winning: Sequence[str], trump: str) -> bool:
    """B5: the cards pair one to one so that each beats its partner."""
    return any(all(beats(p, w, trump) for p, w in zip(pairing, winning, strict=True))
               for pairing in itertools.permutations(play))


def combination(hand: Sequence[str], trump: str, preset: str) -> str | None:
    if len(hand) != 3:
        return None
    suits = {c[1] for c in hand}
    ranks = {c[0] for c in hand}
    if preset == "moscow":
        if ranks == {"A"}:
            return "moscow"
        if suits == {trump}:
            return "bura"
        if ranks == {"6"} and "6" + trump in hand:
            return "little-moscow"
        if len(suits) == 1:
            return "molodka"
        return None
    if suits == {trump}:
        return "bura"
    if ranks == {"A"}:
        return "aces"
    if len(suits) == 1:
        return "molodka"
    return None


class BuraRef:
    def __init__(self, players: int, preset: str = "classic", scoring: str = "pot", stack: int = 20,
                 target: int = 11, hand_limit: int = 0, seed: int = 0, decks: Sequence[Sequence[str]] = ()) -> None:
        self.n = players
        self.preset = preset
        self.scoring = scoring
        self.target = target
        self.hand_limit = hand_limit
        self.seed = seed
        self.decks = [list(d) for d in decks]
        self.chips = [stack] * players
        self.game_points = [0] * players
        self.active = [True] * players
        self.pot = 0
        self.dealer = 0
        self.deal_count = 0  # every deal, redeals included
        self.hands_played = 0  # hands that count
        self.results: list[dict[str, Any]] = []
        self.over = False
        self.winner: int | None = None
        self.phase = "over"
        self.start_hand()

    # --- helpers ------------------------------------------------------------------------------------------

    def scores(self) -> list[int]:
        return self.chips[:] if self.scoring == "pot" else self.game_points[:]

    def seats_from(self, first: int) -> list[int]:
        """Seats in the hand, clockwise, starting at ``first`` (which must be in the hand)."""
        return [(first + i) % self.n for i in range(self.n) if self.in_hand[(first + i) % self.n]]

    def next_active(self, seat: int) -> int:
        for i in range(1, self.n + 1):
            if self.in_hand[(seat + i) % self.n]:
                return (seat + i) % self.n
        raise AssertionError("no one in the hand")

    # --- hands --------------------------------------------------------------------------------------------

    def start_hand(self) -> None:
        if self.scoring == "pot":
            # Who cannot pay the ante leaves; if one player is left there is no hand, so no ante either.
            for s in range(self.n):
                if self.active[s] and self.chips[s] == 0:
                    self.active[s] = False
            remaining = [s for s in range(self.n) if self.active[s]]
            if len(remaining) <= 1:
                self.end_match(remaining[0] if remaining else None)
                return
            for s in remaining:
                self.chips[s] -= 1
                self.pot += 1
        self.deal()

    def deal(self) -> None:
        self.in_hand = self.active[:]
        while not self.in_hand[self.dealer]:
            self.dealer = (self.dealer + 1) % self.n
        k = self.deal_count
        self.deal_count += 1
        deck = self.decks[k] if k < len(self.decks) else cards.shuffled(cards.DECK_36, cards.deal_rng(self.seed, k))
        order = self.seats_from(self.next_active(self.dealer))
        self.hands: dict[int, list[str]] = {s: [] for s in order}
        pos = 0
        for _ in range(3):
            for s in order:
                self.hands[s].append(deck[pos])
                pos += 1
        self.trump_card = deck[pos]
        self.trump = self.trump_card[1]
        self.stock = [*deck[pos + 1:], self.trump_card]
        self.won_points = [0] * self.n
        self.tricks_won = [0] * self.n
        self.last_trick_winner: int | None = None
        self.first_trick = True
        self.leader = order[0]
        if self.preset == "moscow":
            holders = [s for s in order if combination(self.hands[s], self.trump, self.preset)]
            if holders:
                self.results.append({"winner": None, "reason": "redeal", "claimant": None, "points": [0] * self.n})
                self.deal()
                return
        self.start_trick()

    @property
    def stock_dead(self) -> bool:
        """Cards left in the stock that no round can use any more."""
        return 0 < len(self.stock) < sum(self.in_hand)

    def start_trick(self) -> None:
        self.trick: list[tuple[int, list[str]]] = []
        self.bura_players: list[int] | None = None  # a trick of two or more Buras: only these play
        size = len(self.hands[self.leader])
        if size == 3 and not (self.preset == "moscow" and self.first_trick):
            self.phase = "announce"
            self.answers: dict[int, str] = {}
        else:
            self.phase = "play"
        self.first_trick = False

    def trick_order(self) -> list[int]:
        if self.bura_players is not None:
            return self.bura_players
        return self.seats_from(self.leader)

    def to_act(self) -> list[int]:
        if self.over:
            return []
        if self.phase == "announce":
            return [s for s in self.seats_from(self.leader) if s not in self.answers]
        return [self.trick_order()[len(self.trick)]]

    def legal(self, seat: int) -> set[str]:
        if self.over or not self.in_hand[seat]:
            return set()
        result = {"claim"}
        if self.phase == "announce":
            if seat not in self.answers:
                result.add("pass")
                kind = combination(self.hands[seat], self.trump, self.preset)
                if kind:
                    result.add("announce " + kind)
            return result
        if seat != self.to_act()[0]:
            return result
        hand = self.hands[seat]
        if not self.trick:
            for size in (1, 2, 3):
                for combo in itertools.combinations(hand, size):
                    if len({c[1] for c in combo}) == 1:
                        result.add("play " + canonical(combo))
        else:
            size = len(self.trick[0][1])
            for combo in itertools.combinations(hand, size):
                result.add("play " + canonical(combo))
        return result

    def apply(self, seat: int, action: str) -> None:
        assert action in self.legal(seat), (seat, action, self.legal(seat))
        if action == "claim":
            self.claim(seat)
        elif self.phase == "announce":
            self.answers[seat] = action
            if len(self.answers) == sum(self.in_hand):
                self.resolve_announcements()
        else:
            self.play(seat, action.split()[1:])

    def resolve_announcements(self) -> None:
        ranks = KIND_RANK[self.preset]
        announced = [(s, self.answers[s].split()[1]) for s in self.seats_from(self.leader)
                     if self.answers[s] != "pass"]
        self.phase = "play"
        if not announced:
            return
        top = max(ranks[kind] for _, kind in announced)
        seat, kind = next((s, k) for s, k in announced if ranks[k] == top)
        if kind == "moscow":
            self.end_hand(winner=seat, reason="moscow")
            return
        if kind == "bura":
            holders = [s for s in self.seats_from(seat)
                       if combination(self.hands[s], self.trump, self.preset) == "bura"]
            if len(holders) == 1:
                self.end_hand(winner=seat, reason="bura")
                return
            self.bura_players = holders
        self.leader = seat
        self.play(seat, list(self.hands[seat]))

    def play(self, seat: int, played: list[str]) -> None:
        for c in played:
            self.hands[seat].remove(c)
        self.trick.append((seat, played))
        if len(self.trick) < len(self.trick_order()):
            # In a trick of Buras each holder's three trumps go down in turn.
            if self.bura_players is not None:
                nxt = self.trick_order()[len(self.trick)]
                self.play(nxt, list(self.hands[nxt]))
            return
        winning_seat, winning = self.trick[0]
        for s, cs in self.trick[1:]:
            if play_beats(cs, winning, self.trump):
                winning_seat, winning = s, cs
        self.last_trick_winner = winning_seat
        self.tricks_won[winning_seat] += 1
        self.won_points[winning_seat] += sum(card_points(c) for _, cs in self.trick for c in cs)
        if self.bura_players is not None:
            self.end_hand(winner=winning_seat, reason="bura")
            return
        # B6: draw round by round from the winner, only whole rounds.
        order = self.seats_from(winning_seat)
        rounds = len(played)
        while rounds and len(self.stock) >= len(order):
            for s in order:
                self.hands[s].append(self.stock.pop(0))
            rounds -= 1
        if not self.hands[winning_seat]:
            self.end_hand(winner=None, reason="no-claim")
            return
        self.leader = winning_seat
        self.start_trick()

    def claim(self, seat: int) -> None:
        if self.won_points[seat] >= 31:
            self.end_hand(winner=seat, reason="claim", claimant=seat)
        else:
            self.end_hand(winner=None, reason="false-claim", claimant=seat)

    def end_hand(self, winner: int | None, reason: str, claimant: int | None = None) -> None:
        self.results.append({"winner": winner, "reason": reason, "claimant": claimant,
                             "points": self.won_points[:]})
        self.phase = "over"
        if winner is not None:
            if self.scoring == "pot":
                self.chips[winner] += self.pot
                self.pot = 0
            else:
                self.game_points[winner] += 1
            self.dealer = winner
        if reason == "false-claim":
            assert claimant is not None
            if self.scoring == "pot":
                owed = self.pot
                paid = min(owed, self.chips[claimant])
                self.chips[claimant] -= paid
                self.pot += paid
                self.results[-1]["penalty"] = paid
                if paid < owed:
                    self.active[claimant] = False
            else:
                for s in range(self.n):
                    if s != claimant and self.active[s]:
                        self.game_points[s] += 2
            self.dealer = claimant
        self.hands_played += 1
        scores = self.scores()
        remaining = [s for s in range(self.n) if self.active[s]]
        if self.scoring == "pot" and len(remaining) <= 1:
            self.end_match(remaining[0] if remaining else None)
            return
        if self.hand_limit and self.hands_played >= self.hand_limit:
            best = max(scores)
            top = [s for s in range(self.n) if scores[s] == best]
            self.end_match(top[0] if len(top) == 1 else None)
            return
        if self.scoring == "points":
            best = max(scores)
            top = [s for s in range(self.n) if scores[s] == best]
            if best >= self.target and len(top) == 1:
                self.end_match(top[0])
                return
        self.start_hand()

    def end_match(self, winner: int | None) -> None:
        self.over = True
        self.winner = winner
        self.phase = "over"
