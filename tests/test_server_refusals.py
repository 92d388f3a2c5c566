"""The room says a refused action in the language of the person who tried it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from server_helpers import Client, ThreadServer

from trickroom import cards
from trickroom.games import load_game


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    db = Path(tmp_path_factory.mktemp("refusals")) / "room.sqlite3"
    room = ThreadServer(db=f"sqlite:///{db}", allow_test_decks=True, bot_workers=0).start()
    yield room
    room.stop()


def guest(url: str, nickname: str, lang: str) -> Client:
    client = Client(url)
    welcome = client.request(type="login", nickname=nickname, lang=lang)
    assert welcome["type"] == "welcome", welcome
    # The tests answer Bura's announcement pause themselves: the room must not pass for them.
    assert client.request(type="preferences", auto_pass=False)["type"] == "preferences"
    return client


def test_a_russian_guest_hears_an_illegal_play_refused_in_russian(server: ThreadServer) -> None:
    # Seat 0 deals: seat 1 (John) gets AS KS 7H and leads, seat 0 (Ira) 6C 8D JH; clubs are trumps.
    deck = ["AS", "6C", "KS", "8D", "7H", "JH", "9C"]
    deck += [c for c in cards.DECK_36 if c not in deck]
    options = {"players": 2, "scoring": "points"}
    expected = load_game("bura", **options).new_match(seed=5, decks=[deck])
    assert expected.view(1)["hand"] == ["AS", "KS", "7H"] and expected.view(0)["hand"] == ["JH", "8D", "6C"]
    ira, john = guest(server.url, "Ira", "ru"), guest(server.url, "John", "en")
    try:
        table = ira.request(type="create", game="bura", options=options, seed=5, decks=[deck])["table"]
        ira.request(type="sit", table=table, seat=0)
        john.request(type="sit", table=table, seat=1)
        assert ira.request(type="start", table=table)["type"] == "ok"
        ira.wait(type="your_turn", table=table)
        john.wait(type="your_turn", table=table)
        early = ira.request(type="act", table=table, action="play JH")
        assert (early["type"], early["code"]) == ("error", "illegal")
        assert early["text"] == "Сначала ответьте на объявление: спасуйте или объявите свою комбинацию."
        early = john.request(type="act", table=table, action="play AS")
        assert early["text"] == "First answer the announcement: pass, or announce your combination."
        assert ira.request(type="act", table=table, action="pass")["type"] == "ok"
        assert john.request(type="act", table=table, action="pass")["type"] == "ok"
        out_of_turn = ira.request(type="act", table=table, action="play JH")
        assert (out_of_turn["code"], out_of_turn["text"]) == ("not_your_turn", "Сейчас не ваш ход.")
        not_held = john.request(type="act", table=table, action="play QS")
        assert (not_held["code"], not_held["text"]) == ("illegal", "You do not hold the queen of spades.")
        assert john.request(type="act", table=table, action="play AS KS")["type"] == "ok"
        ira.wait(type="your_turn", table=table)
        wrong_count = ira.request(type="act", table=table, action="play JH")
        assert (wrong_count["code"], wrong_count["text"]) == (
            "illegal", "Нужно сыграть ровно 2 карты: столько же, сколько в заходе.")
        not_held = ira.request(type="act", table=table, action="play AS QS")
        assert not_held["text"] == "Этих карт у вас нет: туз и дама пик."
        # The person switches to English: the next refusal follows.
        ira.request(type="preferences", lang="en")
        switched = ira.request(type="act", table=table, action="play JH")
        assert switched["text"] == "You must play exactly 2 cards, as many as were led."
    finally:
        ira.close()
        john.close()
