"""Scenario tests with prearranged decks for rulings B11 and B11a (/work/shared/rulings.md: scoring, the end of the
match, who deals next) and the match API."""

from __future__ import annotations

import pytest
from bura_helpers import bura_for, new, play_out_without_claims, win_by_bura

from trickroom import cards
from trickroom.games import IllegalAction

# --- B11, B11a ---------------------------------------------------------------------------------------------

def test_points_scoring_to_the_end_of_the_match() -> None:
    decks = [bura_for(1, dealer=0)] + [bura_for(1, dealer=1)] * 10
    match = new(2, decks, scoring="points")
    for hand in range(1, 12):
        assert not match.is_over
        win_by_bura(match, 1)
        assert match.scores == [0, hand]
    assert match.is_over and match.standings == {"kind": "seats", "unit": "points", "scores": [0, 11],
                                                 "active": [True, True], "pot": 0, "winner": 1, "order": [1, 0]}
    assert match.events[-1] == {"type": "match_end", "winner": 1, "order": [1, 0], "scores": [0, 11]}
    assert match.to_act == [] and match.legal_actions(0) == [] and match.legal_actions(1) == []
    with pytest.raises(IllegalAction, match="over"):
        match.apply(0, "claim")


def test_points_tie_at_the_top_at_or_above_the_target_plays_on() -> None:
    # Seat 2 claims falsely at once (2 points to each opponent) and deals the next hand; Buras settle the rest.
    decks = [list(cards.DECK_36)] * 4 + [bura_for(0, dealer=2, players=3), bura_for(1, dealer=0, players=3),
                                         list(cards.DECK_36), list(cards.DECK_36), bura_for(1, dealer=2, players=3)]
    match = new(3, decks, scoring="points")
    for _ in range(4):
        match.apply(2, "claim")
    win_by_bura(match, 0)
    win_by_bura(match, 1)
    assert match.scores == [9, 9, 0] and match.dealer == 1
    match.apply(2, "claim")
    assert match.scores == [11, 11, 0]  # both at the target, level: no winner yet
    assert not match.is_over and match.standings["winner"] is None and match.to_act == [0, 1, 2]
    match.apply(2, "claim")
    assert match.scores == [13, 13, 0]  # both above it, still level
    assert not match.is_over and not any(e["type"] == "match_end" for e in match.events)
    assert match.hand_number == 9 and match.dealer == 2
    win_by_bura(match, 1)  # one point ahead: the match ends
    assert match.is_over and match.scores == [13, 14, 0]
    assert match.standings["winner"] == 1 and match.standings["order"] == [1, 0, 2]
    assert match.events[-1] == {"type": "match_end", "winner": 1, "order": [1, 0, 2], "scores": [13, 14, 0]}


def test_points_target_21_plays_past_11_to_the_end() -> None:
    match = new(2, [bura_for(1, dealer=0)], scoring="points", target=21)
    win_by_bura(match, 1)
    for _ in range(5):
        match.apply(0, "claim")  # false: 2 points to seat 1 each time
    assert match.scores == [0, 11] and not match.is_over  # 11 would have won with the default target
    for _ in range(3):
        match.apply(1, "claim")
    for _ in range(4):
        match.apply(0, "claim")
    assert match.scores == [6, 19] and not match.is_over
    match.apply(0, "claim")
    assert match.is_over and match.scores == [6, 21] and match.hand_number == 14
    assert match.standings["winner"] == 1 and match.standings["order"] == [1, 0]
    assert match.events[-1] == {"type": "match_end", "winner": 1, "order": [1, 0], "scores": [6, 21]}


def test_points_hand_limit_ends_the_match_and_a_tie_at_the_limit_has_no_winner() -> None:
    match = new(3, [bura_for(1, dealer=0, players=3)], scoring="points", hand_limit=2)
    win_by_bura(match, 1)  # seat 1: 1 point; next dealer 1
    match.apply(2, "claim")  # false: seats 0 and 1 get 2 each
    assert match.is_over and match.scores == [2, 3, 0] and match.standings["winner"] == 1
    tie = new(2, [list(cards.DECK_36)], scoring="points", hand_limit=1)
    play_out_without_claims(tie)
    assert tie.is_over and tie.standings["winner"] is None and tie.scores == [0, 0]


def test_pot_scoring_to_the_end_players_without_chips_leave() -> None:
    decks = [bura_for(1, dealer=0)] + [bura_for(1, dealer=1)] * 3
    match = new(2, decks, stack=3)
    after = []
    for _ in range(3):
        win_by_bura(match, 1)
        after.append(match.hand_results[-1]["pot"])
    assert after == [2, 2, 2]  # each hand's pot: two antes, taken by the Bura
    # Seat 0 could not ante for the fourth hand: it left, and seat 1 won the match.
    assert match.is_over and match.standings["winner"] == 1
    assert match.standings["active"] == [False, True] and match.scores == [0, 6] and match.pot == 0
    assert [e["type"] for e in match.events[-2:]] == ["leave", "match_end"]


def test_false_claimant_who_cannot_pay_leaves_and_the_next_on_the_left_deals() -> None:
    match = new(3, [list(cards.DECK_36)], stack=2)
    assert match.pot == 3 and match.scores == [1, 1, 1]
    events = match.apply(1, "claim")  # owes the pot's 3 chips, has 1
    assert {"type": "leave", "seat": 1} in events
    assert match.active == [True, False, True] and match.dealer == 2 and match.pot == 4 + 2
    assert match.scores == [0, 0, 0] and match.view(None)["hand_sizes"] == [3, 0, 3]
    assert match.to_act == [0, 2] and match.legal_actions(1) == []


@pytest.mark.parametrize(("ending", "pot"), [("false-claim", 4), ("no-claim", 2)])
def test_a_pot_left_when_the_match_ends_is_not_awarded(ending: str, pot: int) -> None:
    match = new(2, [bura_for(1, dealer=0), list(cards.DECK_36)], hand_limit=2)
    win_by_bura(match, 1)  # pot 2 to seat 1; both ante for hand 2, dealt by seat 1
    assert match.scores == [18, 20] and match.pot == 2
    if ending == "false-claim":
        match.apply(0, "claim")  # seat 0 pays the pot's 2: the pot doubles and would carry over
    else:
        play_out_without_claims(match)  # no one wins: the pot would carry over with new antes
    assert match.hand_results[-1]["reason"] == ending and match.hand_results[-1]["winner"] is None
    # The hand limit ends the match: the pot goes to no one, no one antes again, chips rank the players.
    scores = [16, 20] if ending == "false-claim" else [18, 20]
    assert match.is_over and match.scores == scores and match.pot == pot and match.hand_number == 2
    assert sum(match.scores) + match.pot == 40
    assert match.standings == {"kind": "seats", "unit": "chips", "scores": scores, "active": [True, True],
                               "pot": pot, "winner": 1, "order": [1, 0]}
    assert match.events[-1] == {"type": "match_end", "winner": 1, "order": [1, 0], "scores": scores}
    assert [e["type"] for e in match.events[-2:]] == ["hand_end", "match_end"]  # no ante, no deal after it


def test_a_pot_left_by_players_leaving_is_not_awarded_to_the_last_one() -> None:
    # Three players with 2 chips each; seat 1 claims falsely with 1 chip, owes the pot's 3 and leaves. The pot
    # (4, then 6 with the next antes) stays on the table when seat 2, with no chips left, claims falsely and
    # leaves too: seat 0, the last one in, wins the match but not the pot.
    match = new(3, [list(cards.DECK_36)], stack=2)
    match.apply(1, "claim")
    assert match.pot == 6 and match.scores == [0, 0, 0] and match.active == [True, False, True]
    match.apply(2, "claim")  # owes 6, has 0: leaves; one player is left
    assert match.is_over and match.scores == [0, 0, 0] and match.pot == 6
    assert match.standings["winner"] == 0 and match.standings["active"] == [True, False, False]
    assert match.standings["order"] == [0, 2, 1]  # level on chips: the one still in, then who left later


def test_hand_limit_in_pot_mode_ranks_by_chips() -> None:
    match = new(2, [bura_for(1, dealer=0)], hand_limit=1)
    win_by_bura(match, 1)
    assert match.is_over and match.standings["winner"] == 1 and match.standings["order"] == [1, 0]
    assert match.scores == [19, 21] and match.hand_number == 1



# --- the match API -----------------------------------------------------------------------------------------

def test_hand_results_are_copies_that_a_caller_cannot_use_to_change_the_match() -> None:
    match = new(2, [bura_for(1, dealer=0)])
    win_by_bura(match, 1)
    results = match.hand_results
    results[0]["points"][0] = 99
    results[0]["winner"] = 0
    results.append({"winner": 0})
    assert match.hand_results == [{"winner": 1, "reason": "bura", "claimant": None, "points": [0, 0], "hand": 1,
                                   "dealer": 0, "pot": 2}]
    assert match.scores == [18, 20]


def test_view_of_a_seat_that_is_not_at_the_table_is_a_spectators_view() -> None:
    # As in Mpourloto: no error, and nothing private (no hand, no legal actions).
    match = new(3, [list(cards.DECK_36)])
    assert match.view(3) == match.view(-1) == match.view(None)
    assert match.view(3)["hand"] is None and match.view(3)["legal"] == []
