"""The room at its edges, through real websockets: private messages and option sentences in each
reader's language, bans that hold a guest's nickname and find people away from the table, bans and a pending
pause kept over a restart, table chat kept over a crash (and refused when it cannot be kept), the turn timer
bounds, logout, the online list, option changes after the start, and a quiet Ctrl-C."""

from __future__ import annotations

import random
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_helpers import TIMEOUT, AutoPlayer, Client, ProcessServer, ThreadServer, choose, room_on

from trickroom.games import game_class, load_game
from trickroom.narration import describe
from trickroom.server.settings import Settings
from trickroom.server.store import Store

Message = dict[str, Any]
DEFAULT_TIMER = (Settings.model_fields["timer_minimum"].default, Settings.model_fields["timer_maximum"].default)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    """A room with the default turn timer bounds (the other server tests lower the minimum to 1 s)."""
    db = Path(tmp_path_factory.mktemp("edges")) / "room.sqlite3"
    room = ThreadServer(db=f"sqlite:///{db}", bot_workers=0, timer_minimum=DEFAULT_TIMER[0]).start()
    yield room
    room.stop()


@pytest.fixture
def people() -> Iterator[list[Client]]:
    """Clients made by a test with ``guest``/``account``: they log out and close at its end."""
    made: list[Client] = []
    yield made
    for client in made:
        client.leave()


def guest(url: str, nickname: str, lang: str = "en", made: list[Client] | None = None) -> Client:
    client = Client(url)
    if made is not None:
        made.append(client)
    welcome = client.request(type="login", nickname=nickname, lang=lang)
    assert welcome["type"] == "welcome", welcome
    client.user, client.token = welcome["user"], welcome["token"]
    # These tests answer Bura's announcement pause themselves: the room must not pass for them.
    assert client.request(type="preferences", auto_pass=False)["type"] == "preferences"
    return client


def create(host: Client, game: str = "bura", **fields: Any) -> str:
    snapshot = host.request(type="create", game=game, **fields)
    assert snapshot["type"] == "snapshot", snapshot
    return str(snapshot["table"])




# 1. Private messages


def test_a_private_message_is_said_in_each_readers_language(server: ThreadServer, people: list[Client]) -> None:
    sam, ira = guest(server.url, "Sam", "en", people), guest(server.url, "Ira", "ru", people)
    assert sam.request(type="private", to="Ira", message="hello")["type"] == "ok"
    assert ira.wait(type="private")["text"] == "Sam шепчет: hello"
    assert sam.wait(type="private")["text"] == "Sam whispers: hello"
    assert ira.request(type="private", to=sam.user["id"], message="привет")["type"] == "ok"
    assert sam.wait(type="private")["text"] == "Ira whispers: привет"
    assert ira.wait(type="private")["text"] == "Ira шепчет: привет"


def test_an_invitation_is_said_in_the_invitees_language(server: ThreadServer, people: list[Client]) -> None:
    host, ira = guest(server.url, "Host", "en", people), guest(server.url, "Ira", "ru", people)
    table = create(host, "mpourloto", private=True)
    assert host.request(type="invite", table=table, user="Ira")["type"] == "ok"
    assert ira.wait(type="invited")["text"] == "Host приглашает вас за стол (Мпурлото)."


# 2. Options in each member's language


def test_option_sentences_and_option_errors_in_each_members_language(server: ThreadServer,
                                                                     people: list[Client]) -> None:
    olga, will = guest(server.url, "Olga", "ru", people), guest(server.url, "Will", "en", people)
    too_many = olga.request(type="create", game="bura", options={"players": 9})
    assert (too_many["code"], too_many["text"]) == (
        "bad_options", "Параметр players должен быть не больше 6; задано 9.")
    names = ", ".join(sorted(option.name for option in game_class("bura").OPTIONS))
    unknown = olga.request(type="create", game="bura", options={"colour": "red"})
    assert unknown["text"] == f"Параметра colour нет; параметры: {names}."
    assert will.request(type="create", game="bura", options={"colour": "red"})["text"] == (
        f"There is no option colour; the options are: {names}.")
    no_game = olga.request(type="create", game="chess")
    assert (no_game["code"], no_game["text"]) == ("bad_options", "Игры chess нет; есть игры: bura, mpourloto.")

    table = create(olga, options={"players": 3})
    will.request(type="watch", table=table)
    assert olga.request(type="options", table=table, options={"players": 4, "scoring": "points"})["type"] == "ok"
    russian = olga.wait(type="table_event", kind="options", table=table)
    english = will.wait(type="table_event", kind="options", table=table)
    game = load_game("bura", **russian["info"]["options"])
    assert game.players == 4
    assert russian["text"] == f"Вы меняете правила: {describe(game, 'ru')}"  # Olga made the change
    assert english["text"] == f"Olga changes the options: {describe(game, 'en')}"
    assert russian["text"] == "Вы меняете правила: Бура, 4 игрока, классика, на очки до 11."
    refusals = {
        "target": (12, "Параметр target может быть одним из: 11, 21; задано 12."),
        "hand_limit": ("many", "Параметр hand_limit должен быть целым числом."),
        "show_points": ("maybe", "Параметр show_points может быть только включён или выключен."),
        "stack": (0, "Параметр stack должен быть не меньше 1; задано 0."),
        "preset": ("paris", "Параметр preset может быть одним из: classic, moscow; задано 'paris'."),
    }
    for name, (value, sentence) in refusals.items():
        refused = olga.request(type="options", table=table, options={name: value})
        assert (refused["code"], refused["text"]) == ("bad_options", sentence)


def test_options_cannot_change_after_the_start(server: ThreadServer, people: list[Client]) -> None:
    host = guest(server.url, "Early", "en", people)
    table = create(host, options={"players": 2, "scoring": "points"})
    host.request(type="sit", table=table, seat=0)
    host.request(type="bot_add", table=table, level="random")
    assert host.request(type="start", table=table)["type"] == "ok"
    late = host.request(type="options", table=table, options={"target": 21})
    assert (late["code"], late["text"]) == ("already_started", "The game has already started.")
    host.send(type="resume", table=table, after=10**9)
    assert host.wait(type="snapshot", table=table)["info"]["options"]["target"] == 11
    host.request(type="leave", table=table)


# 3. Bans


def test_a_banned_guest_who_logs_in_again_under_the_same_name_is_still_refused(server: ThreadServer,
                                                                                people: list[Client]) -> None:
    host, pest = guest(server.url, "Warden", "en", people), guest(server.url, "Pest2", "en", people)
    table = create(host, options={"players": 2})
    assert pest.request(type="watch", table=table)["type"] == "snapshot"
    assert host.request(type="ban", table=table, user=pest.user["id"])["type"] == "ok"
    assert pest.wait(type="left", table=table)["reason"] == "banned"
    old_id = pest.user["id"]
    assert pest.request(type="logout")["type"] == "ok"
    again = guest(server.url, "PEST2", "ru", people)  # a new guest id, the same name in another case
    assert again.user["id"] != old_id
    for request in ({"type": "watch"}, {"type": "sit", "seat": 1}, {"type": "resume", "after": 0}):
        refused = again.request(table=table, **request)
        assert (refused["code"], refused["text"]) == ("banned", "Вам запрещено садиться за этот стол.")
    assert guest(server.url, "Pest3", "en", people).request(type="watch", table=table)["type"] == "snapshot"
    # Inviting the same person lifts the ban, name and all.
    host.request(type="invite", table=table, user="pest2")
    assert again.request(type="watch", table=table)["type"] == "snapshot"


def test_a_ban_by_name_finds_people_away_from_the_table(server: ThreadServer, people: list[Client]) -> None:
    host, far = guest(server.url, "Keeper3", "en", people), guest(server.url, "Far3", "en", people)
    account = Client(server.url)
    people.append(account)
    assert account.request(type="register", username="far_account", password="secret-far")["type"] == "welcome"
    account.close()  # offline: found among the registered accounts
    table = create(host, options={"players": 2})
    assert host.request(type="ban", table=table, user="far3")["type"] == "ok"  # online, not at the table
    assert far.wait(type="left", table=table)["reason"] == "banned"
    assert far.request(type="watch", table=table)["code"] == "banned"
    assert host.request(type="ban", table=table, user="FAR_ACCOUNT")["type"] == "ok"
    back = Client(server.url)
    people.append(back)
    assert back.request(type="login", username="far_account", password="secret-far")["type"] == "welcome"
    assert back.request(type="sit", table=table, seat=1)["code"] == "banned"
    nobody = host.request(type="ban", table=table, user="Nobody3")
    assert (nobody["code"], nobody["text"]) == ("unknown_user", "Nobody is called Nobody3.")
    assert guest(server.url, "Near3", "en", people).request(type="watch", table=table)["type"] == "snapshot"


def test_bans_and_a_pending_pause_survive_a_restart(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'restart.sqlite3'}"
    with room_on(db) as (room, made):
        host, pest = guest(room.url, "Holder", "en", made), guest(room.url, "Pest4", "en", made)
        waiting = create(host, options={"players": 2}, name="Waiting")
        host.request(type="sit", table=waiting, seat=0)  # a seated person keeps the table open while away
        pest.request(type="watch", table=waiting)
        host.request(type="ban", table=waiting, user="Pest4")
        pest.request(type="logout")  # gives the name up: a new guest may take it, and inherits the ban
        playing = create(host, options={"players": 2, "scoring": "points", "hand_limit": 3})
        host.request(type="sit", table=playing, seat=0)
        host.request(type="bot_add", table=playing, level="random")
        host.request(type="start", table=playing)
        assert host.request(type="pause", table=playing)["type"] == "ok"
        assert host.wait(type="table_event", kind="pause_requested", table=playing)["info"]["pause_requested"]
        token = host.token

    with room_on(db) as (room, made):
        again = guest(room.url, "pest4", "en", made)
        assert again.request(type="watch", table=waiting)["code"] == "banned"
        back = Client(room.url)
        made.append(back)
        assert playing in back.request(type="login", token=token)["tables"]
        back.send(type="resume", table=playing, after=0)
        snapshot = back.wait(type="snapshot", table=playing)
        assert snapshot["info"]["pause_requested"] is True and snapshot["info"]["status"] == "playing"
        paused = lambda m: m["type"] == "table_event" and m["kind"] == "paused"  # noqa: E731
        player = AutoPlayer(back, playing, 0, 9, paused).start()
        if 0 in snapshot["to_act"] and snapshot["legal"]:
            back.send(type="act", table=playing, action=choose(snapshot["legal"], random.Random(1)))
        player.join()
        assert back.request(type="act", table=playing, action="claim")["code"] == "paused"


# 4. Features that had no test


def test_the_room_applies_its_turn_timer_bounds(server: ThreadServer, people: list[Client]) -> None:
    low, high = server.settings.timer_minimum, server.settings.timer_maximum
    client = guest(server.url, "Clock", "en", people)
    assert client.hello["timer"] == {"min": low, "max": high}
    sentence = f"The turn timer is off (0) or from {low} to {high} seconds."
    for timer in (low - 1, high + 1):
        refused = client.request(type="create", game="bura", timer=timer)
        assert (refused["code"], refused["text"]) == ("bad_message", sentence)
    for timer in (low, high, 0):
        snapshot = client.request(type="create", game="bura", timer=timer)
        assert snapshot["type"] == "snapshot" and snapshot["info"]["timer"] == timer
        client.request(type="leave", table=snapshot["table"])
    table = create(client)
    assert client.request(type="settings", table=table, timer=high + 1)["text"] == sentence
    assert client.request(type="settings", table=table, timer=low)["type"] == "ok"
    assert client.wait(type="table_event", kind="settings", table=table)["info"]["timer"] == low


def test_logout_ends_the_session(server: ThreadServer, people: list[Client]) -> None:
    lou, otto = guest(server.url, "Lou", "en", people), guest(server.url, "Otto", "en", people)
    token = lou.token
    assert lou.request(type="logout")["type"] == "ok"
    gone = otto.wait(lambda m: m["user"]["name"] == "Lou", type="presence")
    assert gone["online"] is False and gone["text"] == "Lou leaves the room."
    assert lou.request(type="chat", message="still here?")["code"] == "not_logged_in"
    stale = Client(server.url)
    people.append(stale)
    refused = stale.request(type="login", token=token)
    assert (refused["code"], refused["text"]) == ("bad_token", "That session has ended; log in again.")
    assert lou.request(type="login", nickname="Lou")["type"] == "welcome"  # the name is free again


def test_the_online_list_on_one_server(server: ThreadServer, people: list[Client]) -> None:
    una = guest(server.url, "Una", "en", people)
    assert "Una" in {u["name"] for u in una.wait(type="lobby")["users"]}
    dos = guest(server.url, "Dos", "en", people)
    assert {"Una", "Dos"} <= {u["name"] for u in dos.wait(type="lobby")["users"]}
    came = una.wait(lambda m: m["user"]["name"] == "Dos", type="presence")
    assert came["online"] is True and came["text"] == "Dos comes in."
    una.send(type="lobby")
    assert "Dos" in {u["name"] for u in una.wait(type="lobby")["users"]}
    dos.close()
    left = una.wait(lambda m: m["user"]["name"] == "Dos", type="presence")
    assert left["online"] is False
    una.send(type="lobby")
    assert "Dos" not in {u["name"] for u in una.wait(type="lobby")["users"]}


# 5. Table chat, kept over a crash


def say(client: Client, table: str, message: str) -> None:
    assert client.request(type="chat", table=table, message=message)["type"] == "ok"


def journal(client: Client, table: str, after: int = 0) -> tuple[Message, list[tuple[int, str, str]]]:
    """A ``resume`` after ``after``: the snapshot, and the game events and chat sent again (seq, type, text)."""
    client.send(type="resume", table=table, after=after)
    snapshot = client.wait(type="snapshot", table=table)
    said = [(m["seq"], m["type"], m["text"]) for m in client.drain()
            if m.get("missed") and m.get("table") == table and m["type"] in ("event", "chat")]
    return snapshot, said


def chat_texts(entries: list[tuple[int, str, str]]) -> list[str]:
    return [text for _, kind, text in entries if kind == "chat"]


def test_table_chat_survives_a_crash_in_its_place_among_the_game_events(tmp_path: Path) -> None:
    db = tmp_path / "chat.sqlite3"
    server = ProcessServer(db).start()
    made: list[Client] = []
    try:
        host, pal = guest(server.url, "Teller", "en", made), guest(server.url, "Pal", "en", made)
        waiting = create(host, options={"players": 2}, name="Lounge")
        host.request(type="sit", table=waiting, seat=0)
        pal.request(type="watch", table=waiting)
        say(host, waiting, "anyone for Bura?")
        say(pal, waiting, "in a minute")
        playing = create(host, options={"players": 2, "scoring": "points"})
        host.request(type="sit", table=playing, seat=0)
        pal.request(type="sit", table=playing, seat=1)
        say(pal, playing, "good luck")
        host.request(type="start", table=playing)
        updates = {seat: client.wait(type="update", table=playing) for seat, client in ((0, host), (1, pal))}
        say(host, playing, "nice cards")
        seat = updates[0]["to_act"][0]
        acting = (host, pal)[seat]
        assert acting.request(type="act", table=playing,
                              action=choose(updates[seat]["legal"], random.Random(3)))["type"] == "ok"
        say(pal, playing, "well played")
        before = {table: journal(host, table) for table in (waiting, playing)}
        token = host.token
        server.kill()  # SIGKILL: nothing is written on the way out
    finally:
        for client in made:
            client.close()
        server.stop()  # nothing to do after the kill; stops the process if the test failed before it

    # A waiting table's journal keeps only its chat (no game yet; table events are not kept).
    assert [(kind, text) for _, kind, text in before[waiting][1]] == [
        ("chat", "Teller: anyone for Bura?"), ("chat", "Pal: in a minute")]
    playing_said = before[playing][1]
    kinds = [kind for _, kind, _ in playing_said]
    # "good luck" before the deal, "nice cards" after it, "well played" after the action's events.
    assert kinds[0] == "chat" and kinds[-1] == "chat" and kinds.count("chat") == 3
    assert chat_texts(playing_said) == ["Pal: good luck", "Teller: nice cards", "Pal: well played"]
    nice_cards = next(seq for seq, _, text in playing_said if text == "Teller: nice cards")
    assert any(seq < nice_cards for seq, kind, _ in playing_said if kind == "event")
    assert any(seq > nice_cards for seq, kind, _ in playing_said if kind == "event")

    server = ProcessServer(db, port=server.port).start()
    made = []
    try:
        back = Client(server.url)
        made.append(back)
        assert {waiting, playing} <= set(back.request(type="login", token=token)["tables"])
        for table in (waiting, playing):
            snapshot, said = journal(back, table)
            assert said == before[table][1], table  # the same seqs and texts, in the same order
            # Resuming from the last seq seen hears nothing again.
            assert journal(back, table, after=before[table][0]["seq"])[1] == []
            assert snapshot["seq"] > before[table][0]["seq"]  # new entries are numbered past every kept one
        # Resuming from an earlier seq hears only what came after it.
        assert journal(back, playing, after=nice_cards)[1] == [e for e in before[playing][1] if e[0] > nice_cards]
        say(back, playing, "still here")
        assert back.wait(type="chat", table=playing)["seq"] > before[playing][0]["seq"]
    finally:
        for client in made:
            client.close()
        server.stop()


def test_table_chat_whose_write_fails_is_refused_and_heard_by_nobody(server: ThreadServer, people: list[Client],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    scribe, reader = guest(server.url, "Scribe", "en", people), guest(server.url, "Reader", "en", people)
    table = create(scribe, options={"players": 2})
    reader.request(type="watch", table=table)
    scribe.drain()
    reader.drain()
    original = Store.add_chat
    failed: list[str] = []

    async def flaky(store: Store, *args: Any, **kwargs: Any) -> None:
        if not failed:
            failed.append("add_chat")
            raise RuntimeError("database is locked")
        await original(store, *args, **kwargs)

    monkeypatch.setattr(Store, "add_chat", flaky)
    error = scribe.request(type="chat", table=table, message="lost words")
    assert failed == ["add_chat"]
    assert (error["type"], error["code"], error["table"]) == ("error", "internal", table)
    assert not [m for m in scribe.drain() + reader.drain() if m["type"] == "chat"]
    say(scribe, table, "kept words")
    assert reader.wait(type="chat", table=table)["message"] == "kept words"
    assert chat_texts(journal(reader, table)[1]) == ["Scribe: kept words"]


# 6. Smaller things


def test_each_applied_action_is_counted_and_timed_once_and_a_refused_one_is_not(tmp_path: Path) -> None:
    import httpx

    room = ProcessServer(tmp_path / "timed.sqlite3").start()  # its own process: no other room's actions counted
    made: list[Client] = []

    def figures() -> tuple[float, float]:
        text = httpx.get(f"http://127.0.0.1:{room.port}/metrics", timeout=10).text
        value = {line.split()[0]: float(line.split()[1]) for line in text.splitlines() if line[:1] != "#"}
        return value["trickroom_actions_total"], value["trickroom_action_latency_seconds_count"]

    try:
        players = guest(room.url, "Ann", "en", made), guest(room.url, "Bo", "en", made)
        table = create(players[0], options={"players": 2})
        for seat, client in enumerate(players):
            client.request(type="sit", table=table, seat=seat)
        players[0].request(type="start", table=table)
        updates = [client.wait(type="update", table=table) for client in players]
        before = figures()
        assert players[0].request(type="act", table=table, action="play XX")["code"] == "illegal"
        rng = random.Random(5)
        for _ in range(3):
            seat = updates[0]["to_act"][0]
            update = updates[seat]
            assert players[seat].request(type="act", table=table, action=choose(update["legal"], rng))["type"] == "ok"
            updates = [client.wait(type="update", table=table) for client in players]
        assert figures() == (before[0] + 3, before[1] + 3)
    finally:
        for client in made:
            client.close()
        room.stop()


def test_ctrl_c_stops_the_server_quietly(tmp_path: Path) -> None:
    # A process started in the background may inherit SIGINT ignored; the server must get it as from a terminal.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        server = ProcessServer(tmp_path / "ctrl-c.sqlite3").start()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert server.process is not None
    server.process.send_signal(signal.SIGINT)
    _, errors = server.process.communicate(timeout=TIMEOUT)
    assert server.process.returncode == 130
    assert not re.search(rb"Traceback|KeyboardInterrupt", errors), errors.decode()[-2000:]


def test_ids_too_long_for_the_database_are_unknown_not_internal_errors(server: ThreadServer,
                                                                      people: list[Client]) -> None:
    sam = guest(server.url, "Longid", "en", people)
    huge = "9" * 30
    stats = sam.request(type="stats", user="u" + huge)
    assert (stats["type"], stats["code"]) == ("error", "unknown_user")
    history = sam.request(type="history", table="t" + huge)
    assert (history["type"], history["code"]) == ("error", "no_table")
    assert sam.request(type="stats")["type"] == "stats"  # the connection is still fine


def test_the_journal_keeps_the_current_and_the_previous_hand(tmp_path: Path) -> None:
    """Memory holds two hands: a resume from the start hears the previous hand and the current one (their events
    and chat), not the first hand, and a restart rebuilds the same two hands from the action log."""
    db = f"sqlite:///{tmp_path / 'hands.sqlite3'}"
    with room_on(db, allow_test_decks=True, messages_per_second=1000) as (room, made):
        host = guest(room.url, "Longplay", "en", made)
        table = create(host, options={"players": 2, "scoring": "points", "hand_limit": 4}, seed=1)
        host.request(type="sit", table=table, seat=0)
        host.request(type="bot_add", table=table, level="random", seat=1)
        host.request(type="start", table=table)
        say(host, table, "first hand")
        # Stop in the third hand where only this seat is to act, so that no bot move can come after the drain.
        third_hand = lambda m: (m["type"] == "update" and m["view"]["hand_number"] == 3  # noqa: E731
                                and m["to_act"] == [0])
        AutoPlayer(host, table, 0, 40, third_hand).start().join()
        say(host, table, "third hand")
        host.drain()
        live = [m for m in host.history if m.get("table") == table and m["type"] in ("event", "chat")]
        first_end = next(m["seq"] for m in live if m["type"] == "event" and m["event"]["type"] == "hand_end"
                         and m["event"]["hand"] == 1)
        expected = [(m["seq"], m["type"], m["text"]) for m in live if m["seq"] > first_end]
        _, said = journal(host, table)
        # Sent again, each event is said alone (live, a trick's end was one sentence on its first event).
        assert [entry[:2] for entry in said] == [entry[:2] for entry in expected]
        assert [entry for entry in said if entry[1] == "chat"] == [entry for entry in expected if entry[1] == "chat"]
        assert "Longplay: third hand" in chat_texts(said) and "Longplay: first hand" not in chat_texts(said)
        token = host.token

    with room_on(db) as (room, made):
        back = Client(room.url)
        made.append(back)
        assert table in back.request(type="login", token=token)["tables"]
        assert journal(back, table)[1] == said  # the restarted room keeps the same journal
