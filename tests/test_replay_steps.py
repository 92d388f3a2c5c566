"""Replays without a server (narration/replay.py): a Bura and a Mpourloto match told step by step with the table's
own sentences, every seat's cards, hands and tricks counted from the events, the same standings as the match, one
hand at a time as well as whole; the transcript; a finished game in one sentence."""

from __future__ import annotations

import random
from typing import Any

import pytest

from trickroom.games import HAND_OVER, Match, events_for, load_game
from trickroom.narration import narrate, narrate_step
from trickroom.narration.replay import History, game_line, replay, transcript

NAMES = ("Anna", None, "Vera", None)


def played_match(game_name: str, seed: int, **options: Any) -> Match:
    game = load_game(game_name, **options)
    match = game.new_match(seed=seed)
    rng = random.Random(seed)
    while not match.is_over:
        seat = match.to_act[0]
        legal = [a for a in match.legal_actions(seat) if a != "claim"] or match.legal_actions(seat)
        match.apply(seat, rng.choice(legal))
    return match


def history_of(match: Match, names: tuple[str | None, ...]) -> History:
    return History(match.game.name, dict(match.game.options), match.seed, tuple(match.actions),
                   names[:match.game.players], name="Anna's table")


MATCHES = [("bura", 7, {"players": 3, "scoring": "points", "hand_limit": 3}), ("mpourloto", 4, {"target": 300})]


@pytest.mark.parametrize(("game_name", "seed", "options"), MATCHES)
def test_a_match_replays_step_by_step_to_its_standings(game_name: str, seed: int, options: dict[str, Any]) -> None:
    match = played_match(game_name, seed, **options)
    told = replay(history_of(match, NAMES), 0, "en")
    assert told.standings == match.standings and told.total == len(told.steps)
    # Every action once, in order; the other steps are the start and the deals that follow a hand's end.
    assert [(s.seat, s.action) for s in told.steps if s.action is not None] == match.actions
    assert told.steps[0].action is None and told.steps[0].index == 0
    # The sentences are the table's: each step's events as seat 0 saw them, narrated with the seat's names and
    # merged as the table merges them (narrate_step: a Bura trick's end is one sentence).
    names = ["Anna", "Bot 2", "Vera", "Bot 4"][:match.game.players]
    again = match.game.new_match(seed=match.seed)
    batches = [list(again.events)] + [again.apply(seat, action) for seat, action in match.actions]
    expected = []
    for batch in batches:
        seen = events_for(batch, 0)
        merged = narrate_step(game_name, seen, 0, "en", names)
        said = merged if merged is not None else [narrate(game_name, event, 0, "en", names) for event in seen]
        expected += [text for text in said if text]
    assert [text for step in told.steps for text in step.texts] == expected
    # Hands and tricks, from the games' events.
    ends = sum(1 for e in match.events if e["type"] in HAND_OVER)
    assert len(told.hands) == ends and [h.number for h in told.hands] == list(range(1, ends + 1))
    assert sum(len(h.tricks) for h in told.hands) == sum(1 for e in match.events if e["type"] == "trick")
    for outline in told.hands:
        steps = told.steps[outline.first:outline.last + 1]
        assert {s.hand for s in steps} == {outline.number} and steps[-1].ends_hand
        assert [s.index for s in steps if s.ends_trick] == list(outline.tricks)
        if outline.number > 1:
            assert steps[0].action is None and steps[0].texts[0].startswith("Hand ")  # the new deal, on its own
        tricks = [s.trick for s in steps if s.ends_trick]
        assert tricks == list(range(1, len(tricks) + 1))


@pytest.mark.parametrize(("game_name", "seed", "options"), MATCHES)
def test_every_seat_s_cards_are_shown_at_every_step(game_name: str, seed: int, options: dict[str, Any]) -> None:
    match = played_match(game_name, seed, **options)
    told = replay(history_of(match, NAMES), None, "en")
    again = match.game.new_match(seed=match.seed)
    by_move = {}
    for acting, action in [(None, None), *match.actions]:
        if acting is not None and action is not None:
            again.apply(acting, action)
        by_move[len(again.actions)] = [again.view(s)["hand"] for s in range(match.game.players)]
    for step in told.steps:
        if not step.ends_hand:
            assert [list(h) for h in step.hands] == by_move[step.move], step.index
    # A stranger hears the spectator's sentences: no one's dealt cards.
    assert not any(text.startswith("Your cards") for step in told.steps for text in step.texts)


def test_one_hand_at_a_time_is_the_same_as_the_whole() -> None:
    match = played_match("bura", 7, players=3, scoring="points", hand_limit=3)
    history = history_of(match, NAMES)
    whole = replay(history, 2, "ru")
    second = replay(history, 2, "ru", hand=2)
    outline = whole.hands[1]
    assert second.hands == whole.hands and second.total == whole.total
    assert second.steps == whole.steps[outline.first:outline.last + 1]


def test_the_history_message_is_read_as_it_is_exported() -> None:
    match = played_match("mpourloto", 4, target=300)
    message = {"type": "history", "table": "t1", "game": "mpourloto", "options": dict(match.game.options),
               "name": "Room", "seed": match.seed, "decks": None,
               "seats": [{"seat": 1, "user": None, "bot": "easy"}, {"seat": 0, "user": {"id": "u1", "name": "Anna"}},
                         {"seat": 2, "user": {"id": "g2", "name": "Vera"}}, {"seat": 3, "user": None, "bot": "hard"}],
               "actions": [{"seq": i + 1, "seat": s, "action": a, "actor": "x", "event_seq": 10 + i}
                           for i, (s, a) in enumerate(match.actions)],
               "chat": [{"seq": 12, "from": {"id": "g2", "name": "Vera"}, "message": "nice"}],
               "standings": match.standings, "finished_at": "2026-12-01T10:00:00Z"}
    history = History.from_message(message)
    assert history.names == ("Anna", None, "Vera", None) and history.seat_of("g2") == 2 and history.seat_of("x") is None
    assert history.actions == tuple(match.actions)
    assert load_game("mpourloto", **history.options).replay(history.seed, history.actions).standings == \
        match.standings
    text = transcript(history, 0, "en")
    lines = text.splitlines()
    assert lines[0] == "Room: Mpourloto to 300 points, strict overtrumping."
    assert lines[1] == "Players: seat 1, Anna; seat 2, Bot 2; seat 3, Vera; seat 4, Bot 4."
    assert lines[2] == "Finished on 2026-12-01 10:00 (UTC)."
    assert lines[4] == "Hand 1" and lines[5].startswith("Cards: Anna: ")
    # The chat came with journal number 12: after the second action (10, 11) and before the third (12).
    third = next(i for i, line in enumerate(lines) if line == "Vera: nice")
    assert lines.count("Vera: nice") == 1 and third > 5
    assert "Hand 2" in lines and text.endswith("\n")
    russian = transcript(history, 0, "ru")
    assert russian.splitlines()[4] == "Раздача 1" and "Vera: nice" in russian


def test_a_finished_game_in_one_sentence() -> None:
    bura = {"kind": "seats", "winner": 1, "order": [1, 0]}
    assert game_line("bura", "Bura", bura, ["Anna", None], 1, "en") == "Bura: Anna and you. You won."
    assert game_line("bura", "Bura", bura, ["Anna", None], 0, "en") == "Bura: you and Bot 2. Bot 2 won."
    assert game_line("bura", "Бура", {"winner": None}, ["Anna", None], 0, "ru") == "Бура: вы и Бот 2. Никто не выиграл."
    teams = {"kind": "teams", "teams": [[0, 2], [1, 3]], "winner": 1}
    names = ["Anna", None, "Vera", None]
    assert game_line("mpourloto", "Mpourloto", teams, names, 3, "en").endswith("Your team won.")
    assert game_line("mpourloto", "Mpourloto", teams, names, 0, "en").endswith("Bot 2 and Bot 4 won.")
    assert game_line("mpourloto", "Μπουρλότο", teams, names, None, "el").endswith("Νίκη: Μποτ 2 και Μποτ 4.")
