"""The terminal client's own sentences and command words, from the ``terminal`` catalog (locale/<lang>/terminal.po).

Game events are spoken by :mod:`trickroom.narration`, exactly as the server speaks them; the catalog holds only
what the terminal adds around them: prompts, help, summaries, and the words of its commands (``words.<command>``,
the first of them the one the client shows). English command words are understood in every language.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from typing import Any

from trickroom.narration import language, translate

DOMAIN = "terminal"


def say(key: str, lang: str = "en", plural: int | None = None, **params: Any) -> str:
    """The client's sentence ``key`` in ``lang`` (English when the language or key is missing); ``plural`` is the
    number that picks the form of a message that counts something."""
    return translate(key, lang, DOMAIN, plural, **params)


def folded(word: str) -> str:
    """A typed word as it is compared: lower case, without accents (``Πάσο`` and ``πασο``, ``счёт`` and
    ``счет`` are the same command)."""
    decomposed = unicodedata.normalize("NFD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@cache
def command_words(command: str, lang: str) -> tuple[str, ...]:
    """The words for ``command`` in ``lang`` (its own first), then the English ones."""
    words = [*translate(f"words.{command}", language(lang), DOMAIN).split(), *translate(f"words.{command}").split()]
    return tuple(dict.fromkeys(words))


def command_word(command: str, lang: str) -> str:
    """The word the client shows for ``command``: ``play``, ``сыграть``, ``παίζω``."""
    return command_words(command, lang)[0]


@cache
def commands_by_word(commands: tuple[str, ...], lang: str) -> dict[str, str]:
    """Typed word (folded) -> command, for ``commands`` in ``lang`` and English."""
    found: dict[str, str] = {}
    for command in commands:
        for word in command_words(command, lang):
            found.setdefault(folded(word), command)
    return found
