"""Smaller server behaviours: the test-only fixed deal, statistics and a finished table's history."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_helpers import AutoPlayer, Client, ThreadServer, clients

from trickroom.games import load_game

Message = dict[str, Any]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    db = Path(tmp_path_factory.mktemp("fixes")) / "room.sqlite3"
    room = ThreadServer(db=f"sqlite:///{db}", allow_test_decks=True, bot_workers=0).start()
    yield room
    room.stop()


def finished(message: Message) -> bool:
    return message["type"] == "table_event" and message["kind"] == "finished"


def test_fixed_deal_then_stats_and_history_replay(server: ThreadServer) -> None:
    game = load_game("bura", players=2, scoring="points", hand_limit=1)
    deck = ["AS", "TS", "KS", "QS", "JS", "9S", "8S", "7S", "6S", "AH", "TH", "KH", "QH", "JH", "9H", "8H", "7H",
            "6H", "AD", "TD", "KD", "QD", "JD", "9D", "8D", "7D", "6D", "AC", "TC", "KC", "QC", "JC", "9C", "8C",
            "7C", "6C"]
    expected = game.new_match(seed=5, decks=[deck])
    eva, fred = Client(server.url), Client(server.url)
    try:
        eva.request(type="register", username="eva_stats", password="secret-e")
        fred.request(type="register", username="fred_stats", password="secret-f")
        table = eva.request(type="create", game="bura", options=dict(game.options), seed=5, decks=[deck])["table"]
        eva.request(type="sit", table=table, seat=0)
        fred.request(type="sit", table=table, seat=1)
        early = eva.request(type="history", table=table)
        assert early["code"] == "not_finished"
        eva.request(type="start", table=table)
        hand = eva.wait(lambda m: m["type"] == "event" and m["event"]["type"] == "hand", table=table)
        assert hand["event"]["cards"] == expected.view(0)["hand"]
        fred.request(type="chat", table=table, message="good luck")
        said = eva.wait(type="chat", table=table)
        players = [AutoPlayer(eva, table, 0, 1, finished).start(), AutoPlayer(fred, table, 1, 2, finished).start()]
        for player in players:
            player.join()
        eva.send(type="resume", table=table, after=10**9)
        final = eva.wait(type="snapshot", table=table)
        history = eva.request(type="history", table=table)
        assert history["type"] == "history" and history["seed"] == 5 and history["decks"] == [deck]
        replayed = load_game("bura", **history["options"]).replay(
            history["seed"], [(a["seat"], a["action"]) for a in history["actions"]], decks=history["decks"])
        assert replayed.is_over and replayed.standings == final["standings"]
        assert [a["seq"] for a in history["actions"]] == list(itertools.islice(itertools.count(1),
                                                                              len(history["actions"])))
        # The chat, said after the deal and before the first action: its journal seq puts it there.
        assert history["chat"] == [{"seq": said["seq"], "from": said["from"], "message": "good luck"}]
        assert said["from"]["name"] == "fred_stats"
        assert hand["seq"] < said["seq"] < history["actions"][0]["event_seq"]
        stats = fred.request(type="stats", user="eva_stats")
        assert stats["user"]["name"] == "eva_stats" and stats["games"]["bura"]["played"] == 1
        won_by_eva = stats["games"]["bura"]["won"]
        mine = fred.request(type="stats")
        assert mine["games"]["bura"]["played"] == 1 and mine["games"]["bura"]["won"] + won_by_eva <= 1
        assert set(mine["games"]["bura"]) == {"played", "won", "rating", "mu", "sigma"}
        assert fred.request(type="stats", user="nobody_at_all")["code"] == "unknown_user"
    finally:
        eva.close()
        fred.close()


def test_fixed_deal_is_refused_unless_allowed(tmp_path: Path) -> None:
    room = ThreadServer(db=f"sqlite:///{tmp_path / 'plain.sqlite3'}").start()
    try:
        with clients(room.url, "Gus") as (gus,):
            refused = gus.request(type="create", game="bura", options={}, seed=1)
            assert refused["type"] == "error" and refused["code"] == "test_decks_off"
    finally:
        room.stop()


@contextlib.contextmanager
def comes_back(url: str, token: str, table: str, request_id: int) -> Iterator[Client]:
    """The guest with ``token`` on a new connection, having sent ``resume`` for ``table`` with ``request_id``."""
    client = Client(url)
    try:
        client.request(type="login", token=token)
        client.send(type="resume", table=table, after=0, id=request_id)
        yield client
    finally:
        client.close()


