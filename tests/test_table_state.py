"""TableState without a server: admission, seats, the members' and the host's requests, and the effects each
step asks for (writes before messages). The clock is the desk's: nothing here sleeps."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

from table_helpers import CONFIG, Desk, person

from trickroom.games import game_class, load_game
from trickroom.narration import describe
from trickroom.server.table_parts import (
    CLOSED,
    Announce,
    AskBot,
    CloseTable,
    PublishListing,
    SaveRow,
    Tell,
)
from trickroom.server.table_requests import already_applied


def test_the_state_imports_nothing_from_asyncio_the_store_or_the_bus() -> None:
    code = ("import sys, trickroom.server.table_state, trickroom.server.table_render; "
            "print(sorted(m for m in ('asyncio', 'trickroom.server.store', 'trickroom.server.bus', "
            "'trickroom.server.table', 'sqlalchemy') if m in sys.modules))")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert found.strip() == "[]"


# Coming in and sitting down


def test_a_table_event_says_you_to_the_person_it_is_about_and_names_them_to_the_others() -> None:
    """Each table event is said once per language and per "is it about you": "You sit in seat 2." to Anna, "Anna
    sits in seat 2." to the others; a bot's seat is about nobody; a person's own drop and return go unsaid to
    them (their client says "Connection lost." and "Reconnected.")."""
    desk = Desk(options={"players": 3})
    anna, boris = person("Anna"), person("Boris")
    desk.send(desk.host, "watch")
    desk.send(boris, "watch")
    assert desk.send(anna, "watch", lang="ru")[0]["text"] == "Вы смотрите игру."
    desk.take(desk.host)
    desk.take(boris)
    said = [m["text"] for m in desk.send(anna, "sit", seat=1) if m["type"] == "table_event"]
    assert said == ["Вы садитесь на место 2."]
    assert desk.texts(desk.host, type="table_event") == desk.texts(boris, type="table_event") == [
        "Anna sits in seat 2."]
    said = [m["text"] for m in desk.send(desk.host, "bot_add", level="easy", seat=2) if m["type"] == "table_event"]
    assert said == ["An easy bot sits in seat 3."]
    assert desk.texts(anna, type="table_event") == ["Лёгкий бот садится на место 3."]
    said = [m["text"] for m in desk.send(anna, "stand") if m["type"] == "table_event"]
    assert said == ["Вы освобождаете место 2."]
    assert desk.texts(boris, type="table_event") == ["An easy bot sits in seat 3.", "Anna leaves seat 2."]
    desk.send(anna, "sit", seat=1)
    desk.take(anna)
    desk.take(boris)
    desk.presence(anna, online=False)
    desk.presence(anna, online=True)
    assert [(m["kind"], m["text"]) for m in desk.take(anna)] == [("disconnected", ""), ("reconnected", "")]
    assert desk.texts(boris, type="table_event") == ["Anna has lost the connection.", "Anna is back."]
    # A spectator whose connection closes stops watching, and watches again on the way back: among what they
    # missed, their own leaving and watching are not said to them (back at the table, neither is news).
    desk.take(desk.host)
    desk.presence(boris, online=False)
    assert desk.texts(desk.host, type="table_event") == ["Boris leaves the table."]
    missed = [(m.get("kind"), m["text"]) for m in desk.send(boris, "resume", after=0) if m.get("missed")]
    assert missed[:3] == [("joined", "Host is watching."), ("joined", ""), ("joined", "Anna is watching.")]
    assert ("left", "") in missed
    assert "Anna sits in seat 2." in [text for _, text in missed]


def test_a_player_connected_to_another_node_is_told_this_table_s_node() -> None:
    """Several nodes: a seated player whose connection (of their last watch, sit or resume) is on another node hears
    where the table lives when they sit down or come back to their seat (after the answer) and, while still
    elsewhere, as each new hand begins (after that step's news), so that their client can move there and the
    match's messages stop crossing between nodes; told to that connection only. Never to spectators, to people on
    this node or in a room of one node."""
    node = replace(CONFIG, node="n1", node_url="ws://10.0.0.1:8000/ws")
    desk = Desk(options={"players": 2, "hand_limit": 3}, config=node)
    anna = person("Anna")
    told = {"type": "table_node", "table": desk.state.id, "node": "n1", "url": "ws://10.0.0.1:8000/ws"}

    def tells() -> list[tuple[int, str, str | None]]:
        return [(i, e.user, e.conn) for i, e in enumerate(desk.effects) if isinstance(e, Tell) and e.message == told]

    assert desk.send(anna, "watch", conn="n2/c1")[-1]["type"] == "snapshot" and tells() == []  # a spectator
    got = desk.send(anna, "sit", seat=1, id=4, conn="n2/c1")
    assert [m["type"] for m in got][-2:] == ["snapshot", "table_node"] and got[-1] == told and got[-2]["re"] == 4
    assert [(user, conn) for _, user, conn in tells()] == [(anna["id"], "n2/c1")]  # to that connection only
    desk.send(desk.host, "sit", seat=0, conn="n1/c9")
    assert tells() == []  # on this node
    desk.send(desk.host, "start")
    desk.play(desk.host, anna, until=lambda state: state.match is not None and len(state.match.hand_results) == 1)
    # Anna did not move: the step that ended the first hand tells her again, after its news.
    assert [(user, conn) for _, user, conn in tells()] == [(anna["id"], "n2/c1")]
    assert tells()[0][0] > max(i for i, e in enumerate(desk.effects) if isinstance(e, Announce))
    got = desk.send(anna, "resume", after=0, conn="n3/c2")  # back after a drop, through a third node
    assert got[-1] == told and "snapshot" in [m["type"] for m in got]  # last: after the snapshot (and her turn)
    desk.send(anna, "resume", after=0, conn="n1/c5")  # she moved to the table's node
    assert tells() == []
    desk.play(desk.host, anna, until=lambda state: state.match is not None and len(state.match.hand_results) == 2)
    assert tells() == []
    one_node = Desk(options={"players": 2})  # (CONFIG names no node: one node tells nobody)
    one_node.send(anna, "sit", seat=1, conn="n2/c1")
    assert not [e for e in one_node.effects if isinstance(e, Tell) and e.message["type"] == "table_node"]


def test_watching_and_sitting_are_announced_after_the_row_is_saved() -> None:
    desk = Desk(options={"players": 2})
    anna = person("Anna")
    snapshot = desk.ask(desk.host, "watch")
    assert snapshot["type"] == "snapshot" and snapshot["you"] == {"seat": None, "host": True}
    assert snapshot["info"]["status"] == "waiting" and snapshot["view"] is None
    assert desk.texts(desk.host) == ["You are watching."]  # to the person it is about, "you"
    assert desk.send(anna, "watch")[0]["text"] == "You are watching."
    assert desk.texts(desk.host) == ["Anna is watching."]
    reply = desk.ask(anna, "sit", seat=1)
    assert reply["type"] == "snapshot" and reply["you"]["seat"] == 1
    effects = desk.effects
    # The seat is written, then announced (to Anna too), then the lobby entry changes.
    kinds = [type(e) for e in effects]
    assert kinds.index(SaveRow) < kinds.index(Announce) < kinds.index(PublishListing)
    sat = next(m for m in desk.take(desk.host) if m["type"] == "table_event")
    assert (sat["kind"], sat["text"], sat["seat"]) == ("sat", "Anna sits in seat 2.", 1)
    assert sat["info"]["seats"][1]["user"] == anna and sat["info"]["seats"][1]["connected"] is True
    assert desk.state.listing()["entry"]["taken"] == 1


def test_a_seat_must_exist_and_be_free_and_a_refusal_changes_nothing() -> None:
    desk = Desk(options={"players": 2})
    anna, boris = person("Anna"), person("Boris")
    desk.send(anna, "sit", seat=0)
    before = desk.state
    refused = desk.ask(boris, "sit", seat=0)
    assert (refused["type"], refused["code"], refused["text"]) == ("error", "seat_taken", "Seat 1 is taken.")
    assert refused["table"] == "t1"
    assert desk.state is before and desk.effects == ()
    assert desk.ask(boris, "sit", seat=5)["text"] == "There is no such seat; the table has 2 seats."
    # Moving before the start frees the old seat.
    desk.send(anna, "sit", seat=1)
    assert [s.user for s in desk.state.seats] == [None, anna]
    # Sitting again in one's own seat says nothing new.
    desk.take(anna)
    assert [m["type"] for m in desk.send(anna, "sit", seat=1)] == ["snapshot"]
    assert desk.ask(boris, "sit", seat=0)["type"] == "snapshot"


def test_a_sit_that_names_no_seat_takes_the_first_free_one_so_two_joining_at_once_both_sit() -> None:
    """The clients' "join" names no seat: the server picks the first free one, so two people who saw the same free
    seat in the lobby both sit instead of one hearing "Seat 1 is taken."."""
    desk = Desk(options={"players": 3})
    anna, boris, clara, dora = person("Anna"), person("Boris"), person("Clara"), person("Dora")
    desk.send(desk.host, "watch")
    desk.send(desk.host, "bot_add", level="easy", seat=0)
    assert desk.ask(anna, "sit")["you"]["seat"] == 1
    assert desk.ask(boris, "sit")["you"]["seat"] == 2
    assert [m["text"] for m in desk.take(desk.host) if m["type"] == "table_event"][-2:] == [
        "Anna sits in seat 2.", "Boris sits in seat 3."]
    desk.take(anna)
    desk.take(boris)
    assert desk.ask(anna, "sit")["you"]["seat"] == 1  # a seated person keeps their seat, and hears nothing new
    assert desk.take(anna) == [] and desk.take(boris) == []
    before = desk.state
    full = desk.ask(clara, "sit")
    assert (full["code"], full["text"]) == ("seat_taken", "There is no free seat.")
    assert desk.state is before and desk.effects == ()
    desk.send(anna, "stand")
    desk.send(desk.host, "bot_remove", seat=0)
    assert desk.ask(clara, "sit")["you"]["seat"] == 0  # the first free seat, not the last one freed
    desk.send(dora, "sit")
    desk.send(desk.host, "start")
    assert desk.ask(anna, "sit")["code"] == "already_started"  # no free seat during play, and that is why


def test_private_and_password_tables_and_whom_they_let_in() -> None:
    desk = Desk(options={"players": 2}, private=True)
    stranger, invitee = person("Stranger"), person("Invitee")
    desk.send(desk.host, "watch")
    refused = desk.ask(stranger, "watch")
    assert (refused["code"], refused["text"]) == ("no_table", "There is no such table.")  # to a stranger, none
    assert desk.ask(stranger, "chat", message="hello?")["code"] == "no_table"
    assert desk.state.password_needed(stranger) is None  # no password opens a private table
    desk.send(desk.host, "invite", user="Invitee", target=invitee)
    invited = desk.take(invitee)
    assert invited[0]["type"] == "invited" and invited[0]["text"] == "Host invites you to a Bura table."
    assert invited[0]["entry"]["private"] is True
    assert desk.ask(invitee, "sit", seat=1)["type"] == "snapshot"
    assert desk.state.listing()["visible_to"] == sorted([desk.host["id"], invitee["id"]])

    locked = Desk(options={"players": 2}, password_hash="stored-hash")
    assert locked.state.password_needed(stranger) == "stored-hash"
    assert locked.state.password_needed(locked.host) is None  # the host needs none
    assert locked.ask(stranger, "watch")["text"] == "That table needs a password."
    assert locked.ask(stranger, "watch", password="guess")["text"] == "Wrong table password."
    assert locked.ask(stranger, "watch", password="right", password_ok=True)["type"] == "snapshot"
    assert locked.state.password_needed(stranger) is None  # a member now


def test_a_ban_holds_a_guests_nickname_and_an_invitation_lifts_it() -> None:
    desk = Desk(options={"players": 2})
    pest = person("Pest")
    desk.send(desk.host, "watch")
    desk.send(pest, "watch")
    desk.take(desk.host)
    assert desk.ask(desk.host, "ban", user="pest")["type"] == "ok"
    left = desk.take(pest)
    assert left == [{"type": "left", "table": "t1", "reason": "banned",
                     "text": "The host banned you from the table."}]
    assert desk.texts(desk.host, type="table_event") == ["Pest is banned from the table."]
    again = person("PEST")  # logged in again: a new guest id, the same name
    assert desk.ask(again, "watch", lang="ru")["text"] == "Вам запрещено садиться за этот стол."
    # Someone away from the table is banned by whom the room found.
    far = person("Far")
    assert desk.ask(desk.host, "ban", user="Far", target=far)["type"] == "ok"
    assert desk.ask(far, "sit", seat=1)["code"] == "banned"
    assert desk.ask(desk.host, "ban", user="Nobody")["text"] == "Nobody is called Nobody."
    assert desk.ask(desk.host, "ban", user=desk.host["id"])["code"] == "unknown_user"
    desk.send(desk.host, "invite", user="PEST", target=again)
    assert desk.ask(again, "watch")["type"] == "snapshot"


def test_only_members_and_only_the_host() -> None:
    desk = Desk(options={"players": 2})
    anna = person("Anna")
    desk.send(desk.host, "watch")
    for kind, fields in (("chat", {"message": "hi"}), ("act", {"action": "pass"}), ("stand", {}), ("leave", {}),
                         ("start", {})):
        assert desk.ask(anna, kind, **fields)["code"] == "not_member"
    desk.send(anna, "watch")
    for kind, fields in (("start", {}), ("bot_add", {"level": "random"}), ("kick", {"user": "Host"}),
                         ("options", {"options": {}}), ("settings", {"name": "Mine"})):
        refused = desk.ask(anna, kind, **fields)
        assert (refused["code"], refused["text"]) == ("not_host", "Only the host can do that.")


def test_a_closed_table_is_no_table() -> None:
    desk = Desk(options={"players": 2})
    desk.send(desk.host, "watch")
    desk.send(desk.host, "leave")
    assert desk.state.status == CLOSED and CloseTable() in desk.effects
    assert desk.ask(person("Late"), "watch")["code"] == "no_table"


# Chat


def test_table_chat_is_kept_before_anyone_hears_it() -> None:
    desk = Desk(options={"players": 2})
    anna = person("Anna")
    desk.send(desk.host, "watch")
    desk.send(anna, "watch", lang="ru")
    desk.take(desk.host)
    assert desk.ask(anna, "chat", message="привет")["type"] == "ok"
    kept = desk.writes[-1]
    heard = desk.take(desk.host)[0]
    assert (heard["type"], heard["text"], heard["seq"]) == ("chat", "Anna: привет", kept.seq)
    assert next(e for e in desk.effects if isinstance(e, Announce)).entry.seq == kept.seq


# Leaving


def test_standing_leaving_and_the_host_passing_on() -> None:
    desk = Desk(options={"players": 3})
    anna, boris = person("Anna"), person("Boris")
    desk.seated(desk.host, anna, boris)
    desk.send(anna, "stand")
    assert desk.texts(desk.host, type="table_event") == ["Anna leaves seat 2."]
    assert desk.state.seats[1].user is None and anna["id"] in desk.state.members  # still watching
    assert desk.send(desk.host, "leave")[-1]["text"] == "You leave the table."
    assert desk.state.host == boris
    assert desk.kinds(boris) == ["stood", "left", "host"]
    desk.send(boris, "leave")
    desk.send(anna, "leave")
    assert desk.state.status == CLOSED


def test_kick_and_the_host_role() -> None:
    desk = Desk(options={"players": 3})
    anna, boris = person("Anna"), person("Boris")
    desk.seated(desk.host, anna, boris)
    assert desk.ask(desk.host, "kick", user=anna["id"])["type"] == "ok"
    assert desk.take(anna)[-1]["text"] == "The host removed you from the table."
    assert desk.texts(boris, type="table_event") == ["Anna is removed from the table."]
    assert desk.ask(anna, "sit", seat=1)["type"] == "snapshot"  # a kicked player may come back
    assert desk.ask(desk.host, "kick", user="Host")["code"] == "unknown_user"
    assert desk.ask(desk.host, "kick", user="Zed")["code"] == "unknown_user"
    desk.send(desk.host, "host", user="boris")
    assert desk.texts(anna, type="table_event")[-1] == "Boris is now the host."
    assert desk.ask(desk.host, "bot_add", level="random")["code"] == "not_host"


# The host's settings


def test_options_resize_the_table_and_are_said_in_each_language() -> None:
    desk = Desk(options={"players": 3})
    olga = person("Olga")
    desk.send(desk.host, "watch", lang="ru")
    desk.send(olga, "sit", seat=2)
    desk.take(desk.host)
    desk.take(olga)
    assert desk.ask(desk.host, "options", lang="ru", options={"players": 2, "target": 21})["type"] == "ok"
    game = load_game("bura", players=2, target=21)
    assert desk.texts(desk.host, type="table_event") == [f"Вы меняете правила: {describe(game, 'ru')}"]
    english = desk.take(olga)[0]
    assert english["text"] == f"Host changes the options: {describe(game, 'en')}"
    assert len(english["info"]["seats"]) == 2 and english["info"]["options"]["target"] == 21
    assert olga["id"] in desk.state.members and desk.state.seat_of(olga["id"]) is None  # her seat went
    refused = desk.ask(desk.host, "options", lang="ru", options={"target": 12})
    assert (refused["code"], refused["text"]) == ("bad_options", "Параметр target может быть одним из: 11, 21; "
                                                                  "задано 12.")


def test_settings_and_their_bounds() -> None:
    desk = Desk(options={"players": 2}, config=replace(CONFIG, timer_minimum=20))
    desk.send(desk.host, "watch")
    sentence = "The turn timer is off (0) or from 20 to 600 seconds."
    for timer in (19, 601):
        refused = desk.ask(desk.host, "settings", timer=timer)
        assert (refused["code"], refused["text"]) == ("bad_message", sentence)
    assert desk.ask(desk.host, "settings", bot_delay=6)["text"] == "The bot delay is from 0 to 5.0 seconds."
    assert desk.ask(desk.host, "settings", timer=30, bot_delay=1.5, name="Den", private=True,
                    password="pw", password_hash="hashed")["type"] == "ok"
    info = desk.take(desk.host)[0]["info"]
    assert (info["timer"], info["bot_delay"], info["name"], info["private"], info["password"]) == (
        30, 1.5, "Den", True, True)
    assert desk.state.settings.password_hash == "hashed"
    desk.send(desk.host, "settings", password="")
    assert desk.state.settings.password_hash is None
    assert desk.state.settings.timer == 30  # what the message did not name stays
    desk.send(desk.host, "settings", timer=0)
    assert desk.state.settings.timer == 0


def test_bots_seated_and_removed_with_their_level_in_the_sentence() -> None:
    desk = Desk(options={"players": 3})
    desk.send(desk.host, "watch", lang="ru")
    assert desk.ask(desk.host, "bot_add", level="genius")["text"] == "Нет ботов уровня genius."
    assert desk.send(desk.host, "bot_add", level="hard")[0]["text"] == "Сильный бот садится на место 1."
    assert desk.send(desk.host, "bot_add", level="easy", seat=2, lang="en")[0]["text"] == "An easy bot sits in seat 3."
    assert desk.ask(desk.host, "bot_add", level="easy", seat=2)["code"] == "seat_taken"
    desk.send(desk.host, "bot_add", level="random")
    assert desk.ask(desk.host, "bot_add", level="random")["text"] == "There is no free seat."
    assert desk.ask(desk.host, "bot_remove", seat=1)["type"] == "ok"
    assert desk.ask(desk.host, "bot_remove", seat=1)["code"] == "bad_seat"
    assert [s.bot for s in desk.state.seats] == ["hard", None, "easy"]


def test_start_deals_the_tables_seed_and_tells_each_seat_its_own_cards() -> None:
    desk = Desk(options={"players": 2, "scoring": "points"}, seed=5)
    anna, watcher = person("Anna"), person("Watcher")
    desk.seated(desk.host, anna)
    desk.send(watcher, "watch")
    desk.take(watcher)
    assert desk.ask(anna, "start")["code"] == "not_host"
    assert desk.ask(desk.host, "start")["type"] == "ok"
    expected = load_game("bura", players=2, scoring="points").new_match(seed=5)
    assert desk.writes[0] == SaveRow(seed=5, first_event_seq=desk.writes[0].first_event_seq)
    heard = {name: desk.take(who) for name, who in (("host", desk.host), ("anna", anna), ("watcher", watcher))}
    started = next(m for m in heard["anna"] if m.get("kind") == "started")
    assert started["info"]["status"] == "playing"
    for seat, name in ((0, "host"), (1, "anna")):
        hands = [m["event"] for m in heard[name] if m["type"] == "event" and m["event"]["type"] == "hand"]
        assert [h["seat"] for h in hands] == [seat] and hands[0]["cards"] == expected.view(seat)["hand"]
    assert not [m for m in heard["watcher"] if m["type"] == "event" and m["event"]["type"] == "hand"]
    assert [m["type"] for m in heard["watcher"]].count("update") == 1
    assert started["seq"] + 1 == desk.writes[0].first_event_seq
    assert desk.ask(desk.host, "start")["code"] == "already_started"
    assert desk.ask(desk.host, "options", options={"target": 21})["text"] == "The game has already started."
    assert desk.ask(anna, "sit", seat=0)["code"] == "already_started"


def test_not_ready_until_every_seat_is_taken() -> None:
    desk = Desk(options={"players": 3})
    desk.seated(desk.host)
    refused = desk.ask(desk.host, "start")
    assert (refused["code"], refused["text"]) == ("not_ready", "Every seat needs a player or a bot first.")


# Acting


def test_act_before_the_start_out_of_turn_and_illegal_in_the_actors_language() -> None:
    from trickroom import cards

    # Seat 0 deals: seat 1 (Ira) gets AS KS 7H and leads, seat 0 (the host) 6C 8D JH; clubs are trumps.
    deck = ["AS", "6C", "KS", "8D", "7H", "JH", "9C"]
    deck += [c for c in cards.DECK_36 if c not in deck]
    desk = Desk(options={"players": 2, "scoring": "points"}, seed=5, decks=[deck])
    ira = person("Ira")
    desk.seated(desk.host, ira)
    assert desk.ask(ira, "act", action="pass")["code"] == "not_started"
    desk.send(desk.host, "start")
    early = desk.ask(ira, "act", action="play AS", lang="ru")
    assert (early["code"], early["text"]) == (
        "illegal", "Сначала ответьте на объявление: спасуйте или объявите свою комбинацию.")
    assert desk.ask(ira, "act", action="pass", lang="en")["type"] == "ok"
    out_of_turn = desk.ask(ira, "act", action="pass")
    assert (out_of_turn["code"], out_of_turn["text"]) == ("not_your_turn", "You have already answered for this trick.")
    desk.send(desk.host, "act", action="pass")
    assert desk.ask(ira, "act", action="play QS")["text"] == "You do not hold the queen of spades."
    assert desk.ask(person("Nobody"), "act", action="pass")["code"] == "not_member"


def test_an_action_is_logged_before_its_events_are_heard_and_a_resent_act_is_applied_once() -> None:
    desk = Desk(options={"players": 2})
    anna = person("Anna")
    desk.seated(desk.host, anna)
    desk.send(desk.host, "start")
    turn = next(m for m in desk.take(anna) if m["type"] == "your_turn")
    assert turn["text"] == "Announcements: you hold no combination; pass." and "pass" in turn["legal"]
    desk.writes.clear()
    assert desk.ask(anna, "act", action="pass", move=turn["move"])["type"] == "ok"
    (append,) = desk.writes
    effects = [e for e in desk.effects if not isinstance(e, AskBot)]
    assert effects[0] == append
    assert (append.move, append.seat, append.action, append.actor) == (1, 1, "pass", anna["id"])
    first_event = next(e for e in effects if isinstance(e, Announce))
    assert first_event.entry.seq == append.event_seq
    # The same act with the same move: acknowledged, not applied again.
    assert desk.ask(anna, "act", action="pass", move=turn["move"])["type"] == "ok"
    assert len(desk.writes) == 1 and len(desk.state.match.actions) == 1
    assert desk.ask(anna, "act", action="pass")["code"] == "not_your_turn"


def test_already_applied_matches_the_seats_first_act_after_the_move() -> None:
    bura = game_class("bura")
    log = [(0, "pass"), (1, "pass"), (0, "play TS 7S"), (1, "play 8H")]
    assert already_applied(bura, log, 0, 2, "play 7s, 10S")  # another spelling of the logged play
    assert not already_applied(bura, log, 0, 2, "play 7S")  # a different act on that state
    assert already_applied(bura, log, 1, 1, "Pass")
    assert not already_applied(bura, log, 1, 4, "play 8H")  # nothing logged after move 4: a new act
    assert not already_applied(bura, log, 0, 1, "pass")  # seat 0's first act after move 1 was a play


def test_a_step_never_changes_the_state_it_started_from() -> None:
    desk = Desk(options={"players": 2})
    anna = person("Anna")
    desk.seated(desk.host, anna)
    desk.send(desk.host, "start")
    before = desk.state
    seats, journal, actions = list(before.seats), list(before.journal), list(before.match.actions)
    desk.send(anna, "act", action="pass")
    desk.send(desk.host, "stand")
    assert desk.state is not before
    assert before.seats == seats and before.journal == journal and before.match.actions == actions
    assert len(desk.state.match.actions) == 1
    # A failed write's numbers are never given again.
    assert before.numbered_from(desk.state.next_seq).next_seq == desk.state.next_seq


def test_every_request_with_an_id_is_answered_once() -> None:
    desk = Desk(options={"players": 2})
    desk.send(desk.host, "watch")
    for kind, fields in (("chat", {"message": "x"}), ("settings", {"name": "N"}), ("bot_add", {"level": "random"}),
                         ("pause", {}), ("stand", {})):
        replies = [m for m in desk.send(desk.host, kind, id=3, **fields) if m.get("re") == 3]
        assert len(replies) == 1, (kind, replies)
