"""The protocol's JSON Schema (both directions, ``trickroom protocol-schema``) and docs/protocol.md say the same: the
page's message reference is the schema's, and every message type and field its other tables name exists."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from trickroom.cli import main
from trickroom.server.protocol import CLIENT_TYPES, protocol_schema
from trickroom.server.schema import message_fields

PAGE = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
ROW = re.compile(r"^\|(.+)\|\s*$")
TICKED = re.compile(r"`([a-z_]+)`")


def tables(text: str) -> list[tuple[str, list[str], list[list[str]]]]:
    """Each markdown table of the page: the heading above it, its header cells and its rows' cells."""
    found: list[tuple[str, list[str], list[list[str]]]] = []
    heading, lines = "", text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        if ROW.match(line) and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            header = [cell.strip() for cell in line.strip().strip("|").split("|")]
            rows, i = [], i + 2
            while i < len(lines) and ROW.match(lines[i]):
                rows.append([cell.strip() for cell in lines[i].strip().strip("|").split("|")])
                i += 1
            found.append((heading, header, rows))
            continue
        i += 1
    return found


def named_fields(cell: str) -> list[str]:
    """The fields a fields cell names: the first `name` of each comma-separated item, outside parentheses."""
    while True:
        bare = re.sub(r"\([^()]*\)", "", cell)
        if bare == cell:
            break
        cell = bare
    names = []
    for item in cell.split(","):
        match = TICKED.search(item)
        if match:
            names.append(match.group(1))
    return names


def documented_reference(direction: str) -> dict[str, dict[str, bool]]:
    heading = {"client": "Client messages", "server": "Server messages"}[direction]
    [(_, _, rows)] = [t for t in tables(PAGE.read_text(encoding="utf-8")) if t[0] == heading]
    reference: dict[str, dict[str, bool]] = {}
    for kind, fields in rows:
        reference[kind.strip("`")] = {name.strip("`?"): not name.endswith("?")
                                      for name in (f.strip() for f in fields.split(",")) if name}
    return reference


@pytest.mark.parametrize("direction", ["client", "server"])
def test_the_pages_message_reference_is_the_schemas(direction: str) -> None:
    schema = message_fields(protocol_schema()[direction])
    documented = documented_reference(direction)
    assert sorted(documented) == sorted(schema), "run `trickroom protocol-schema --markdown` and update the page"
    for kind, fields in schema.items():
        # Same fields, same order, and the same ones optional.
        assert list(documented[kind].items()) == list(fields.items()), kind


def test_every_message_type_and_field_the_pages_tables_name_exists() -> None:
    schema = protocol_schema()
    known: dict[str, set[str]] = {}
    for direction in ("client", "server"):
        for kind, fields in message_fields(schema[direction]).items():
            known.setdefault(kind, set()).update(fields)
    checked = 0
    for heading, header, rows in tables(PAGE.read_text(encoding="utf-8")):
        if header[0] not in ("type", "message"):
            continue  # close codes, error codes and the like
        fields_at = header.index("fields") if "fields" in header else None
        for row in rows:
            kind = row[0].strip("`")
            assert kind in known, f"{heading}: no message type {kind!r}"
            if fields_at is not None:
                for name in named_fields(row[fields_at]):
                    assert name in known[kind], f"{heading}: {kind} has no field {name!r}"
                    checked += 1
    assert checked > 100  # the page's tables were read


def test_the_type_lists_come_from_the_union() -> None:
    assert set(message_fields(protocol_schema()["client"])) == CLIENT_TYPES


def test_the_command_prints_both_directions(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["protocol-schema"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert set(printed) == {"protocol", "client", "server"}
    assert set(printed["client"]["$defs"]["Sit"]["required"]) == {"type", "table"}  # no seat: any free one
    assert set(printed["client"]["$defs"]["Act"]["required"]) == {"type", "table", "action"}
    out = tmp_path / "server.json"
    assert main(["protocol-schema", "--direction", "server", "--output", str(out)]) == 0
    server = json.loads(out.read_text(encoding="utf-8"))
    assert "Welcome" in server["$defs"] and "Login" not in server["$defs"]
