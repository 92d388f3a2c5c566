"""Hints at a table, without a server (a Desk): the request, the bot's question it becomes (the seat's view and
the events it saw, nothing more), the answer in the asker's language, refusals, and a hinted match unrated."""

from __future__ import annotations

from dataclasses import replace

from table_helpers import Desk, person
from teaching_helpers import BURA_OPENING, BURA_OPTIONS, BURA_RIGHT, bura_deck

from trickroom.bots.advice import advise
from trickroom.bots.history import hand_events_for
from trickroom.bots.search import Budget
from trickroom.games import load_game
from trickroom.server.table_parts import HintAnswered, Job, Wait


def at_the_beat(hints: bool = True) -> tuple[Desk, dict, dict]:
    """Ada (seat 0) and Ben (seat 1, in Russian) play the teaching deal to Ben's decision on the ten of trumps."""
    desk = Desk(options=dict(BURA_OPTIONS), decks=[bura_deck()], hints=hints)
    ada, ben = desk.host, person("Ben")
    desk.seated(ada, ben)
    desk.langs[ben["id"]] = "ru"
    desk.send(ada, "start")
    people = {0: ada, 1: ben}
    for seat, action in BURA_OPENING:
        while desk.state.match.view(None)["phase"] == "announce":
            answering = desk.state.match.to_act[0]
            desk.send(people[answering], "act", action="pass")
        desk.send(people[seat], "act", action=action)
    while desk.state.match.view(None)["phase"] == "announce":
        desk.send(people[desk.state.match.to_act[0]], "act", action="pass")
    desk.take(ada), desk.take(ben)
    desk.writes.clear()
    return desk, ada, ben


def answer(desk: Desk, index: int = -1) -> None:
    ask = desk.hints[index]
    q = ask.question
    advice = advise(load_game(q.game, **q.options), q.seat, q.view, q.events, q.legal, q.seed, Budget(60, 200))
    desk.step(HintAnswered(ask, advice.to_json()))


def test_a_hint_asks_the_hard_bot_with_the_seats_view_and_answers_in_the_askers_language() -> None:
    desk, ada, ben = at_the_beat()
    match = desk.state.match
    assert desk.send(ben, "hint", id=9) == []  # nothing yet: the shell asks the bot
    ask = desk.hints[-1]
    assert (ask.job, ask.user, ask.re) == (Job(Wait.HINT, 1), ben["id"], 9)
    q = ask.question
    assert (q.level, q.seat, q.move) == ("hard", 1, len(match.actions))
    assert q.view == match.view(1) and list(q.events) == hand_events_for(match, 1)
    assert list(q.legal) == match.legal_actions(1)
    assert desk.writes == [] and desk.take(ada) == []  # a hint changes nothing at the table
    answer(desk)
    [hint] = desk.take(ben)
    assert hint == {"type": "hint", "table": desk.state.id, "seq": desk.state.next_seq - 1, "move": q.move,
                    "action": BURA_RIGHT, "re": 9,
                    "text": "Побейте, сыграв туза червей: взятка даст 21 очко, у вас станет 36 — хватит, чтобы "
                            "заявить 31."}
    assert desk.take(ada) == []


def test_a_hint_the_game_moved_past_is_not_given() -> None:
    desk, _, ben = at_the_beat()
    desk.send(ben, "hint", id=2)
    desk.step(HintAnswered(desk.hints[-1], None))  # a search that failed: the asker hears so
    assert [(m["code"], m["re"]) for m in desk.take(ben)] == [("internal", 2)]
    desk.send(ben, "hint", id=3)
    desk.send(ben, "act", action=BURA_RIGHT)
    desk.take(ben)
    answer(desk)
    [refusal] = desk.take(ben)
    assert (refusal["type"], refusal["code"], refusal["re"]) == ("error", "moved_on", 3)


def test_hints_are_refused_when_off_to_others_and_between_turns() -> None:
    desk, ada, ben = at_the_beat(hints=False)
    [off] = desk.send(ben, "hint", id=1)
    assert (off["code"], off["text"]) == ("hints_off", "Подсказки за этим столом выключены; хозяин стола может "
                                                      "включить их в настройках стола.")
    desk, ada, ben = at_the_beat()
    assert desk.send(ada, "hint", id=1)[0]["code"] == "not_your_turn"  # Ben is to act
    stranger = person("Cleo")
    assert desk.send(stranger, "hint", id=1)[0]["code"] == "not_member"
    desk.send(stranger, "watch")
    assert desk.send(stranger, "hint", id=1)[0]["code"] == "not_your_turn"
    assert desk.hints == []


def test_a_match_with_hints_is_unrated() -> None:
    desk, _, _ = at_the_beat()
    assert desk.state.settings.rated is False and desk.state.facts()["hints"] is True
    desk, ada, _ = at_the_beat(hints=False)
    assert desk.state.settings.rated is True
    desk.send(ada, "settings", hints=True)
    assert (desk.state.settings.hints, desk.state.settings.rated) == (True, False)
    assert desk.state.row_values()["settings"]["rated"] is False  # kept with the table
    waiting = Desk(options=dict(BURA_OPTIONS))
    waiting.send(waiting.host, "settings", hints=True)
    waiting.send(waiting.host, "settings", hints=False)
    assert waiting.state.settings == replace(waiting.state.settings, hints=False, rated=True)
