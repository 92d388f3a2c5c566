"""``trickroom protocol-schema``: the protocol's JSON Schema, both directions (``protocol.protocol_schema``), or the
message reference tables of docs/protocol.md made from it (``--markdown``; ``tests/test_protocol_schema.py`` checks
that the page's tables say the same)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from trickroom.server.protocol import protocol_schema

DIRECTIONS = ("client", "server")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--direction", choices=[*DIRECTIONS, "both"], default="both",
                        help="the client's messages (what the server accepts), the server's, or both (default)")
    parser.add_argument("--markdown", action="store_true",
                        help="print the message reference tables of docs/protocol.md instead of the schema")
    parser.add_argument("--output", help="write to this file instead of standard output")


def run(args: argparse.Namespace) -> int:
    schema = protocol_schema()
    directions = DIRECTIONS if args.direction == "both" else (args.direction,)
    if args.markdown:
        text = "\n".join(reference_table(schema[d], d) for d in directions)
    elif args.direction == "both":
        text = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    else:
        text = json.dumps(schema[args.direction], indent=2, ensure_ascii=False) + "\n"
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0


def message_fields(schema: dict[str, Any]) -> dict[str, dict[str, bool]]:
    """Each message type of one direction's schema: its fields (but ``type``), each with whether it is required."""
    found: dict[str, dict[str, bool]] = {}
    for choice in schema.get("oneOf") or schema.get("anyOf") or []:
        definition = schema["$defs"][choice["$ref"].rsplit("/", 1)[-1]]
        properties = definition["properties"]
        required = set(definition.get("required", ()))
        found[properties["type"]["const"]] = {name: name in required for name in properties if name != "type"}
    return found


def field_list(fields: dict[str, bool]) -> str:
    """The fields cell of a reference table: ``name`` if required, ``name``? if not, in the schema's order."""
    return ", ".join(f"`{name}`" + ("" if required else "?") for name, required in fields.items())


def reference_table(schema: dict[str, Any], direction: str) -> str:
    rows = [f"| `{kind}` | {field_list(fields)} |" for kind, fields in sorted(message_fields(schema).items())]
    return "\n".join([f"<!-- {direction} messages: made by trickroom protocol-schema --markdown -->",
                      "| type | fields |", "|---|---|", *rows, ""])
