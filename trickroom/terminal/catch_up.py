"""Coming back to a table after a drop: which journal messages are new, and what of the missed ones is said.

The client resumes each table with the last ``seq`` it saw; until the table's snapshot, the room sends the missed
messages (``missed``) while live ones may overtake them ("Mira is back." at the login). A missed message is new
unless its seq came live meanwhile; any other journal message is new if its seq is past the last one seen.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MISSED_SAID_AT_MOST = 4  # after a drop, missed sentences said as they came; more go to the history (one Bura trick)


@dataclass
class CatchUp:
    """A table resumed after a drop, until its snapshot."""

    after: int  # the seq the resume asked from
    live: set[int] = field(default_factory=set)  # the seqs that came live meanwhile
    missed: list[str] = field(default_factory=list)  # the missed sentences, held back
    quiet: bool = False  # a move to the table's node, not a drop: "Back at the table." is not said


def fresh(last_seq: dict[str, int], table: str, seq: int, catching: CatchUp | None, missed: bool) -> bool:
    """Whether the journal message ``seq`` of ``table`` is new (then ``last_seq`` and ``catching`` note it)."""
    last = last_seq.get(table, 0)
    if catching is not None and missed:
        if seq <= catching.after or seq in catching.live:
            return False
    elif seq <= last:
        return False
    elif catching is not None:
        catching.live.add(seq)
    last_seq[table] = max(last, seq)
    return True


def said_now(missed: list[str]) -> bool:
    """Whether the missed sentences are said as they came (a few), or kept for ``history`` and counted."""
    return len(missed) <= MISSED_SAID_AT_MOST
