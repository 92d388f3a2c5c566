"""Statistics and openskill ratings at the end of a match with at least two people.

Only accounts keep statistics; guests and bots count as players (and as people, for guests) but their ratings
are not stored: they enter each rating update as new players. Mpourloto is rated by teams (seats 0 and 2
against 1 and 3); Bura seat by seat. The ranking is the match's ``standings["order"]`` (seats for Bura,
teams for Mpourloto, best first). A match during which hints were on (``TableSettings.rated`` False) counts as
played and won, but changes no rating.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from openskill.models import PlackettLuce

from trickroom.server.store import Store

if TYPE_CHECKING:
    from trickroom.server.table_state import TableState


def teams_and_ranks(standings: dict[str, Any], seats: int) -> tuple[list[list[int]], list[int]]:
    """Seat groups and each group's rank (1 is best) from a match's standings."""
    order: list[int] = list(standings.get("order") or range(seats))
    if standings.get("kind") == "teams":
        groups = [list(team) for team in standings["teams"]]  # the game's teams, in its standings
    else:
        groups = [[seat] for seat in range(seats)]
    ranks = [order.index(i) + 1 if i in order else len(order) + 1 for i in range(len(groups))]
    return groups, ranks


def winners(standings: dict[str, Any]) -> set[int]:
    """Seats (Bura) or teams (Mpourloto) that won; empty when nobody did."""
    winner = standings.get("winner")
    if winner is None:
        return set()
    return set(winner) if isinstance(winner, list) else {int(winner)}


async def results_of(store: Store, table: TableState) -> list[tuple[int, bool, float, float]]:
    """(user id, won, new mu, new sigma) for each account that played ``table`` to its end (none with fewer than
    two people, or without accounts)."""
    people = {seat: s.user for seat, s in enumerate(table.seats) if s.user is not None}
    if len({user["id"] for user in people.values()}) < 2 or table.standings is None:
        return []
    accounts = {seat: int(user["id"][1:]) for seat, user in people.items() if not user["guest"]}
    if not accounts:
        return []
    groups, ranks = teams_and_ranks(table.standings, len(table.seats))
    won = winners(table.standings)
    model = PlackettLuce()
    known = await store.stats(sorted(set(accounts.values())), table.game_name)
    ratings = []
    for group in groups:
        team = []
        for seat in group:
            stat = known.get(accounts[seat]) if seat in accounts else None
            team.append(model.rating(mu=stat.mu, sigma=stat.sigma) if stat else model.rating())
        ratings.append(team)
    updated = model.rate(ratings, ranks=[float(r) for r in ranks])
    results: dict[int, tuple[int, bool, float, float]] = {}
    for index, group in enumerate(groups):
        for position, seat in enumerate(group):
            if seat in accounts:
                rating = updated[index][position] if table.settings.rated else ratings[index][position]
                is_winner = index in won if table.standings.get("kind") == "teams" else seat in won
                results[accounts[seat]] = (accounts[seat], is_winner, float(rating.mu), float(rating.sigma))
    return list(results.values())
