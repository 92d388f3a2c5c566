"""Property tests over random Bura matches with 2-6 players: invariants checked at every step."""

from __future__ import annotations

import json
import random
from typing import Any

from engine_helpers import assert_all_refused
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trickroom import cards
from trickroom.games import events_for, load_game
from trickroom.games.bura import BuraMatch
from trickroom.games.bura.tables import CLAIM, CODES, POINTS

CODE_SET = set(cards.DECK_36)
ILLEGAL_TRIES = ["play", "play XX", "dance", "announce bura", "announce", "pass now", "play AS AS", "claim 31",
                 "play 6S 7S 8S 9S"]

matches = st.fixed_dictionaries({
    "players": st.integers(2, 6),
    "preset": st.sampled_from(["classic", "moscow"]),
    "scoring": st.sampled_from(["pot", "points"]),
    "stack": st.integers(1, 4),
    "hand_limit": st.integers(0, 4),
    "show_points": st.booleans(),
})


def new_match(options: dict[str, Any], seed: int) -> BuraMatch:
    match = load_game("bura", **options).new_match(seed=seed)
    assert isinstance(match, BuraMatch)
    return match


def random_action(match: BuraMatch, rng: random.Random, claim_rate: float) -> tuple[int, str]:
    if rng.random() < claim_rate:
        claimants = [s for s in range(match.n) if "claim" in match.legal_actions(s)]
        return rng.choice(claimants), "claim"
    seat = rng.choice(match.to_act)
    choices = [a for a in match.legal_actions(seat) if a != "claim"]
    return seat, rng.choice(choices)


def hidden_cards(match: BuraMatch, seat: int | None) -> set[str]:
    """Codes ``seat`` must not see: other hands and the undrawn stock, the face-up trump card aside."""
    hidden = {CODES[c] for s in range(match.n) if s != seat for c in match.hands[s]}
    hidden |= {CODES[c] for c in match.stock[match.stock_pos:]}
    return hidden - {CODES[match.trump_card]}  # face up, then drawn in public


def strings_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings_in(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(strings_in(v) for v in value)) if value else set()
    return set()


def check_invariants(match: BuraMatch) -> None:
    if match.is_over:
        return  # the last hand's cards are left where the hand ended
    places = [c for s in range(match.n) for c in match.hands[s]]
    places += match.stock[match.stock_pos:]
    places += [c for _, play in match.trick for c in play]  # the trick in progress
    places += [c for won in match.won_cards for c in won]
    assert sorted(places) == list(range(36)), "every card is in exactly one place"
    for seat in range(match.n):
        assert match.won_points[seat] == sum(POINTS[c] for c in match.won_cards[seat])
    in_hand = [s for s in range(match.n) if match.in_hand[s]]
    played = {seat for seat, _ in match.trick}
    sizes = {len(match.hands[s]) for s in in_hand if s not in played}
    assert len(sizes) == 1, "hands stay equal in size"
    if match.phase == "announce":
        assert sizes == {3}


VISIBLE_CARD_EVENTS = ("answer", "draw", "play", "trick")


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=matches, seed=st.integers(0, 2**32), claim_rate=st.sampled_from([0.0, 0.01, 0.05]))
def test_random_matches_keep_every_invariant(options: dict[str, Any], seed: int, claim_rate: float) -> None:
    match = new_match(options, seed)
    rng = random.Random(seed)
    for _ in range(400):
        if match.is_over:
            break
        check_invariants(match)
        seat, action = random_action(match, rng, claim_rate)
        before = len(match.events)
        unused = sum(POINTS[c] for c in match.stock[match.stock_pos:])
        events = match.apply(seat, action)
        assert match.events[before:] == events
        for event in events:
            if event["type"] == "hand_end" and event["reason"] == "no-claim":
                assert sum(event["points"]) == 120 - unused  # every card played (5 players: but the trump card)
        json.dumps(events)
        if any(e["type"] == "deal" for e in events):
            continue  # cards of the finished hand are in the new deal's hands: compare within one hand only
        for viewer in [*range(match.n), None]:
            seen = strings_in(events_for([e for e in events if e["type"] in VISIBLE_CARD_EVENTS], viewer))
            assert not (seen & hidden_cards(match, viewer)), (viewer, events)
    check_invariants(match)
    # Hand results: points sum to the cards taken, reasons from the fixed list.
    for result in match.hand_results:
        assert set(result) >= {"winner", "reason", "claimant", "points"}
        assert result["reason"] in ("claim", "false-claim", "bura", "moscow", "no-claim", "redeal")
        assert sum(result["points"]) <= 120


def snapshot(match: BuraMatch) -> str:
    """The whole state as text: every attribute (events, action log, hands, stock, scores...) and everything the
    API shows (hand results, standings, to_act, each seat's and a spectator's view and legal actions)."""
    seats = [*range(match.n), None]
    shown = (match.hand_results, match.standings, match.to_act, match.is_over, [match.view(s) for s in seats],
             [match.legal_actions(s) for s in seats])
    return repr(vars(match)) + repr(shown)


def illegal_tries(match: BuraMatch, rng: random.Random) -> list[tuple[int, str]]:
    """Actions the rules refuse now: nonsense, other seats' moves, plays out of turn (or during announcements),
    answers by seats that have answered, claims by seats out of the hand or not at the table, claims with words."""
    n = match.n
    legal = [match.legal_actions(s) for s in range(n)]
    tries = [(-1, "claim"), (n, "claim"), (n, "pass"), (rng.randrange(n), "claim 31")]
    for seat in range(n):
        tries.append((seat, rng.choice(ILLEGAL_TRIES)))
        tries += [(seat, a) for a in legal[(seat + 1) % n] if a not in legal[seat]][:2]
        if match.hands[seat] and (match.phase == "announce" or seat != match.turn):
            tries.append((seat, "play " + CODES[rng.choice(match.hands[seat])]))
        if CLAIM not in legal[seat]:
            tries.append((seat, CLAIM))  # a seat that left the match, or is out of this hand
        if match.phase == "announce" and seat not in match.to_act:
            tries.append((seat, "pass"))
    return [(seat, a) for seat, a in tries if not (0 <= seat < n and a in legal[seat])]



@settings(max_examples=250, deadline=None)
@given(options=matches, seed=st.integers(0, 2**32))
def test_views_never_hold_hidden_cards_and_illegal_actions_change_nothing(options: dict[str, Any],
                                                                          seed: int) -> None:
    match = new_match(options, seed)
    rng = random.Random(seed)
    for step in range(150):
        if match.is_over:
            break
        views = [match.view(s) for s in [*range(match.n), None]]
        for viewer, view in zip([*range(match.n), None], views, strict=True):
            assert json.loads(json.dumps(view)) == view
            assert not (strings_in(view) & CODE_SET & hidden_cards(match, viewer)), viewer
            if not options["show_points"]:
                assert "my_points" not in view
        if step % 3 == 0:  # the whole state is large: compare it at every third step
            assert_all_refused(match, illegal_tries(match, rng), snapshot)
        seat, action = random_action(match, rng, 0.02)
        match.apply(seat, action)
    if match.is_over:
        assert_all_refused(match, [(s, a) for s in range(match.n) for a in (CLAIM, "pass", "play 6S")], snapshot)


@settings(max_examples=200, deadline=None)
@given(options=matches, seed=st.integers(0, 2**32))
def test_same_seed_and_actions_give_the_same_match_and_clones_are_independent(options: dict[str, Any],
                                                                              seed: int) -> None:
    match = new_match(options, seed)
    rng = random.Random(seed)
    for _ in range(200):
        if match.is_over:
            break
        if rng.random() < 0.05:
            twin = match.clone()
            before = [match.view(s) for s in range(match.n)], len(match.events), list(match.actions)
            seat, action = random_action(twin, rng, 0.1)
            twin.apply(seat, action)
            assert ([match.view(s) for s in range(match.n)], len(match.events), list(match.actions)) == before
        match.apply(*random_action(match, rng, 0.01))
    again = load_game("bura", **options).replay(match.seed, match.actions)
    assert again.events == match.events
    assert [again.view(s) for s in range(match.n)] == [match.view(s) for s in range(match.n)]
    assert again.hand_results == match.hand_results and again.standings == match.standings


@settings(max_examples=400, deadline=None)
@given(options=matches, seed=st.integers(0, 2**32))
def test_determinized_match_continues_the_hand_like_the_real_one(options: dict[str, Any], seed: int) -> None:
    game = load_game("bura", **options)
    match = new_match(options, seed)
    rng = random.Random(seed)
    for _ in range(rng.randrange(1, 60)):
        if match.is_over:
            return
        match.apply(*random_action(match, rng, 0.0))
    if match.is_over:
        return
    seat = match.to_act[0]
    hidden = {
        "hands": {str(s): [CODES[c] for c in match.hands[s]] for s in range(match.n) if s != seat},
        "stock": [CODES[c] for c in match.stock[match.stock_pos:]],
        "points": match.won_points[:],
        "won": {s: [CODES[c] for c in match.won_cards[s]] for s in range(match.n)},
        "answers": {s: a for s, a in match.answers.items() if s != seat},
    }
    copy = game.determinized_match(match.view(seat), hidden)
    hand = match.hand_number
    for _ in range(80):
        if match.is_over or match.hand_number != hand:
            break
        assert copy.to_act == match.to_act
        assert [copy.legal_actions(s) for s in range(match.n)] == [match.legal_actions(s) for s in range(match.n)]
        seat, action = random_action(match, rng, 0.02)
        real = match.apply(seat, action)
        mirrored = copy.apply(seat, action)
        end = next((i for i, e in enumerate(real) if e["type"] == "hand_end"), None)
        if end is not None:
            assert mirrored[:end + 1] == real[:end + 1]
            break
        assert mirrored == real
        assert copy.view(seat) == match.view(seat)
