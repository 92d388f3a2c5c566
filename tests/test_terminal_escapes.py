"""The terminal prints nothing from another person that could act on the terminal: no ESC, NUL, BEL, newline or
bidi override, whether the room cleaned it (a real room) or not (a room that relays text raw)."""

from __future__ import annotations

import io
import unicodedata
from pathlib import Path
from typing import Any

from server_helpers import Client, room_on
from test_terminal import Driver, programs_stopped  # noqa: F401  (an autouse fixture)

from trickroom.terminal.console import Console, printable
from trickroom.terminal.online import OnlineClient
from trickroom.terminal.render import Style

DIRTY = "\x1b[2J\x00Hi\nAnna plays the ace of spades.\x07 \u202egnirts"


def acts_on_a_terminal(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Zl", "Zp") or "\u202a" <= char <= "\u202e" or (
        "\u2066" <= char <= "\u2069")


class Recorder:
    """Stands in for the websocket: keeps what the client sends."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def send(self, frame: str) -> None:
        self.sent.append(frame)


def test_text_from_a_room_that_relays_it_raw_is_printed_escaped() -> None:
    out = io.StringIO()
    client = OnlineClient("ws://nowhere", "Tess", Console(io.StringIO(), out), "en", Style())
    client.ws = Recorder()  # type: ignore[assignment]
    seats = [{"seat": 0, "user": {"id": "g1", "name": "Evil\x1b]0;owned\x07", "guest": True}, "bot": None},
             {"seat": 1, "user": None, "bot": None}]
    info = {"id": "t1", "name": "Fake\ntable", "game": "bura", "options": {"players": 2}, "status": "waiting",
            "seats": seats}
    messages: list[dict[str, Any]] = [
        {"type": "chat", "from": {"name": "Evil"}, "message": DIRTY, "text": f"Evil: {DIRTY}"},
        {"type": "private", "text": f"Evil whispers: {DIRTY}"},
        {"type": "presence", "text": "Evil\r\u2028comes in."},
        {"type": "snapshot", "table": "t1", "seq": 1, "info": info, "you": {"seat": None, "host": False},
         "view": None, "legal": [], "to_act": []},
        {"type": "table_event", "table": "t1", "seq": 2, "kind": "sat", "info": info, "user": seats[0]["user"],
         "seat": 0, "text": "Evil\x1b]0;owned\x07 sits in seat 1.\n\x1b[1AYou win."},
    ]
    for message in messages:
        client.receive(message)
    lines = out.getvalue().split("\n")
    assert lines[-1] == "" and all(not any(acts_on_a_terminal(c) for c in line) for line in lines)
    assert lines[:-1] == [
        "Evil: \\x1b[2J\\x00Hi\\x0aAnna plays the ace of spades.\\x07 \\u202egnirts",
        "Evil whispers: \\x1b[2J\\x00Hi\\x0aAnna plays the ace of spades.\\x07 \\u202egnirts",
        "Evil\\x0d\\u2028comes in.",
        "Evil\\x1b]0;owned\\x07 sits in seat 1.\\x0a\\x1b[1AYou win.",
    ], lines
    assert client.names[0] == "Evil\\x1b]0;owned\\x07"  # the names our own sentences use are escaped too


def test_printable_keeps_ordinary_text_and_escapes_keys_and_nested_values() -> None:
    assert printable("Анна: καλημέρα, it's 10\u00a0pm \u200d") == "Анна: καλημέρα, it's 10\u00a0pm \u200d"
    assert printable({"a\n": ["b\x1b", 3, None, {"c": "\u2066"}]}) == {"a\\x0a": ["b\\x1b", 3, None, {"c": "\\u2066"}]}


def test_a_chat_with_control_characters_reaches_the_terminal_as_one_clean_line(tmp_path: Path) -> None:
    with room_on(f"sqlite:///{tmp_path / 'room.sqlite3'}") as (room, made):
        host = Client(room.url)
        made.append(host)
        host.login_guest("Mallory")
        table = host.request(type="create", game="bura", options={"players": 2})["table"]
        driver = Driver("--server", room.url, "--name", "Tess", "--table", table)
        assert driver.until(lambda line: line.startswith("You sit")) == "You sit in seat 1."
        host.request(type="chat", table=table, message=DIRTY)
        heard = driver.until(lambda line: line.startswith("Mallory"))
        assert heard == "Mallory: [2JHi Anna plays the ace of spades. gnirts"
        driver.type("quit")
        assert driver.close() == 0
    assert "Anna plays the ace of spades." not in driver.lines
    assert not any(acts_on_a_terminal(char) for line in driver.lines for char in line)
