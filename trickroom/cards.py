"""Card codes, decks, and shuffling (card names for speech are in trickroom.narration.names).

A card is a two-character code: rank (``6 7 8 9 T J Q K A``) then suit (``S H D C``), e.g. ``TS`` for the
ten of spades. Everything inside trickroom uses these canonical codes; :func:`parse_card` turns what a person
types (``10s``, ``q♠``, ``Qs``) into one.

Shuffling is deterministic from a seed so that a table can be replayed from its seed and action log; the seed
itself comes from :func:`new_seed`, which uses the operating system's randomness for real games.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

RANKS = "6789TJQKA"  # low to high in Bura's ordering; games define their own orders
SUITS = "SHDC"

SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"}
SUIT_TO_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

DECK_36: tuple[str, ...] = tuple(r + s for s in SUITS for r in "6789TJQKA")
DECK_32: tuple[str, ...] = tuple(r + s for s in SUITS for r in "789TJQKA")

_RANK_ALIASES = {"10": "T", "t": "T", "j": "J", "q": "Q", "k": "K", "a": "A"}


class CardError(ValueError):
    """A card code that cannot be read. ``key`` and ``params`` name the sentence for the narration catalogs
    (``illegal.card.*``, in room.po), so that a game can pass the refusal on in the player's language."""

    def __init__(self, message: str = "", key: str | None = None, **params: Any) -> None:
        super().__init__(message)
        self.key = key
        self.params = params


def parse_card(text: str) -> str:
    """Return the canonical code for ``text`` (``"10s"`` -> ``"TS"``), or raise :class:`CardError`."""
    raw = text.strip()
    if len(raw) < 2:
        raise CardError(f"{text!r} is not a card: write a rank and a suit, like QS or 10H.",
                        key="illegal.card.format", text=text)
    rank_part, suit_part = raw[:-1], raw[-1]
    suit = SUIT_SYMBOLS.get(suit_part) or suit_part.upper()
    if suit not in SUITS:
        raise CardError(f"{text!r} is not a card: the suit must be one of S H D C.", key="illegal.card.suit", text=text)
    rank = rank_part.upper() if rank_part.upper() in RANKS else _RANK_ALIASES.get(rank_part.lower())
    if rank is None or rank not in RANKS:
        raise CardError(f"{text!r} is not a card: the rank must be one of 6 7 8 9 10 J Q K A.",
                        key="illegal.card.rank", text=text)
    return rank + suit


def parse_cards(text: str | Iterable[str]) -> list[str]:
    """Parse several cards separated by spaces or commas (or an iterable of card texts)."""
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(p) for p in parts]


def checked_deck(deck: Any, full: Sequence[str], number: int) -> list[str]:
    """A prearranged deck (deal ``number``, from 0) as canonical codes; ValueError unless it holds each card of
    ``full`` exactly once."""
    try:
        codes = parse_cards(deck)
    except CardError as error:
        raise ValueError(f"Deck {number + 1}: {error}") from None
    if sorted(codes) != sorted(full):
        raise ValueError(f"Deck {number + 1} must hold each of the {len(full)} cards exactly once.")
    return codes


def parse_suit(text: str) -> str:
    """Return the suit letter for ``S``, ``spades``, ``♠`` and the like, or raise :class:`CardError`."""
    raw = text.strip()
    if raw in SUIT_SYMBOLS:
        return SUIT_SYMBOLS[raw]
    low = raw.lower()
    for letter, names in _SUIT_WORDS.items():
        if low == letter.lower() or low in names:
            return letter
    raise CardError(f"{text!r} is not a suit: write S, H, D or C.", key="illegal.suit.format", text=text)


def rank_of(card: str) -> str:
    return card[0]


def suit_of(card: str) -> str:
    return card[1]


def new_seed() -> int:
    """A fresh 63-bit seed from the operating system's randomness, for a real game."""
    return random.SystemRandom().getrandbits(63)


def shuffled(cards: Sequence[T], rng: random.Random) -> list[T]:
    """Return a shuffled copy of ``cards`` using ``rng`` (never the global random module).

    The Fisher-Yates shuffle of CPython's ``random.shuffle``, spelled out with the same draws from
    ``rng.getrandbits``: it gives the same deck as ``rng.shuffle`` in half the time (a deal is a large part of a
    short hand), and keeps old seeds dealing the same cards even if the standard library's shuffle changes.
    """
    deck = list(cards)
    getrandbits = rng.getrandbits
    for i in range(len(deck) - 1, 0, -1):
        bound = i + 1  # pick j uniformly in 0..i by rejection, as random.Random._randbelow does
        bits = bound.bit_length()
        j = getrandbits(bits)
        while j >= bound:
            j = getrandbits(bits)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deal_rng(seed: int, deal_number: int) -> random.Random:
    """The RNG for one deal of a match: depends only on the match seed and the deal's number.

    Keying each deal separately keeps replays simple: deal 5's cards do not depend on how many random
    numbers earlier deals consumed, or on whether they were prearranged.
    """
    return random.Random(f"trickroom/{seed}/{deal_number}")


# --- Reading and printing ----------------------------------------------------------------------------------

# The suit words the action parser accepts beside letters and symbols (``name hearts``): the engines' input
# grammar, unchanged since the first version. Names for speech are in the narration catalogs (cards.po).
_SUIT_WORDS: dict[str, tuple[str, ...]] = {
    "S": ("spades", "spade", "пики", "пик", "пика"),
    "H": ("hearts", "heart", "червы", "черви", "червей", "черва"),
    "D": ("diamonds", "diamond", "бубны", "бубен", "буби", "бубна"),
    "C": ("clubs", "club", "трефы", "треф", "крести", "трефа"),
}


def card_label(card: str, symbols: bool = False) -> str:
    """Short printed form: ``QS``, or ``Q♠`` with ``symbols``; tens print as ``10``."""
    rank = "10" if card[0] == "T" else card[0]
    return rank + (SUIT_TO_SYMBOL[card[1]] if symbols else card[1])
