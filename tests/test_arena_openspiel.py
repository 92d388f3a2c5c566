"""The arena with OpenSpiel's ISMCTS at the table: Mpourloto by teams, Bura with 3 to 6 players, and the
``moscow`` preset, each on a tiny duplicate run whose seats, rules and moves are checked."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install 'trickroom[openspiel]')")
openspiel = pytest.importorskip("trickroom.integrations.openspiel")

from trickroom.bots import HARD_BUDGET, Bot, arena  # noqa: E402
from trickroom.games import Game, load_game  # noqa: E402


def recorded_bots(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Bot, dict[str, Any]]]:
    """Every bot the arena seats, in the order seated (seat 0 first in each rotation), with its level as asked
    and the options of the game it was seated at."""
    seated: list[tuple[str, Bot, dict[str, Any]]] = []
    real = arena.make_seat_bot

    def recording(spec: arena.SeatSpec, game: Game, seed: int) -> Bot:
        bot = real(spec, game, seed)
        seated.append((spec.level, bot, dict(game.options)))
        return bot

    monkeypatch.setattr(arena, "make_seat_bot", recording)
    return seated


@pytest.mark.parametrize(("game_name", "options", "seats"), [
    ("mpourloto", {}, "hard:0.02,ismcts:0.02"),
    ("bura", {"players": 3}, "hard:0.02,ismcts:0.02,normal"),
    ("bura", {"players": 6}, "ismcts:0.01,normal,hard:0.01,easy,normal,ismcts:0.01"),
    ("bura", {"players": 2, "preset": "moscow"}, "hard:0.02,ismcts:0.02"),
])
def test_ismcts_is_seated_where_asked_and_plays_legal_moves(monkeypatch: pytest.MonkeyPatch, game_name: str,
                                                          options: dict[str, Any], seats: str) -> None:
    seated = recorded_bots(monkeypatch)
    specs = arena.parse_seats(seats)
    game = load_game(game_name, **options)
    per_deck = arena.rotations(game_name, game.players)
    decks = 2 if game.players <= 3 else 1
    results = arena.run_decks(game_name, game.options, specs, seed=5, decks=decks, workers=1, show_progress=False)

    # Every hand finished (an illegal move or a broken hand would be an error), each counted once.
    assert [r.errors for r in results] == [[]] * decks
    assert all(role.illegal == 0 for r in results for role in r.roles)
    if game.teams:
        assert all(sum(role.score for role in r.roles) == r.denominator for r in results)
    else:
        assert all(r.denominator == per_deck for r in results)
        assert all(sum(role.score for role in r.roles) + r.no_winner == per_deck for r in results)
        # ISMCTS, normal and hard claim by exact counting: never falsely. (The easy level loses count in about
        # one hand in eight and may claim too early, on purpose: docs/bots.md. Whether it does in this deck
        # depends on the searching bots' timing, so a test that counted it failed now and then.)
        assert all(role.false_claims == 0 for r in results for role, spec in zip(r.roles, specs, strict=True)
                   if spec.level != "easy")
    # Each bot made decisions, and the searching ones had real choices to think over.
    for role, spec in enumerate(specs):
        assert all(r.roles[role].times or r.roles[role].quick for r in results)
        if spec.level in ("hard", "ismcts"):
            assert sum(len(r.roles[role].times) for r in results) > 0

    # The seats are as asked: in each rotation, seat s holds the bot that seating() puts there, at the table's
    # rules; an ISMCTS seat searches a game with the same options (the preset above all).
    assert len(seated) == decks * per_deck * game.players
    for index, (level, bot, seated_options) in enumerate(seated):
        rotation, seat = divmod(index % (per_deck * game.players), game.players)
        assert level == specs[arena.seating(game_name, game.players, len(specs), rotation)[seat]].level
        assert bot.level == level and seated_options == game.options
        if level == "ismcts":
            assert isinstance(bot, openspiel.ISMCTSSeatBot)
            assert bot.spiel_game.trickroom_game.options == game.options


def test_ismcts_gets_the_hard_levels_budget_unless_told() -> None:
    game = load_game("bura", players=4)
    default = arena.make_seat_bot(arena.SeatSpec("ismcts", None), game, seed=1)
    told = arena.make_seat_bot(arena.SeatSpec("ismcts", 0.25), game, seed=1)
    assert isinstance(default, openspiel.ISMCTSSeatBot) and default.budget == HARD_BUDGET
    assert isinstance(told, openspiel.ISMCTSSeatBot) and told.budget == 0.25
    assert default.spiel_game.num_players() == 4


def test_the_command_plays_moscow_against_ismcts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    arena.add_arguments(parser)
    out_file = tmp_path / "moscow.json"
    args = parser.parse_args(["--game", "bura", "--seats", "hard:0.02,ismcts:0.02", "--option", "preset=moscow",
                              "--hands", "4", "--seed", "3", "--workers", "1", "--quiet", "--json", str(out_file)])
    assert arena.run(args) == 0
    out = capsys.readouterr().out
    assert "2 duplicate decks, 4 hands" in out and "ismcts:0.02" in out
    figures = json.loads(out_file.read_text())
    assert [b["bot"] for b in figures["bots"]] == ["hard:0.02", "ismcts:0.02"]
    assert figures["hands"] == 4 and figures["errors"] == []
    assert all(b["illegal"] == 0 and b["false_claims"] == 0 for b in figures["bots"])
