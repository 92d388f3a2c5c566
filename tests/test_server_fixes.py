"""Smaller server behaviours: one ``your_turn`` per decision, the start announced as playing, bots claiming off
turn, bot levels in sentences, the test-only fixed deal, statistics, a finished table's history, and a
spectator who watches again after a dropped connection."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_helpers import AutoPlayer, Client, ThreadServer, clients

from trickroom.games import load_game
from trickroom.server import bots as server_bots

Message = dict[str, Any]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    db = Path(tmp_path_factory.mktemp("fixes")) / "room.sqlite3"
    room = ThreadServer(db=f"sqlite:///{db}", allow_test_decks=True, bot_workers=0).start()
    yield room
    room.stop()


def finished(message: Message) -> bool:
    return message["type"] == "table_event" and message["kind"] == "finished"


def test_your_turn_once_per_decision_and_started_says_playing(server: ThreadServer) -> None:
    """Bura's first trick opens with an announcement pause in which every seat answers. A bot's answer gives
    nobody a new decision, so the people waiting hear "your turn" once, not again after the bot's answer."""
    with clients(server.url, "Ada", "Ben") as (ada, ben):
        table = ada.request(type="create", game="bura", options={"players": 3})["table"]
        ada.request(type="sit", table=table, seat=0)
        ben.request(type="sit", table=table, seat=1)
        ada.request(type="bot_add", table=table, level="random", seat=2)
        ada.request(type="start", table=table)
        started = ada.wait(type="table_event", kind="started")
        assert started["info"]["status"] == "playing"
        for client in (ada, ben):
            client.wait(lambda m: m["type"] == "update" and sorted(m["to_act"]) == [0, 1], table=table)
        ada.send(type="act", table=table, action="pass")
        ben.wait(lambda m: m["type"] == "update" and m["to_act"] == [1], table=table)
        for client in (ada, ben):
            client.drain()
        heard = {name: [m for m in c.history if m["type"] == "your_turn"] for name, c in (("ada", ada), ("ben", ben))}
        assert len(heard["ada"]) == 1 and len(heard["ben"]) == 1, heard


def test_bots_are_asked_off_turn_and_may_claim(server: ThreadServer, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[int, list[str]]] = []

    def claim_once(level: str, seed: int, budget: float | None, game_name: str, options: dict[str, Any],
                   seat: int, view: dict[str, Any], events: Any, legal: list[str]) -> str | None:
        asked.append((seat, list(legal)))
        return "claim" if len(asked) == 1 else None

    monkeypatch.setattr(server_bots, "decide_off_turn", claim_once)
    with clients(server.url, "Cleo") as (cleo,):
        table = cleo.request(type="create", game="bura", options={"players": 2, "scoring": "points"})["table"]
        cleo.request(type="sit", table=table, seat=0)
        cleo.request(type="bot_add", table=table, level="normal", seat=1)
        cleo.request(type="start", table=table)
        claim = cleo.wait(lambda m: m["type"] == "event" and m["event"]["type"] == "claim", table=table)
        assert claim["event"]["seat"] == 1
        # Asked only while the game was not waiting for the bot: its legal actions were the claim alone.
        assert asked[0] == (1, ["claim"])


def test_bot_levels_in_sentences(server: ThreadServer) -> None:
    with clients(server.url, "Dora") as (dora,):
        table = dora.request(type="create", game="bura", options={"players": 3})["table"]
        dora.request(type="bot_add", table=table, level="easy", seat=0)
        assert dora.wait(type="table_event", kind="bot_added")["text"] == "An easy bot sits in seat 1."
        dora.request(type="preferences", lang="ru")
        dora.request(type="bot_add", table=table, level="hard", seat=1)
        assert dora.wait(type="table_event", kind="bot_added")["text"] == "Сильный бот садится на место 2."


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


def test_a_spectator_whose_connection_dropped_watches_again_on_resume(server: ThreadServer) -> None:
    """A spectator stops watching when they leave the room; coming back with ``resume`` (what the clients send
    after a reconnection or a server restart), they watch again, unless the table now needs a password."""
    with clients(server.url, "Host") as (host,):
        table = host.request(type="create", game="bura", options={"players": 2})["table"]
        host.request(type="sit", table=table, seat=0)
        watcher = Client(server.url)
        token = watcher.login_guest("Watcher")["token"]
        watcher.request(type="watch", table=table)
        watcher.close()
        host.wait(type="table_event", kind="left", table=table)
        host.request(type="chat", table=table, message="still there?")

        with comes_back(server.url, token, table, 6) as back:
            snapshot = back.wait(type="snapshot", table=table)
            assert snapshot["you"]["seat"] is None
            assert any(m["type"] == "chat" and m["message"] == "still there?" for m in back.history if m.get("missed"))
            host.wait(lambda m: m["user"]["name"] == "Watcher", type="table_event", kind="joined", table=table)
            back.request(type="chat", table=table, message="back")  # a member again: chat is allowed
            host.wait(type="chat", table=table, message="back")
        host.wait(type="table_event", kind="left", table=table)

        host.request(type="settings", table=table, password="secret-word")
        with comes_back(server.url, token, table, 7) as again:
            assert again.wait(type="error", re=7)["code"] == "wrong_password"
            again.send(type="chat", table=table, message="let me in", id=8)
            assert again.wait(type="error", re=8)["code"] == "not_member"
