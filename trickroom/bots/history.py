"""What bots read of the past: only the current hand's events."""

from __future__ import annotations

from collections.abc import Sequence

from trickroom.games import Event


def current_hand_events(events: Sequence[Event]) -> list[Event]:
    """The events since the last deal (a match has many hands; a bot's memory only needs the current one)."""
    for index in range(len(events) - 1, -1, -1):
        if events[index].get("type") == "deal":
            return list(events[index:])
    return list(events)
