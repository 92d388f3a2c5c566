"""Outgoing frames (trickroom.server.frames): orjson makes them, the standard library where orjson refuses, and
both make the same text."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from trickroom.server.frames import FrameError, batch_frame, encode, encode_part


def stdlib(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@pytest.mark.parametrize("message", [
    {"type": "event", "text": "Ты берёшь взятку тузом червей.", "seq": 12, "urgency": "polite"},
    {"type": "update", "view": {"hand": ["AS", "TD"], "scores": [19, 21], "winner": None, "is_over": False},
     "deadline": 12.5, "legal": ("play AS", "play TD")},
    {"type": "chat", "message": "Καλή τύχη! 🂡 \"quoted\" \\ back\nslash", "from": {"id": "u1", "name": "Ἀλέξης"}},
])
def test_a_frame_is_the_compact_json_the_standard_library_writes(message: dict[str, Any]) -> None:
    assert encode(message) == stdlib(message)
    assert json.loads(encode(message)) == json.loads(stdlib(message))


def test_a_lone_surrogate_is_sent_as_a_replacement_character_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="trickroom.protocol"):
        frame = encode({"type": "chat", "message": "a\ud800b"})
    assert json.loads(frame)["message"] == "a\ufffdb"
    assert "lone surrogate" in caplog.text


def test_keys_that_are_not_strings_are_written_as_the_standard_library_writes_them() -> None:
    assert encode_part({1: "one", "two": 2}, "test") == '{"1":"one","two":2}'
    assert encode_part([2 ** 70], "test") == f"[{2 ** 70}]"  # beyond 64 bits: orjson refuses, the fallback writes


def test_a_value_json_cannot_hold_is_a_frame_error_naming_the_message() -> None:
    with pytest.raises(FrameError, match="'update'"):
        encode({"type": "update", "seats": {1, 2}})


def test_a_batch_frame_holds_its_messages_in_order_as_they_were_encoded() -> None:
    parts = [{"type": "event", "seq": 3, "text": "Анна ходит тузом."}, {"type": "update", "seq": 3, "view": {}}]
    frame = batch_frame([encode(part) for part in parts])
    assert json.loads(frame) == {"type": "batch", "messages": parts}
    assert frame == stdlib({"type": "batch", "messages": parts})  # the frame one encoding would have made
