"""The per-game parts of every level, found by the game's name."""

from __future__ import annotations

import importlib
from types import ModuleType

GAME_MODULES = {"bura": "trickroom.bots.bura", "mpourloto": "trickroom.bots.mpourloto"}


def game_module(name: str) -> ModuleType:
    try:
        return importlib.import_module(GAME_MODULES[name])
    except KeyError:
        raise ValueError(f"No bots for the game {name!r}.") from None
