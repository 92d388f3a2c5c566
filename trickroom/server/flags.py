"""The room's own flags for moderators, made from a finished table: collusion in Bura with 3 or more players.

:func:`flag_collusion` is what the room calls once a table has finished (``ModeratorDesk.table_finished``, after
the match's results are recorded; the moderators signed in hear each flag at once). It replays the table's history with
:func:`trickroom.bots.collusion.feeding` in a worker thread, off the event loop, and stores one flag
(:meth:`~trickroom.server.moderation.Moderation.flag`, kind "collusion") per suspect pair of people, with the
sentence ``report.collusion`` ("Anna kept feeding Boris: 140 points more than a sound player would have left.").
Bots are never flagged: a seat counts as the person who made most of its plays. Private and password tables are
not read: friends play there (rulings B12).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from typing import Any

from trickroom.bots import collusion
from trickroom.games import load_game
from trickroom.server.moderation import Moderation, ReportRow
from trickroom.server.rows import TableRow
from trickroom.server.store import LoggedAction


def seat_people(row: TableRow, actions: Sequence[LoggedAction]) -> dict[int, dict[str, Any]]:
    """Seat -> the user summary of the person who made most of that seat's actions (bots and replacement bots
    left out). A person no longer in the seat is named by their id."""
    people: dict[int, dict[str, Any]] = {}
    for seat in range(len(row.seats)):
        actors = Counter(a.actor for a in actions if a.seat == seat)
        if not actors:
            continue
        actor, _ = actors.most_common(1)[0]
        if not actor or actor.startswith("bot"):
            continue
        holder = (row.seats[seat] or {}).get("user") or {}
        people[seat] = holder if holder.get("id") == actor else {"id": actor, "name": actor, "guest": True}
    return people


def private(row: TableRow) -> bool:
    """A private or password table: friends who chose each other (rulings B12: "private tables are the place to
    play with friends"), so their play is not read for collusion."""
    return bool(row.settings.get("private") or row.settings.get("password_hash"))


async def flag_collusion(moderation: Moderation, row: TableRow, actions: Sequence[LoggedAction]) -> list[ReportRow]:
    """Read a finished table for collusion and flag each suspect pair of people; the flags made ([] for a table
    the measure does not read: not Bura, fewer than 3 players, no seed, a private or password table)."""
    game = load_game(row.game, **row.options)
    if not collusion.applies(game) or row.seed is None or private(row):
        return []
    history = [(a.seat, a.action) for a in sorted(actions, key=lambda a: a.seq)]
    measured = await asyncio.to_thread(collusion.feeding, game, row.seed, history, row.decks)
    people = seat_people(row, actions)
    flags = []
    for pair in collusion.suspects(measured):
        feeder, partner = people.get(pair.feeder), people.get(pair.partner)
        if feeder is None or partner is None:
            continue
        params = {"feeder": feeder["name"], "partner": partner["name"], "points": round(pair.excess),
                  "score": round(pair.score, 2), "feeder_seat": pair.feeder, "partner_seat": pair.partner,
                  "partner_id": partner["id"]}
        flags.append(await moderation.flag("collusion", feeder, row.id, "report.collusion", params))
    return flags
