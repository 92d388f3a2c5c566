"""Rough chances of where the unseen Mpourloto cards are, from one seat's view and its void knowledge.

A card a player is known to hold (the turned card in the dealer's hand, a declared meld) is theirs; a card a
player cannot hold (``forbidden``: a void shown, a higher card they would have had to play) is not; every other
unseen card is shared by the players who may hold it, in proportion to their free places. Cards are treated as
independent, which is close enough for deciding whether a trick will hold.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from trickroom.games.mpourloto import Mpourloto
from trickroom.games.mpourloto.rules import POWER


class Odds:
    def __init__(self, view: dict[str, Any], forbidden: dict[int, set[str]] | None = None) -> None:
        seat = int(view["seat"])
        self.trumps: str = view["trumps"]
        others = [s for s in range(4) if s != seat]
        seen = set(view["played"]) | set(view["hand"])
        self.unseen = [c for c in Mpourloto.deck if c not in seen]
        known: dict[int, set[str]] = {s: set() for s in others}
        turned, dealer = view.get("turned_card"), int(view["dealer"])
        if turned and turned not in seen and dealer != seat:
            known[dealer].add(turned)
        for meld in view.get("melds", ()):
            if meld["seat"] != seat:
                known[meld["seat"]].update(c for c in meld["cards"] if c not in seen)
        owner = {c: s for s, cards in known.items() for c in cards}
        sizes = view["hand_sizes"]
        free = {s: max(0, int(sizes[s]) - len(known[s])) for s in others}
        no = forbidden or {}
        self.p: dict[int, dict[str, float]] = {s: {} for s in others}
        for card in self.unseen:
            if card in owner:
                self.p[owner[card]][card] = 1.0
                continue
            holders = [s for s in others if free[s] and card not in no.get(s, ())]
            places = sum(free[s] for s in holders)
            for s in holders:
                self.p[s][card] = free[s] / places

    def without(self, cards: Iterable[str]) -> Odds:
        """The same odds for a seat that also holds ``cards``: each unseen card's chances do not depend on the
        other unseen cards, so only the list of unseen cards changes (a reading of many possible hands at one
        past play builds the odds once). Not for a hand with a card ``known`` elsewhere."""
        held = set(cards)
        twin = object.__new__(Odds)
        twin.trumps, twin.p = self.trumps, self.p
        twin.unseen = [c for c in self.unseen if c not in held]
        return twin

    def holds_any(self, seat: int, cards: Iterable[str]) -> float:
        """The chance that ``seat`` holds at least one of ``cards``."""
        chances = self.p.get(seat, {})
        none = 1.0
        for card in cards:
            none *= 1.0 - chances.get(card, 0.0)
        return 1.0 - none

    def _suit(self, suit: str) -> list[str]:
        return [c for c in self.unseen if c[1] == suit]

    def beats(self, seat: int, card: str, led: str) -> float:
        """The chance that ``seat``, still to play to a trick led in ``led`` and won so far by ``card``, beats it.
        The duty to beat (M8) means a player who can, does."""
        power = POWER[self.trumps]
        higher_trumps = [c for c in self._suit(self.trumps) if power[c] > power[card]]
        if led == self.trumps:
            return self.holds_any(seat, higher_trumps)
        void = 1.0 - self.holds_any(seat, self._suit(led))
        if card[1] == self.trumps:
            return void * self.holds_any(seat, higher_trumps)
        higher = [c for c in self._suit(led) if power[c] > power[card]]
        return min(1.0, self.holds_any(seat, higher) + void * self.holds_any(seat, higher_trumps))

    def holds(self, card: str, led: str, opponents: Iterable[int]) -> float:
        """The chance that ``card``, winning the trick now, is not beaten by any of ``opponents`` still to play."""
        chance = 1.0
        for seat in opponents:
            chance *= 1.0 - self.beats(seat, card, led)
        return chance
