"""Refused actions as sentences in the player's language.

The games raise :class:`~trickroom.games.IllegalAction` with an English message (``str(exc)``, for library
users) and, beside it, a message id and parameters as data (card codes, suit letters, combination names, action
strings, numbers). The id says where its template lives: ``illegal.bura.*`` in bura.po, ``illegal.mpourloto.*``
in mpourloto.po, every other ``illegal.*`` (shared by the games, or raised by card parsing) in room.po.

Parameters become words here, in the language and grammatical case the template asks for: a parameter ``card``
gives ``{card}`` (nominative) and ``{card_acc}`` (accusative), ``cards`` gives ``{cards}`` and ``{cards_acc}``,
``suit`` ``{suit}``, ``kind`` ``{kind}`` and ``{kind_acc}``, ``kinds`` ``{kinds}``, ``actions`` ``{actions}`` (the
actions spoken, joined), ``count`` ``{count}`` and ``{count_cards}`` ("2 cards", with the catalog's plural
form); anything else is said as it is. When ``cards`` holds several cards and the catalog has ``<key>.many``,
that template is used.

    refusal(IllegalAction("You must follow suit.", key="illegal.mpourloto.follow", suit="S"), "el")
    # -> "Πρέπει να ακολουθήσετε το χρώμα."
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trickroom import cards
from trickroom.narration import catalog, language, template, translate
from trickroom.narration.names import card_words, suit_name

GAME_DOMAINS = ("bura", "mpourloto")


def domain_of(key: str) -> str:
    """The catalog of a refusal's message id: ``illegal.bura.count`` -> ``bura``; shared ids -> ``room``."""
    parts = key.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in GAME_DOMAINS else "room"


def refusal(exc: BaseException, lang: str = "en") -> str:
    """``exc`` (an IllegalAction, or a CardError) said in ``lang``; ``str(exc)`` when it has no known message id."""
    key = getattr(exc, "key", None)
    raw = getattr(exc, "params", None)
    if not isinstance(key, str) or not isinstance(raw, dict):
        return str(exc)
    lang = language(lang)
    domain = domain_of(key)
    params = words(raw, lang)
    many = key + ".many"
    if isinstance(raw.get("cards"), list) and len(raw["cards"]) > 1 and many in catalog(lang, domain):
        key = many
    found = template(key, lang, domain)
    if found is None:
        return str(exc)
    try:
        return found.format(**params)
    except (KeyError, IndexError, ValueError):  # a template asking for a parameter this refusal lacks
        return str(exc)


def words(params: dict[str, Any], lang: str) -> dict[str, Any]:
    """A refusal's parameters (data) as the words its templates take in ``lang``."""
    said: dict[str, Any] = {}
    for name, value in params.items():
        if name in ("card", "cards"):
            said.update(card_words(name, value, lang))
        elif name == "suit":
            said["suit"] = suit_name(value, lang)
        elif name == "kind":
            said["kind"], said["kind_acc"] = kind_name(value, lang), kind_name(value, lang, "acc")
        elif name == "kinds":
            said["kinds"] = ", ".join(kind_name(k, lang) for k in value)
        elif name == "actions":
            said["actions"] = ", ".join(action_text(a, lang) for a in value)
        elif name == "count":
            said["count"], said["count_cards"] = value, count_cards(value, lang)
        else:
            said[name] = value
    return said


def kind_name(kind: str, lang: str, case: str = "nom") -> str:
    """A Bura combination's name (``little-moscow`` -> "Little Moscow", "малая москва")."""
    return translate(f"bura.kind.{kind}" + (".acc" if case == "acc" else ""), lang, domain="bura")


def count_cards(count: int, lang: str) -> str:
    """``"2 cards"``, in the form the catalog's plural rule picks (the accusative, after "play")."""
    return translate("count.cards", lang, "room", count, number=count)


def action_text(action: str, lang: str) -> str:
    """A canonical action string as a player hears it among choices (``play QS`` -> "сыграть даму пик")."""
    verb, *rest = action.split() or [""]
    params: dict[str, Any] = {}
    if verb in ("play", "meld") and _codes(rest):
        params = card_words("cards", rest, lang)
    elif verb == "name" and len(rest) == 1 and rest[0] in cards.SUITS:
        params = {"suit": suit_name(rest[0], lang)}
    elif verb == "announce" and len(rest) == 1:
        params = {"kind": kind_name(rest[0], lang), "kind_acc": kind_name(rest[0], lang, "acc")}
    elif rest:
        return action
    found = template(f"action.{verb}", lang, "room")
    try:
        return found.format(**params) if found else action
    except KeyError:  # "play" without cards, say: not an action the games offer
        return action


def _codes(words: Sequence[str]) -> bool:
    return bool(words) and all(len(w) == 2 and w[0] in cards.RANKS and w[1] in cards.SUITS for w in words)
