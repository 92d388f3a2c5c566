"""Reading the other Mpourloto hands from the plays (trickroom/bots/mpourloto/inference.py)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_bots_mpourloto import hearts_made_by_seat_2

from trickroom.bots.mpourloto import normal_action
from trickroom.bots.mpourloto.inference import MISMATCH, read_plays
from trickroom.bots.mpourloto.memory import remember, sample_hidden
from trickroom.games import Match, events_for, load_game


def _normal_positions(relief: bool, seeds: range) -> list[tuple[Match, dict[str, Any], list[Any]]]:
    """Every card-play decision of seat 0 with a choice, in hands where normal bots play every seat."""
    game = load_game("mpourloto", partner_relief=relief)
    positions = []
    for seed in seeds:
        match = game.new_match(seed=seed)
        rng = random.Random(seed)
        while not match.hand_results:
            seat = match.to_act[0]
            legal = match.legal_actions(seat)
            view, events = match.view(seat), events_for(match.events, seat)
            if seat == 0 and view["phase"] == "play" and len(legal) > 1:
                positions.append((match.clone(), view, events))
            match.apply(seat, normal_action(game, seat, view, events, legal, rng))
    return positions


@pytest.mark.parametrize("relief", [False, True])
def test_the_real_hands_of_normal_players_explain_their_plays(relief: bool) -> None:
    told_apart = 0
    rng = random.Random(1)
    positions = _normal_positions(relief, range(16))
    assert len(positions) >= 30
    for match, view, events in positions:
        plays = read_plays(view, events)
        real = {s: match.view(s)["hand"] for s in (1, 2, 3)}
        assert plays.weight(real) == 1.0
        sampled = sample_hidden(remember(view, events), rng)
        assert sampled is not None
        told_apart += plays.weight(sampled["hands"]) < 1.0
    assert told_apart > 0  # some random worlds do not fit what the others did


def test_a_low_lead_says_no_master_trump() -> None:
    # Hearts are trumps, made by seat 2. Seat 1 holds the jack of hearts, the master trump, but leads the seven
    # of spades: the normal level would have drawn trumps with the jack, so a world that gives seat 1 the jack
    # explains that lead worse than one in which it holds no trump and no master, only a long suit of spades.
    match = hearts_made_by_seat_2()
    match.apply(1, "play 7S")
    plays = read_plays(match.view(2), events_for(match.events, 2))
    assert [(p.seat, p.card) for p in plays.plays] == [(1, "7S")]
    assert plays.weight({1: match.view(1)["hand"]}) == MISMATCH
    assert plays.weight({1: ["8S", "9S", "JS", "7D", "8D", "7C", "8C"]}) == 1.0
    # With a floor above it, a world with one mismatch still reads as one mismatch (the sampler rejects it).
    assert plays.weight({1: match.view(1)["hand"]}, floor=0.5) == MISMATCH


def test_only_the_recent_plays_of_the_others_are_read() -> None:
    positions = _normal_positions(False, range(2))
    match, view, events = positions[-1]  # late in a hand: every other seat has played several cards
    plays = read_plays(view, events)
    seats = [p.seat for p in plays.plays]
    assert 0 not in seats and all(seats.count(s) <= 3 for s in (1, 2, 3))
    for play in plays.plays:  # each rebuilt hand is the hand now and the cards played since, this one first
        assert play.since[0] == play.card
        assert len(play.since) == play.sizes[play.seat] - len(match.view(play.seat)["hand"])
