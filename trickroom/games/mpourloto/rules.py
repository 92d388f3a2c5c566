"""Mpourloto's fixed rules as precomputed tables: card order, points, melds and the play obligations.

Everything here is a pure function of its arguments. Card ranks and points are looked up in dicts built once
per trump suit, because bots call :func:`legal_plays` hundreds of thousands of times.
"""

from __future__ import annotations

from collections.abc import Sequence

from trickroom.cards import DECK_32, SUITS

PLAYERS = 4
HAND_SIZE = 8
FIRST_ROUND_CARDS = 5
TRICKS = 8
CARD_POINTS_TOTAL = 152  # M2: 62 in trumps + 3 x 30 in the plain suits
LAST_TRICK_BONUS = 10
CAPO_BONUS = 90

# M2, low to high. A trump's power is 100 + its place, so any trump beats any card of a plain suit.
TRUMP_ORDER = "78QKTA9J"
PLAIN_ORDER = "789JQKTA"
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
TRUMP_BASE = 100

# M7: runs use this order in every suit, trumps too. Also the order cards are shown in a hand.
SEQUENCE_ORDER = "AKQJT987"
RUN_POINTS = {3: 20, 4: 50}
LONG_RUN_POINTS = 100  # 5 or more
FOUR_OF_A_KIND_POINTS = 100
MPOURLOTTO_POINTS = 20

# Sorting key for showing a hand: suits S H D C, each from ace down to seven in sequence order.
SORT_KEY = {card: SUITS.index(card[1]) * 8 + SEQUENCE_ORDER.index(card[0]) for card in DECK_32}


def _power_table(trumps: str) -> dict[str, int]:
    return {card: (TRUMP_BASE + TRUMP_ORDER.index(card[0])) if card[1] == trumps else PLAIN_ORDER.index(card[0])
            for card in DECK_32}


def _points_table(trumps: str) -> dict[str, int]:
    return {card: (TRUMP_POINTS if card[1] == trumps else PLAIN_POINTS)[card[0]] for card in DECK_32}


POWER: dict[str, dict[str, int]] = {suit: _power_table(suit) for suit in SUITS}
POINTS: dict[str, dict[str, int]] = {suit: _points_table(suit) for suit in SUITS}


def taking_power(trumps: str, led: str, card: str, win_power: int) -> int | None:
    """``card``'s power when it takes a trick led in ``led`` from the card winning it (power ``win_power``): a
    trump, or a card of the suit led, higher than the winner; None when it does not take the lead."""
    if card[1] != trumps and card[1] != led:
        return None
    power = POWER[trumps][card]
    return power if power > win_power else None


def sort_hand(cards: Sequence[str]) -> list[str]:
    return sorted(cards, key=SORT_KEY.__getitem__)


TEAMS = ((0, 2), (1, 3))  # M1: partners sit opposite


def team_of(seat: int) -> int:
    """Team 0 is seats 0 and 2, team 1 seats 1 and 3 (TEAMS)."""
    return seat & 1


def partner_of(seat: int) -> int:
    return (seat + 2) & 3


def card_power(card: str, trumps: str, led: str) -> int:
    """How strongly ``card`` bids for a trick whose led suit is ``led``: -1 when it cannot win it (M9)."""
    if card[1] == trumps or card[1] == led:
        return POWER[trumps][card]
    return -1


def legal_plays(hand: Sequence[str], trick: Sequence[tuple[int, str]], trumps: str, winning_power: int,
                partner_winning: bool) -> list[str]:
    """The cards of ``hand`` that M8 allows now.

    ``winning_power`` is :func:`card_power` of the card winning the trick so far; ``partner_winning`` is true
    only when the ``partner_relief`` option is on and the player's partner holds the trick.
    """
    if not trick:
        return list(hand)
    led = trick[0][1][1]
    follow = [c for c in hand if c[1] == led]
    if partner_winning:
        return follow or list(hand)
    if follow:
        candidates = follow
    else:
        candidates = [c for c in hand if c[1] == trumps]
        if not candidates:
            return list(hand)
    # Must beat the winning card if able. A plain card can never beat a trump, so once a plain trick has been
    # trumped, nobody following suit can beat it and any card of the suit is allowed, as M8 says.
    power = POWER[trumps]
    beating = [c for c in candidates if power[c] > winning_power]
    return beating or candidates


# --- Melds (M7) ------------------------------------------------------------------------------------------------

MeldInfo = tuple[str, tuple[str, ...], int]  # kind ("run", "four", "mpourlotto"), cards in canonical order, points


def run_points(length: int) -> int:
    return RUN_POINTS.get(length, LONG_RUN_POINTS)


_SUIT_SEQUENCES = {suit: tuple(rank + suit for rank in SEQUENCE_ORDER) for suit in SUITS}
_FOURS = {rank: tuple(rank + suit for suit in SUITS) for rank in SEQUENCE_ORDER}


def melds_in(hand: Sequence[str], trumps: str) -> list[MeldInfo]:
    """Every meld in ``hand``: each maximal run of 3 or more, each four of a kind, and the Mpourlotto.

    Canonical card order: a run from its highest card down (``AS KS QS``), a four of a kind in suit order
    S H D C (``7S 7H 7D 7C``), the Mpourlotto king first (``KH QH``).
    """
    held = set(hand)
    suits = [card[1] for card in hand]
    ranks = [card[0] for card in hand]
    found: list[MeldInfo] = []
    for suit in SUITS:
        if suits.count(suit) < 3:  # cheap test first: this runs once per player and deal
            continue
        run: list[str] = []
        for card in _SUIT_SEQUENCES[suit]:
            if card in held:
                run.append(card)
                continue
            if len(run) >= 3:
                found.append(("run", tuple(run), run_points(len(run))))
            run = []
        if len(run) >= 3:
            found.append(("run", tuple(run), run_points(len(run))))
    for rank, four in _FOURS.items():
        if ranks.count(rank) == 4:
            found.append(("four", four, FOUR_OF_A_KIND_POINTS))
    if "K" + trumps in held and "Q" + trumps in held:
        found.append(("mpourlotto", ("K" + trumps, "Q" + trumps), MPOURLOTTO_POINTS))
    return found


def meld_action(cards: Sequence[str]) -> str:
    return "meld " + " ".join(cards)
