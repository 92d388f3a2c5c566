"""``trickroom play``: the terminal client's command line (see docs/terminal.md).

    trickroom play bura --players 3 --bots easy --scoring points --lang ru
    trickroom play mpourloto --partner-relief --hands 1
    trickroom play --server ws://localhost:8000/ws --name Anna --create bura --players 2 --bots normal

Each game is a sub-command whose flags are generated from the game's option declarations (``Game.OPTIONS``),
so a new option appears here without being listed twice; their help is the option's description in the
catalog. Values are checked by the game itself, so a bad one is refused with the game's sentence in the chosen
language (``--players 3`` for Mpourloto), not argparse's.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from trickroom.bots import LEVELS
from trickroom.games import GAMES, Option, OptionError, game_class, load_game
from trickroom.narration import LANGUAGES, refusal
from trickroom.narration.games import option_description, title
from trickroom.terminal.text import say

OPTION_PREFIX = "option_"
DEFAULT_LEVEL = "normal"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Play Bura or Mpourloto in the terminal: offline against bots (trickroom play bura), "
                          "or at a table on a room (trickroom play --server URL --name NAME).")
    _add_common(parser, nested=False)
    games = parser.add_subparsers(dest="game", metavar="GAME", help="the game to play offline, or to create online")
    for name in GAMES:
        cls = game_class(name)
        sub = games.add_parser(name, help=f"{title(name)} ({cls.min_players}-{cls.max_players} players)",
                               description=f"{title(name)}: play against bots, or create a table with --server.")
        _add_common(sub, nested=True)
        for option in cls.OPTIONS:
            _add_option(sub, option)


def _add_common(parser: argparse.ArgumentParser, nested: bool) -> None:
    """The client's own flags, accepted before and after the game's name (``nested``: after, where a default
    must not overwrite a value given before)."""

    def default(value: Any) -> Any:
        return argparse.SUPPRESS if nested else value

    parser.add_argument("--name", default=default(None), help="your name (default: You)")
    parser.add_argument("--lang", choices=LANGUAGES, default=default("en"), help="language of every sentence")
    parser.add_argument("--bots", choices=list(LEVELS), default=default(None),
                        help=f"bot level for the other seats (offline default {DEFAULT_LEVEL}; with --server: "
                             "fill the free seats of a table you created with bots of this level)")
    parser.add_argument("--seed", type=int, default=default(None), help="deal seed, for a game you can replay")
    parser.add_argument("--bot-delay", type=float, default=default(0.0), metavar="SECONDS",
                        help="pause before each bot move (default 0)")
    parser.add_argument("--hands", type=int, default=default(0), metavar="N",
                        help="stop after N hands (default: play the whole match)")
    parser.add_argument("--symbols", action="store_true", default=default(False), help="print suits as ♠ ♥ ♦ ♣")
    parser.add_argument("--color", action="store_true", default=default(False),
                        help="print hearts and diamonds in red (ANSI colours)")
    parser.add_argument("--server", default=default(None), metavar="URL",
                        help="play on a room instead: its websocket, e.g. ws://localhost:8000/ws")
    parser.add_argument("--table", default=default(None), metavar="ID", help="with --server: the table to join")
    parser.add_argument("--create", action="store_true", default=default(False),
                        help="with --server: create a table of the game named after it, with its options")
    parser.add_argument("--hints", action="store_true", default=default(False),
                        help="with --create: allow hints at the table (the game then changes no rating)")
    parser.add_argument("--replay", default=default(None), metavar="FILE",
                        help="watch an exported game again (its JSON); with --name, as that player heard it")


def _add_option(parser: argparse.ArgumentParser, option: Option) -> None:
    """A flag for the option. argparse only collects the text: the game validates it (``load_game``)."""
    flag = "--" + option.name.replace("_", "-")
    dest = OPTION_PREFIX + option.name
    text = option_description(option)
    if option.kind is bool:
        parser.add_argument(flag, dest=dest, action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS,
                            help=f"{text} (default {'on' if option.default else 'off'})")
        return
    if option.choices is not None:
        metavar, allowed = "{" + ",".join(str(c) for c in option.choices) + "}", ""
    else:
        metavar = "N" if option.kind is int else "VALUE"
        allowed = f", {option.minimum}-{option.maximum}" if option.minimum is not None else ""
    parser.add_argument(flag, dest=dest, default=argparse.SUPPRESS, metavar=metavar,
                        help=f"{text} (default {option.default}{allowed})")


def game_options(args: argparse.Namespace) -> dict[str, Any]:
    return {key[len(OPTION_PREFIX):]: value for key, value in vars(args).items() if key.startswith(OPTION_PREFIX)}


def run(args: argparse.Namespace) -> int:
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    from trickroom.terminal.console import Console
    from trickroom.terminal.render import Style

    style = Style(symbols=args.symbols, color=args.color)
    if args.replay:
        from trickroom.terminal.replay import run_file

        return run_file(args.replay, args.name, Console(), args.lang)
    given = game_options(args)
    game = None
    if args.game:
        try:  # the options are the game's to check, online too: a bad value is refused here, in the language
            game = load_game(args.game, **given)
        except OptionError as exc:
            print(refusal(exc, args.lang), file=sys.stderr)
            return 2
    if args.server:
        from trickroom.terminal.online import OnlineClient

        client = OnlineClient(args.server, args.name, Console(), args.lang, style, table=args.table,
                              create=args.game if args.create or (args.game and not args.table) else None,
                              options={name: game.options[name] for name in given} if game else {}, bots=args.bots,
                              hands=args.hands, hints=args.hints)
        return client.run()
    if game is None:
        print(say("choose_game", args.lang), file=sys.stderr)
        return 2
    from trickroom.terminal.offline import OfflineGame

    session = OfflineGame(game, args.bots or DEFAULT_LEVEL, args.name, Console(), args.lang, style, seed=args.seed,
                          bot_delay=max(0.0, args.bot_delay), hands=max(0, args.hands))
    return session.run()

