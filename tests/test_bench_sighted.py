"""bench/sighted.py: the hard level shown the other hands samples exactly them, and only while it decides."""

from __future__ import annotations

import random
from types import ModuleType

import pytest
from bench_helpers import load_bench

import trickroom.bots.bura as bura_bots
import trickroom.bots.mpourloto as mpourloto_bots
from trickroom.bots import arena
from trickroom.bots.bura.memory import remember as remember_bura
from trickroom.bots.mpourloto.memory import remember as remember_mpourloto
from trickroom.bots.search import SearchResult
from trickroom.games import events_for, load_game


@pytest.fixture
def sighted(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The bench module, loaded for the test; what it patches is put back afterwards."""
    return load_bench("sighted.py", monkeypatch, (bura_bots, "sample_hidden"), (bura_bots, "read_moves"),
                      (mpourloto_bots, "sample_hidden"), (arena, "play_one_hand"))


def test_bura_worlds_hold_the_real_hand_only_while_a_sighted_seat_decides(sighted: ModuleType) -> None:
    game = load_game("bura", players=2)
    match = game.new_match(seed=5)
    seat = match.to_act[0]
    other = 1 - seat
    memory = remember_bura(match.view(seat), events_for(match.events, seat))
    real = sorted(match.view(other)["hand"])
    sighted.playing = match

    sighted.sighted_now = True
    for draw in range(5):
        hidden = bura_bots.sample_hidden(memory, random.Random(draw))
        assert hidden is not None
        assert sorted(hidden["hands"][other]) == real
        assert len(hidden["stock"]) == memory.stock  # the stock is still dealt from the cards left
    assert bura_bots.read_moves(match.view(seat), events_for(match.events, seat)).weight({other: []}) == 1.0

    sighted.sighted_now = False
    memory = remember_bura(match.view(seat), events_for(match.events, seat))
    blind = [bura_bots.sample_hidden(memory, random.Random(draw)) for draw in range(20)]
    assert any(sorted(h["hands"][other]) != real for h in blind if h is not None)


def test_mpourloto_worlds_hold_every_real_hand(sighted: ModuleType) -> None:
    game = load_game("mpourloto")
    match = game.new_match(seed=5)
    seat = match.to_act[0]
    memory = remember_mpourloto(match.view(seat), events_for(match.events, seat))
    sighted.playing = match
    sighted.sighted_now = True
    hidden = mpourloto_bots.sample_hidden(memory, random.Random(1))
    assert hidden is not None
    assert {s: sorted(cards) for s, cards in hidden["hands"].items()} == {
        s: sorted(match.view(s)["hand"]) for s in range(4) if s != seat}


def test_the_arena_finds_the_sighted_seat_which_sees_only_while_it_searches(
        sighted: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    assert arena.OUTSIDE_SEATS["sighted"] == ("__main__", "SightedHardBot")
    game = load_game("bura", players=2)
    bot = sighted.SightedHardBot(game, seed=1, budget=0.05)
    assert bot.budget == 0.05
    seen_while_searching: list[bool] = []

    def search(*args: object) -> SearchResult:
        seen_while_searching.append(sighted.sighted_now)
        return SearchResult("pass", 0)

    monkeypatch.setattr(bura_bots, "hard_search", search)
    match = game.new_match(seed=5)
    seat = match.to_act[0]
    bot.choose(game, seat, match.view(seat), events_for(match.events, seat), ["pass", "play AS", "play 6S"])
    assert seen_while_searching == [True]
    assert sighted.sighted_now is False
