"""Every bot level only ever makes legal moves, in both games, at every table size, with a tiny search budget."""

from __future__ import annotations

import pytest

from trickroom.bots import make_bot, off_turn_action
from trickroom.bots.hard import HardBot
from trickroom.games import IllegalAction, events_for, load_game

LEVELS = ("random", "easy", "normal", "hard")


def play_hands(game_name: str, options: dict[str, object], levels: list[str], hands: int, seed: int) -> int:
    """Play ``hands`` hands of a match with these bots; return the number of actions checked."""
    game = load_game(game_name, **options)
    match = game.new_match(seed=seed)
    bots = [HardBot(seed=seed + s, budget=10.0, max_worlds=2) if level == "hard" else make_bot(level, seed=seed + s)
            for s, level in enumerate(levels)]
    checked = 0
    while len(match.hand_results) < hands and not match.is_over:
        acted = False
        for seat, bot in enumerate(bots):
            if match.to_act and seat == match.to_act[0]:
                continue
            legal = match.legal_actions(seat)
            if not legal:
                continue
            action = off_turn_action(bot, game, seat, match.view(seat), events_for(match.events, seat), legal)
            if action is not None:
                assert action in legal, f"{bot.level} at seat {seat} chose {action!r} off turn; legal: {legal}"
                match.apply(seat, action)
                checked += 1
                acted = True
                break
        if acted:
            continue
        seat = match.to_act[0]
        legal = match.legal_actions(seat)
        action = bots[seat].choose(game, seat, match.view(seat), events_for(match.events, seat), legal)
        assert action in legal, f"{bots[seat].level} at seat {seat} chose {action!r}; legal: {legal}"
        match.apply(seat, action)
        checked += 1
    return checked


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_bura_bots_play_only_legal_moves(players: int) -> None:
    checked = 0
    for round_number in range(8):
        levels = [LEVELS[(s + round_number) % len(LEVELS)] for s in range(players)]
        checked += play_hands("bura", {"players": players}, levels, hands=16, seed=100 * players + round_number)
    assert checked > 1000


@pytest.mark.parametrize("preset", ["classic", "moscow"])
def test_bura_bots_legal_in_both_presets_and_scorings(preset: str) -> None:
    for scoring in ("pot", "points"):
        checked = play_hands("bura", {"players": 3, "preset": preset, "scoring": scoring},
                             ["hard", "normal", "easy"], hands=4, seed=7)
        assert checked > 20


@pytest.mark.parametrize("relief", [False, True])
def test_mpourloto_bots_play_only_legal_moves(relief: bool) -> None:
    checked = 0
    for round_number in range(8):
        levels = [LEVELS[(s + round_number) % len(LEVELS)] for s in range(4)]
        checked += play_hands("mpourloto", {"partner_relief": relief}, levels, hands=12, seed=50 + round_number)
    assert checked > 2000  # 96 hands; hands that every seat passed are short (about 2500 actions in all)


def test_an_illegal_action_is_refused_by_the_engine() -> None:
    """The test above relies on ``in legal``; make sure a wrong string would really be illegal."""
    match = load_game("bura", players=2).new_match(seed=1)
    with pytest.raises(IllegalAction):
        match.apply(match.to_act[0], "play XX")
