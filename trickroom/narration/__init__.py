"""Sentences for events, in English and Russian, for screen readers and the terminal.

Each game has a module here (``bura.py``, ``mpourloto.py``) that turns one event, as one recipient sees it,
into a message id and parameters; the sentence templates live in gettext catalogs,
``locale/<lang>/<domain>.po`` (``msgid`` is a key such as ``bura.play.you``, ``msgstr`` a ``str.format``
template). Catalogs are read with Babel at first use; no compile step.

    narrate("bura", event, seat=1, lang="ru", names=["Anna", "Boris", "Bot"])  # -> "Анна играет даму пик."

A refused action (:class:`~trickroom.games.IllegalAction`) is said with :func:`refusal` (``refusals.py``).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from babel.messages.pofile import read_po

LANGUAGES = ("en", "ru")
LOCALE_DIR = Path(__file__).with_name("locale")


class Narrator(Protocol):
    def message(self, event: Mapping[str, Any], seat: int | None, names: Sequence[str],
                lang: str) -> tuple[str, dict[str, Any]] | None:
        """A message id and its parameters for ``event`` as ``seat`` sees it; None to say nothing."""
        ...


@cache
def catalog(lang: str, domain: str) -> dict[str, str]:
    """The templates of ``locale/<lang>/<domain>.po`` as a dict (empty if the file does not exist)."""
    path = LOCALE_DIR / lang / f"{domain}.po"
    if not path.exists():
        return {}
    with path.open("rb") as handle:
        parsed = read_po(handle)
    return {str(m.id): str(m.string) for m in parsed if m.id and m.string}


def language(lang: str | None) -> str:
    return lang if lang in LANGUAGES else "en"


def translate(key: str, lang: str = "en", domain: str = "room", **params: Any) -> str:
    """The sentence for ``key`` in ``lang`` (falling back to English, then to the key itself)."""
    lang = language(lang)
    template = catalog(lang, domain).get(key) or catalog("en", domain).get(key) or key
    return template.format(**params) if params else template


def said_in(params: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """Sentence parameters for one language: a parameter given per language ({"en": ..., "ru": ...}) becomes
    that language's text (English if it has none). For a sentence made where it is delivered, in each reader's
    language."""
    return {name: (value.get(lang) or value.get("en", "")) if isinstance(value, dict) else value
            for name, value in params.items()}


def narrate(game: str, event: Mapping[str, Any], seat: int | None, lang: str = "en",
            names: Sequence[str] = ()) -> str | None:
    """One sentence for ``event`` as ``seat`` (None: a spectator) sees it, or None if it is not spoken."""
    module: Narrator = importlib.import_module(f"trickroom.narration.{game}")
    lang = language(lang)
    found = module.message(event, seat, names, lang)
    if found is None:
        return None
    key, params = found
    return translate(key, lang, domain=game, **params)


def russian_count(count: int, one: str, few: str, many: str) -> str:
    """``count`` and the Russian noun form that goes with it: 1 карта, 2 карты, 5 карт (21 карта, 12 карт)."""
    last_two, last = abs(count) % 100, abs(count) % 10
    if last == 1 and last_two != 11:
        word = one
    elif 2 <= last <= 4 and not 12 <= last_two <= 14:
        word = few
    else:
        word = many
    return f"{count} {word}"


def player_name(seat: int | None, names: Sequence[str], lang: str = "en") -> str:
    """A seat's name for speech: the player's nickname, or "Seat 3" when unknown."""
    if seat is not None and 0 <= seat < len(names) and names[seat]:
        return names[seat]
    word = "Место" if lang == "ru" else "Seat"
    return f"{word} {(seat or 0) + 1}"


# Last: refusals.py reads the catalogs through the functions above.
from trickroom.narration.refusals import refusal as refusal  # noqa: E402
