"""Replays, hints and reviews in the terminal, through a pipe: an exported game watched again offline (stepping by
action, trick and hand, every seat's cards, the export written back), an offline hint and review, and online: a
hint at a table with hints, another player's finished games listed and one replayed and exported."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_helpers import Client, ProcessServer, play_rated_bura_match
from test_terminal import Driver, is_actions, programs_stopped  # noqa: F401  (an autouse fixture)

from trickroom.games import load_game
from trickroom.narration.names import cards_name
from trickroom.narration.replay import History, replay, transcript

Message = dict[str, Any]


def exported_game(path: Path) -> Message:
    """A finished two-hand Bura match between Anna (seat 0) and a bot, as the room's ``history`` message."""
    game = load_game("bura", players=2, scoring="points", hand_limit=2)
    match = game.new_match(seed=3)
    rng = random.Random(1)
    while not match.is_over:
        seat = match.to_act[0]
        match.apply(seat, rng.choice([a for a in match.legal_actions(seat) if a != "claim"]))
    message = {"type": "history", "table": "t123456789", "game": "bura", "options": dict(game.options),
               "name": "Anna's table", "seed": 3, "decks": None,
               "seats": [{"seat": 0, "user": {"id": "u1", "name": "Anna", "guest": False}, "bot": None},
                         {"seat": 1, "user": None, "bot": "random"}],
               "actions": [{"seq": i + 1, "seat": s, "action": a, "actor": "x", "event_seq": 5 + i}
                           for i, (s, a) in enumerate(match.actions)],
               "chat": [], "standings": match.standings, "finished_at": "2026-12-01T10:00:00Z"}
    path.write_text(json.dumps(message), encoding="utf-8")
    return message


def test_an_exported_game_is_watched_again_step_by_trick_and_by_hand(tmp_path: Path) -> None:
    message = exported_game(tmp_path / "game.json")
    history = History.from_message(message)
    told = replay(history, 0, "en")
    steps, hands = told.steps, told.hands
    driver = Driver("--replay", str(tmp_path / "game.json"), "--name", "Anna")
    assert driver.next_line() == "Replay of Anna's table, Bura: 2 hands."
    assert [driver.next_line() for _ in steps[0].texts] == list(steps[0].texts)
    assert driver.next_line().startswith("Replay commands: next [N] (n), back [N] (b)")  # type: ignore[union-attr]

    def said(command: str, count: int) -> list[str]:
        driver.type(command)
        return [str(driver.next_line()) for _ in range(count)]

    # Step 2, a pass in the announcement pause, says nothing (issue 21): the replay says where it is instead.
    assert steps[1].texts == ()
    assert said("next", 1) == [f"Hand 1 of 2, trick 1; step 2 of {told.total}."]
    trick = hands[0].tricks[0]
    assert said("next trick", len(steps[trick].texts)) == list(steps[trick].texts)
    assert said("where", 1) == [f"Hand 1 of 2, trick 1; step {trick + 1} of {told.total}."]
    held = steps[trick].hands  # every seat's cards, the bot's too: a finished game hides nothing
    assert said("hand", 1) == [f"Cards: Anna: {cards_name(list(held[0]))}; Bot 2: {cards_name(list(held[1]))}."]
    second = hands[1].first
    assert said("next hand", len(steps[second].texts)) == list(steps[second].texts)
    assert steps[second].texts[0].startswith("Hand 2.")
    last = steps[-1]
    assert said("end", len(last.texts)) == list(last.texts)
    assert said("next", 1) == ["This is the end of the game."]
    assert said("go 1", len(steps[0].texts)) == list(steps[0].texts)
    assert said("go 3", 1) == ["There is no hand 3: this game has 2 hands."]
    assert said(f"export text {tmp_path / 'game.txt'}", 1) == [f"Saved in {tmp_path / 'game.txt'}."]
    assert said(f"export json {tmp_path / 'again.json'}", 1) == [f"Saved in {tmp_path / 'again.json'}."]
    assert said("close", 1) == ["Replay closed."]
    assert driver.close() == 0
    assert (tmp_path / "game.txt").read_text(encoding="utf-8") == transcript(history, 0, "en")
    again = json.loads((tmp_path / "again.json").read_text(encoding="utf-8"))
    assert again == message and load_game("bura", **again["options"]).replay(
        again["seed"], [(a["seat"], a["action"]) for a in again["actions"]]).standings == message["standings"]


def test_a_replay_in_russian_as_a_spectator(tmp_path: Path) -> None:
    exported_game(tmp_path / "game.json")
    told = replay(History.from_message(json.loads((tmp_path / "game.json").read_text())), None, "ru")
    driver = Driver("--replay", str(tmp_path / "game.json"), "--lang", "ru")
    assert driver.next_line() == "Повтор игры Anna's table, Бура: 2 раздачи."
    driver.until(lambda text: text.startswith("Команды повтора"))
    driver.type("дальше раздача")
    assert [driver.next_line() for _ in told.steps[told.hands[1].first].texts] == list(
        told.steps[told.hands[1].first].texts)
    driver.type("где")
    assert driver.next_line() == f"Раздача 2 из 2, взятка 1; шаг {told.hands[1].first + 1} из {told.total}."
    driver.type("разбор")
    assert driver.next_line() == ("Это не ваша игра: запустите клиент с --name и именем игрока, чтобы разобрать его "
                                  "раздачи.")
    driver.type("закрыть")
    assert driver.next_line() == "Повтор закрыт."
    assert driver.close() == 0


def test_a_bad_file_is_refused_with_a_sentence(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    driver = Driver("--replay", str(tmp_path / "bad.json"))
    assert str(driver.next_line()).startswith(f"Cannot read the game in {tmp_path / 'bad.json'}: ")
    assert driver.close() == 2


def test_offline_hint_and_review_before_any_hand(tmp_path: Path) -> None:
    driver = Driver("bura", "--seed", "4", "--bots", "random", "--players", "2")
    assert driver.until(is_actions) is not None  # the first announcement pause: this deal holds a Molodka
    driver.type("hint")
    assert driver.next_line() == "Announce a Molodka: it gives you the lead."
    driver.type("review")
    assert driver.next_line() == "This game has no finished hand 1."
    driver.type("quit")
    assert driver.close() == 0


@pytest.fixture
def room(tmp_path: Path) -> Iterator[ProcessServer]:
    server = ProcessServer(tmp_path / "room.sqlite3", TRICKROOM_ADVICE_WORLDS="100", TRICKROOM_BOT_WORKERS="0")
    server.log_path = tmp_path / "room.log"
    server.start()
    yield server
    server.stop()


def test_online_hint_games_list_replay_and_export(room: ProcessServer, tmp_path: Path) -> None:
    driver = Driver("--server", room.url, "--name", "Hana", "--create", "bura", "--players", "2", "--hints",
                    "--bots", "random")
    # The pause was passed for Hana (auto_pass) unless she holds a combination: the hint is about her first
    # card, or the announcement. A game that moves on while the hint is searched (a busy machine) answers
    # "moved on" (table_requests.hint_answered). Most often the bot's answer to the same announcement pause moved
    # it: Hana's decision is still open and no new prompt comes for it, so she asks again at once; if her turn did
    # pass, she hears "It is not your turn." and asks at her next prompt (which may have come before that answer).
    hinted = ("The hard bot would ", "Lead the ", "Play the ", "Beat with ", "Throw the ", "Announce ")
    moved_on, not_yours = "The game moved on before the hint was ready.", "It is not your turn."
    prompted = False
    for _ in range(3):
        if not prompted:
            assert driver.until(is_actions) is not None
        driver.type("hint")
        asked_at = len(driver.lines)
        line = driver.until(lambda text: text.startswith(hinted) or text in (moved_on, not_yours))
        if line is not None and line.startswith(hinted):
            break
        prompted = line == moved_on or any(is_actions(text) for text in driver.lines[asked_at:])
    else:
        raise AssertionError("no hint in three turns")
    driver.type("quit")
    assert driver.close() == 0

    account, guest = Client(room.url), Client(room.url)
    try:
        account.request(type="register", username="tilda", password="secret-77")
        guest.login_guest("Gus")
        play_rated_bura_match(account, guest, seeds=(61, 62))
        table = account.request(type="games")["games"][0]["table"]
        history = account.request(type="history", table=table)
    finally:
        account.close()
        guest.leave()
    steps = replay(History.from_message(history), None, "en").steps  # what a stranger hears: a spectator's
    driver = Driver("--server", room.url, "--name", "Vlad")
    driver.until(lambda text: text.startswith("Type play"))
    driver.type("games tilda")
    assert driver.until(lambda text: text.startswith("Finished games")) == (
        "Finished games of tilda, the latest first:")
    entry = driver.next_line()
    assert entry is not None and entry.startswith(f"1. {table}, ") and ": Bura: tilda and Gus. " in entry
    driver.type("replay 1")
    assert driver.until(lambda text: text.startswith("Replay of")) == f"Replay of {history['name']}, Bura: 1 hand."
    assert [driver.next_line() for _ in steps[0].texts] == list(steps[0].texts)
    driver.until(lambda text: text.startswith("Replay commands"))
    driver.type("next")
    assert [driver.next_line() for _ in steps[1].texts] == list(steps[1].texts)
    driver.type(f"export json {tmp_path / 'export.json'}")
    assert driver.until(lambda text: text.startswith("Saved")) == f"Saved in {tmp_path / 'export.json'}."
    saved = json.loads((tmp_path / "export.json").read_text(encoding="utf-8"))
    assert {k: v for k, v in saved.items() if k != "re"} == {k: v for k, v in history.items() if k != "re"}
    driver.type("close")
    assert driver.until(lambda text: text.startswith("Replay")) == "Replay closed."
    driver.type("quit")
    assert driver.close() == 0
