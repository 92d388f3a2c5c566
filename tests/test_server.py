"""The room through real websockets: accounts, tables, bots, whole games, chat, spectators, kick and ban,
private tables, timers, reconnecting."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from server_helpers import AutoPlayer, Client, ThreadServer, clients


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    db = Path(tmp_path_factory.mktemp("room")) / "room.sqlite3"
    room = ThreadServer(db=f"sqlite:///{db}", grace_seconds=30).start()
    yield room
    room.stop()


def test_guest_login_gets_welcome_and_lobby(server: ThreadServer) -> None:
    client = Client(server.url)
    try:
        assert client.hello["protocol"] == 1
        assert {g["name"] for g in client.hello["games"]} == {"bura", "mpourloto"}
        welcome = client.login_guest("Anna")
        assert welcome["user"]["name"] == "Anna" and welcome["user"]["guest"] is True
        assert welcome["text"] == "Welcome, Anna."
        lobby = client.wait(type="lobby")
        assert any(u["name"] == "Anna" for u in lobby["users"]) or lobby["users"] == []
    finally:
        client.close()
