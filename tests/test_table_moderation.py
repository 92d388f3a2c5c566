"""A moderator at a table, through a Desk (no server): watching a private or password table past its bans, said to
the table as "A moderator is watching.", and closing a table in play with every member and seated person hearing
why. The room marks a request ``moderator`` (server/moderator_room.py); without the mark both are refused."""

from __future__ import annotations

from table_helpers import Desk, person

from trickroom.server.table_parts import CLOSED, PLAYING, CloseTable


def test_a_moderator_watches_a_private_table_and_the_table_hears_it() -> None:
    desk = Desk(options={"players": 2}, private=True)
    host, stranger, moira = desk.host, person("Stranger"), person("Moira", guest=False)
    desk.send(host, "watch")
    assert desk.send(stranger, "watch", id=3)[0]["code"] == "no_table"  # to a stranger it is no table at all
    desk.send(host, "ban", user="Moira", target=moira)
    reply = desk.ask(moira, "watch", moderator=True)
    assert reply["type"] == "snapshot" and reply["table"] == desk.state.id
    assert desk.texts(host, type="table_event", kind="moderator_watching") == ["A moderator is watching."]
    assert moira["id"] in desk.state.members


def test_a_moderator_closes_a_table_in_play_and_everyone_hears_why() -> None:
    desk = Desk(options={"players": 2, "scoring": "points"})
    host, anna, eve = desk.host, person("Anna"), person("Eve")
    desk.send(host, "sit", seat=0)
    desk.send(anna, "sit", seat=1)
    desk.send(eve, "watch")
    desk.send(host, "start")
    assert desk.state.status == PLAYING
    refused = desk.send(eve, "close_table", reason="spam", id=4)
    assert refused[0]["code"] == "not_moderator" and desk.state.status == PLAYING
    for user in (host, anna, eve):
        desk.take(user)
    moira = person("Moira", guest=False)
    assert desk.ask(moira, "close_table", reason="spam in the chat", moderator=True)["type"] == "ok"
    for user in (host, anna, eve):
        left = [m for m in desk.take(user) if m["type"] == "left"]
        assert [(m["reason"], m["text"]) for m in left] == [
            ("closed", "A moderator closed the table Test: spam in the chat")], user
    assert desk.state.status == CLOSED and not desk.state.members and not desk.state.timers
    assert any(isinstance(effect, CloseTable) for effect in desk.effects)
