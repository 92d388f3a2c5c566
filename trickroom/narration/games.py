"""What the room says about a game itself: its title, the one-sentence description of a table's options (the
table list), and each option's name, description and choices (the options screens, ``trickroom play --help``).

The games declare an option's message id (``Option.key``, ``bura.option.stack``); the words are in the game's
catalog: ``<key>`` the description, ``<key>.label`` the short name, ``<key>.<value>`` a choice's name.
"""

from __future__ import annotations

from typing import Any

from trickroom.games import Game, Option, game_class
from trickroom.narration import LANGUAGES, template, translate


def _domain(key: str) -> str:
    return key.split(".", 1)[0]


def title(game: str, lang: str = "en") -> str:
    """``"Bura"``, ``"Бура"``, ``"Μπούρα"``."""
    return translate(f"{game}.title", lang, game)


def titles(game: str) -> dict[str, str]:
    """The title in every language, for messages read in several (the lobby's listing, the hello)."""
    return {lang: title(game, lang) for lang in LANGUAGES}


def option_label(option: Option, lang: str = "en") -> str:
    return translate(f"{option.key}.label", lang, _domain(option.key))


def option_description(option: Option, lang: str = "en") -> str:
    return translate(option.key, lang, _domain(option.key))


def option_value(option: Option, value: Any, lang: str = "en") -> str:
    """A choice's name ("classic", "классика"), or the value itself for an option whose choices are numbers."""
    found = template(f"{option.key}.{value}", lang, _domain(option.key))
    return found if found is not None else str(value)


def option_entry(option: Option) -> dict[str, Any]:
    """An option as the room's hello lists it: its declaration, and its words in every language."""
    named = [c for c in option.choices or () if template(f"{option.key}.{c}", "en", _domain(option.key))]
    return {
        **option.to_json(),
        "label": {lang: option_label(option, lang) for lang in LANGUAGES},
        "description": {lang: option_description(option, lang) for lang in LANGUAGES},
        "labels": {lang: {str(c): option_value(option, c, lang) for c in named} for lang in LANGUAGES},
    }


def game_entry(name: str) -> dict[str, Any]:
    """A game as the room's hello lists it."""
    cls = game_class(name)
    return {"name": name, "title": titles(name), "min_players": cls.min_players, "max_players": cls.max_players,
            "options": [option_entry(o) for o in cls.OPTIONS]}


def describe(game: Game, lang: str = "en") -> str:
    """The table's options in one short sentence, for the table list: "Bura, 3 players, classic, pot, 20 chips
    each."."""
    options = game.options
    if game.name == "bura":
        return _describe_bura(game, options, lang)
    rule = "relief" if options["partner_relief"] else "strict"
    return translate("mpourloto.describe", lang, "mpourloto", plural=options["target"], target=options["target"],
                     rule=translate(f"mpourloto.describe.{rule}", lang, "mpourloto"))


def _describe_bura(game: Game, options: dict[str, Any], lang: str) -> str:
    def say(key: str, plural: int | None = None, **params: Any) -> str:
        return translate(f"bura.describe.{key}", lang, "bura", plural, **params)

    if options["scoring"] == "pot":
        scoring = say("pot", options["stack"], stack=options["stack"])
    else:
        scoring = say("points", target=options["target"])
    limit = say("limit", options["hand_limit"], hands=options["hand_limit"]) if options["hand_limit"] else ""
    return translate("bura.describe", lang, "bura", players=say("players", game.players, players=game.players),
                     preset=option_value(game.option("preset"), options["preset"], lang), scoring=scoring,
                     limit=limit)
