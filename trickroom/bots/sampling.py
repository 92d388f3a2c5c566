"""Dealing the cards a bot cannot see, consistently with everything it has seen.

A search bot fills the other hands (and any undealt cards) with a random sample of the unseen cards. A sample
must respect what is known: cards known to be in one hand (Bura: none; Mpourloto: the turned card in the dealer's
hand, declared melds, the card taken for the seven), cards a hand cannot hold (a suit a player showed void in, a
higher card a player would have had to play), and each hand's size. The deal is random among consistent deals,
not exactly uniform: cards with the fewest possible homes go first, each to a random hand that may hold it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

RETRIES = 20


def deal_hidden(unseen: Sequence[str], sizes: Mapping[int, int], rng: random.Random,
                fixed: Mapping[int, Sequence[str]] | None = None,
                forbidden: Mapping[int, set[str]] | None = None) -> dict[int, list[str]] | None:
    """Hands for the seats in ``sizes`` (seat -> cards to hold), from ``unseen``; None if no consistent deal
    was found. Cards of ``unseen`` left over (the stock) are returned under the key -1, in random order.

    ``fixed``: cards known to be in a seat's hand (they must be in ``unseen``); ``forbidden``: cards a seat
    cannot hold.
    """
    fixed = fixed or {}
    forbidden = forbidden or {}
    if not any(forbidden.values()):
        return _deal_freely(unseen, sizes, rng, fixed)
    for _ in range(RETRIES):
        dealt = _try_deal(unseen, sizes, rng, fixed, forbidden)
        if dealt is not None:
            return dealt
    return None


def _deal_freely(unseen: Sequence[str], sizes: Mapping[int, int], rng: random.Random,
                 fixed: Mapping[int, Sequence[str]]) -> dict[int, list[str]] | None:
    """Without impossible cards every consistent deal is a shuffle of the free cards: uniform and fast."""
    hands = {seat: list(fixed.get(seat, ())) for seat in sizes}
    placed = {card for cards in hands.values() for card in cards}
    free = [card for card in unseen if card not in placed]
    rng.shuffle(free)
    start = 0
    for seat in sizes:
        room = sizes[seat] - len(hands[seat])
        if room < 0 or start + room > len(free):
            return None
        hands[seat].extend(free[start:start + room])
        start += room
    hands[-1] = free[start:]
    return hands


def _try_deal(unseen: Sequence[str], sizes: Mapping[int, int], rng: random.Random,
              fixed: Mapping[int, Sequence[str]], forbidden: Mapping[int, set[str]]) -> dict[int, list[str]] | None:
    hands: dict[int, list[str]] = {seat: list(fixed.get(seat, ())) for seat in sizes}
    room = {seat: sizes[seat] - len(hands[seat]) for seat in sizes}
    if any(r < 0 for r in room.values()):
        return None
    placed = {card for cards in hands.values() for card in cards}
    free = [card for card in unseen if card not in placed]
    stock_room = len(free) - sum(room.values())
    if stock_room < 0:
        return None
    homes = {card: [seat for seat in sizes if card not in forbidden.get(seat, ())] for card in free}
    # Most constrained cards first; ties broken randomly so that samples differ.
    order = sorted(free, key=lambda card: (len(homes[card]), rng.random()))
    stock: list[str] = []
    for card in order:
        open_homes = [seat for seat in homes[card] if room[seat] > 0]
        # The stock (undealt cards, or cards out of play) may take any card while it has room.
        weights = [room[seat] for seat in open_homes]
        if stock_room > 0:
            open_homes.append(-1)
            weights.append(stock_room)
        if not open_homes:
            return None
        seat = rng.choices(open_homes, weights)[0]
        if seat == -1:
            stock.append(card)
            stock_room -= 1
        else:
            hands[seat].append(card)
            room[seat] -= 1
    rng.shuffle(stock)
    hands[-1] = stock
    return hands
