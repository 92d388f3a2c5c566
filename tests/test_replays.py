"""Replays, hints and reviews through the protocol: a finished Bura game and a Mpourloto game replayed hand by hand
to the same standings with the very sentences the player heard; "my games"; a private game refused to a stranger;
the export (history) round-trip through Game.replay and the transcript; a hint at a table with hints on (and
refused when off, or when the room is busy); the review of a hand computed once, kept, and said in the reader's
language; a hinted match unrated."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_helpers import AutoPlayer, Client, ThreadServer, finished_against_bots, match_finished
from teaching_helpers import (
    BURA_OPTIONS,
    BURA_RIGHT,
    BURA_WRONG,
    MPOURLOTO_OPENING,
    MPOURLOTO_RIGHT,
    bura_at_the_beat,
    bura_deck,
    mpourloto_deck,
    thrown_away_hand,
)

from trickroom.games import load_game
from trickroom.narration.replay import History, replay

Message = dict[str, Any]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    db = Path(tmp_path_factory.mktemp("replays")) / "room.sqlite3"
    # A cap on worlds (never the clock) keeps hints and reviews the same on a busy machine.
    room = ThreadServer(db=f"sqlite:///{db}", allow_test_decks=True, bot_workers=0, advice_worlds=150,
                        review_budget=60.0, messages_per_second=1000, message_burst=1000).start()
    yield room
    room.stop()


@pytest.fixture
def made(server: ThreadServer) -> Iterator[list[Client]]:
    clients: list[Client] = []
    yield clients
    for client in clients:
        client.leave()


def account(server: ThreadServer, made: list[Client], name: str, lang: str = "en") -> Client:
    client = Client(server.url)
    reply = client.request(type="register", username=name, password="secret-pw", lang=lang)
    assert reply["type"] == "welcome", reply
    client.user = reply["user"]
    # These tests play a logged opening, every announcement pass included: the room must not pass for them.
    assert client.request(type="preferences", auto_pass=False)["type"] == "preferences"
    made.append(client)
    return client


def heard(client: Client, table: str) -> list[str]:
    return [m["text"] for m in client.history if m.get("type") == "event" and m.get("table") == table and m["text"]]


def replay_everything(client: Client, table: str) -> tuple[list[Message], list[Message]]:
    """Every hand of the table's replay, asked one by one; the replies and all their steps."""
    first = client.request(type="replay", table=table)
    assert first["type"] == "replay", first
    replies, steps = [first], list(first["steps"])
    for outline in first["hands"][1:]:
        reply = client.request(type="replay", table=table, hand=outline["hand"])
        assert reply["hand"] == outline["hand"] and reply["steps"][0]["index"] == outline["first"]
        replies.append(reply)
        steps += reply["steps"]
    return replies, steps


@pytest.mark.parametrize(("game", "options", "seat"), [
    ("bura", {"players": 2, "scoring": "points", "hand_limit": 2}, 1),
    ("mpourloto", {"target": 200}, 2),
])
def test_a_finished_game_replays_hand_by_hand_with_the_sentences_heard(
        server: ThreadServer, made: list[Client], game: str, options: dict[str, Any], seat: int) -> None:
    eva = account(server, made, f"eva_{game}")
    table = finished_against_bots(eva, game, options, seat=seat)
    history = eva.request(type="history", table=table)
    replies, steps = replay_everything(eva, table)
    first = replies[0]
    assert first["you"] == seat and first["total"] == len(steps) == steps[-1]["index"] + 1
    assert [s["index"] for s in steps] == list(range(len(steps)))
    assert first["standings"] == history["standings"]
    assert [s["name"] for s in first["seats"]][seat] == f"eva_{game}"
    # Step by step, the replay says what the table said to this player, in the same order.
    assert [text for step in steps for text in step["text"]] == heard(eva, table)
    # The actions, in order, are the logged ones; every seat's cards are shown.
    assert [(s["seat"], s["action"]) for s in steps if s["action"]] == [(a["seat"], a["action"])
                                                                         for a in history["actions"]]
    assert all(len(s["hands"]) == len(first["seats"]) for s in steps)
    assert sum(1 for s in steps if s["ends_hand"]) == len(first["hands"])
    assert eva.request(type="replay", table=table, hand=len(first["hands"]) + 1)["code"] == "no_hand"
    listed = eva.request(type="games")
    assert listed["games"][0]["table"] == table and listed["games"][0]["you"] == seat
    assert listed["games"][0]["text"].startswith(first["title"] + ": ")


def test_the_export_round_trips_and_the_transcript_is_in_the_readers_language(
        server: ThreadServer, made: list[Client]) -> None:
    eva = account(server, made, "eva_export", lang="ru")
    table = finished_against_bots(eva, "bura", {"players": 3, "scoring": "points", "hand_limit": 1})
    history = eva.request(type="history", table=table)
    game = load_game(history["game"], **history["options"])
    again = game.replay(history["seed"], [(a["seat"], a["action"]) for a in history["actions"]],
                        decks=history["decks"])
    assert again.is_over and again.standings == history["standings"]
    read = History.from_message(history)  # the JSON export, read back as the terminal reads a file
    assert replay(read, read.seat_of(eva.user["id"]), "ru").standings == history["standings"]
    text = eva.request(type="transcript", table=table)["text"]
    lines = text.splitlines()
    assert lines[0].startswith(history["name"] + ": Бура, 3 игрока")
    assert lines[1] == "Игроки: место 1 — eva_export; место 2 — Бот 2; место 3 — Бот 3."
    assert "Раздача 1" in lines and lines[lines.index("Раздача 1") + 1].startswith("Карты: eva_export: ")
    assert all(sentence in lines for sentence in heard(eva, table))


def test_a_private_games_replay_is_for_its_players_only(server: ThreadServer, made: list[Client]) -> None:
    eva = account(server, made, "eva_private")
    secret = finished_against_bots(eva, "bura", {"players": 2, "hand_limit": 1, "scoring": "points"}, private=True)
    open_one = finished_against_bots(eva, "bura", {"players": 2, "hand_limit": 1, "scoring": "points"})
    stranger = Client(server.url)
    made.append(stranger)
    stranger.login_guest("Mallory")
    for request in ({"type": "replay", "table": secret}, {"type": "transcript", "table": secret},
                    {"type": "review", "table": secret, "hand": 1, "seat": 0}, {"type": "history", "table": secret}):
        refused = stranger.request(**request)
        assert (refused["type"], refused["code"]) == ("error", "no_table"), request
    assert stranger.request(type="replay", table="t999999999")["code"] == "no_table"
    listed = stranger.request(type="games", user="eva_private")
    assert [g["table"] for g in listed["games"]] == [open_one]  # her private game is not listed to others
    assert stranger.request(type="replay", table=open_one)["type"] == "replay"
    assert {g["table"] for g in eva.request(type="games")["games"]} >= {secret, open_one}
    assert eva.request(type="replay", table=secret)["you"] == 0


def teaching_table(server: ThreadServer, made: list[Client], names: tuple[str, str], **create: Any) -> tuple[
        Client, Client, str]:
    """Eva (seat 1) and Fred (seat 0) play the teaching Bura deal to Eva's decision on the ten of trumps."""
    eva, fred = account(server, made, names[0]), account(server, made, names[1])
    table = eva.request(type="create", game="bura", options=BURA_OPTIONS, seed=1, decks=[bura_deck()],
                        **create)["table"]
    eva.request(type="sit", table=table, seat=1)
    fred.request(type="sit", table=table, seat=0)
    eva.request(type="start", table=table)
    players = {0: fred, 1: eva}
    for seat, action in bura_at_the_beat().actions:  # the opening with every announcement pass, in order
        assert players[seat].request(type="act", table=table, action=action)["type"] == "ok"
    return eva, fred, table


def test_a_hint_at_a_table_with_hints_and_an_unrated_match(server: ThreadServer, made: list[Client]) -> None:
    eva, fred, table = teaching_table(server, made, ("eva_hint", "fred_hint"), hints=True)
    hint = eva.request(type="hint", table=table)
    assert hint["type"] == "hint" and hint["action"] == BURA_RIGHT
    assert hint["text"] == "Beat with the ace of hearts: it takes 21 points and brings you to 36, enough to claim."
    assert fred.request(type="hint", table=table)["code"] == "not_your_turn"
    eva.request(type="act", table=table, action=BURA_RIGHT)
    eva.request(type="act", table=table, action="claim")
    eva.wait(match_finished, table=table)
    stats = eva.request(type="stats")["games"]["bura"]
    assert (stats["played"], stats["won"]) == (1, 1)
    assert (stats["mu"], stats["sigma"]) == (25.0, 8.333)  # a match with hints on changes no rating


def test_hints_are_off_by_default_and_refused_when_the_room_is_busy(
        server: ThreadServer, made: list[Client], tmp_path: Path) -> None:
    eva, _, table = teaching_table(server, made, ("eva_off", "fred_off"))
    assert eva.request(type="hint", table=table)["code"] == "hints_off"
    busy_room = ThreadServer(db=f"sqlite:///{tmp_path / 'busy.sqlite3'}", allow_test_decks=True, bot_workers=0,
                             search_queue=0).start()
    ada = Client(busy_room.url)
    try:
        ada.login_guest("Ada")
        table = ada.request(type="create", game="bura", options={"players": 2}, hints=True)["table"]
        ada.request(type="sit", table=table, seat=0)
        ada.request(type="bot_add", table=table, level="random")
        ada.request(type="start", table=table)
        ada.wait(lambda m: 0 in m["to_act"], type="update", table=table)
        refused = ada.request(type="hint", table=table)
        assert (refused["code"], refused["text"]) == ("busy", "The room is busy just now; ask again in a moment.")
    finally:
        ada.leave()
        busy_room.stop()


def test_the_review_names_the_thrown_away_trick_first_and_is_kept(server: ThreadServer, made: list[Client]) -> None:
    eva, fred, table = teaching_table(server, made, ("eva_review", "fred_review"))
    eva.request(type="act", table=table, action=BURA_WRONG)
    assert eva.request(type="review", table=table)["code"] == "review_live"  # no hints here: after the game
    # The rest of the hand as the pure review test plays it: random moves could make a later mistake dearer than
    # the thrown-away trick, and two threads acting at once would not play the same hand twice.
    _, actions = thrown_away_hand()
    players = {0: fred, 1: eva}
    for seat, action in actions[len(bura_at_the_beat().actions) + 1:]:
        assert players[seat].request(type="act", table=table, action=action)["type"] == "ok", (seat, action)
    eva.wait(match_finished, table=table)
    first = eva.request(type="review", table=table)
    assert (first["status"], first["hand"], first["seat"]) == ("computing", 1, 1)
    assert first["text"] == "Reviewing hand 1; you will hear it when it is ready."
    ready = eva.wait(type="review", status="ready", timeout=120)
    assert ready["items"][0]["played"] == BURA_WRONG and ready["items"][0]["better"] == BURA_RIGHT
    assert ready["items"][0]["text"].startswith("Trick 3: you chose to play the seven of spades; better to play the "
                                                "ace of hearts, about ")
    assert ready["text"].startswith("Review of hand 1: ")
    fred.request(type="preferences", lang="el")
    kept = fred.request(type="review", table=table, hand=1, seat=1)  # anyone who may see the game, any seat
    assert kept["status"] == "ready" and [i["loss"] for i in kept["items"]] == [i["loss"] for i in ready["items"]]
    assert kept["items"][0]["text"].startswith("Μπάζα 3: επιλέξατε «παίζω το εφτάρι μπαστούνι»")
    assert eva.request(type="review", table=table, hand=2)["code"] == "no_hand"


def test_a_live_table_with_hints_reviews_a_finished_hand(server: ThreadServer, made: list[Client]) -> None:
    eva = account(server, made, "eva_live")
    table = eva.request(type="create", game="mpourloto", options={"target": 1000}, seed=5, decks=[mpourloto_deck()],
                        hints=True)["table"]
    eva.request(type="sit", table=table, seat=0)
    for seat in (1, 2, 3):
        eva.request(type="bot_add", table=table, level="random", seat=seat)
    eva.request(type="start", table=table)
    assert eva.request(type="review", table=table)["code"] == "no_hand"  # nothing finished yet
    assert MPOURLOTO_OPENING and MPOURLOTO_RIGHT  # the deal is the teaching one; the bots play at random

    def first_hand_over(message: Message) -> bool:
        return message.get("type") == "event" and message["event"]["type"] in ("hand_end", "throw_in")

    AutoPlayer(eva, table, 0, 3, first_hand_over).start().join()
    review = eva.request(type="review", table=table)
    assert (review["status"], review["hand"]) == ("computing", 1)
    ready = eva.wait(type="review", status="ready", timeout=120)
    assert ready["hand"] == 1 and all(i["unit"] == "points" for i in ready["items"])
    other = Client(server.url)
    made.append(other)
    other.login_guest("Olga")
    assert other.request(type="review", table=table, hand=1, seat=0)["code"] == "review_live"
