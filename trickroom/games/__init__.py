"""The games trickroom plays, behind one API: ``load_game(name, **options)`` -> :class:`Game`.

    from trickroom.games import load_game, IllegalAction
    game = load_game("bura", players=3, preset="classic", scoring="pot")
    match = game.new_match(seed=7)
"""

from __future__ import annotations

import importlib
from typing import Any

from trickroom.games.base import (
    HAND_OVER,
    Announcement,
    Event,
    Game,
    IllegalAction,
    Match,
    Option,
    OptionError,
    ends_a_hand,
    events_for,
)

__all__ = [
    "GAMES",
    "HAND_OVER",
    "Announcement",
    "Event",
    "Game",
    "IllegalAction",
    "Match",
    "Option",
    "OptionError",
    "ends_a_hand",
    "events_for",
    "game_class",
    "load_game",
]

# Game name -> module that defines the Game subclass named in the value.
GAMES: dict[str, tuple[str, str]] = {
    "bura": ("trickroom.games.bura", "Bura"),
    "mpourloto": ("trickroom.games.mpourloto", "Mpourloto"),
}


def game_class(name: str) -> type[Game]:
    """The :class:`Game` subclass for ``name``; raise :class:`OptionError` for an unknown game."""
    try:
        module_name, class_name = GAMES[name.lower()]
    except KeyError:
        raise OptionError(f"Unknown game {name!r}; games: {', '.join(GAMES)}.", key="error.unknown_game",
                          game=str(name)[:40], games=", ".join(GAMES)) from None
    cls: type[Game] = getattr(importlib.import_module(module_name), class_name)
    return cls


def load_game(name: str, /, **options: Any) -> Game:
    """The game ``name`` with ``options`` validated (unknown names and bad values raise OptionError).

    ``name`` is positional-only, so that any option name, even ``name``, reaches the game's validation."""
    return game_class(name)(**options)
