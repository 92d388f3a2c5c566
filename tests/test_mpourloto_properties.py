"""Properties of Mpourloto over many random matches (seeded random deals, random legal play)."""

from __future__ import annotations

import random
import re
from typing import Any

from engine_helpers import assert_all_refused
from hypothesis import given, settings
from hypothesis import strategies as st

from trickroom.cards import DECK_32
from trickroom.games import events_for, load_game
from trickroom.games.mpourloto import MpourlotoMatch
from trickroom.narration import narrate

CARD = re.compile(r"^[789TJQKA][SHDC]$")
SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
# Most matches play to a small target (a match to 1000 takes about ten hands); one in four plays the default.
OPTIONS = st.fixed_dictionaries({"partner_relief": st.booleans(),
                                 "target": st.sampled_from([100, 200, 300, 1000])})


def new_match(seed: int, options: dict[str, Any]) -> MpourlotoMatch:
    match = load_game("mpourloto", **options).new_match(seed=seed)
    assert isinstance(match, MpourlotoMatch)
    return match


def cards_in(value: Any) -> set[str]:
    """Every card code anywhere inside a JSON value."""
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def check_conservation(match: MpourlotoMatch) -> None:
    held = [c for h in match.hands for c in h]
    trick = [c for _, c in match.trick]
    played_before = match.played[: len(match.played) - len(trick)]
    face_up = [match.face_up] if match.face_up else []
    everything = held + trick + played_before + face_up + match.stock
    if match.phase != "over":
        assert sorted(everything) == sorted(DECK_32)


def check_views(match: MpourlotoMatch) -> None:
    declared = {c for m in match.declared for c in m["cards"]}
    for seat in (0, 1, 2, 3, None):
        view = match.view(seat)
        seen = cards_in(view)
        for other in range(4):
            if other == seat:
                continue
            public = declared | ({match.turned} if other == match.dealer and match.turned else set())
            assert not (seen & (set(match.hands[other]) - public)), (seat, other)
        assert not (seen & set(match.stock))
        if seat is not None:
            assert view["hand"] == match.hands[seat]
        for event in events_for(match.events[-12:], seat):
            if event["type"] == "cards":
                assert event["seat"] == seat


def run_random(match: MpourlotoMatch, rng: random.Random, *, checks: bool) -> None:
    while not match.is_over:
        (seat,) = match.to_act
        legal = match.legal_actions(seat)
        assert legal
        assert all(match.legal_actions(other) == [] for other in range(4) if other != seat)
        if checks:
            check_conservation(match)
        match.apply(seat, rng.choice(legal))


@settings(max_examples=2000, deadline=None)
@given(SEEDS, OPTIONS)
def test_random_matches_keep_the_rules_invariants(seed: int, options: dict[str, Any]) -> None:
    match = new_match(seed, options)
    run_random(match, random.Random(seed), checks=True)
    standings = match.standings
    assert standings["winner"] is not None and max(standings["scores"]) >= options["target"]
    assert standings["scores"] == [sum(r["added"][t] for r in match.hand_results) for t in (0, 1)]
    for result in match.hand_results:
        if result["trump_team"] is None:
            assert result["added"] == [0, 0]
            continue
        assert sum(result["card_points"]) == 152
        bonus = 90 if result["capo"] else 10
        assert sum(result["totals"]) == 152 + bonus + sum(result["meld_points"])
        assert sum(result["added"]) == sum(result["totals"])
    # Determinism: the same seed and actions give the same match.
    again = match.game.replay(match.seed, match.actions)
    assert again.events == match.events and again.standings == standings


def snapshot(match: MpourlotoMatch) -> str:
    """The whole state as text: every attribute (events, action log, hands, stock, scores...) and everything the
    API shows (hand results, standings, to_act, each seat's and a spectator's view and legal actions)."""
    seats = [0, 1, 2, 3, None]
    shown = (match.hand_results, match.standings, match.to_act, match.is_over, [match.view(s) for s in seats],
             [match.legal_actions(s) for s in range(4)])
    return repr(vars(match)) + repr(shown)


def illegal_tries(match: MpourlotoMatch, rng: random.Random) -> list[tuple[int, str]]:
    """Actions the rules refuse now: nonsense and actions of another phase, the player's move made by another
    seat, cards played out of turn, seats not at the table, and claims (Mpourloto has none)."""
    (seat,) = match.to_act
    legal = match.legal_actions(seat)
    tries = [(seat, "play " + rng.choice(DECK_32)), (seat, "meld AS KS"), (seat, "name X"), (seat, "bid"),
             (seat, ""), (seat, "exchange"), (seat, "done"), (seat, "claim"), (seat, "play 6S"),
             (4, legal[0]), (-1, legal[0])]
    for other in range(4):
        if other != seat:
            tries += [(other, legal[0]), (other, "claim")]
            if match.hands[other]:
                tries.append((other, "play " + rng.choice(match.hands[other])))
    return [(who, action) for who, action in tries if not (who == seat and action in legal)]



@settings(max_examples=150, deadline=None)
@given(SEEDS)
def test_no_view_shows_a_hidden_card_and_illegal_actions_change_nothing(seed: int) -> None:
    match = new_match(seed, {"target": 100 if seed % 2 else 300})  # to 100, most matches end within the steps
    rng = random.Random(seed)
    steps = 0
    while not match.is_over and steps < 160:
        steps += 1
        check_views(match)
        (seat,) = match.to_act
        if steps % 4 == 0:  # the whole state is large: compare it at every fourth step
            assert_all_refused(match, illegal_tries(match, rng), snapshot)
        match.apply(seat, rng.choice(match.legal_actions(seat)))
    if match.is_over:
        assert_all_refused(match, [(s, a) for s in range(4) for a in ("play AS", "pass", "claim")], snapshot)


@settings(max_examples=150, deadline=None)
@given(SEEDS, st.integers(min_value=0, max_value=40))
def test_a_determinized_match_with_the_true_cards_continues_the_hand_exactly(seed: int, steps: int) -> None:
    match = new_match(seed, {"partner_relief": seed % 2 == 0})
    rng = random.Random(seed)
    for _ in range(steps):
        (seat,) = match.to_act
        match.apply(seat, rng.choice(match.legal_actions(seat)))
    viewer = match.to_act[0]
    hidden = {"hands": {s: list(match.hands[s]) for s in range(4) if s != viewer}, "stock": list(match.stock),
              "seed": match.seed}
    twin = match.game.determinized_match(match.view(viewer), hidden)
    clone = match.clone()
    hands = len(match.hand_results)
    while len(match.hand_results) == hands:
        (seat,) = match.to_act
        assert twin.legal_actions(seat) == match.legal_actions(seat) == clone.legal_actions(seat)
        action = rng.choice(match.legal_actions(seat))
        assert twin.apply(seat, action) == match.apply(seat, action)
        clone.apply(seat, action)
    assert twin.hand_results[-1] == match.hand_results[-1] == clone.hand_results[-1]
    assert twin.standings == match.standings


def test_clone_is_independent() -> None:
    match = new_match(3, {})
    twin = match.clone()
    run_random(twin, random.Random(1), checks=False)
    assert match.actions == [] and match.hand_results == [] and twin.is_over


@settings(max_examples=10, deadline=None)
@given(SEEDS)
def test_every_event_narrates_in_both_languages_for_every_recipient(seed: int) -> None:
    match = new_match(seed, {"target": 100})
    run_random(match, random.Random(seed), checks=False)
    names = ["Anna", "Boris", "Clara", "Dmitri"]
    types = set()
    for seat in (0, 1, 2, 3, None):
        for event in events_for(match.events, seat):
            types.add(event["type"])
            for lang in ("en", "ru"):
                sentence = narrate("mpourloto", event, seat, lang, names)
                if sentence is not None:
                    assert sentence.strip() and "{" not in sentence and "mpourloto." not in sentence
    assert {"deal", "cards", "bid", "deal_complete", "meld_done", "play", "trick", "hand_end", "match_end"} <= types
