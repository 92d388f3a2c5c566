"""Every word a person reads or hears, in English, Russian and Greek: the gettext catalogs and what reads them.

The catalogs are ``locale/<lang>/<domain>.po``: ``room`` (the room's sentences, errors, actions), ``cards`` (card
and suit names, lists), ``bura`` and ``mpourloto`` (each game's sentences, refusals, title, options and table
description), ``terminal`` (the terminal client) and ``web`` (the web client's labels, help and key answers; the
page loads them from the server, see ``web.py``). A ``msgid`` is a key such as ``bura.play.you``, a ``msgstr`` a
``str.format`` template. A message that counts something is a plural entry (``msgid_plural``, one ``msgstr[i]``
per form): the catalog's own ``Plural-Forms`` header picks the form, with gettext's ``ngettext`` semantics
(English and Greek have two forms, Russian three). Catalogs are read with Babel at first use; no compile step.

Each game has a module here (``bura.py``, ``mpourloto.py``) that turns one event, as one recipient sees it, into
a message id and parameters:

    narrate("bura", event, seat=1, lang="el", names=["Anna", "Boris"])  # -> "Anna παίζει την ντάμα μπαστούνι."

A refused action (:class:`~trickroom.games.IllegalAction`) is said with :func:`refusal` (``refusals.py``); card
names come from ``names.py``, a game's title, table description and option texts from ``games.py``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from io import BytesIO
from pathlib import Path
from typing import Any, Literal, Protocol

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

LANGUAGES = ("en", "ru", "el")
DOMAINS = ("room", "cards", "bura", "mpourloto", "terminal", "web", "admin")
LOCALE_DIR = Path(__file__).with_name("locale")
PLURAL = "_plural"  # the parameter of a narrator's message that picks its plural form


class Narrator(Protocol):
    def message(self, event: Mapping[str, Any], seat: int | None, names: Sequence[str],
                lang: str) -> tuple[str, dict[str, Any]] | None:
        """A message id and its parameters for ``event`` as ``seat`` sees it; None to say nothing."""
        ...


def po_path(lang: str, domain: str) -> Path:
    return LOCALE_DIR / lang / f"{domain}.po"


@cache
def parsed(lang: str, domain: str) -> Catalog | None:
    """``locale/<lang>/<domain>.po`` as Babel reads it (None if there is no such file)."""
    path = po_path(lang, domain)
    if lang not in LANGUAGES or not path.exists():
        return None
    with path.open("rb") as handle:
        return read_po(handle, locale=lang)


@cache
def translations(lang: str, domain: str) -> Translations:
    """The catalog as gettext translations (``gettext``, ``ngettext`` with the catalog's plural rule)."""
    found = parsed(lang, domain)
    if found is None:
        return Translations()
    compiled = BytesIO()
    write_mo(compiled, found)
    compiled.seek(0)
    return Translations(compiled, domain=domain)


@cache
def catalog(lang: str, domain: str) -> dict[str, str]:
    """The messages of ``locale/<lang>/<domain>.po`` by key (a plural message by its first form); empty if the
    file does not exist."""
    found = parsed(lang, domain)
    messages: dict[str, str] = {}
    for message in found or ():
        key = message.id[0] if isinstance(message.id, tuple) else message.id
        text = message.string[0] if isinstance(message.string, tuple) else message.string
        if key and text:
            messages[str(key)] = str(text)
    return messages


@cache
def plural_keys(lang: str, domain: str) -> frozenset[str]:
    """The keys of the plural messages of a catalog."""
    return frozenset(str(m.id[0]) for m in parsed(lang, domain) or () if isinstance(m.id, tuple))


def language(lang: str | None) -> str:
    return lang if lang in LANGUAGES else "en"


@lru_cache(maxsize=16384)
def template(key: str, lang: str = "en", domain: str = "room", plural: int | None = None) -> str | None:
    """The template of ``key`` in ``lang`` (the form its catalog's plural rule picks for the number ``plural``),
    falling back to English; None if neither catalog has it."""
    for tongue in (language(lang), "en"):
        if key not in catalog(tongue, domain):
            continue
        if plural is not None and key in plural_keys(tongue, domain):
            return str(translations(tongue, domain).ngettext(key, key, plural))
        return catalog(tongue, domain)[key]
    return None


def translate(key: str, lang: str = "en", domain: str = "room", plural: int | None = None, **params: Any) -> str:
    """The sentence for ``key`` in ``lang`` (falling back to English, then to the key itself). ``plural`` is the
    number that picks the form of a plural message (``ngettext``); the number itself is one of ``params``."""
    found = template(key, lang, domain, plural)
    if found is None:
        return key
    return found.format(**params) if params else found


def said_in(params: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """Sentence parameters for one language: a parameter given per language ({"en": ..., "ru": ...}) becomes
    that language's text (English if it has none). For a sentence made where it is delivered, in each reader's
    language."""
    return {name: (value.get(lang) or value.get("en", "")) if isinstance(value, dict) else value
            for name, value in params.items()}


def narrate(game: str, event: Mapping[str, Any], seat: int | None, lang: str = "en",
            names: Sequence[str] = ()) -> str | None:
    """One sentence for ``event`` as ``seat`` (None: a spectator) sees it, or None if it is not spoken."""
    lang = language(lang)
    found = narrator(game).message(event, seat, names, lang)
    if found is None:
        return None
    key, params = found
    plural = params.pop(PLURAL, None)  # which plural form, for a message that counts something
    return translate(key, lang, domain=game, plural=plural, **params)


def narrate_step(game: str, events: Sequence[Mapping[str, Any]], seat: int | None, lang: str = "en",
                 names: Sequence[str] = ()) -> list[str | None] | None:
    """The sentences of the events one step made, as ``seat`` sees them, merged where a person would say them
    together (the game module's ``step``: a Bura trick's end is one sentence): one text per event (None: said in
    another's sentence, or not said), or None when nothing merges."""
    stepper = getattr(narrator(game), "step", None)
    if stepper is None or not events:
        return None
    found: list[str | None] | None = stepper(events, seat, names, language(lang))
    return found


def urgency(game: str, event: Mapping[str, Any], seat: int | None) -> Literal["assertive", "polite"]:
    """How a game event is said to ``seat``: "assertive" (it cuts in) when it calls on them to act now (the game
    module's ``urgent``: a claim against you), else "polite" (accessibility.md: only what asks the listener to act
    now is assertive)."""
    urgent = getattr(narrator(game), "urgent", None)
    return "assertive" if urgent is not None and urgent(event, seat) else "polite"


def turn_sentence(game: str, legal: Sequence[str], lang: str = "en") -> str:
    """What a person hears when it becomes their turn: the game's own sentence for the decision where it has
    one (the game module's ``turn``: Bura's "You may announce a Molodka, or pass."), else "Your turn."."""
    lang = language(lang)
    asker = getattr(narrator(game), "turn", None)
    found = asker(legal, lang) if asker is not None else None
    if found is None:
        return translate("turn.yours", lang)
    key, params = found
    return translate(key, lang, domain=game, **params)


@cache
def narrator(game: str) -> Narrator:
    """The module that turns ``game``'s events into messages (``narration/<game>.py``)."""
    module: Narrator = importlib.import_module(f"trickroom.narration.{game}")
    return module


def player_name(seat: int | None, names: Sequence[str], lang: str = "en") -> str:
    """A seat's name for speech: the player's nickname, or "Seat 3" when unknown."""
    if seat is not None and 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return translate("seat.name", lang, number=(seat or 0) + 1)


def seat_names(names: Sequence[str | None], lang: str) -> list[str]:
    """Each seat's name for sentences: the person's, else "Bot 2" in ``lang`` (a bot, or nobody)."""
    return [name if name else translate("bot.name", lang, number=i + 1) for i, name in enumerate(names)]


def capitalized(text: str) -> str:
    """``text`` with its first letter in capitals (for a phrase that begins a sentence)."""
    return text[:1].upper() + text[1:]


# Last: these modules read the catalogs through the functions above.
from trickroom.narration.games import describe as describe  # noqa: E402
from trickroom.narration.games import title as title  # noqa: E402
from trickroom.narration.games import titles as titles  # noqa: E402
from trickroom.narration.refusals import refusal as refusal  # noqa: E402
