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


def test_register_login_and_wrong_password(server: ThreadServer) -> None:
    first = Client(server.url)
    try:
        welcome = first.request(type="register", username="boris", password="secret-1", lang="ru")
        assert welcome["type"] == "welcome" and welcome["user"] == {"id": welcome["user"]["id"], "name": "boris",
                                                                     "guest": False}
        assert welcome["text"] == "Добро пожаловать, boris."
        again = first.request(type="register", username="Boris", password="another-2")
        assert again["type"] == "error" and again["code"] == "name_taken"
    finally:
        first.close()
    second = Client(server.url)
    try:
        wrong = second.request(type="login", username="boris", password="not-it")
        assert wrong["type"] == "error" and wrong["code"] == "login_failed"
        assert wrong["text"] == "Wrong user name or password."
        right = second.request(type="login", username="BORIS", password="secret-1")
        assert right["type"] == "welcome" and right["user"]["id"] == welcome["user"]["id"]
        assert right["preferences"]["lang"] == "ru"  # stored on the server
        prefs = second.request(type="preferences", lang="en", sounds=False)
        assert prefs["preferences"] == {"lang": "en", "verbosity": "full", "sounds": False}
        # A guest may not take a registered name.
        third = Client(server.url)
        taken = third.request(type="login", nickname="boris")
        assert taken["code"] == "name_taken"
        third.close()
        # The token resumes the session, with the stored preferences.
        fourth = Client(server.url)
        resumed = fourth.request(type="login", token=right["token"])
        assert resumed["type"] == "welcome" and resumed["preferences"]["sounds"] is False
        fourth.close()
    finally:
        second.close()


def test_login_attempts_are_limited(server: ThreadServer) -> None:
    client = Client(server.url)
    try:
        codes = [client.request(type="login", username="nobody-here", password="xxxxxx")["code"] for _ in range(7)]
        assert codes == ["login_failed"] * 5 + ["too_many_attempts"] * 2
    finally:
        client.close()


def create_table(host: Client, game: str, **fields: object) -> dict[str, object]:
    snapshot = host.request(type="create", game=game, **fields)
    assert snapshot["type"] == "snapshot", snapshot
    return snapshot


def test_create_with_options_and_bots(server: ThreadServer) -> None:
    with clients(server.url, "Host1", "Other1") as (host, other):
        bad = host.request(type="create", game="bura", options={"players": 9})
        assert bad["type"] == "error" and bad["code"] == "bad_options"
        assert bad["text"] == "Option players must be at most 6; got 9."
        snap = create_table(host, "bura", options={"players": 3, "scoring": "points"})
        table = snap["table"]
        info = snap["info"]
        assert info["options"]["players"] == 3 and info["options"]["scoring"] == "points"
        assert info["options_text"].startswith("Bura")
        assert [s["user"] for s in info["seats"]] == [None, None, None]
        assert snap["you"] == {"seat": None, "host": True}
        # Other players see the table in the lobby, with its sentence.
        listed = other.wait(lambda m: m["entry"]["id"] == table, type="table_listed")
        assert listed["entry"]["options_text"] == info["options_text"] and listed["entry"]["seats"] == 3
        assert other.request(type="options", table=table, options={"players": 4})["code"] == "not_member"
        other.request(type="watch", table=table)
        assert other.request(type="options", table=table, options={"players": 4})["code"] == "not_host"
        changed = host.request(type="options", table=table, options={"players": 4, "target": 21})
        assert changed["type"] == "ok"
        event = host.wait(type="table_event", kind="options")
        assert len(event["info"]["seats"]) == 4 and event["info"]["options"]["target"] == 21
        assert host.request(type="options", table=table, options={"target": 12})["code"] == "bad_options"
        assert host.request(type="bot_add", table=table, level="genius")["code"] == "bad_level"
        assert host.request(type="bot_add", table=table, level="random", seat=2)["type"] == "ok"
        added = host.wait(type="table_event", kind="bot_added")
        assert added["info"]["seats"][2]["bot"] == "random" and added["text"] == "A random bot sits in seat 3."
        assert host.request(type="sit", table=table, seat=2)["code"] == "seat_taken"
        assert host.request(type="start", table=table)["code"] == "not_ready"
        assert host.request(type="bot_remove", table=table, seat=2)["type"] == "ok"
        removed = host.wait(type="table_event", kind="bot_removed")
        assert removed["info"]["seats"][2]["bot"] is None


def finished(message: dict[str, object]) -> bool:
    return message["type"] == "table_event" and message["kind"] == "finished"


def test_full_bura_game_two_people_and_a_bot_with_a_spectator(server: ThreadServer) -> None:
    with clients(server.url, "Vera", "Gleb", "Watcher") as (vera, gleb, watcher):
        table = create_table(vera, "bura", options={"players": 3, "scoring": "points", "hand_limit": 2})["table"]
        assert vera.request(type="sit", table=table, seat=0)["you"]["seat"] == 0
        assert gleb.request(type="sit", table=table, seat=1)["you"]["seat"] == 1
        assert gleb.request(type="start", table=table)["code"] == "not_host"
        vera.request(type="bot_add", table=table, level="random")
        spectator_snapshot = watcher.request(type="watch", table=table)
        assert spectator_snapshot["you"] == {"seat": None, "host": False}
        assert vera.request(type="start", table=table)["type"] == "ok"
        players = [AutoPlayer(vera, table, 0, 1, finished).start(), AutoPlayer(gleb, table, 1, 2, finished).start()]
        for player in players:
            player.join()
        end = watcher.wait(finished)
        standings = end["standings"]
        assert standings["kind"] == "seats" and len(standings["scores"]) == 3
        assert end["info"]["status"] == "finished"
        # Each player saw their own dealt cards and nobody else's.
        for client, seat in ((vera, 0), (gleb, 1)):
            hands = [m["event"] for m in client.history if m["type"] == "event" and m["event"]["type"] == "hand"]
            assert hands and all(event["seat"] == seat for event in hands)
            hidden_draws = [m["event"] for m in client.history if m["type"] == "event"
                            and m["event"]["type"] == "draw" and m["event"]["seat"] != seat
                            and not m["event"].get("face_up")]
            assert hidden_draws and all("card" not in event for event in hidden_draws)
        # The spectator saw the whole game without a single hidden card.
        seen = watcher.drain() + watcher.history
        events = [m["event"] for m in seen if m["type"] == "event"]
        assert any(e["type"] == "play" for e in events)
        assert not any(e["type"] == "hand" for e in events)
        assert all("card" not in e for e in events if e["type"] == "draw" and not e.get("face_up"))
        assert all(m["view"]["hand"] is None for m in seen if m["type"] == "update")
        # Every game event came with a sentence for speech, and sequence numbers only grow.
        spoken = [m for m in vera.history if m["type"] == "event"]
        seqs = [m["seq"] for m in vera.history if m.get("table") == table and "seq" in m
                and m["type"] in ("event", "table_event", "chat")]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
        assert all(isinstance(m["text"], str) for m in spoken)


def test_full_mpourloto_hand_two_people_and_two_bots(server: ThreadServer) -> None:
    with clients(server.url, "Eleni", "Nikos") as (eleni, nikos):
        table = create_table(eleni, "mpourloto", options={"target": 100})["table"]
        eleni.request(type="sit", table=table, seat=0)
        snap = nikos.request(type="sit", table=table, seat=2)
        assert [s["team"] for s in snap["info"]["seats"]] == [0, 1, 0, 1]
        eleni.request(type="bot_add", table=table, level="random", seat=1)
        eleni.request(type="bot_add", table=table, level="random", seat=3)
        assert eleni.request(type="start", table=table)["type"] == "ok"
        players = [AutoPlayer(eleni, table, 0, 3, finished).start(), AutoPlayer(nikos, table, 2, 4, finished).start()]
        for player in players:
            player.join()
        ends = [m["event"] for m in eleni.history if m["type"] == "event" and m["event"]["type"] == "hand_end"]
        assert len(ends) >= 1
        cards = [m["event"] for m in eleni.history if m["type"] == "event" and m["event"]["type"] == "cards"]
        assert cards and all(event["seat"] == 0 for event in cards)
