"""TableState in play, without a server and with the desk's clock: whose turn is announced, bot turns and their
delay, off-turn claims, turn timers, the grace period and a bot playing for a dropped person, taking the seat
back, resume, pause between hands, forgetting old hands, the end of a match, and a table rebuilt from its log."""

from __future__ import annotations

import random
from typing import Any

from table_helpers import Desk, person

from trickroom.games import events_for
from trickroom.narration import LANGUAGES, catalog
from trickroom.server.protocol import TABLE_EVENT_KINDS
from trickroom.server.table_parts import (
    FINISHED,
    PAUSED,
    PLAYING,
    AppendAction,
    BotAnswered,
    CloseTable,
    Job,
    KeepChat,
    Member,
    RecordResults,
    SaveRow,
    Wait,
)
from trickroom.server.table_restore import SEQ_GAP, replay_log
from trickroom.server.table_state import TableState

Message = dict[str, Any]


def turns(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m["type"] == "your_turn"]


def bots_only(**options: Any) -> Desk:
    """A started 2-player Bura match (points) between two bots, the host watching."""
    desk = Desk(options={"players": 2, "scoring": "points", **options})
    desk.send(desk.host, "watch")
    desk.seated(bots=2)
    desk.send(desk.host, "start")
    return desk


def test_your_turn_is_said_once_per_decision() -> None:
    """Bura's first trick opens with an announcement pause in which every seat answers. A bot's answer gives
    nobody a new decision, so the people waiting hear "your turn" once, not again after the bot's answer."""
    desk = Desk(options={"players": 3})
    ada, ben = desk.host, person("Ben")
    desk.seated(ada, ben, bots=1)
    heard_by_ada = desk.send(ada, "start")
    assert sorted(desk.state.match.to_act) == [0, 1, 2]
    desk.advance()  # the bot answers
    assert sorted(desk.state.match.to_act) == [0, 1]
    heard_by_ada += desk.take(ada) + desk.send(ada, "act", action="pass")
    assert desk.state.match.to_act == [1]
    heard = {"ada": heard_by_ada, "ben": desk.take(ben)}
    assert [len(turns(heard[name])) for name in ("ada", "ben")] == [1, 1]
    assert turns(heard["ben"])[0]["legal"] == ["pass", "claim"]
    # Every member got an update after each change, the same for everyone at the same seat.
    assert [m["type"] for m in heard["ben"]].count("update") == 3


def test_bot_moves_wait_the_bot_delay() -> None:
    desk = Desk(options={"players": 2, "scoring": "points"}, bot_delay=0.4)
    desk.send(desk.host, "watch")
    desk.seated(bots=2)
    desk.send(desk.host, "start")
    desk.advance(0.39)
    assert desk.acted_at == []
    desk.advance(0.01)
    assert desk.acted_at == [0.4]
    desk.advance(1.6)
    # One move every 0.4 s: each bot's question is asked again, with the delay, after every move (the other bot
    # of the announcement pause too).
    assert [round(t, 6) for t in desk.acted_at] == [0.4, 0.8, 1.2, 1.6, 2.0]


def test_a_bots_question_is_what_its_seat_sees_and_a_stale_answer_is_dropped() -> None:
    desk = Desk(options={"players": 2}, bot_delay=1.0)
    desk.seated(desk.host, bots=1)
    desk.send(desk.host, "start")
    ask = desk.asks[Job(Wait.BOT, 1)]
    question = ask.questions[0]
    match = desk.state.match
    assert match is not None and ask.at == 1.0
    assert (question.seat, question.level, question.move) == (1, "random", 0)
    assert question.view == match.view(1) and list(question.legal) == match.legal_actions(1)
    assert all(e.get("seat", 1) == 1 for e in question.events if e["type"] == "hand")  # only its own cards
    desk.send(desk.host, "act", action="pass")  # the match moves on while the bot thinks
    assert desk.asks[Job(Wait.BOT, 1)] is not ask
    before = desk.state
    desk.step(BotAnswered(ask.job, question, "pass"))
    assert desk.effects == () and len(desk.state.match.actions) == len(before.match.actions)


def test_a_broken_bot_plays_a_legal_move_and_an_illegal_choice_the_first_legal_one() -> None:
    desk = Desk(options={"players": 2})
    desk.send(desk.host, "watch")
    desk.seated(bots=2)
    desk.send(desk.host, "start")
    ask = desk.asks[Job(Wait.BOT, desk.state.match.to_act[0])]
    question = ask.questions[0]
    desk.asks.clear()
    desk.step(BotAnswered(ask.job, question, None))  # the bot failed
    expected = random.Random(question.seed).choice([a for a in question.legal if a != "claim"])
    assert [(w.seat, w.action, w.actor) for w in desk.writes if isinstance(w, AppendAction)] == [
        (question.seat, expected, "bot:random")]
    ask = next(iter(desk.asks.values()))
    desk.step(BotAnswered(ask.job, ask.questions[0], "play ZZ"))
    assert desk.writes[-1].action == ask.questions[0].legal[0]


def test_bots_may_claim_off_turn_in_bura_only() -> None:
    desk = Desk(options={"players": 2, "scoring": "points"})
    desk.seated(desk.host, bots=1, level="normal")
    desk.send(desk.host, "start")
    asked: list[tuple[int, tuple[str, ...]]] = []

    def claims_once(question: Any) -> str | None:
        asked.append((question.seat, question.legal))
        return "claim" if len(asked) == 1 else None

    desk.off_turn = claims_once
    desk.advance()  # the bot answers the announcement; now the game waits for the host alone
    assert Job(Wait.OFF_TURN) not in desk.asks and desk.state.match.is_over is False
    # Asked only while the game was not waiting for the bot: its legal actions were the claim alone.
    assert asked and all(ask == (1, ("claim",)) for ask in asked)
    claim = [m for m in desk.take(desk.host) if m["type"] == "event" and m["event"]["type"] == "claim"]
    assert claim and claim[0]["event"]["seat"] == 1

    mpourloto = Desk("mpourloto")
    mpourloto.send(mpourloto.host, "watch")
    mpourloto.seated(bots=4, level="normal")
    mpourloto.send(mpourloto.host, "start")
    for _ in range(20):
        assert Job(Wait.OFF_TURN) not in mpourloto.asks
        mpourloto.advance()


def test_the_turn_timer_warns_then_a_bot_plays_that_turn() -> None:
    desk = Desk(options={"players": 2}, timer=30)
    slow = desk.host
    desk.seated(slow, bots=1)
    assert turns(desk.send(slow, "start"))[0]["deadline"] == 30.0
    desk.advance()  # the bot answers; the host's deadline stays where it was
    assert desk.state.deadlines == {0: 30.0}
    desk.advance(5)
    assert next(m for m in desk.send(slow, "resume", after=10**9) if m["type"] == "snapshot")["deadline"] == 25.0
    desk.take(slow)
    desk.advance(14.9)
    assert desk.take(slow) == []
    desk.advance(0.1)
    warning = desk.take(slow)
    assert [(m["type"], m["seconds_left"], m["text"]) for m in warning] == [("timer", 10, "10 seconds left.")]
    desk.writes.clear()
    desk.advance(10)
    heard = desk.take(slow)
    timeout = next(m for m in heard if m.get("kind") == "timeout")
    assert timeout["seat"] == 0 and timeout["text"] == "Time is up for you; a bot plays this turn."
    assert next((w.seat, w.actor) for w in desk.writes if isinstance(w, AppendAction)) == (0, "bot:random")
    assert desk.state.seats[0].user == slow and not desk.state.seats[0].replaced  # only that one turn

    brief = Desk(options={"players": 2}, timer=3)  # warned a third of the turn before its end: one second
    brief.seated(brief.host, bots=1)
    brief.send(brief.host, "start")
    brief.advance(2)
    assert [m["text"] for m in brief.take(brief.host) if m["type"] == "timer"] == ["1 second left."]  # its plural


def test_acting_in_time_stops_the_timer() -> None:
    desk = Desk(options={"players": 2}, timer=30)
    anna = person("Anna")
    desk.seated(desk.host, anna)
    desk.send(desk.host, "start")
    assert set(desk.timers) == {Job(Wait.WARNING, 0), Job(Wait.TIMEOUT, 0), Job(Wait.WARNING, 1),
                                Job(Wait.TIMEOUT, 1)}
    desk.advance(3)
    desk.send(anna, "act", action="pass")
    assert set(desk.timers) == {Job(Wait.WARNING, 0), Job(Wait.TIMEOUT, 0)}
    assert desk.timers[Job(Wait.TIMEOUT, 0)] == 30.0  # the host's turn did not start again


def test_a_dropped_person_has_the_grace_period_then_a_bot_plays_until_they_take_the_seat_back() -> None:
    desk = Desk(options={"players": 2, "scoring": "points"})
    keeps, drops = desk.host, person("Drops")
    desk.seated(keeps, drops)
    desk.send(keeps, "start")
    desk.presence(drops, online=False)
    assert desk.texts(keeps, type="table_event") == ["Drops has lost the connection."]
    assert desk.timers[Job(Wait.GRACE, 1)] == 60.0
    desk.advance(59)
    desk.presence(drops, online=True)  # back in time
    assert desk.texts(keeps, type="table_event") == ["Drops is back."]
    assert Job(Wait.GRACE, 1) not in desk.timers
    desk.presence(drops, online=False)
    desk.take(keeps)
    desk.advance(60)
    taken = next(m for m in desk.take(keeps) if m.get("kind") == "bot_took_over")
    assert taken["text"] == "A bot plays for Drops until they return."
    assert taken["info"]["seats"][1]["replaced_by_bot"] is True and desk.state.seats[1].replaced
    # The bot plays seat 1 (the announcement pause waits for it too) while the keeper plays on.
    desk.play(keeps, until=lambda state: any(a[0] == 1 for a in state.match.actions[2:]))
    assert any(w.actor == "bot:random" and w.seat == 1 for w in desk.writes if isinstance(w, AppendAction))
    desk.play(keeps, until=lambda state: 1 in state.match.to_act and state.match.to_act != [0, 1])
    got = desk.send(drops, "resume", after=0)
    back = next(m for m in got if m.get("kind") == "took_back")
    assert back["text"] == "You are back and play again." and back["info"]["seats"][1]["replaced_by_bot"] is False
    assert desk.texts(keeps, type="table_event")[-1] == "Drops is back and plays again."
    assert Job(Wait.BOT, 1) not in desk.asks
    snapshot = next(m for m in got if m["type"] == "snapshot")
    assert snapshot["you"]["seat"] == 1 and snapshot["view"]["hand"]
    assert turns(got) and turns(got)[0]["legal"] == snapshot["legal"]


def test_standing_up_during_play_leaves_the_seat_to_a_bot() -> None:
    desk = Desk(options={"players": 2})
    leaver = person("Leaver")
    desk.seated(desk.host, leaver)
    desk.send(desk.host, "start")
    stood = desk.send(leaver, "stand")
    assert next(m for m in stood if m.get("kind") == "stood")["info"]["seats"][1]["bot"] == "random"
    assert desk.state.seats[1].bot == "random" and desk.writes[-1] == SaveRow()
    assert Job(Wait.BOT, 1) in desk.asks  # the bot answers the announcement in the leaver's place


def test_resume_sends_what_was_missed_then_the_state() -> None:
    desk = Desk(options={"players": 2})
    anna = person("Anna")
    desk.seated(desk.host, anna)
    desk.send(desk.host, "start")
    seen = max(m["seq"] for m in desk.take(anna) if "seq" in m)
    desk.send(desk.host, "act", action="pass")
    desk.send(desk.host, "chat", message="your move")
    live = [m for m in desk.take(anna) if m["type"] in ("event", "chat", "table_event")]
    got = desk.send(anna, "resume", after=seen)
    missed = [m for m in got if m.get("missed")]
    assert [{k: v for k, v in m.items() if k not in ("missed", "info")} for m in missed] == [
        {k: v for k, v in m.items() if k != "info"} for m in live]
    assert [m["type"] for m in got[len(missed):]] == ["snapshot", "your_turn"]
    assert got[len(missed)]["seq"] == desk.state.next_seq - 1


def test_a_spectator_who_left_the_room_watches_again_on_resume_unless_a_password_now_stops_them() -> None:
    desk = Desk(options={"players": 2})
    watcher = person("Watcher")
    desk.seated(desk.host)
    desk.send(watcher, "watch")
    desk.presence(watcher, online=False)
    assert desk.kinds(desk.host) == ["joined", "left"]
    desk.send(desk.host, "chat", message="still there?")
    got = desk.send(watcher, "resume", after=2, id=6)  # (2: their own "joined", the last they heard)
    # Back, they hear what they missed, but not their own leaving and watching again: neither is news
    assert [(m["type"], m.get("kind"), m["text"]) for m in got if m.get("missed")] == [
        ("table_event", "left", ""), ("chat", None, "Host: still there?"), ("table_event", "joined", "")]
    assert next(m for m in got if m["type"] == "snapshot")["you"]["seat"] is None
    assert desk.kinds(desk.host) == ["joined"] and watcher["id"] in desk.state.members
    assert desk.ask(watcher, "chat", message="back")["type"] == "ok"
    desk.presence(watcher, online=False)
    desk.send(desk.host, "settings", password="secret", password_hash="hashed")
    refused = desk.ask(watcher, "resume", after=0)
    assert (refused["code"], refused["text"]) == ("wrong_password", "That table needs a password.")
    assert desk.ask(watcher, "chat", message="let me in")["code"] == "not_member"


def test_a_pause_asked_for_waits_for_the_end_of_the_hand() -> None:
    desk = Desk(options={"players": 2, "scoring": "points", "hand_limit": 3})
    host = desk.host
    desk.seated(host, bots=1)
    assert desk.ask(host, "pause")["code"] == "not_started"
    desk.send(host, "start")
    assert desk.send(host, "pause")[0]["text"] == "The game will pause at the end of this hand."
    cancelled = desk.send(host, "pause", paused=False)[0]
    assert cancelled["text"] == "No pause after this hand: the game goes on."
    assert cancelled["info"]["pause_requested"] is False and cancelled["info"]["status"] == "playing"
    desk.send(host, "pause")
    assert desk.state.pause_requested and desk.writes[-1] == SaveRow()  # a restart keeps the request
    desk.play(host, until=lambda state: state.status == PAUSED)
    match = desk.state.match
    assert match is not None and len(match.hand_results) == 1 and not desk.state.pause_requested
    assert desk.asks == {} and not any(w.wait != Wait.GRACE for w in desk.timers)
    assert desk.ask(host, "act", action="pass")["code"] == "paused"
    heard = desk.send(host, "pause", paused=False)
    assert heard[0]["text"] == "The game goes on." and desk.state.status == PLAYING
    assert any(m["type"] == "update" for m in heard) and (desk.asks or turns(heard))


def test_memory_keeps_the_current_and_the_previous_hand() -> None:
    desk = bots_only(hand_limit=4)
    desk.play(until=lambda state: len(state.match.hand_results) == 1)
    first_end = next(e.seq for e in desk.state.journal if e.kind == "event" and e.data["type"] == "hand_end")
    desk.play(until=lambda state: len(state.match.hand_results) == 2)
    # Everything since the first hand ended (the previous hand, the second, and the current one) and nothing
    # before it.
    state = desk.state
    assert state.match is not None
    assert [e.seq for e in state.journal] == list(range(first_end + 1, state.next_seq))
    assert [e.data for e in state.journal if e.kind == "event"] == state.match.events
    assert [e.data["hand"] for e in state.journal if e.data.get("type") == "hand_end"] == [2]


def test_the_end_of_a_match_is_written_then_told() -> None:
    desk = bots_only(hand_limit=1)
    desk.play(until=lambda state: state.status == FINISHED)
    assert desk.writes[-2:] == [SaveRow(finished=True), RecordResults()]
    heard = desk.take(desk.host)
    end = heard[-1]
    assert (end["kind"], end["text"], end["info"]["status"]) == ("finished", "The game is over.", "finished")
    assert end["standings"] == desk.state.match.standings == desk.state.standings
    assert heard[-2]["type"] == "update" and heard[-2]["to_act"] == []
    assert desk.asks == {} and desk.timers == {}
    assert desk.ask(desk.host, "act", action="pass")["code"] == "finished"


def test_leaving_a_finished_table_keeps_the_seat_in_the_games_record() -> None:
    """Who played a finished game stays in its row (their history, replay and "my games" list depend on it); the
    table closes when its last member leaves."""
    desk = Desk(options={"players": 2, "scoring": "points", "hand_limit": 1})
    host, ida = desk.host, person("Ida")
    desk.seated(host, ida)
    desk.send(host, "start")
    desk.play(host, ida, until=lambda state: state.status == FINISHED)
    desk.take(host)
    desk.send(ida, "leave")
    assert desk.state.seats[1].user == ida and desk.state.row_values()["seats"][1] == {"user": ida}
    assert [m["kind"] for m in desk.take(host) if m["type"] == "table_event"] == ["left"]
    assert ida["id"] not in desk.state.members and desk.state.status == FINISHED
    desk.send(host, "leave")
    assert desk.state.seats[0].user == host and any(isinstance(e, CloseTable) for e in desk.effects)


def rebuilt(desk: Desk, status: str | None = None) -> tuple[TableState, tuple[Any, ...]]:
    """The desk's table as a restart makes it: from its row's fields, its action log and its chat."""
    old = desk.state
    state = TableState(number=old.number, game_name=old.game_name, options=dict(old.options),
                       settings=old.settings, seats=[type(s)(user=s.user, bot=s.bot) for s in old.seats],
                       host=old.host, config=old.config, status=status or old.status, seed=old.seed,
                       decks=old.decks)
    first = next(w.first_event_seq for w in desk.writes if isinstance(w, SaveRow) and w.first_event_seq)
    actions = [(w.seat, w.action, w.event_seq) for w in desk.writes if isinstance(w, AppendAction)]
    chat = [(w.seq, w.sender, w.message) for w in desk.writes if isinstance(w, KeepChat)]
    return state, replay_log(state, first, actions, chat)


def test_a_table_rebuilt_from_its_log_has_the_same_journal_and_numbers_on_past_it() -> None:
    desk = Desk(options={"players": 2, "scoring": "points", "hand_limit": 4})
    host, gone = desk.host, person("Gone")
    desk.seated(host, gone)
    desk.send(host, "start")
    desk.send(host, "chat", message="good luck")
    desk.play(host, gone, until=lambda state: len(state.match.hand_results) == 2)
    desk.play(host, gone, until=lambda state: len(state.match.actions) % 7 == 3)
    state, last = rebuilt(desk)
    kept = [(e.seq, e.kind, e.data) for e in desk.state.journal if e.kind != "table_event"]
    assert [(e.seq, e.kind, e.data) for e in state.journal] == kept
    assert state.next_seq == kept[-1][0] + 1 + SEQ_GAP
    assert state.match is not None and state.match.actions == desk.state.match.actions
    assert [e.seq for e in last] == [e.seq for e in desk.state.journal if e.kind == "event"][-len(last):]

    # The new owner: the host is online, Gone is not; the dead owner may not have announced the last action.
    again = Desk(options={"players": 2})
    again.state = state
    again.restored((Member(host, "en"),), unannounced=last)
    heard = again.take(host)
    seen = [e.seq for e in last if events_for([e.data], 0)]  # not the other seat's cards
    assert [m["seq"] for m in heard if m.get("missed")] == seen and len(seen) < len(last)
    assert heard[len(seen)]["type"] == "update"
    assert again.timers[Job(Wait.GRACE, 1)] == 60.0 and again.state.seats[0].connected
    assert not again.state.seats[1].connected


def test_a_log_that_ended_the_match_is_finished_when_the_table_is_rebuilt() -> None:
    desk = bots_only(hand_limit=1)
    desk.play(until=lambda state: state.status == FINISHED)
    state, last = rebuilt(desk, PLAYING)  # the owner died after logging the last action, before writing the end
    again = Desk(options={"players": 2})
    again.state = state
    again.restored((Member(desk.host, "en"),), unannounced=last)
    assert again.state.status == FINISHED and again.state.standings == desk.state.standings
    assert again.writes == [SaveRow(finished=True), RecordResults()]
    heard = again.take(desk.host)
    assert [m["seq"] for m in heard if m.get("missed")] == [e.seq for e in last]
    assert heard[-1]["kind"] == "finished"


def test_a_finished_table_whose_owner_died_tells_its_people_the_end_with_the_numbers_it_had() -> None:
    """The owner wrote the end and died, perhaps before announcing it: the node that takes the table over sends
    the last action's events and the end again, each with its own journal number (a client that heard them drops
    them); with nobody online at it, the table is closed at once."""
    desk = bots_only(hand_limit=1)
    desk.play(until=lambda state: state.status == FINISHED)
    end = next(e for e in desk.state.journal if e.kind == "table_event" and e.data["kind"] == "finished")
    state, last = rebuilt(desk)
    state.standings = desk.state.standings  # (from the row)
    again = Desk(options={"players": 2})
    again.state = state
    again.restored((Member(desk.host, "en"),), unannounced=last)
    heard = again.take(desk.host)
    assert [m["seq"] for m in heard if m.get("missed")] == [e.seq for e in last] + [end.seq]
    finished = next(m for m in heard if m.get("kind") == "finished")
    assert finished["standings"] == desk.state.standings and finished["missed"]
    assert again.writes == [] and not any(isinstance(e, CloseTable) for e in again.effects)
    assert [e.seq for e in again.state.journal][-1] == end.seq

    state, last = rebuilt(desk)
    alone = Desk(options={"players": 2})
    alone.state = state
    alone.restored((), unannounced=last)
    assert any(isinstance(e, CloseTable) for e in alone.effects)
    assert alone.take(desk.host) == []


def test_every_table_event_kind_is_told() -> None:
    """One evening at a table reaches every kind of table event the protocol declares, each with a sentence."""
    desk = Desk(options={"players": 3, "scoring": "points", "hand_limit": 2}, timer=30)
    host, anna, boris, eve = desk.host, person("Anna"), person("Boris"), person("Eve")
    desk.send(host, "watch")
    desk.send(eve, "watch")
    desk.send(anna, "sit", seat=0)
    desk.send(boris, "sit", seat=1)
    desk.send(person("Moira"), "watch", moderator=True)
    desk.send(host, "options", options={"target": 21})
    desk.send(host, "settings", name="Evening")
    desk.send(host, "bot_add", level="random", seat=2)
    desk.send(host, "bot_remove", seat=2)
    desk.send(host, "bot_add", level="random", seat=2)
    desk.send(host, "invite", user="Zoe", target=person("Zoe"))
    desk.send(host, "kick", user="Eve")
    desk.send(eve, "watch")
    desk.send(host, "ban", user="Eve")
    desk.send(host, "start")
    desk.send(host, "pause")
    desk.send(host, "pause", paused=False)
    desk.presence(boris, online=False)
    desk.presence(boris, online=True)
    desk.presence(boris, online=False)
    desk.advance(60)  # a bot plays for Boris
    desk.send(boris, "resume", after=0)
    desk.send(host, "pause")
    desk.play(anna, until=lambda state: state.status == PAUSED)
    desk.send(host, "pause", paused=False)
    desk.advance(30)  # Anna's or Boris's turn times out
    desk.send(boris, "stand")
    desk.send(host, "host", user="Anna")
    desk.send(host, "leave")
    desk.play(anna, until=lambda state: state.status == FINISHED)
    told = [m for m in desk.take(anna) if m["type"] == "table_event"]
    assert {m["kind"] for m in told} == TABLE_EVENT_KINDS
    assert all(m["text"] and "{" not in m["text"] for m in told)
    for kind in TABLE_EVENT_KINDS:  # and each has its sentence in every language
        assert all(f"table.{kind}" in catalog(lang, "room") for lang in LANGUAGES), kind
