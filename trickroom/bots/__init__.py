"""Bots: every level behind one interface.

A bot sees exactly what a human in its seat sees: the seat's ``view`` and the events as that seat saw them
(``events_for(match.events, seat)``), never the match itself. Bots are stateless between decisions: all they
remember is rebuilt from those events, so a bot can take over any seat at any moment (a dropped player, a
timer that ran out, a server that restarted).

    bot = make_bot("normal", seed=1)
    action = bot.choose(game, seat, match.view(seat), events_for(match.events, seat), match.legal_actions(seat))
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from trickroom.games import Event, Game

LEVELS: dict[str, tuple[str, str]] = {
    "random": ("trickroom.bots.random_bot", "RandomBot"),
    "easy": ("trickroom.bots.easy", "EasyBot"),
    "normal": ("trickroom.bots.normal", "NormalBot"),
    "hard": ("trickroom.bots.hard", "HardBot"),
}


class Bot(Protocol):
    level: str

    def choose(self, game: Game, seat: int, view: dict[str, Any], events: Sequence[Event],
               legal: Sequence[str]) -> str:
        """One of ``legal`` for ``seat``, from what that seat may see."""
        ...


# Thinking time in seconds that the server gives each level (None: the level does not search). The hard level's
# figure keeps its decisions under 1 s median and 2 s at the 95th percentile on a 2-core machine (docs/bots.md):
# a search stops at its budget, finishing the world in progress (about a millisecond).
HARD_BUDGET = 0.9
DEFAULT_BUDGETS: dict[str, float | None] = {"random": None, "easy": None, "normal": None, "hard": HARD_BUDGET}


def off_turn_action(bot: Bot, game: Game, seat: int, view: dict[str, Any], events: Sequence[Event],
                    legal: Sequence[str]) -> str | None:
    """What ``bot`` does at a moment when the game is not waiting for ``seat``, or None to do nothing.

    Only a game with ``off_turn_actions`` has such moments (Bura: a claim is legal for every seat at any time).
    A host (server, arena) asks the bot seats after each event; bots that define ``off_turn`` answer, others
    (random) never act off turn.
    """
    method = getattr(bot, "off_turn", None)
    if method is None:
        return None
    action: str | None = method(game, seat, view, events, legal)
    return action


def acts_off_turn(level: str) -> bool:
    """Whether bots of ``level`` ever act off turn (they define ``off_turn``), so that a host need not ask the
    others; False for a level this room does not have."""
    return level in LEVELS and hasattr(bot_class(level), "off_turn")


def bot_class(level: str) -> Callable[..., Bot]:
    """The class of ``level``'s bots (called with ``seed`` and ``budget``)."""
    try:
        module_name, class_name = LEVELS[level]
    except KeyError:
        raise ValueError(f"Unknown bot level {level!r}; levels: {', '.join(LEVELS)}.") from None
    cls: Callable[..., Bot] = getattr(importlib.import_module(module_name), class_name)
    return cls


def make_bot(level: str, seed: int | None = None, budget: float | None = None) -> Bot:
    """A bot of ``level`` (random, easy, normal, hard); ``seed`` makes it reproducible, ``budget`` is the
    thinking time in seconds for search levels."""
    return bot_class(level)(seed=seed, budget=budget)
