"""Mpourloto bots: the easy and normal heuristics, and what the hard level's search needs for this game."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from trickroom.bots.mpourloto import inference, policy, rollout
from trickroom.bots.mpourloto.memory import remember, sample_hidden
from trickroom.bots.search import Budget, SearchResult, flat_search
from trickroom.games import Event, Game, Match, ends_a_hand
from trickroom.games.mpourloto.rules import team_of

EASY_RANDOM_PLAY = 0.25  # how often the easy level just plays any legal card


def normal_action(game: Game, seat: int, view: dict[str, Any], events: Sequence[Event], legal: Sequence[str],
                  rng: random.Random) -> str:
    forbidden = remember(view, events).forbidden if view["phase"] == "play" else None
    return policy.choose(view, legal, forbidden)


def easy_action(game: Game, seat: int, view: dict[str, Any], events: Sequence[Event], legal: Sequence[str],
                rng: random.Random, bot_seed: int = 0) -> str:
    """Bids by feel (a bolder or shyer threshold each time), melds and exchanges like anyone, and plays a card
    without thinking a quarter of the time."""
    phase = view["phase"]
    if phase in ("bidding1", "bidding2"):
        return policy.bid(view, strength_bonus=rng.uniform(-1.0, 1.0))
    if phase == "play" and rng.random() < EASY_RANDOM_PLAY:
        return rng.choice(list(legal))
    return policy.choose(view, legal)


def rollout_action(view: dict[str, Any], legal: Sequence[str]) -> str:
    return policy.choose(view, legal)


def playout(match: Match, seat: int) -> float:
    """Play ``match`` to the end of its hand with the normal heuristics; ``seat``'s team's points minus the
    other team's (a thrown-in hand is 0)."""
    done = match.hands_done
    over = match.is_over
    while not over:
        actor = match.to_act[0]
        legal = match.legal_actions(actor)
        events = match.apply(actor, legal[0] if len(legal) == 1 else rollout_action(match.view(actor), legal))
        over = match.is_over or ends_a_hand(events)
    results = match.hand_results
    if len(results) == done:
        return 0.0
    added = results[done]["added"]
    team = team_of(seat)
    return float(added[team] - added[1 - team])


# Card play searched on the light simulator (rollout.py) rather than the engine: the same playouts, faster.
LIGHT_PLAYOUTS = True
# The search's best move replaces the normal level's only when it leads by this many standard errors
# (search.flat_search): with the few worlds of a loaded machine, the heuristic's choice beat the noisy best mean.
CONFIDENCE = 1.0
READ_PLAYS = True  # weigh card-play worlds by the others' recent choices (inference.py)
BID_RESAMPLES = 12  # tries for a world whose hands explain the bids heard; then any world will do


def bids_fit(view: dict[str, Any], hidden: dict[str, Any]) -> bool:
    """While bidding: do the sampled five-card hands explain every pass heard so far, as a sensible player
    (the normal level's bidding) would have passed? A pass says "not strong enough in that suit"."""
    if view["phase"] not in ("bidding1", "bidding2"):
        return True
    hands = hidden["hands"]
    for index, (seat, action) in enumerate(view["bids"]):
        if action != "pass" or seat == view["seat"]:
            continue
        phase = "bidding1" if index < 4 else "bidding2"  # the first four bids are round one
        if policy.bid(dict(view, seat=seat, hand=hands[seat], phase=phase)) != "pass":
            return False
    return True


def hard_search(game: Game, seat: int, view: dict[str, Any], events: Sequence[Event], legal: Sequence[str],
                rng: random.Random, budget: Budget) -> SearchResult:
    memory = remember(view, events)
    fallback = policy.choose(view, legal, memory.forbidden if view["phase"] == "play" else None)
    actions = list(legal)
    if view["phase"] == "melds" or view["phase"] == "exchange":
        return SearchResult(fallback, 0)  # declaring every meld and always exchanging are never worse

    # In card play, worlds are weighed by how well they explain the others' recent choices (inference.py).
    plays = inference.read_plays(view, events) if READ_PLAYS and view["phase"] == "play" else None

    def sample_play(sample_rng: random.Random) -> dict[str, Any] | None:
        hidden = sample_hidden(memory, sample_rng)
        if plays is None or not plays.plays:
            return hidden
        for _ in range(inference.TRIES - 1):
            chance = sample_rng.random()
            if hidden is None or chance < plays.weight(hidden["hands"], floor=chance):
                break
            hidden = sample_hidden(memory, sample_rng)
        return hidden

    if view["phase"] == "play" and LIGHT_PLAYOUTS:
        # Card play: the light simulator (rollout.py), which ends every hand as the engine does, faster.
        def sample_light(sample_rng: random.Random) -> rollout.PlayWorld | None:
            hidden = sample_play(sample_rng)
            return None if hidden is None else rollout.PlayWorld(view, hidden)

        def evaluate_light(world: rollout.PlayWorld, action: str, _rng: random.Random) -> float:
            return rollout.playout(world.clone(), seat, action)

        return flat_search(actions, sample_light, evaluate_light, budget, rng, fallback, shuffle=True,
                           confidence=CONFIDENCE)

    def sample(sample_rng: random.Random) -> Match | None:
        hidden = sample_play(sample_rng)
        for _ in range(BID_RESAMPLES):
            if hidden is None or bids_fit(view, hidden):
                break
            hidden = sample_hidden(memory, sample_rng)
        return None if hidden is None else game.determinized_match(view, hidden)

    def evaluate(world: Match, action: str, _rng: random.Random) -> float:
        trial = world.clone()
        trial.apply(seat, action)
        return playout(trial, seat)

    return flat_search(actions, sample, evaluate, budget, rng, fallback, shuffle=True, confidence=CONFIDENCE)
