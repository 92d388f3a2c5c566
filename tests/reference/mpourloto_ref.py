"""Mpourloto from rulings M1-M11, as plainly as possible (see tests/test_reference_crosscheck.py).

Where the rulings leave a choice, this follows docs/rules/mpourloto.md: seat 0 deals first, the cut is
automatic, only a non-dealer holding the seven of trumps among the first five cards is asked to exchange,
every player is asked for melds in turn and ends with ``done``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trickroom import cards

SUITS = "SHDC"
TRUMP_ORDER = "78QKTA9J"  # low to high
PLAIN_ORDER = "789JQKTA"
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3}
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
RUN_ORDER = "AKQJT987"  # high to low, every suit
RUN_POINTS = {3: 20, 4: 50}


def team(seat: int) -> int:
    return seat % 2


class MpourlotoRef:
    def __init__(self, partner_relief: bool = False, target: int = 1000, seed: int = 0,
                 decks: Sequence[Sequence[str]] = ()) -> None:
        self.relief = partner_relief
        self.target = target
        self.seed = seed
        self.decks = [list(d) for d in decks]
        self.scores = [0, 0]
        self.dealer = 0
        self.deal_count = 0
        self.extra_left = 0
        self.results: list[dict[str, Any]] = []
        self.over = False
        self.winner: int | None = None
        self.deal()

    # --- cards --------------------------------------------------------------------------------------------

    def points(self, card: str) -> int:
        table = TRUMP_POINTS if card[1] == self.trumps else PLAIN_POINTS
        return table.get(card[0], 0)

    def strength(self, card: str) -> int:
        order = TRUMP_ORDER if card[1] == self.trumps else PLAIN_ORDER
        return order.index(card[0])

    # --- deal and bidding ---------------------------------------------------------------------------------

    def deal(self) -> None:
        k = self.deal_count
        self.deal_count += 1
        deck = self.decks[k] if k < len(self.decks) else cards.shuffled(cards.DECK_32, cards.deal_rng(self.seed, k))
        self.hands: dict[int, list[str]] = {s: [] for s in range(4)}
        for i in range(20):
            self.hands[(self.dealer + 1 + i) % 4].append(deck[i])
        self.face_up = deck[20]
        self.rest = list(deck[21:])
        self.trumps: str | None = None
        self.maker: int | None = None
        self.phase = "bidding1"
        self.turn = (self.dealer + 1) % 4
        self.passes = 0

    def to_act(self) -> list[int]:
        return [] if self.over else [self.turn]

    def legal(self, seat: int) -> set[str]:
        if self.over or seat != self.turn:
            return set()
        if self.phase == "bidding1":
            return {"accept", "pass"}
        if self.phase == "bidding2":
            return {"pass"} | {"name " + s for s in SUITS}
        if self.phase == "exchange":
            return {"exchange", "keep"}
        if self.phase == "melds":
            return {"done"} | {m for m in self.melds_held(seat) if m not in self.declared}
        return {"play " + c for c in self.playable(seat)}

    def apply(self, seat: int, action: str) -> None:
        assert action in self.legal(seat), (seat, action, self.legal(seat))
        word, *args = action.split()
        if self.phase in ("bidding1", "bidding2"):
            if word == "pass":
                self.passes += 1
                self.turn = (self.turn + 1) % 4
                if self.passes == 4:
                    if self.phase == "bidding1":
                        self.phase = "bidding2"
                        self.passes = 0
                    else:
                        self.throw_in()
                return
            self.trumps = self.face_up[1] if word == "accept" else args[0]
            self.maker = seat
            seven = "7" + self.trumps
            holder = next((s for s in range(4) if seven in self.hands[s]), None)
            if self.trumps == self.face_up[1] and self.face_up != seven and holder is not None \
                    and holder != self.dealer:
                self.phase = "exchange"
                self.turn = holder
                return
            self.complete_deal()
        elif self.phase == "exchange":
            if word == "exchange":
                seven = "7" + (self.trumps or "")
                self.hands[seat].remove(seven)
                self.hands[seat].append(self.face_up)
                self.face_up = seven
            self.complete_deal()
        elif self.phase == "melds":
            if word == "done":
                if seat == self.dealer:
                    self.phase = "play"
                    self.trick: list[tuple[int, str]] = []
                    self.turn = (self.dealer + 1) % 4
                else:
                    self.turn = (seat + 1) % 4
                return
            self.declared[action] = seat
        else:
            self.play(seat, args[0])

    def throw_in(self) -> None:
        self.results.append({"trump_team": None, "trumps": None})
        self.dealer = (self.dealer + 1) % 4
        self.deal()

    def complete_deal(self) -> None:
        for j, card in enumerate(self.rest):
            self.hands[(self.dealer + 1 + j) % 4].append(card)
        self.hands[self.dealer].append(self.face_up)
        assert all(len(h) == 8 for h in self.hands.values())
        self.phase = "melds"
        self.turn = (self.dealer + 1) % 4
        self.declared: dict[str, int] = {}  # meld action -> seat
        self.tricks_won = [0, 0]
        self.card_points = [0, 0]

    # --- melds --------------------------------------------------------------------------------------------

    def melds_held(self, seat: int) -> list[str]:
        hand = set(self.hands[seat])
        found = []
        for suit in SUITS:
            run: list[str] = []
            for rank in RUN_ORDER + "-":
                card = rank + suit
                if card in hand:
                    run.append(card)
                    continue
                if len(run) >= 3:
                    found.append("meld " + " ".join(run))
                run = []
        for rank in RUN_ORDER:
            if all(rank + s in hand for s in SUITS):
                found.append("meld " + " ".join(rank + s for s in SUITS))
        if "K" + str(self.trumps) in hand and "Q" + str(self.trumps) in hand:
            found.append(f"meld K{self.trumps} Q{self.trumps}")
        return found

    @staticmethod
    def meld_points(meld: str) -> int:
        cs = meld.split()[1:]
        if len(cs) == 2:
            return 20
        if len({c[0] for c in cs}) == 1:
            return 100
        return RUN_POINTS.get(len(cs), 100)

    # --- play ---------------------------------------------------------------------------------------------

    def trick_winner(self) -> int:
        led = self.trick[0][1][1]
        trumps = [(s, c) for s, c in self.trick if c[1] == self.trumps]
        pool = trumps or [(s, c) for s, c in self.trick if c[1] == led]
        return max(pool, key=lambda sc: self.strength(sc[1]))[0]

    def playable(self, seat: int) -> list[str]:
        hand = self.hands[seat]
        if not self.trick:
            return hand[:]
        led = self.trick[0][1][1]
        partner_winning = self.relief and self.trick_winner() == (seat + 2) % 4
        follow = [c for c in hand if c[1] == led]
        trumps_played = [c for _, c in self.trick if c[1] == self.trumps]
        if follow:
            if partner_winning:
                return follow
            if led == self.trumps:
                best = max(self.strength(c) for c in trumps_played)
                return [c for c in follow if self.strength(c) > best] or follow
            if trumps_played:
                return follow
            best = max(self.strength(c) for _, c in self.trick if c[1] == led)
            return [c for c in follow if self.strength(c) > best] or follow
        my_trumps = [c for c in hand if c[1] == self.trumps]
        if not my_trumps or partner_winning:
            return hand[:]
        if trumps_played:
            best = max(self.strength(c) for c in trumps_played)
            return [c for c in my_trumps if self.strength(c) > best] or my_trumps
        return my_trumps

    def play(self, seat: int, card: str) -> None:
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        if len(self.trick) < 4:
            self.turn = (seat + 1) % 4
            return
        winner = self.trick_winner()
        self.tricks_won[team(winner)] += 1
        self.card_points[team(winner)] += sum(self.points(c) for _, c in self.trick)
        self.trick = []
        self.turn = winner
        if not self.hands[winner]:
            self.score_hand(last=team(winner))

    def score_hand(self, last: int) -> None:
        assert self.maker is not None and sum(self.card_points) == 152
        meld_points = [0, 0]
        for meld, seat in self.declared.items():
            meld_points[team(seat)] += self.meld_points(meld)
        capo = self.tricks_won[1 - last] == 0
        totals = [meld_points[t] + self.card_points[t] for t in (0, 1)]
        totals[last] += 90 if capo else 10
        makers = team(self.maker)
        mesa = totals[makers] <= totals[1 - makers]
        added = [0, 0]
        if mesa:
            added[1 - makers] = totals[0] + totals[1]
        else:
            added = totals[:]
        self.results.append({"trump_team": makers, "trumps": self.trumps, "card_points": self.card_points[:],
                             "meld_points": meld_points, "last_trick": last, "capo": capo, "mesa": mesa,
                             "added": added})
        self.scores = [self.scores[t] + added[t] for t in (0, 1)]
        self.dealer = (self.dealer + 1) % 4
        if self.extra_left:
            self.extra_left -= 1
            if self.extra_left == 0:
                self.decide()
        elif max(self.scores) >= self.target:
            self.decide()
        if not self.over:
            self.deal()

    def decide(self) -> None:
        if self.scores[0] == self.scores[1]:
            self.extra_left = 2
        else:
            self.over = True
            self.winner = 0 if self.scores[0] > self.scores[1] else 1
            self.phase = "over"
