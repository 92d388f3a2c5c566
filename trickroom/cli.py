"""The ``trickroom`` command: ``serve`` (the room), ``play`` (terminal client), ``arena`` (bot matches), ``admin``
(the operator's tools), ``protocol-schema`` (the protocol's JSON Schema).

Each subcommand lives in its own module, imported only when used, with ``add_arguments(parser)`` and
``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS = {
    "serve": ("trickroom.server.main", "run the room server"),
    "play": ("trickroom.terminal.main", "play in the terminal, offline against bots or on a server"),
    "arena": ("trickroom.bots.arena", "play bots against each other on duplicate deals and measure them"),
    "admin": ("trickroom.server.admin", "the operator's tools: roles, accounts, room bans, backups, the audit log"),
    "protocol-schema": ("trickroom.server.schema", "the protocol's JSON Schema, both directions (docs/protocol.md)"),
}


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="trickroom", description="An accessible card room: Bura and Mpourloto.")
    sub = parser.add_subparsers(dest="command", required=True)
    chosen = args_list[0] if args_list else None
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text)
        if name == chosen:
            module = importlib.import_module(module_name)
            module.add_arguments(sub_parser)
            sub_parser.set_defaults(_run=module.run)
    args = parser.parse_args(args_list)
    code: int = args._run(args)
    return code
