"""The arena: duplicate seating, scoring of hands, intervals, and the command end to end on a tiny run."""

from __future__ import annotations

import argparse

import pytest

from trickroom.bots import arena
from trickroom.bots.stats import percentile, ratio_difference, ratio_share
from trickroom.games import load_game


def printed(capsys: pytest.CaptureFixture[str], command: str) -> str:
    """What ``trickroom arena`` prints for ``command``'s arguments, on one worker (it must succeed)."""
    parser = argparse.ArgumentParser()
    arena.add_arguments(parser)
    assert arena.run(parser.parse_args([*command.split(), "--workers", "1", "--quiet"])) == 0
    return capsys.readouterr().out


def test_duplicate_seating_gives_every_bot_every_seat() -> None:
    assert [arena.seating("bura", 3, 3, r) for r in range(3)] == [[0, 1, 2], [2, 0, 1], [1, 2, 0]]
    assert [arena.seating("mpourloto", 4, 2, r) for r in range(2)] == [[0, 1, 0, 1], [1, 0, 1, 0]]
    assert arena.rotations("bura", 5) == 5 and arena.rotations("mpourloto", 4) == 2


def test_ratio_share_and_its_interval() -> None:
    share = ratio_share([1, 2, 1, 2], [2, 2, 2, 2])
    assert share.value == pytest.approx(0.75)
    # residuals 1-1.5, 2-1.5, ...: sum of squares 1.0; se = sqrt(1 / 12) / 2
    assert share.high == 1.0  # clipped
    assert share.value - share.low == pytest.approx(1.959964 * (1 / 12) ** 0.5 / 2)
    assert ratio_share([], []).samples == 0
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == pytest.approx(2.5)
    assert percentile([5.0], 0.95) == 5.0


def test_a_deck_is_played_once_per_rotation_and_scored() -> None:
    specs = arena.parse_seats("normal,random,easy")
    result = arena.play_deck("bura", {"players": 3}, specs, seed=3, deck_index=0)
    assert result.errors == []
    assert result.denominator == 3  # three hands: one per rotation
    assert sum(r.score for r in result.roles) + result.no_winner == 3

    teams = arena.parse_seats("normal,random")
    result = arena.play_deck("mpourloto", {}, teams, seed=3, deck_index=0)
    assert result.errors == []
    assert sum(r.score for r in result.roles) == result.denominator


def test_mpourloto_hands_are_tallied_by_the_team_that_made_trumps() -> None:
    game = load_game("mpourloto")
    roles = [arena.RoleTally(), arena.RoleTally()]
    result = arena.DeckResult(0, 0.0, roles)
    role_at = arena.seating("mpourloto", 4, 2, 1)  # the second rotation: role 1 holds seats 0 and 2
    arena._score_hand(game, {"maker": 2, "mesa": False, "added": [120, 40]}, roles, role_at, result)
    arena._score_hand(game, {"maker": 3, "mesa": True, "added": [170, 0]}, roles, role_at, result)
    arena._score_hand(game, {"maker": 1, "mesa": False, "added": [60, 100]}, roles, role_at, result)
    arena._score_hand(game, {"maker": None, "added": [0, 0]}, roles, role_at, result)  # everyone passed
    assert (roles[1].made, roles[1].mesas, roles[1].made_points, roles[1].made_total) == (1, 0, 120, 160)
    assert (roles[0].made, roles[0].mesas, roles[0].made_points, roles[0].made_total) == (2, 1, 100, 330)
    assert roles[1].score == 350 and roles[0].score == 140 and result.denominator == 490
    assert result.no_winner == 1
    summary = arena.summarize("mpourloto", arena.parse_seats("normal,random"), [result])
    assert summary["bots"][0]["made_share"] == pytest.approx(100 / 330) and summary["bots"][1]["mesas"] == 0


def test_the_command_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    out = printed(capsys, "--game bura --players 2 --seats normal,random --hands 8 --seed 2")
    assert "4 duplicate decks, 8 hands" in out
    assert out.count("% [") == 2 and "normal" in out and "random" in out
    assert "hands nobody won" in out and "made trumps" not in out


def test_for_mpourloto_the_command_prints_each_teams_contracts(capsys: pytest.CaptureFixture[str]) -> None:
    out = printed(capsys, "--game mpourloto --seats normal,random --hands 8 --seed 2")
    made = [line for line in out.splitlines() if " made trumps in " in line]
    assert [line.split()[0] for line in made] == ["normal", "random"]
    thrown = int(out.split("hands thrown in (everyone passed): ")[1].split()[0])
    assert sum(int(line.split(" made trumps in ")[1].split()[0]) for line in made) + thrown == 8


def test_seat_specs_take_budgets() -> None:
    specs = arena.parse_seats("hard:0.25,normal")
    assert specs[0].level == "hard" and specs[0].budget == 0.25 and specs[1].budget is None
    assert specs[0].label == "hard:0.25"


def test_the_lead_of_one_bot_over_another_is_paired_by_deck() -> None:
    # Deck by deck the first bot wins 2, 1, 2, 1 of 3 hands and the second 1, 1, 0, 0: a lead of 4 / 12.
    lead = ratio_difference([2, 1, 2, 1], [1, 1, 0, 0], [3, 3, 3, 3])
    assert lead.value == pytest.approx(4 / 12)
    # residuals (1, 0, 2, 1) - 1 = (0, -1, 1, 0): sum of squares 2; se = sqrt(2 / 12) / 3
    assert lead.value - lead.low == pytest.approx(1.959964 * (2 / 12) ** 0.5 / 3)
    assert lead.high - lead.value == pytest.approx(lead.value - lead.low)
    behind = ratio_difference([0, 0], [3, 3], [3, 3])
    assert behind.value == -1.0 and behind.low == -1.0  # not clipped at 0, and exact when every deck agrees
    with pytest.raises(ValueError):
        ratio_difference([1], [1, 2], [3, 3])


def test_with_three_bots_the_command_prints_the_first_ones_leads(capsys: pytest.CaptureFixture[str]) -> None:
    out = printed(capsys, "--game bura --seats normal,random,easy --hands 6 --seed 2")
    assert "normal leads random (bot 2) by " in out and "normal leads easy (bot 3) by " in out
    assert out.count("paired by deck") == 2
