"""The OpenSpiel adapter: both games registered, playable to the end, resampling that keeps the infostate, and
OpenSpiel's ISMCTSBot choosing legal moves through it."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install 'trickroom[openspiel]')")
openspiel = pytest.importorskip("trickroom.integrations.openspiel")

from trickroom.games import events_for, load_game  # noqa: E402


@pytest.mark.parametrize(("name", "params"), [("python_trickroom_bura", {"players": 2}),
                                              ("python_trickroom_bura", {"players": 5}),
                                              ("python_trickroom_mpourloto", {})])
def test_random_episodes_end_with_zero_sum_returns(name: str, params: dict[str, int]) -> None:
    game = pyspiel.load_game(name, params)
    rng = random.Random(1)
    for _ in range(5):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        assert sum(state.returns()) == pytest.approx(0.0)
        assert max(state.returns()) <= 1.0


@pytest.mark.parametrize("name", ["python_trickroom_bura", "python_trickroom_mpourloto"])
def test_resampling_keeps_the_players_information(name: str) -> None:
    game = pyspiel.load_game(name)
    rng = random.Random(3)
    state = game.new_initial_state()
    for _ in range(12):
        state.apply_action(rng.choice(state.legal_actions()))
    player = state.current_player()
    key = state.information_state_string(player)
    changed = 0
    for _ in range(10):
        other = state.resample_from_infostate(player, None)
        assert other.information_state_string(player) == key
        assert other.legal_actions() == state.legal_actions()
        changed += str(other) != str(state) or other.match.view(1 - player if player < 2 else 0)["hand"] != \
            state.match.view(1 - player if player < 2 else 0)["hand"]
    assert changed > 0


def test_ismcts_seat_bot_plays_legal_moves_in_bura() -> None:
    game = load_game("bura", players=2)
    match = game.new_match(seed=8)
    bot = openspiel.ISMCTSSeatBot(game, seed=1, budget=0.02)
    normal = __import__("trickroom.bots", fromlist=["make_bot"]).make_bot("normal", seed=2)
    while not match.hand_results:
        seat = match.to_act[0]
        legal = match.legal_actions(seat)
        chooser = bot if seat == 0 else normal
        action = chooser.choose(game, seat, match.view(seat), events_for(match.events, seat), legal)
        assert action in legal
        match.apply(seat, action)
