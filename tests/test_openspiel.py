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


def test_ismcts_seat_bot_answers_in_an_announcement_pause_after_others() -> None:
    """A seat that answers after others (their answers secret) gets a sampled state in which it is to act."""
    from trickroom.bots import make_bot, off_turn_action

    game = load_game("bura", players=3)
    rng = random.Random(4)
    found = 0
    for seed in range(300):
        match = game.new_match(seed=seed)
        bots = [make_bot("normal", seed=s) for s in range(3)]
        while not match.hand_results and found < 3:
            claimed = False
            for other in range(3):
                legal = match.legal_actions(other)
                if other != match.to_act[0] and off_turn_action(bots[other], game, other, match.view(other),
                                                                events_for(match.events, other), legal):
                    match.apply(other, "claim")
                    claimed = True
                    break
            if claimed:
                continue
            seat = match.to_act[0]
            view = match.view(seat)
            legal = match.legal_actions(seat)
            if view["phase"] == "announce" and view["answered"] and any(a.startswith("announce") for a in legal):
                bot = openspiel.ISMCTSSeatBot(game, seed=seed, budget=0.02)
                state = bot.spiel_game.state_for_seat(view, events_for(match.events, seat), rng)
                assert state.current_player() == seat
                assert bot.choose(game, seat, view, events_for(match.events, seat), legal) in legal
                found += 1
            match.apply(seat, bots[seat].choose(game, seat, view, events_for(match.events, seat), legal))
        if found >= 3:
            break
    assert found == 3
