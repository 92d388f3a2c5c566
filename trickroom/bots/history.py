"""What bots read of the past: only the current hand's events."""

from __future__ import annotations

from collections.abc import Sequence

from trickroom.games import Event, Match, events_for


def current_hand_events(events: Sequence[Event]) -> list[Event]:
    """The events since the last deal (a match has many hands; a bot's memory only needs the current one)."""
    for index in range(len(events) - 1, -1, -1):
        if events[index].get("type") == "deal":
            return list(events[index:])
    return list(events)


def hand_events_for(match: Match, seat: int) -> list[Event]:
    """The events ``seat`` has seen since its last deal: everything a bot reads (bots rebuild their memory from
    the current hand only: :func:`current_hand_events`), so a
    bot's decision costs the same late in a long match as early, instead of filtering the whole history."""
    events = match.events
    for index in range(len(events) - 1, -1, -1):
        if events[index].get("type") == "deal" and events_for([events[index]], seat):
            return events_for(events[index:], seat)
    return events_for(events, seat)
