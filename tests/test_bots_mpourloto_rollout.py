"""Mpourloto's light simulator against the engine, position by position: every playout from every card-play
position of real hands ends with the same points, and the hard level's search decides the same with either."""

from __future__ import annotations

import random

import pytest

from trickroom.bots import make_bot
from trickroom.bots import mpourloto as bots
from trickroom.bots.hard import HardBot
from trickroom.bots.mpourloto import rollout
from trickroom.bots.mpourloto.memory import remember, sample_hidden
from trickroom.games import ends_a_hand, events_for, load_game


@pytest.mark.parametrize("relief", [False, True])
def test_every_playout_ends_as_the_engines_does(relief: bool) -> None:
    game = load_game("mpourloto", partner_relief=relief)
    rng = random.Random(11)
    positions = 0
    for hand in range(20):
        match = game.new_match(seed=100 + hand)
        players = [make_bot("normal", seed=s) for s in range(4)]
        while not match.hand_results:
            seat = match.to_act[0]
            view, events = match.view(seat), events_for(match.events, seat)
            legal = match.legal_actions(seat)
            if view["phase"] == "play":
                positions += 1
                hidden = sample_hidden(remember(view, events), rng)
                assert hidden is not None
                world = rollout.PlayWorld(view, hidden)
                assert [rollout.PLAY_PREFIX + c for c in world.legal_cards()] == legal
                for action in legal:
                    engine = game.determinized_match(view, hidden)
                    if ends_a_hand(engine.apply(seat, action)):  # the hand's last card: nothing to play out
                        added = engine.hand_results[-1]["added"]
                        team = seat & 1
                        expected = float(added[team] - added[1 - team])
                    else:
                        expected = bots.playout(engine, seat)
                    light = world.clone()
                    assert rollout.playout(light, seat, action) == expected
                    # The same cards were played to the end, and the hand added the same points to each team.
                    assert engine.hand_results[-1]["card_points"] == light.card_points
                    assert engine.hand_results[-1]["added"] == light.added(engine.hand_results[-1]["last_trick"])
                    assert light.hands == [[], [], [], []]
                assert world.hands[seat] == view["hand"]  # the clones left the world as it was
            match.apply(seat, players[seat].choose(game, seat, view, events, legal))
    assert positions >= 6 * 32  # hands thrown in (all passed) have no card play


def test_the_hard_search_decides_the_same_on_the_light_simulator(monkeypatch: pytest.MonkeyPatch) -> None:
    game = load_game("mpourloto")
    match = game.new_match(seed=7)
    players = [make_bot("normal", seed=s) for s in range(4)]
    compared = 0
    while not match.hand_results:
        seat = match.to_act[0]
        view, events = match.view(seat), events_for(match.events, seat)
        legal = match.legal_actions(seat)
        if view["phase"] == "play" and len(legal) > 1:
            found = {}
            for light in (True, False):
                monkeypatch.setattr(bots, "LIGHT_PLAYOUTS", light)
                bot = HardBot(seed=seat, budget=60.0, max_worlds=6)
                action = bot.choose(game, seat, view, events, legal)
                assert bot.last_search is not None and bot.last_search.worlds == 6
                found[light] = (action, {a: (s.total, s.visits) for a, s in bot.last_search.stats.items()})
            assert found[True] == found[False]
            compared += 1
        match.apply(seat, players[seat].choose(game, seat, view, events, legal))
    assert compared >= 4


def test_the_light_simulator_starts_only_in_the_play_phase() -> None:
    match = load_game("mpourloto").new_match(seed=1)
    view = match.view(match.to_act[0])
    with pytest.raises(ValueError, match="play phase"):
        rollout.PlayWorld(view, {"hands": {}})
