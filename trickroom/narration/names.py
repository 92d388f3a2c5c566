"""Cards, suits and lists as a person says them, from the ``cards`` catalog.

A card's name has two grammatical cases: the nominative (a list of one's cards, after a colon) and the
accusative (the object of a verb: "Анна играет даму пик", "Η Άννα παίζει την ντάμα μπαστούνι"). English says both
alike and puts "the" in its sentences; Greek puts the article in the accusative form itself, since its gender
is the rank's (ο άσος, η ντάμα, το εφτάρι). Cards of one suit are said together ("queen and seven of spades").
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache

from trickroom.narration import translate

DOMAIN = "cards"
CASES = ("nom", "acc")


def _word(key: str, lang: str) -> str:
    return translate(key, lang, DOMAIN)


def rank_name(rank: str, lang: str = "en", case: str = "nom") -> str:
    return _word(f"rank.{rank}" + (".acc" if case == "acc" else ""), lang)


@cache
def suit_name(suit: str, lang: str = "en") -> str:
    """A suit as a noun: "spades", "пики", "μπαστούνια" (trumps are spades)."""
    return _word(f"suit.{suit}", lang)


@cache
def suit_title(suit: str, lang: str = "en") -> str:
    """A suit as the heading of a group of cards: "Spades"."""
    return _word(f"suit.{suit}.title", lang)


@cache
def suit_after_rank(suit: str, lang: str = "en") -> str:
    """A suit as it follows a rank: "spades", "пик", "μπαστούνι"."""
    return _word(f"suit.{suit}.of", lang)


@cache
def card_name(card: str, lang: str = "en", case: str = "nom") -> str:
    """A card's spoken name: "queen of spades", "дама пик", "ντάμα μπαστούνι" (``case="acc"``: "даму пик",
    "την ντάμα μπαστούνι")."""
    return translate("card", lang, DOMAIN, rank=rank_name(card[0], lang, case), suit=suit_after_rank(card[1], lang))


def cards_name(cards: Sequence[str], lang: str = "en", case: str = "nom") -> str:
    """Several cards as one phrase: "queen and seven of spades" when they share a suit."""
    return _cards_name(tuple(cards), lang, case)


@lru_cache(maxsize=16384)
def _cards_name(cards: tuple[str, ...], lang: str, case: str) -> str:
    if not cards:
        return _word("nothing", lang)
    if len(cards) > 1 and len({c[1] for c in cards}) == 1:
        ranks = joined([rank_name(c[0], lang, case) for c in cards], lang)
        return translate("cards.same_suit", lang, DOMAIN, ranks=ranks, suit=suit_after_rank(cards[0][1], lang))
    return joined([card_name(c, lang, case) for c in cards], lang)


def joined(items: Sequence[str], lang: str = "en") -> str:
    """``a, b and c`` in the language."""
    if len(items) < 2:
        return "".join(items)
    return translate("list.last", lang, DOMAIN, rest=", ".join(items[:-1]), last=items[-1])


def grouped(items: Sequence[str], lang: str = "en") -> str:
    """Groups that hold commas themselves, one after another: ``spades: AS 7S; hearts: QH`` (Greek, which reads
    a semicolon as a question mark, with its ano teleia)."""
    if len(items) < 2:
        return "".join(items)
    return translate("list.groups", lang, DOMAIN, rest=grouped(items[:-1], lang), last=items[-1])


def card_words(name: str, codes: str | Sequence[str], lang: str) -> dict[str, str]:
    """Sentence parameters for a card (a code) or several (a list): ``{name}`` in the nominative and
    ``{name_acc}`` in the accusative, so that each language's template takes the case it needs."""
    if isinstance(codes, str):
        return {name: card_name(codes, lang), f"{name}_acc": card_name(codes, lang, "acc")}
    return {name: cards_name(codes, lang), f"{name}_acc": cards_name(codes, lang, "acc")}
