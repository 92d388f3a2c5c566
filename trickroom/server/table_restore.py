"""A table rebuilt from the store, after a restart or when another node's table is taken over.

There is no save format: the row, the action log and the chat are the table's whole truth. The match is played
again from its seed and logged actions, each event given back its journal number, the chat put back between
them (:func:`replay_log`); then the ``Restored`` step (:func:`restored`) makes the node its owner: the people
still online follow it again, the others have the grace period, bots and timers start, a match whose last
logged action ended it is finished, and the members hear where the game stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from trickroom.server import table_jobs as jobs
from trickroom.server.protocol import Message
from trickroom.server.table_parts import (
    FINISHED,
    PAUSED,
    PLAYING,
    Announce,
    CloseTable,
    Entry,
    Job,
    Restored,
    Wait,
)

if TYPE_CHECKING:
    from trickroom.server.table_state import TableState

SEQ_GAP = 1000  # a rebuilt table numbers on from its last kept entry + this: past any table event


def replay_log(state: TableState, first_event_seq: int | None, actions: Sequence[tuple[int, str, int]],
               chat: Sequence[tuple[int, Message, str]]) -> tuple[Entry, ...]:
    """On a state just made from its row: the match again from its seed and logged actions (seat, action,
    journal seq of its first event), each event with its journal number, the chat between them. Returns the
    entries of the last logged action."""
    journal = [Entry(seq, "chat", {"from": sender, "message": message}) for seq, sender, message in chat]
    last: list[Entry] = []
    if state.status in (PLAYING, PAUSED, FINISHED) and state.seed is not None:
        match = state.game.new_match(seed=state.seed, decks=state.decks)
        seq = first_event_seq or 1
        journal.extend(Entry(seq + i, "event", event) for i, event in enumerate(match.events))
        for seat, action, event_seq in actions:
            new = match.apply(seat, action)
            last = [Entry(event_seq + i, "event", event) for i, event in enumerate(new)]
            journal.extend(last)
        state.match = match
    # Chat and game events each come in seq order; together they interleave as they were said and played.
    state.journal = sorted(journal, key=lambda entry: entry.seq)
    next_seq = max((entry.seq + 1 for entry in state.journal), default=0)  # one past the last kept entry
    state.forget_old_hands()  # the replay rebuilt every hand; memory keeps the last two, as in play
    # Table events after the last kept entry were not kept: number past any of them.
    state.next_seq = next_seq + SEQ_GAP
    return tuple(last)


def restored(state: TableState, restored: Restored) -> None:
    """Own the table here: the people still online keep following it, the others have the grace period to
    come back; bots and timers start again, and the members hear where the game stands."""
    for member in restored.members:
        state.members[member.user["id"]] = member
    for index, seat in enumerate(state.seats):
        if seat.user is not None:
            state.seats[index] = replace(seat, connected=seat.user["id"] in state.members)
    last = restored.unannounced
    if state.match is not None and state.match.is_over and state.status in (PLAYING, PAUSED):
        # The last logged action ended the match, and its owner died before writing the end: end it now.
        announce_again(state, last)
        state.finish()
        last = ()
    for index, seat in enumerate(state.seats):
        if seat.user is not None and not seat.connected and state.status in (PLAYING, PAUSED):
            state.start_timer(Job(Wait.GRACE, index), state.now + state.config.grace_seconds)
    jobs.schedule(state)
    if state.match is not None and state.status in (PLAYING, PAUSED) and state.members:
        # A dead owner may have written its last action and died before announcing it: its events go out
        # again (clients drop journal messages whose seq they already have), then the state.
        announce_again(state, last)
        state.send_updates(set(state.match.to_act))  # the game goes on from here
    if state.status == FINISHED and not state.members:
        state.emit(CloseTable())  # nobody is left at it to hear anything
        return
    if state.status == FINISHED and last and state.match is not None:
        # The owner died holding a finished table (orphan_tables), perhaps after writing the end and before
        # announcing it: the last action's events and the end go out again, the end with the number it had (the
        # entry right after the last action's events), so a client that heard them drops them.
        end = Entry(last[-1].seq + 1, "table_event", {"kind": "finished", "params": {}, "standings": state.standings})
        state.journal = sorted([*state.journal, end], key=lambda entry: entry.seq)
        announce_again(state, (*last, end))
        state.send_updates(set())
    state.publish_listing()


def announce_again(state: TableState, entries: Sequence[Entry]) -> None:
    """Send ``entries`` to every member again, marked ``missed`` (as ``resume`` does)."""
    for entry in entries:
        state.emit(Announce(entry, state.listeners(), state.scene(with_info=entry.kind == "table_event"),
                            missed=True))
