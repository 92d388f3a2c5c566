"""What the player typed, read against the legal actions: an action to send, a question, or a clear problem.

Actions use the games' own notation (``play QS 7S``, ``claim``, ``announce bura``, ``pass``, ``accept``,
``name H``, ``exchange``, ``keep``, ``meld KH QH JH``, ``done``) with short forms: a bare card list plays (or
melds, in Mpourloto's meld phase), one letter for the word actions (``c`` claim, ``p`` pass, ``a`` accept,
``d`` done, ``x`` exchange, ``k`` keep, ``n H`` name, ``m ...`` meld), and a number picks that entry of the
numbered list of legal actions. Cards may be typed in any order and any spelling ``cards.parse_card`` reads.

The parser never decides a rule: a well-formed action that is not in the legal list goes to the engine (or the
server), whose refusal is the message. It only refuses what it can tell from the words alone: an unknown word,
a card that is not a card or that the player does not hold, a kind of action that is not possible at all now.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trickroom.cards import CardError, card_name, parse_card, parse_suit
from trickroom.terminal.text import say

INFO_WORDS = {
    "hand": "hand", "h": "hand", "cards": "hand",
    "table": "table", "t": "table",
    "score": "score", "s": "score", "scores": "score",
    "trump": "trump", "trumps": "trump",
    "history": "history",
    "legal": "legal", "actions": "legal", "l": "legal",
    "help": "help", "?": "help",
}
QUIT_WORDS = {"quit", "exit", "q", "bye"}
SHORT_VERBS = {"c": "claim", "p": "pass", "a": "accept", "d": "done", "x": "exchange", "k": "keep", "n": "name",
               "m": "meld"}
WORD_ACTIONS = ("claim", "pass", "accept", "exchange", "keep", "done")
CARD_ACTIONS = ("play", "meld")
VERBS = (*CARD_ACTIONS, *WORD_ACTIONS, "announce", "name")
KIND_ALIASES = {
    "bura": "bura", "бура": "bura",
    "aces": "aces", "three aces": "aces", "тузы": "aces", "три туза": "aces",
    "molodka": "molodka", "молодка": "molodka",
    "moscow": "moscow", "москва": "moscow",
    "little-moscow": "little-moscow", "little moscow": "little-moscow", "малая москва": "little-moscow",
}


@dataclass(frozen=True)
class Act:
    """Send this action (canonical when it was found among the legal ones)."""

    action: str


@dataclass(frozen=True)
class Info:
    """Answer a question: ``hand``, ``table``, ``score``, ``trump``, ``history``, ``legal``, ``help``."""

    topic: str
    argument: str | None = None


@dataclass(frozen=True)
class Problem:
    """Say this and change nothing."""

    message: str


@dataclass(frozen=True)
class Quit:
    pass


@dataclass(frozen=True)
class Empty:
    pass


@dataclass(frozen=True)
class Other:
    """A word the game part does not know; the online client reads its own commands (join, start...) here."""

    words: tuple[str, ...]


Command = Act | Info | Problem | Quit | Empty | Other


def verb_of(action: str) -> str:
    return action.split(" ", 1)[0]


def card_set(action: str) -> list[str]:
    return sorted(action.split()[1:])


def parse(line: str, legal: Sequence[str], hand: Sequence[str] | None, lang: str = "en") -> Command:
    """Read one typed line. ``legal``: the actions legal now (empty when it is not the player's turn);
    ``hand``: the player's cards (None when unknown)."""
    words = line.strip().split()
    if not words:
        return Empty()
    first = words[0].lower()
    if first in QUIT_WORDS:
        return Quit()
    if first in INFO_WORDS:
        return Info(INFO_WORDS[first], " ".join(words[1:]) or None)
    if first.isdigit() and len(words) == 1:
        return _numbered(int(first), legal, lang)
    verb = SHORT_VERBS.get(first, first)
    if verb in VERBS:
        if not legal:
            return Problem(say("not_your_turn", lang))
        return _verb(verb, words[1:], legal, hand, lang)
    cards = _cards(words)
    if cards is not None:
        if not legal:
            return Problem(say("not_your_turn", lang))
        return _bare_cards(cards, legal, hand, lang)
    return Other(tuple(words))


def unknown(words: Sequence[str], lang: str) -> Problem:
    return Problem(say("unknown", lang, word=" ".join(words)))


def _numbered(number: int, legal: Sequence[str], lang: str) -> Command:
    if not legal:
        return Problem(say("not_your_turn", lang))
    if 1 <= number <= len(legal):
        return Act(legal[number - 1])
    return Problem(say("bad_number", lang, number=number, count=len(legal)))


def _cards(words: Sequence[str]) -> list[str] | None:
    try:
        return [parse_card(w) for w in words]
    except CardError:
        return None


def _verb(verb: str, args: Sequence[str], legal: Sequence[str], hand: Sequence[str] | None, lang: str) -> Command:
    offered = [a for a in legal if verb_of(a) == verb]
    if not offered:
        return Problem(say("not_now", lang, verb=verb))
    if verb in WORD_ACTIONS:
        return Act(verb)
    if verb in CARD_ACTIONS:
        if not args:
            return Problem(say("need_cards", lang, example=offered[0]))
        cards: list[str] = []
        for word in args:
            try:
                cards.append(parse_card(word))
            except CardError:
                return Problem(say("bad_card", lang, text=word))
        return _with_cards(verb, cards, offered, hand, lang)
    if verb == "announce":
        if not args:
            if len(offered) == 1:
                return Act(offered[0])
            return Problem(say("which", lang, choices=", ".join(offered)))
        kind = KIND_ALIASES.get(" ".join(args).lower(), " ".join(args).lower())
        return Act(f"announce {kind}")
    # name: a suit, as a letter, a word or a symbol
    if not args:
        return Problem(say("which", lang, choices=", ".join(offered)))
    try:
        return Act(f"name {parse_suit(' '.join(args))}")
    except CardError:
        return Problem(say("bad_suit", lang, text=" ".join(args)))


def _with_cards(verb: str, cards: list[str], offered: Sequence[str], hand: Sequence[str] | None,
                lang: str) -> Command:
    if hand is not None:
        for card in cards:
            if card not in hand:
                return Problem(say("not_held", lang, card=card_name(card, lang)))
    wanted = sorted(cards)
    for action in offered:
        if card_set(action) == wanted:
            return Act(action)
    return Act(f"{verb} {' '.join(cards)}")  # not legal as typed: the engine says why


def _bare_cards(cards: list[str], legal: Sequence[str], hand: Sequence[str] | None, lang: str) -> Command:
    wanted = sorted(cards)
    for action in legal:
        if verb_of(action) in CARD_ACTIONS and card_set(action) == wanted:
            return Act(action)
    for verb in CARD_ACTIONS:
        offered = [a for a in legal if verb_of(a) == verb]
        if offered:
            return _with_cards(verb, cards, offered, hand, lang)
    return Problem(say("not_now", lang, verb="play"))


def completions(text: str, first_word: bool, legal: Sequence[str], hand: Sequence[str],
                extra: Sequence[str] = ()) -> list[str]:
    """Words that complete ``text`` (case-insensitive): command words first in a line, then cards, suits and
    combination names."""
    low = text.lower()
    if first_word:
        pool = [*dict.fromkeys([*VERBS, *INFO_WORDS, "quit", *extra])]
        pool += [c for c in hand]
    else:
        pool = [*hand, "S", "H", "D", "C", *sorted({a.split()[1] for a in legal if verb_of(a) == "announce"})]
    return [word for word in pool if word.lower().startswith(low)]
