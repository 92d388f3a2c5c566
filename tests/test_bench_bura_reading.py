"""bench/bura_reading.py: the decisions it logs, the model it fits to them, and the reading built on that model."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from bench_helpers import load_bench

import trickroom.bots.bura as bura_bots
from trickroom.bots import arena
from trickroom.bots.bura import rollout
from trickroom.bots.bura.inference import read_moves
from trickroom.bots.bura.memory import remember, sample_hidden
from trickroom.games import events_for, load_game


@pytest.fixture
def reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The bench module, loaded for the test and writing under ``tmp_path``; what it patches is put back."""
    module = load_bench("bura_reading.py", monkeypatch, (bura_bots, "read_moves"), (rollout.Playout, "choose"),
                        (arena, "play_one_hand"), (arena, "make_seat_bot"))
    module.out_dir = tmp_path
    return module


def _play_normal_hands(reading: ModuleType, seeds: range) -> list[tuple[Any, int, dict[str, Any], list[Any]]]:
    """Two normal bots play a hand per seed, their decisions logged by the bench; seat 0's play positions."""
    game = load_game("bura", players=2)
    bots = [reading.logging_seat(arena.SeatSpec("normal", None), game, seat) for seat in (0, 1)]
    positions = []
    for seed in seeds:
        match = game.new_match(seed=seed)
        while not match.hand_results:
            seat = match.to_act[0]
            view, events = match.view(seat), events_for(match.events, seat)
            if seat == 0 and view["phase"] == "play":
                positions.append((match.clone(), seat, view, events))
            match.apply(seat, bots[seat].choose(game, seat, view, events, match.legal_actions(seat)))
    return positions


def test_a_model_fitted_to_the_normal_levels_plays_finds_its_heuristic(reading: ModuleType,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("scipy")
    _play_normal_hands(reading, range(40))
    records = reading.load_decisions("normal")
    assert len(records) > 200
    assert all(sorted(r["chosen"]) in [sorted(p) for p in r["plays"]] for r in records)
    reading.fit("normal")
    weights = json.loads((reading.out_dir / "normal.json").read_text())["weights"]
    # The normal level plays the heuristic's best-scored play: the model learns to follow the score.
    assert weights[0] + weights[1] > 1.0 and weights[1] > 0
    lines = capsys.readouterr().out.splitlines()
    uniform = float(next(line for line in lines if "every legal play alike" in line).split()[-1])
    model = float(next(line for line in lines if "the fitted model" in line).split()[3])
    assert model > uniform + 0.3  # the held-out choices are far likelier under the model


def test_a_reading_on_a_sharp_model_of_the_heuristic_explains_normal_players_and_tells_worlds_apart(
        reading: ModuleType) -> None:
    reading.weights = [20.0] + [0.0] * (len(reading.FEATURES) - 1)  # nearly always the heuristic's choice
    rng = random.Random(3)
    positions = _play_normal_hands(reading, range(12))
    real_weights, told_apart, agreed = [], 0, 0
    for match, seat, view, events in positions:
        base = read_moves(view, events)
        fitted = reading.fitted(base)
        real = {1 - seat: match.view(1 - seat)["hand"]}
        real_weights.append(fitted.weight(real))
        sampled = sample_hidden(remember(view, events), rng)
        assert sampled is not None
        weight = fitted.weight(sampled["hands"])
        told_apart += weight < 1e-6  # far below what MISMATCH gives a few unexplained plays (0.15 ** 3)
        agreed += (weight < 1e-6) == (base.weight(sampled["hands"]) < 1.0)
    assert sum(real_weights) / len(real_weights) > 0.95, real_weights
    assert told_apart > 0
    assert agreed >= 0.9 * len(positions)  # the level's reading and this one mostly agree on a world
