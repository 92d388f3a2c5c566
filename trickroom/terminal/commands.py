"""What the player typed, read against the legal actions: an action to send, a question, or a clear problem.

Actions use the games' own notation (``play QS 7S``, ``claim``, ``announce bura``, ``pass``, ``accept``,
``name H``, ``exchange``, ``keep``, ``meld KH QH JH``, ``done``), in the player's language too (the command words
of the terminal catalog, ``words.<command>``: ``сыграть QS``, ``πάσο``), with short forms: a bare card list plays
(or melds, in Mpourloto's meld phase), one letter for the word actions (``c`` claim, ``p`` pass, ``a`` accept,
``d`` done, ``x`` exchange, ``k`` keep, ``n H`` name, ``m ...`` meld), and a number picks that entry of the
numbered list of legal actions. Cards may be typed in any order and any spelling ``cards.parse_card`` reads;
suits and combinations by their names in any language.

The parser never decides a rule: a well-formed action that is not in the legal list goes to the engine (or the
server), whose refusal is the message. It only refuses what it can tell from the words alone: an unknown word,
a card that is not a card or that the player does not hold, a kind of action that is not possible at all now.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from trickroom.cards import SUITS, CardError, parse_card, parse_suit
from trickroom.narration import LANGUAGES, catalog
from trickroom.narration.names import card_name, suit_after_rank, suit_name, suit_title
from trickroom.narration.refusals import kind_name
from trickroom.terminal.text import command_word, command_words, commands_by_word, folded, say

INFO = ("hand", "table", "trick", "score", "trump", "history", "legal", "help", "hint", "review")
WORD_ACTIONS = ("claim", "pass", "accept", "exchange", "keep", "done")
CARD_ACTIONS = ("play", "meld")
VERBS = (*CARD_ACTIONS, *WORD_ACTIONS, "announce", "name")


@cache
def _kinds_by_word() -> dict[str, str]:
    """Bura's combinations by any of their names in any language, and by their codes (``little-moscow``)."""
    found: dict[str, str] = {}
    kinds = [k.removeprefix("bura.kind.") for k in catalog("en", "bura")
             if k.startswith("bura.kind.") and not k.endswith(".acc")]
    for kind in kinds:
        found[kind] = found[kind.replace("-", " ")] = kind
        for lang in LANGUAGES:
            for case in ("nom", "acc"):
                found.setdefault(folded(kind_name(kind, lang, case)), kind)
    return found


@cache
def _suits_by_word() -> dict[str, str]:
    """Suits by any of their names in any language (``κούπες``, ``червы``)."""
    found: dict[str, str] = {}
    for suit in SUITS:
        for lang in LANGUAGES:
            for word in (suit_name(suit, lang), suit_title(suit, lang), suit_after_rank(suit, lang)):
                found.setdefault(folded(word), suit)
    return found


def typed_suit(text: str) -> str:
    """The suit letter for what a player typed: a letter, a symbol, or a suit's name in any language."""
    return _suits_by_word().get(folded(text.strip())) or parse_suit(text)


def spoken_action(action: str, lang: str, card: Callable[[str], str] = lambda code: code) -> str:
    """An action as the client shows it among the choices: the command word in the language, the cards as codes
    (``card`` prints one), a combination by its name: ``сыграть QS``, ``ανακοινώνω μπούρα``."""
    verb, *rest = action.split()
    if verb == "announce" and len(rest) == 1:
        return f"{command_word(verb, lang)} {kind_name(rest[0], lang)}"
    return " ".join([command_word(verb, lang) if verb in VERBS else verb,
                     *(card(word) if is_code(word) else word for word in rest)])


def is_code(word: str) -> bool:
    return len(word) == 2 and word[0] in "6789TJQKA" and word[1] in SUITS


@dataclass(frozen=True)
class Act:
    """Send this action (canonical when it was found among the legal ones)."""

    action: str


@dataclass(frozen=True)
class Info:
    """Answer a question: ``hand``, ``table``, ``score``, ``trump``, ``history``, ``legal``, ``help``, and the hard
    bot's ``hint`` (what to play now) and ``review`` (of a finished hand: ``review [N]``)."""

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
    first = folded(words[0])
    if first in commands_by_word(("quit",), lang):
        return Quit()
    topic = commands_by_word(INFO, lang).get(first)
    if topic is not None:
        return Info(topic, " ".join(words[1:]) or None)
    if first.isdigit() and len(words) == 1:
        return _numbered(int(first), legal, lang)
    verb = commands_by_word(VERBS, lang).get(first)
    if verb is not None:
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
        return Problem(say("not_now", lang, verb=command_word(verb, lang)))
    if verb in WORD_ACTIONS:
        return Act(verb)
    if verb in CARD_ACTIONS:
        if not args:
            return Problem(say("need_cards", lang, example=spoken_action(offered[0], lang)))
        cards: list[str] = []
        for word in args:
            try:
                cards.append(parse_card(word))
            except CardError:
                return Problem(say("bad_card", lang, text=word))
        return _with_cards(verb, cards, offered, hand, lang)
    choices = ", ".join(spoken_action(a, lang) for a in offered)
    if verb == "announce":
        if not args:
            if len(offered) == 1:
                return Act(offered[0])
            return Problem(say("which", lang, choices=choices))
        typed = folded(" ".join(args))
        return Act(f"announce {_kinds_by_word().get(typed, typed)}")
    # name: a suit, as a letter, a word (in any language) or a symbol
    if not args:
        return Problem(say("which", lang, choices=choices))
    try:
        return Act(f"name {typed_suit(' '.join(args))}")
    except CardError:
        return Problem(say("bad_suit", lang, text=" ".join(args)))


def _with_cards(verb: str, cards: list[str], offered: Sequence[str], hand: Sequence[str] | None,
                lang: str) -> Command:
    if hand is not None:
        for card in cards:
            if card not in hand:
                return Problem(say("not_held", lang, card=card_name(card, lang), card_acc=card_name(card, lang, "acc")))
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
    return Problem(say("not_now", lang, verb=command_word("play", lang)))


def completions(text: str, first_word: bool, legal: Sequence[str], hand: Sequence[str],
                extra: Sequence[str] = (), lang: str = "en") -> list[str]:
    """Words that complete ``text`` (case and accents aside): command words first in a line (the language's, then
    English), then cards, suits and combination names."""
    low = folded(text)
    if first_word:
        words = [word for command in (*VERBS, *INFO, "quit") for word in command_words(command, lang)]
        pool = [*dict.fromkeys([*words, *extra]), *hand]
    else:
        pool = [*hand, "S", "H", "D", "C", *sorted({a.split()[1] for a in legal if verb_of(a) == "announce"})]
    return [word for word in pool if folded(word).startswith(low)]
