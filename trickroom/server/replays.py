"""Finished games for whoever may see them: a user's finished games, a replay hand by hand, the transcript, and
the hard bot's review of a hand (docs/replays.md, docs/protocol.md "Replays, reviews and hints").

These are answered from the database by the node that receives the request (a finished table belongs to no node),
with the access rule of ``history`` (``room.check_finished_access``: a private or password table is seen only by
its host, its invitees and the people who sat at it; to anyone else it is no table at all). The replay itself is
``narration/replay.py``, a pure function of the table's history, run in a thread since a long match is played
again from its first action.

A review is searched once per (table, hand, seat) and kept in the store (``reviews``): the first request starts it
in the background and hears that it is being prepared; whoever asks before it is done is answered when it is,
and later requests at once from the store. Its decisions go to the bot workers one at a time, and only while a
worker is free (``BotRunner.quiet``), so that the tables' bots and hints go first; a node keeps at most
``Settings.review_queue`` hands waiting and refuses more with ``busy``. During play a person may review their own
finished hands at a table with hints on; a finished game may be reviewed for any seat.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from trickroom.bots.advice import Advice, Decision, finished_hands, hand_decisions, mistakes
from trickroom.games import load_game
from trickroom.narration import title, translate
from trickroom.narration.advice import review_item_text, review_summary
from trickroom.narration.replay import History, game_line, replay, transcript
from trickroom.server.dispatch import USER, Requests
from trickroom.server.errors import error_message
from trickroom.server.messages import Games, Review, Stats, Transcript, UserSummary
from trickroom.server.messages import History as HistoryMessage
from trickroom.server.messages import Replay as ReplayMessage
from trickroom.server.protocol import (
    GamesRequest,
    HistoryRequest,
    Message,
    ProtocolError,
    ReplayRequest,
    Resume,
    ReviewRequest,
    StatsRequest,
    TranscriptRequest,
    number_in,
    replying,
)
from trickroom.server.rows import TableRow
from trickroom.server.table_parts import FINISHED, PAUSED, PLAYING, Entry, Listener, Member
from trickroom.server.table_render import render
from trickroom.server.table_requests import ban_entries

if TYPE_CHECKING:
    from trickroom.server.connection import Connection
    from trickroom.server.room import Room

log = logging.getLogger("trickroom.replays")


@dataclass
class PendingReview:
    """A hand being reviewed, and who waits for it (their connection, language and request id)."""

    task: asyncio.Task[None] | None = None
    waiting: list[tuple[Connection, Any]] = field(default_factory=list)


class Replays:
    def __init__(self, room: Room) -> None:
        self.room = room
        self.reviewing: dict[tuple[int, int, int], PendingReview] = {}
        self.one_at_a_time = asyncio.Lock()  # review decisions search one after another on a node

    # Statistics and a finished table's history

    async def send_stats(self, conn: Connection, msg: StatsRequest) -> None:
        """A player's games played and won and rating per game (accounts only: guests keep no statistics)."""
        ref = msg.user or conn.me["id"]
        user = await self.room.find_user(ref)
        if user is None:
            raise ProtocolError("unknown_user", name=ref[:40])
        games: dict[str, Message] = {}
        if not user["guest"]:
            for stat in await self.room.store.user_stats(int(user["id"][1:])):
                games[stat.game] = {"played": stat.played, "won": stat.won,
                                    "rating": round(stat.mu - 3 * stat.sigma, 2),
                                    "mu": round(stat.mu, 3), "sigma": round(stat.sigma, 3)}
        conn.send(replying(Stats(type="stats", user=cast(UserSummary, user), games=games), msg.id))

    async def send_history(self, conn: Connection, msg: HistoryRequest) -> None:
        """A finished table's options, seed, decks and action log (enough to replay it with ``Game.replay``) and its
        chat; ``event_seq`` and the chat's ``seq`` are table journal numbers, which put the two in order."""
        store = self.room.store
        number = number_in(msg.table, "t")
        row = await store.table(number) if number is not None else None
        if row is None:
            raise ProtocolError("no_table")
        check_finished_access(row, conn.me)  # to a stranger, a private table is no table at all
        if row.status != FINISHED:
            raise ProtocolError("not_finished")
        logged = await store.actions(row.id)
        said = await store.chat(row.id)
        reply = HistoryMessage(
            type="history", table=msg.table, game=row.game, options=dict(row.options), name=row.settings.get("name"),
            seed=row.seed, seed_text=str(row.seed), decks=row.decks,
            seats=[{"seat": i, "user": (s or {}).get("user"), "bot": (s or {}).get("bot")}
                   for i, s in enumerate(row.seats)],
            actions=[{"seq": a.seq, "seat": a.seat, "action": a.action, "actor": a.actor, "event_seq": a.event_seq}
                     for a in logged],
            chat=[{"seq": c.seq, "from": c.sender, "message": c.message} for c in said],
            standings=row.standings, finished_at=_iso(row))
        conn.send(replying(reply, msg.id))

    async def resume_finished(self, conn: Connection, msg: Resume) -> None:
        """``resume`` of a table that finished while the client was away (or the server was down) and that no
        node holds any more: what it missed of the journal the database keeps (the last two hands' events and
        the chat) and, if it missed the end, the ``finished`` table event; then the final snapshot. The same
        people may see it as may read its ``history``; a banned user gets ``banned``."""
        user = conn.me
        number = number_in(msg.table, "t")
        row = await self.room.store.table(number) if number is not None else None
        if row is None or row.status != FINISHED:
            raise ProtocolError("no_table")
        check_finished_access(row, user)
        if not set(row.banned).isdisjoint(ban_entries(user)):
            raise ProtocolError("banned")
        table, last_action = await self.room.ownership.rebuilt(row)
        state = table.state
        member = Member(user, conn.lang)
        missed = [entry for entry in state.journal if entry.seq > msg.after]
        if last_action and msg.after < last_action[-1].seq:
            missed.append(Entry(state.next_seq, "table_event",
                                {"kind": "finished", "params": {}, "standings": state.standings}))
            state.next_seq += 1
        listener, scene = Listener(user["id"], state.seat_of(user["id"]), conn.lang), state.scene(with_info=True)
        for entry in missed:
            message = render(entry, listener, scene, missed=True)
            if message is not None:
                message["missed"] = True
                conn.send(message)
        conn.send(replying(state.snapshot(member), msg.id))

    # Reading a table

    async def row(self, table_id: str, user: Message, live: bool = False) -> TableRow:
        """The table's row if ``user`` may see its game: finished (or, with ``live``, in play)."""
        number = number_in(table_id, "t")
        row = await self.room.store.table(number) if number is not None else None
        if row is None:
            raise ProtocolError("no_table")
        check_finished_access(row, user)  # to a stranger, a private table is no table at all
        if row.status != FINISHED and not (live and row.status in (PLAYING, PAUSED)):
            raise ProtocolError("not_finished")
        if row.seed is None:
            raise ProtocolError("not_finished")
        return row

    async def history(self, row: TableRow) -> History:
        logged = await self.room.store.actions(row.id)
        said = await self.room.store.chat(row.id)
        seats = [s or {} for s in row.seats]
        return History(game=row.game, options=dict(row.options), seed=int(row.seed or 0),
                       actions=tuple((a.seat, a.action) for a in logged),
                       names=tuple((s.get("user") or {}).get("name") for s in seats), decks=row.decks,
                       name=str(row.settings.get("name") or ""),
                       finished_at=row.finished_at.isoformat() if row.finished_at else None,
                       users=tuple((s.get("user") or {}).get("id") for s in seats),
                       event_seqs=tuple(a.event_seq for a in logged),
                       chat=tuple((c.seq, str(c.sender.get("name", "")), c.message) for c in said))

    # A user's finished games

    async def send_games(self, conn: Connection, user: Message, msg: GamesRequest) -> None:
        ref = msg.user or user["id"]
        listed = await self.room.find_user(ref) if msg.user else user
        if listed is None:
            raise ProtocolError("unknown_user", name=ref[:40])
        entries: list[Message] = []
        for row in await self.room.store.games_of(listed["id"], msg.limit):
            try:
                check_finished_access(row, user)
            except ProtocolError:
                continue  # a private game of someone else's: not listed
            seats = [s or {} for s in row.seats]
            names = [(s.get("user") or {}).get("name") for s in seats]
            mine = next((i for i, s in enumerate(seats) if (s.get("user") or {}).get("id") == user["id"]), None)
            entries.append({
                "table": f"t{row.id}", "game": row.game, "title": title(row.game, conn.lang),
                "name": row.settings.get("name"), "finished_at": _iso(row),
                "seats": [{"seat": i, "user": s.get("user"), "bot": s.get("bot")} for i, s in enumerate(seats)],
                "you": mine, "standings": row.standings,
                "text": game_line(row.game, title(row.game, conn.lang), row.standings, names, mine, conn.lang)})
        conn.send(replying(Games(type="games", user=cast(UserSummary, listed), games=entries), msg.id))

    # A replay, one hand at a time

    async def send_replay(self, conn: Connection, user: Message, msg: ReplayRequest) -> None:
        row = await self.row(msg.table, user)
        history = await self.history(row)
        seat = history.seat_of(user["id"])
        told = await asyncio.to_thread(replay, history, seat, conn.lang, msg.hand)
        if msg.hand > len(told.hands):
            raise ProtocolError("no_hand", hand=msg.hand)
        game = load_game(row.game, **row.options)
        seats = [{"seat": i, "name": told.names[i], "user": (s or {}).get("user"), "bot": (s or {}).get("bot"),
                  "team": game.team_of(i)} for i, s in enumerate(row.seats)]
        # The game's part of the message is the replay's own (narration.replay.Replay.to_json, which the
        # terminal's offline replays use too).
        reply = cast(ReplayMessage, {"type": "replay", "table": msg.table, "game": row.game,
                                     "title": title(row.game, conn.lang), "name": history.name,
                                     "finished_at": _iso(row), **told.to_json(), "seats": seats, "hand": msg.hand})
        conn.send(replying(reply, msg.id))

    async def send_transcript(self, conn: Connection, user: Message, msg: TranscriptRequest) -> None:
        row = await self.row(msg.table, user)
        history = await self.history(row)
        text = await asyncio.to_thread(transcript, history, history.seat_of(user["id"]), conn.lang)
        conn.send(replying(Transcript(type="transcript", table=msg.table, text=text), msg.id))

    # The review of a hand

    async def send_review(self, conn: Connection, user: Message, msg: ReviewRequest) -> None:
        row = await self.row(msg.table, user, live=True)
        history = await self.history(row)
        own = history.seat_of(user["id"])
        seat = msg.seat if msg.seat is not None else own
        if seat is None or not 0 <= seat < len(row.seats):
            raise ProtocolError("bad_seat", seats=len(row.seats))
        if row.status != FINISHED and (seat != own or not row.settings.get("hints")):
            raise ProtocolError("review_live")  # during play: your own hands, at a table with hints on
        game = load_game(row.game, **row.options)
        done = await asyncio.to_thread(finished_hands, game, history.seed, history.decks, history.actions)
        hand = msg.hand if msg.hand is not None else done
        if not 1 <= hand <= done:
            raise ProtocolError("no_hand", hand=hand)
        key = (row.id, hand, seat)
        kept = await self.room.store.review(*key)
        if kept is not None:
            self.answer(conn, msg.id, msg.table, hand, seat, list(kept.items))
            return
        pending = self.reviewing.get(key)
        if pending is None:
            if len(self.reviewing) >= self.room.settings.review_queue:
                raise ProtocolError("busy")
            decisions = await asyncio.to_thread(hand_decisions, game, history.seed, history.decks,
                                                history.actions, hand, seat)
            pending = self.reviewing[key] = PendingReview()
            pending.task = asyncio.get_running_loop().create_task(self.review(key, row, decisions or []))
        pending.waiting.append((conn, msg.id))
        conn.send(self.message(conn.lang, msg.id, msg.table, hand, seat, None))

    async def review(self, key: tuple[int, int, int], row: TableRow, decisions: list[Decision]) -> None:
        table_id, hand, seat = key
        settings, bots = self.room.settings, self.room.bots
        items: list[dict[str, Any]] | None = None
        try:
            advices = []
            for decision in decisions:
                await bots.quiet()  # a worker is free: the tables' own searches go first
                async with self.one_at_a_time:
                    advice = await bots.advise(row.game, dict(row.options), seat, decision.view,
                                               decision.events, decision.legal, review_seed(row, decision.move),
                                               settings.review_budget, settings.advice_worlds)
                advices.append(Advice.from_json(advice))
            items = mistakes(decisions, advices)
            await self.room.store.save_review(table_id, hand, seat, items, settings.review_budget)
        except Exception:
            log.exception("the review of t%s hand %s seat %s failed", table_id, hand, seat)
        finally:
            pending = self.reviewing.pop(key, PendingReview())
        for conn, re in pending.waiting:
            if items is None:
                conn.send(error_message(ProtocolError("internal"), conn.lang, re, table=f"t{table_id}"))
            else:
                self.answer(conn, re, f"t{table_id}", hand, seat, items)

    def answer(self, conn: Connection, re: Any, table: str, hand: int, seat: int, items: list[Any]) -> None:
        conn.send(self.message(conn.lang, re, table, hand, seat, items))

    @staticmethod
    def message(lang: str, re: Any, table: str, hand: int, seat: int, items: list[Any] | None) -> Review:
        """The review as its reader hears it; ``items`` None: still being searched."""
        message = Review(type="review", table=table, hand=hand, seat=seat,
                         status="computing" if items is None else "ready", items=[],
                         text=translate("review.computing", lang, hand=hand))
        if items is not None:
            message["items"] = [{**item, "text": review_item_text(item, lang)} for item in items]
            message["text"] = review_summary(hand, items, lang)
        if re is not None:
            message["re"] = re
        return message

    def stop(self) -> None:
        for pending in self.reviewing.values():
            if pending.task is not None:
                pending.task.cancel()


def check_finished_access(row: TableRow, user: Message) -> None:
    """A finished private or password table is seen (``history``, ``resume``, replays) only by its host, its
    invitees and the people who sat at it: anyone else gets ``no_table``, as for a table that does not exist."""
    seated = {seat["user"]["id"] for seat in row.seats if seat and seat.get("user")}
    allowed = seated | set(row.invited) | {row.host["id"]}
    if (row.settings.get("private") or row.settings.get("password_hash")) and user["id"] not in allowed:
        raise ProtocolError("no_table")


def _iso(row: TableRow) -> str | None:
    return row.finished_at.isoformat() + "Z" if row.finished_at else None


def review_seed(row: TableRow, move: int) -> int:
    """A reviewed decision's search seed: the game's own seed and the move, so that a game's review has the same
    numbers wherever and whenever it is searched (table ids are random, and a review seeded by them was not)."""
    return (row.seed if row.seed is not None else row.id) + move


# Client messages


async def on_stats(room: Room, conn: Connection, msg: StatsRequest) -> None:
    await room.replays.send_stats(conn, msg)


async def on_history(room: Room, conn: Connection, msg: HistoryRequest) -> None:
    await room.replays.send_history(conn, msg)


async def on_games(room: Room, conn: Connection, msg: GamesRequest) -> None:
    await room.replays.send_games(conn, conn.me, msg)


async def on_replay(room: Room, conn: Connection, msg: ReplayRequest) -> None:
    await room.replays.send_replay(conn, conn.me, msg)


async def on_transcript(room: Room, conn: Connection, msg: TranscriptRequest) -> None:
    await room.replays.send_transcript(conn, conn.me, msg)


async def on_review(room: Room, conn: Connection, msg: ReviewRequest) -> None:
    await room.replays.send_review(conn, conn.me, msg)


REQUESTS: Requests = {StatsRequest: (USER, on_stats), HistoryRequest: (USER, on_history),
                      GamesRequest: (USER, on_games), ReplayRequest: (USER, on_replay),
                      TranscriptRequest: (USER, on_transcript), ReviewRequest: (USER, on_review)}
