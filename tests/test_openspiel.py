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


def test_the_games_take_the_tables_options_so_ismcts_searches_the_tables_rules() -> None:
    game = pyspiel.load_game("python_trickroom_bura", {"players": 3, "preset": "moscow"})
    assert game.num_players() == 3 and game.trickroom_game.options["preset"] == "moscow"
    state = game.new_initial_state()
    rng = random.Random(2)
    for _ in range(4):
        state.apply_action(rng.choice(state.legal_actions()))
    twin = state.resample_from_infostate(state.current_player(), None)
    assert twin.match.game.options["preset"] == "moscow" and twin.match.moscow

    table = load_game("bura", players=2, preset="moscow")
    bot = openspiel.ISMCTSSeatBot(table, seed=1, budget=0.02)
    match = table.new_match(seed=3)
    seat = match.to_act[0]
    view = match.view(seat)
    assert bot.spiel_game.state_for_seat(view, events_for(match.events, seat), rng).match.moscow
    assert pyspiel.load_game("python_trickroom_bura").trickroom_game.options["preset"] == "classic"
    assert pyspiel.load_game("python_trickroom_mpourloto", {"partner_relief": True}).trickroom_game.options[
        "partner_relief"] is True


def test_ismcts_keeps_its_speed_per_phase_so_a_mpourloto_bid_is_not_timed_like_a_late_trick(
        monkeypatch: pytest.MonkeyPatch) -> None:
    speeds: dict[tuple[str, int, str, int], float] = {}
    monkeypatch.setattr(openspiel, "_SECONDS_PER_SIMULATION", speeds)
    game = load_game("mpourloto")
    match = game.new_match(seed=5)
    seat = match.to_act[0]
    view = match.view(seat)
    assert view["phase"] == "bidding1"
    bot = openspiel.ISMCTSSeatBot(game, seed=1, budget=0.02)
    assert bot.choose(game, seat, view, events_for(match.events, seat), match.legal_actions(seat)) in \
        match.legal_actions(seat)
    assert list(speeds) == [("mpourloto", 4, "bidding1", 5)]


def test_ismcts_stops_at_its_deadline_after_one_simulation_and_otherwise_runs_its_count() -> None:
    game = load_game("bura", players=3)
    match = game.new_match(seed=2)
    normal = __import__("trickroom.bots", fromlist=["make_bot"]).make_bot("normal", seed=2)
    while len([a for a in match.legal_actions(match.to_act[0]) if a != "claim"]) < 2:  # a real choice
        seat = match.to_act[0]
        match.apply(seat, normal.choose(game, seat, match.view(seat), events_for(match.events, seat),
                                        match.legal_actions(seat)))
    seat = match.to_act[0]
    view, events = match.view(seat), events_for(match.events, seat)
    legal = [a for a in match.legal_actions(seat) if a != "claim"]
    seat_bot = openspiel.ISMCTSSeatBot(game, seed=4, budget=0.02)
    state = seat_bot.spiel_game.state_for_seat(view, events, random.Random(1))
    ids = openspiel.ACTION_IDS["bura"]

    # A deadline long past: the simulation that expands the root and one that tries a move, then none.
    passed = seat_bot._bot(500, deadline=0.0)
    assert openspiel.ACTION_NAMES["bura"][int(passed.step(state))] in legal
    assert passed.simulations == 2 and passed._root_node.total_visits == 1
    counted = seat_bot._bot(20)  # no deadline: the count stops it
    counted.step(state)
    assert counted.simulations == 20 and counted._root_node.total_visits == 19
    assert set(counted._root_node.child_info) <= {ids[a] for a in legal}

    instant = openspiel.ISMCTSSeatBot(game, seed=4, budget=0.0)  # the seat bot searches by the clock
    assert instant.choose(game, seat, view, events, match.legal_actions(seat)) in legal
    assert instant.last_simulations == 2
