"""Outgoing frames: a server message as the text a websocket carries, made once however many receive it.

Every message the room sends passes through :func:`encode`, so its cost is paid per action and per listener
group. orjson does it several times faster than the standard library (docs/performance.md, "What an action
costs"); the standard library remains the fallback for the few values orjson refuses and the standard library
accepts, so that both make the same frame: lone surrogates (mended to U+FFFD and logged) and non-string keys.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

import orjson

from trickroom.server.hygiene import SURROGATE

log = logging.getLogger("trickroom.protocol")


class FrameError(ValueError):
    """An outgoing message that JSON cannot hold (a value such as a set): a bug in the server."""


def encode(message: Mapping[str, Any]) -> str:
    """The text frame of one outgoing message: compact JSON with the text as it is (not \\u-escaped).

    It cannot fail on text: a lone surrogate, which UTF-8 cannot hold and the door refuses (``bad_text``), becomes
    U+FFFD here if a bug ever lets one through, and is logged. A value JSON cannot hold raises :class:`FrameError`;
    a float that is not a number (NaN, infinity) becomes null, as orjson writes it.
    """
    return encode_part(message, str(message.get("type"))[:20])


def encode_part(value: object, what: str) -> str:
    """Any part of a frame (a message, or a list that several frames share) as :func:`encode` makes it; ``what``
    names it in the error."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        pass  # a surrogate, a non-string key or a value nothing can hold: the standard library says which
    try:
        frame = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise FrameError(f"cannot encode a {what!r} message: {exc}") from None
    if not frame.isascii() and SURROGATE.search(frame):
        log.error("a %s message held a lone surrogate; sent as U+FFFD", what)
        frame = SURROGATE.sub("\ufffd", frame)
    return frame


def batch_frame(frames: list[str]) -> str:
    """Several frames as one ``batch`` message (protocol 3: a table step's messages to one connection), joined
    from their text: nothing is encoded twice."""
    return '{"type":"batch","messages":[' + ",".join(frames) + "]}"
