"""The terminal coming back after a drop: what it missed is said after "Back at the table.", a trick's worth as it
came and more as one line that points to ``history``; a quiet move to the table's node; and the lobby's count of
tables in play leaves out the ones it lists. The room's messages are fed to the client directly (no socket)."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from trickroom.terminal.catch_up import MISSED_SAID_AT_MOST
from trickroom.terminal.console import Console
from trickroom.terminal.online import OnlineClient
from trickroom.terminal.render import Style

SEATS = [{"seat": 0, "user": {"id": "u1", "name": "Tess", "guest": True}, "bot": None},
         {"seat": 1, "user": {"id": "u2", "name": "Anna", "guest": True}, "bot": None}]
INFO = {"id": "t1", "name": "Evening", "game": "bura", "options": {"players": 2}, "status": "waiting",
        "seats": SEATS}


class Recorder:
    """Stands in for the websocket: keeps what the client sends; ``waiting``: frames it still holds to be read."""

    def __init__(self, *waiting: dict[str, Any]) -> None:
        self.sent: list[dict[str, Any]] = []
        self.waiting = [json.dumps(frame) for frame in waiting]
        self.closed = False

    def send(self, frame: str) -> None:
        self.sent.append(json.loads(frame))

    def recv(self, timeout: float | None = None) -> str:
        if not self.waiting:
            raise TimeoutError
        return self.waiting.pop(0)

    def close(self) -> None:
        self.closed = True


def snapshot(seq: int) -> dict[str, Any]:
    return {"type": "snapshot", "table": "t1", "seq": seq, "info": INFO, "you": {"seat": 0, "host": False},
            "view": None, "legal": [], "to_act": []}


def said(seq: int, missed: bool = True) -> dict[str, Any]:
    """A table event numbered ``seq`` that says its own number."""
    message = {"type": "table_event", "table": "t1", "seq": seq, "kind": "chat_mode", "text": f"Sentence {seq}."}
    return {**message, "missed": True} if missed else message


def client_back_after_a_drop() -> tuple[OnlineClient, io.StringIO, Recorder]:
    """A client seated at t1 (seq 3 seen) whose connection dropped and that has just logged in again."""
    out, socket = io.StringIO(), Recorder()
    client = OnlineClient("ws://nowhere", "Tess", Console(io.StringIO(), out), "en", Style())
    client.ws = socket  # type: ignore[assignment]
    client.receive({"type": "welcome", "user": {"id": "u1", "name": "Tess"}, "token": "k", "text": "Welcome."})
    client.receive(snapshot(3))
    client.resuming = True
    out.truncate(0)
    out.seek(0)
    client.receive({"type": "welcome", "user": {"id": "u1", "name": "Tess"}, "token": "k", "tables": ["t1"]})
    assert socket.sent[-1] == {"type": "resume", "table": "t1", "after": 3, "id": socket.sent[-1]["id"]}
    return client, out, socket


def lines(out: io.StringIO) -> list[str]:
    return out.getvalue().splitlines()


def test_a_trick_s_worth_of_missed_sentences_is_said_after_back_at_the_table() -> None:
    client, out, _ = client_back_after_a_drop()
    for seq in range(4, 4 + MISSED_SAID_AT_MOST):
        client.receive(said(seq))
    assert lines(out) == []  # held until the table's snapshot
    client.receive(snapshot(3 + MISSED_SAID_AT_MOST))
    assert lines(out) == ["Back at the table.", "Sentence 4.", "Sentence 5.", "Sentence 6.", "Sentence 7."]
    client.receive(said(8, missed=False))  # after the resume, live messages are said as they come
    assert lines(out)[-1] == "Sentence 8."


def test_more_missed_sentences_go_to_the_history_with_one_line_that_says_how_many() -> None:
    client, out, _ = client_back_after_a_drop()
    for seq in range(4, 13):
        client.receive(said(seq))
    client.receive(snapshot(12))
    assert lines(out) == ["Back at the table.", "You missed 9 messages; type history 9 to hear them."]
    client.typed("history 9")
    assert lines(out)[2:] == [f"Sentence {seq}." for seq in range(4, 13)]
    client.receive(said(13, missed=False))
    assert lines(out)[-1] == "Sentence 13."


def test_the_count_in_russian_uses_the_catalog_s_plural() -> None:
    out = io.StringIO()
    client = OnlineClient("ws://nowhere", "Tess", Console(io.StringIO(), out), "ru", Style())
    client.ws = Recorder()  # type: ignore[assignment]
    for count in (5, 22):
        client.say_missed([f"{n}." for n in range(count)])
    assert lines(out) == ["Пропущено 5 сообщений; наберите «история 5», чтобы услышать их.",
                          "Пропущено 22 сообщения; наберите «история 22», чтобы услышать их."]


def test_the_lobby_s_count_of_tables_in_play_leaves_out_the_ones_it_lists() -> None:
    """The room's in_play counts every public table in play, the player's own too, which an open lobby lists."""
    out = io.StringIO()
    client = OnlineClient("ws://nowhere", "Tess", Console(io.StringIO(), out), "en", Style())
    client.ws = Recorder()  # type: ignore[assignment]
    entry = {"options_text": "Bura, 2 players.", "taken": 2, "seats": 2}
    tables = [{**entry, "id": "t1", "status": "playing", "private": False},
              {**entry, "id": "t2", "status": "waiting", "private": False, "taken": 1},
              {**entry, "id": "t3", "status": "playing", "private": True}]
    client.receive({"type": "lobby", "seq": 1, "users": [], "tables": tables, "in_play": 3, "re": "r1"})
    assert "2 more tables are in play; type tables all to hear them too." in lines(out)
    out.truncate(0)
    out.seek(0)
    client.receive({"type": "lobby", "seq": 2, "users": [], "tables": tables[:2], "in_play": 1, "re": "r2"})
    assert not any("in play" in line for line in lines(out))


def test_a_message_said_live_before_the_missed_ones_loses_none_of_them_and_is_not_said_twice() -> None:
    """At the login the room says "Tess is back." live (seq 9), before the resume's answer: the missed messages
    4 to 8 are still new, and the resume's copy of 9 is not said again."""
    client, out, _ = client_back_after_a_drop()
    back = {"type": "table_event", "table": "t1", "seq": 9, "kind": "reconnected", "text": "Tess is back."}
    client.receive(back)
    for seq in range(4, 9):
        client.receive(said(seq))
    client.receive({**back, "missed": True})
    client.receive(snapshot(9))
    assert lines(out) == ["Tess is back.", "Back at the table.", "You missed 5 messages; type history 5 to hear them."]
    assert client.console.history[-5:] == [f"Sentence {seq}." for seq in range(4, 9)]
    assert client.console.history.count("Tess is back.") == 1
    client.receive(said(9, missed=False))  # seen already
    client.receive(said(10, missed=False))
    assert lines(out)[-1] == "Sentence 10." and lines(out).count("Sentence 9.") == 0


def test_told_its_table_s_node_it_moves_there_without_a_word_and_loses_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """``table_node``: a second connection to the table's node, a login there with the token and without the
    lobby while the first stays open; at the welcome, what the first still holds is read (said once), the first
    closes and the table is resumed after it. Nothing else is said: no "Back at the table."."""
    out, first = io.StringIO(), Recorder(said(4, missed=False))
    client = OnlineClient("ws://nowhere", "Tess", Console(io.StringIO(), out), "en", Style())
    client.ws = first  # type: ignore[assignment]
    client.receive({"type": "welcome", "user": {"id": "u1", "name": "Tess"}, "token": "k", "text": "Welcome."})
    client.receive(snapshot(3))
    second = Recorder()
    opened: list[str] = []
    monkeypatch.setattr("trickroom.terminal.nodes.connect", lambda url, **_: opened.append(url) or second)
    out.truncate(0)
    out.seek(0)
    client.receive({"type": "table_node", "table": "t2", "node": "n2", "url": "ws://there"})
    assert opened == []  # not the table we sit at
    client.receive({"type": "table_node", "table": "t1", "node": "n2", "url": "ws://there"})
    assert opened == ["ws://there"] and client.ws is second and not first.closed
    client.send({"type": "chat", "table": "t1", "message": "hi"})  # typed meanwhile: on the one logged in
    client.receive({"type": "hello", "nodes": ["ws://nowhere", "ws://there"], "games": []})
    assert second.sent[-1]["token"] == "k" and second.sent[-1]["follow_lobby"] is False
    assert [m["type"] for m in second.sent] == ["login"] and first.sent[-1]["message"] == "hi"
    client.receive({"type": "welcome", "user": {"id": "u1", "name": "Tess"}, "token": "k", "tables": ["t1"]})
    assert first.closed and [m["type"] for m in first.sent] == ["lobby", "chat"]  # ("follow": false at the table)
    assert second.sent[-1] == {"type": "resume", "table": "t1", "after": 4, "id": second.sent[-1]["id"]}
    client.receive(said(4))  # the resume overlapping what the first connection still held
    client.receive(snapshot(4))
    assert lines(out) == ["Sentence 4."]
    client.receive({"type": "table_node", "table": "t1", "node": "n3", "url": "ws://elsewhere"})
    assert opened == ["ws://there"]  # followed once a minute at most
