"""The moderation messages are checked whole when they are parsed (server/protocol.py), so that each handler
(server/moderator_room.py, server/player_tools.py) reads typed fields and trusts them: a reason cleaned like chat
(a report's cannot be left empty), a new password's length, a line to the moderators or to everyone checked as
chat is, the message of the day cleaned. And each message goes straight from its model to its own handler."""

from __future__ import annotations

from typing import Any

import pytest

from trickroom.server import moderator_room, player_tools
from trickroom.server.protocol import (
    CLIENT_MODELS,
    MODERATION_MODELS,
    ChangePassword,
    DefaultLimits,
    HandleReport,
    ModeratorsChat,
    ProtocolError,
    Remove,
    Report,
    RoomBan,
    SetMotd,
    parse_client_message,
)
from trickroom.server.room import REQUESTS


def refusal(raw: dict[str, Any], limits: DefaultLimits | None = None) -> tuple[str, dict[str, Any]]:
    with pytest.raises(ProtocolError) as refused:
        parse_client_message(raw, limits)
    return refused.value.code, refused.value.params


def test_a_report_must_say_why_and_its_reason_arrives_cleaned() -> None:
    report = parse_client_message({"type": "report", "user": "Boris", "reason": " rude\n\x1b[2Jagain ", "id": 7})
    assert isinstance(report, Report)
    assert (report.user, report.reason, report.table, report.id) == ("Boris", "rude [2Jagain", None, 7)
    for empty in ("", "   ", "\n\t", "\x07\u202e"):
        assert refusal({"type": "report", "user": "Boris", "reason": empty}) == ("bad_message", {"field": "reason"})
    assert refusal({"type": "report", "user": "Boris", "reason": "x" * 501}) == ("bad_message", {"field": "reason"})


def test_a_moderators_reason_is_kept_as_the_store_keeps_it_and_none_when_nothing_is_left() -> None:
    ban = parse_client_message({"type": "room_ban", "user": "Boris", "minutes": 60, "reason": "spam\r\nspam"})
    assert isinstance(ban, RoomBan) and (ban.minutes, ban.reason) == (60, "spam spam")
    remove = parse_client_message({"type": "remove", "user": "Boris", "reason": " \n "})
    assert isinstance(remove, Remove) and remove.reason is None  # said as "removed", with no reason
    handled = parse_client_message({"type": "handle_report", "report": 3, "outcome": None})
    assert isinstance(handled, HandleReport) and (handled.report, handled.outcome) == (3, None)
    assert refusal({"type": "handle_report", "report": 0}) == ("bad_message", {"field": "report"})
    assert refusal({"type": "mute", "user": "Boris", "minutes": 0}) == ("bad_message", {"field": "minutes"})
    assert refusal({"type": "audit", "limit": 201}) == ("bad_message", {"field": "limit"})


def test_a_new_password_is_refused_at_the_door_when_too_short() -> None:
    assert refusal({"type": "change_password", "old": "whatever", "new": "short"})[0] == "bad_password"
    changed = parse_client_message({"type": "change_password", "old": "whatever", "new": "long enough"})
    assert isinstance(changed, ChangePassword) and changed.new == "long enough"


def test_lines_to_the_moderators_and_to_everyone_are_chat_and_the_motd_is_cleaned() -> None:
    line = parse_client_message({"type": "moderators", "message": " I take\nthis one "})
    assert isinstance(line, ModeratorsChat) and line.message == "I take this one"
    for kind in ("moderators", "announce"):
        assert refusal({"type": kind, "message": " \n"}) == ("bad_message", {"field": "message"})
        assert refusal({"type": kind, "message": "x" * 41}, DefaultLimits(chat_length=40)) == (
            "chat_too_long", {"limit": 40})
    motd = parse_client_message({"type": "motd", "message": "  \t"})
    assert isinstance(motd, SetMotd) and motd.message == ""  # "" clears the message of the day
    assert refusal({"type": "motd", "message": "x" * 501}) == ("bad_message", {"field": "message"})


def test_every_client_message_has_a_handler_and_the_moderation_ones_are_the_desks() -> None:
    assert set(REQUESTS) == set(CLIENT_MODELS.values())
    answered_here = set(player_tools.REQUESTS) | set(moderator_room.REQUESTS)
    assert answered_here == set(MODERATION_MODELS) and len(answered_here) == len(MODERATION_MODELS)
    assert all(REQUESTS[model] == entry for model, entry in {**player_tools.REQUESTS,
                                                             **moderator_room.REQUESTS}.items())
