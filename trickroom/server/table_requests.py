"""The requests a table answers, and people coming and going: admission and seats, the members' chat,
actions, standing up and leaving, and the host's powers (options, settings, bots, start, pause, kick, ban, host,
invite).

Each is a function of the :class:`~trickroom.server.table_state.TableState` being stepped: it changes that
state and emits its effects, or raises :class:`~trickroom.server.protocol.ProtocolError` (the step is then
thrown away: a refused request changes nothing). :data:`REQUESTS` says who may send each message and which
function answers it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal, cast

from trickroom.bots.advice import Advice
from trickroom.games import Game, OptionError, game_class, load_game
from trickroom.narration import LANGUAGES, describe, refusal, titles, translate
from trickroom.narration.advice import hint_text
from trickroom.server import table_jobs as jobs
from trickroom.server.errors import error_message
from trickroom.server.messages import HintMessage, Invited, Left, TableNode, UserSummary, ok
from trickroom.server.protocol import (
    Act,
    Ban,
    BotAdd,
    BotRemove,
    Chat,
    ClientMessage,
    CloseTableRequest,
    Hint,
    Host,
    Invite,
    Kick,
    Leave,
    Message,
    Pause,
    ProtocolError,
    Resume,
    SetOptions,
    SetSettings,
    Sit,
    Stand,
    Start,
    Watch,
)
from trickroom.server.table_parts import (
    CLOSED,
    FINISHED,
    PAUSED,
    PLAYING,
    WAITING,
    Announce,
    AskHint,
    CloseTable,
    HintAnswered,
    Job,
    KeepChat,
    Listener,
    Member,
    Request,
    SaveRow,
    Seat,
    Tell,
    Wait,
)

if TYPE_CHECKING:
    from trickroom.server.table_state import TableState

log = logging.getLogger("trickroom.table")

NAME_BAN = "name:"  # a ``banned`` entry for a guest's nickname (lower-cased); the others are user ids
ANYONE, MEMBER, HOST = "anyone", "member", "host"  # who may send a request


def ban_entries(user: Message) -> set[str]:
    """What a ban of ``user`` holds: their id, and for a guest (who gets a new id at each login) the nickname."""
    return {user["id"], NAME_BAN + user["name"].lower()} if user.get("guest") else {user["id"]}


def already_applied(game: type[Game], actions: Sequence[tuple[int, str]], seat: int, move: int,
                    action: str) -> bool:
    """Whether ``action``, sent by ``seat`` on the state after ``move`` actions, is one the log already holds:
    the seat's first action after that state is this one, however spelled (the game's canonical spelling). A
    client that did not hear its act answered (its node went away) sends the same act with the same ``move``
    again; this makes the second one harmless, in whichever order the two arrive."""
    for acting, logged in actions[move:]:
        if acting == seat:
            return game.canonical_action(logged) == game.canonical_action(action)
    return False


def answer(state: TableState, request: Request) -> None:
    """Answer one request: who may send it, then its function; an ``ok`` for a request with an id that gets no
    other reply."""
    msg, uid = request.msg, request.user["id"]
    member = state.members.get(uid)
    if member is not None:
        state.members[uid] = replace(member, lang=request.lang)
    role, handler = REQUESTS[type(msg)]
    if role != ANYONE and uid not in state.members:
        stranger = state.settings.private and uid not in state.invited and uid != state.host["id"]
        raise ProtocolError("no_table" if stranger else "not_member")
    if role == HOST and state.host["id"] != uid:
        raise ProtocolError("not_host")
    handler(state, request, msg)
    if msg.id is not None and not isinstance(msg, Watch | Sit | Resume | Hint):
        state.tell(uid, ok(msg.id, state.id), request.conn)


# Coming in


def check_admission(state: TableState, user: Message, password: str | None, password_ok: bool,
                    moderator: bool = False) -> None:
    if state.status == CLOSED:
        raise ProtocolError("no_table")
    if moderator:  # a moderator watches any table: private, password and the table's bans do not apply
        return
    if state.is_banned(user):
        raise ProtocolError("banned")
    if state.knows(user["id"]):
        return
    if state.settings.private:
        raise ProtocolError("no_table")  # to a stranger, a private table is no table at all
    if state.settings.password_hash is not None and not (password and password_ok):
        raise ProtocolError("wrong_password", "error.wrong_password" if password else "error.need_password")


def admit(state: TableState, request: Request, msg: Watch | Sit) -> None:
    user, uid = request.user, request.user["id"]
    check_admission(state, user, msg.password, request.password_ok, request.moderator and isinstance(msg, Watch))
    new_member = uid not in state.members
    # (A refused request leaves the state as it was: the member is theirs only if the step goes through.)
    state.members[uid] = Member(user, request.lang, request.auto_pass, request.conn)
    if isinstance(msg, Sit):
        current = state.seat_of(uid)
        seat = msg.seat if msg.seat is not None else current
        if seat is not None and not 0 <= seat < len(state.seats):
            raise ProtocolError("bad_seat", seats=len(state.seats))
        if seat is None or current != seat:
            if state.status != WAITING:
                raise ProtocolError("already_started")
            if seat is None:
                seat = first_free_seat(state)
            else:
                require_free_seat(state, seat)
            if current is not None:
                state.seats[current] = Seat()
            state.seats[seat] = Seat(user=user, connected=True)
            state.invited.discard(uid)
            state.save()
            state.table_event("sat", user, seat)
    elif new_member:  # a moderator's watch is said as such: "A moderator is watching." (docs/moderation.md)
        state.table_event("moderator_watching" if request.moderator else "joined", user)
    reply = state.snapshot(state.members[uid])
    if msg.id is not None:
        reply["re"] = msg.id
    state.tell(uid, reply, request.conn)
    state.publish_listing()
    if isinstance(msg, Sit):
        tell_table_node(state, uid)


def resume(state: TableState, request: Request, msg: Resume) -> None:
    user, uid, conn = request.user, request.user["id"], request.conn
    # A spectator stops watching when they leave the room (presence), so one whose connection dropped, or
    # whose node restarted, comes back as a stranger: let them watch again if they still may.
    watching_again = uid not in state.members and state.seat_of(uid) is None
    if watching_again:
        check_admission(state, user, None, False)
        state.table_event("joined", user)
    member = (replace(state.members[uid], lang=request.lang, auto_pass=request.auto_pass, conn=conn)
              if uid in state.members
              else Member(user, request.lang, request.auto_pass, request.conn))
    state.members[uid] = member
    missed = [entry for entry in state.journal if entry.seq > msg.after]
    if missed:
        listener, scene = (Listener(uid, state.seat_of(uid), member.lang),), state.scene(with_info=True)
        for entry in missed:
            state.emit(Announce(entry, listener, scene, missed=True, conn=conn))
    seat = state.seat_of(uid)
    if seat is not None:
        reconnected(state, seat)
    snapshot = state.snapshot(member)
    if msg.id is not None:
        snapshot["re"] = msg.id  # the direct answer to the resume
    state.tell(uid, snapshot, conn)
    if (seat is not None and state.match is not None and state.status == PLAYING
            and seat in state.match.to_act and state.person_plays(seat)):
        state.tell(uid, state.your_turn(seat, member.lang), conn)
    if watching_again:
        state.publish_listing()
    if seat is not None:
        tell_table_node(state, uid)


def tell_table_node(state: TableState, uid: str) -> None:
    """Tell a seated player connected to another node (their member's ``conn``) this table's node, so that a
    client that moves there spares the match a crossing between nodes for every message: when they sit down or
    come back to their seat (``resume``), after the answer, and again as each new hand begins while they are still
    elsewhere (a client that could not move then). Spectators are not told: they come and go. One node tells
    nobody."""
    config, member = state.config, state.members.get(uid)
    conn = member.conn if member is not None else None
    if not config.node_url or conn is None or conn.partition("/")[0] == config.node:
        return
    state.tell(uid, TableNode(type="table_node", table=state.id, node=config.node, url=config.node_url), conn)


def presence(state: TableState, user: Message, online: bool) -> None:
    seat = state.seat_of(user["id"])
    if seat is None:
        if not online and user["id"] in state.members:
            del state.members[user["id"]]  # a spectator who left the room stops watching
            state.table_event("left", user)
            state.publish_listing()
        return
    if online:
        reconnected(state, seat)
        return
    s = state.seats[seat]
    if not s.connected:
        return
    state.seats[seat] = replace(s, connected=False)
    state.table_event("disconnected", s.user, seat)
    if state.status in (PLAYING, PAUSED):
        state.start_timer(Job(Wait.GRACE, seat), state.now + state.config.grace_seconds)


def reconnected(state: TableState, seat: int) -> None:
    state.cancel(Job(Wait.GRACE, seat))
    s = state.seats[seat]
    if s.connected and not s.replaced:
        return
    state.seats[seat] = replace(s, connected=True, replaced=False)
    state.table_event("took_back" if s.replaced else "reconnected", s.user, seat)
    state.cancel(Job(Wait.BOT, seat))
    jobs.schedule(state)


# Members' requests


def on_chat(state: TableState, request: Request, msg: Chat) -> None:
    # Chat is kept as an action is: in the database before anyone hears it, so that a restart restores it.
    data = {"from": request.user, "message": msg.message}
    state.emit(KeepChat(state.next_seq, request.user, msg.message))
    state.record("chat", data)


def require_play(state: TableState) -> None:
    """Acting (and asking for a hint) needs a game in play."""
    if state.status == WAITING:
        raise ProtocolError("not_started")
    if state.status == FINISHED:
        raise ProtocolError("finished")
    if state.status == PAUSED:
        raise ProtocolError("paused")


def on_act(state: TableState, request: Request, msg: Act) -> None:
    seat = state.seat_of(request.user["id"])
    require_play(state)
    assert state.match is not None
    if seat is None:
        raise ProtocolError("not_your_turn")
    if state.seats[seat].replaced:
        reconnected(state, seat)  # acting is the surest sign the person is back
    if msg.move is not None and already_applied(type(state.game), state.match.actions, seat, msg.move, msg.action):
        return  # the same act sent again (a reconnect, a node's hand-over): acknowledged, not applied twice
    state.apply(seat, msg.action, request.user["id"])


def on_hint(state: TableState, request: Request, msg: Hint) -> None:
    """Ask the hard bot for the sender's move, with the seat's view and the events it saw (a bot's question): the
    shell runs it off the event loop, or refuses it when the bot workers are busy."""
    require_play(state)
    if not state.settings.hints:
        raise ProtocolError("hints_off")
    assert state.match is not None
    seat = state.seat_of(request.user["id"])
    if seat is None or seat not in state.match.to_act or not state.person_plays(seat):
        raise ProtocolError("not_your_turn")
    state.emit(AskHint(Job(Wait.HINT, seat), jobs.bot_question(state, seat, "hard"), request.user["id"], request.conn,
                       msg.id))


def hint_answered(state: TableState, answered: HintAnswered) -> None:
    """The hint, in the asker's language, if the game still waits for the same decision."""
    ask, match = answered.ask, state.match
    question, lang = ask.question, state.lang_of(ask.user)
    if match is None or len(match.actions) != question.move or question.seat not in match.to_act:
        state.tell(ask.user, error_message(ProtocolError("moved_on"), lang, ask.re, state.id), ask.conn)
        return
    if answered.advice is None:  # the search failed (logged by the shell)
        state.tell(ask.user, error_message(ProtocolError("internal"), lang, ask.re, state.id), ask.conn)
        return
    advice = Advice.from_json(answered.advice)
    reply: HintMessage = {"type": "hint", "table": state.id, "seq": state.next_seq - 1, "move": question.move,
                      "action": advice.action, "text": hint_text(state.game_name, advice, lang)}
    if ask.re is not None:
        reply["re"] = ask.re
    state.tell(ask.user, reply, ask.conn)


def on_stand(state: TableState, request: Request, msg: Stand) -> None:
    seat = state.seat_of(request.user["id"])
    if seat is not None:
        vacate(state, seat, request.user, "stood")


def on_leave(state: TableState, request: Request, msg: Leave) -> None:
    remove_member(state, request.user, "left")


def vacate(state: TableState, seat: int, user: Message, kind: str) -> None:
    """The person leaves ``seat``: before the start it is free again; during play a bot takes it; after the end
    it stays theirs (the finished game's record: who played it, whose history and replay it is)."""
    if state.status == FINISHED:
        state.table_event(kind, user, seat)
        return
    if state.status in (PLAYING, PAUSED):
        state.seats[seat] = Seat(bot=state.config.replacement_level)
    else:
        state.seats[seat] = Seat()
    state.cancel(Job(Wait.GRACE, seat))
    state.save()
    state.table_event(kind, user, seat)
    jobs.schedule(state)


def remove_member(state: TableState, user: Message, reason: Literal["left", "kicked", "banned"]) -> None:
    uid = user["id"]
    seat = state.seat_of(uid)
    lang = state.lang_of(uid)
    was_member = state.members.pop(uid, None) is not None
    if seat is not None:
        vacate(state, seat, user, reason)
    elif was_member or reason in ("kicked", "banned"):
        state.table_event(reason, user)
    state.tell(uid, Left(type="left", table=state.id, reason=reason,
                         text=translate(f"you.{reason}", lang, table=state.settings.name)))
    if uid == state.host["id"]:
        pass_host(state)
    close_if_empty(state)
    state.publish_listing()


def pass_host(state: TableState) -> None:
    """The host left: the role goes to a seated person, else a spectator; an empty table closes."""
    candidates = [s.user for s in state.seats if s.user is not None] + [m.user for m in state.members.values()]
    if candidates:
        state.host = candidates[0]
        state.save()
        state.table_event("host", state.host)


def close_if_empty(state: TableState) -> None:
    if state.members or (state.status != FINISHED and any(s.user is not None for s in state.seats)):
        return
    # Nobody is left: a table that never started, or a game only bots were still playing, closes (its log
    # stays in the database); a finished one keeps its status.
    if state.status != FINISHED:
        state.status = CLOSED
    state.save()
    state.cancel_all()
    state.emit(CloseTable())


def on_close_table(state: TableState, request: Request, msg: CloseTableRequest) -> None:
    """A moderator closes the table (the room checked the role): every member and seated person hears why, in
    their ``left`` message; a game in play ends without results (its log stays in the database)."""
    if not request.moderator:
        raise ProtocolError("not_moderator")
    people = {uid: member.user for uid, member in state.members.items()}
    people.update({s.user["id"]: s.user for s in state.seats if s.user is not None and s.user["id"] not in people})
    for uid in people:  # the sentence is made where it is delivered, in each reader's language
        state.emit(Tell(uid, Left(type="left", table=state.id, reason="closed"),
                        say={"key": "you.closed", "params": {"table": state.settings.name, "reason": msg.reason}}))
    state.members.clear()
    if state.status != FINISHED:
        state.status = CLOSED
    state.save()
    state.cancel_all()
    state.emit(CloseTable())


# Host's requests


def require_waiting(state: TableState) -> None:
    if state.status != WAITING:
        raise ProtocolError("already_started")


def on_options(state: TableState, request: Request, msg: SetOptions) -> None:
    require_waiting(state)
    try:
        options = game_class(state.game_name).validate_options({**state.options, **msg.options})
        game = load_game(state.game_name, **options)
    except OptionError as exc:
        raise ProtocolError("bad_options", _text=refusal(exc, request.lang)) from None
    state.options, state.game = options, game
    if game.players < len(state.seats):
        state.seats = state.seats[:game.players]  # people in removed seats stay as spectators
    state.seats.extend(Seat() for _ in range(game.players - len(state.seats)))
    state.save()
    state.table_event("options", request.user, text={lang: describe(game, lang) for lang in LANGUAGES})
    state.publish_listing()


def on_settings(state: TableState, request: Request, msg: SetSettings) -> None:
    changes = dict[str, Any]()  # the timer's and bot delay's ranges were checked with the message (protocol.py)
    if msg.timer is not None:
        changes["timer"] = msg.timer
    if msg.bot_delay is not None:
        changes["bot_delay"] = msg.bot_delay
    if msg.name:
        changes["name"] = msg.name
    if msg.private is not None:
        changes["private"] = msg.private
    if msg.hints is not None:
        changes["hints"] = msg.hints
        if msg.hints and state.status in (PLAYING, PAUSED):
            changes["rated"] = False  # hints during play: this match changes no rating
    if "password" in msg.model_fields_set:  # an empty or null one takes the password away
        changes["password_hash"] = request.password_hash if msg.password else None
    state.settings = replace(state.settings, **changes)
    state.save()
    state.table_event("settings", request.user)
    state.publish_listing()


def first_free_seat(state: TableState) -> int:
    """The seat of a request that names none (a join, a bot added): the first free one, or ``seat_taken``."""
    for seat, held in enumerate(state.seats):
        if held.free:
            return seat
    raise ProtocolError("seat_taken", "error.no_free_seat")


def require_free_seat(state: TableState, seat: int) -> None:
    if not 0 <= seat < len(state.seats):
        raise ProtocolError("bad_seat", seats=len(state.seats))
    if not state.seats[seat].free:
        raise ProtocolError("seat_taken", number=seat + 1)


def on_bot_add(state: TableState, request: Request, msg: BotAdd) -> None:
    require_waiting(state)
    if msg.level not in state.config.bot_levels:
        raise ProtocolError("bad_level", level=msg.level[:20])
    seat = msg.seat if msg.seat is not None else first_free_seat(state)
    require_free_seat(state, seat)
    state.seats[seat] = Seat(bot=msg.level)
    state.save()
    state.table_event("bot_added", seat=seat, level=msg.level)
    state.publish_listing()


def on_bot_remove(state: TableState, request: Request, msg: BotRemove) -> None:
    require_waiting(state)
    if not 0 <= msg.seat < len(state.seats) or state.seats[msg.seat].bot is None:
        raise ProtocolError("bad_seat", seats=len(state.seats))
    state.seats[msg.seat] = Seat()
    state.save()
    state.table_event("bot_removed", seat=msg.seat)
    state.publish_listing()


def on_start(state: TableState, request: Request, msg: Start) -> None:
    require_waiting(state)
    if any(s.free for s in state.seats):
        raise ProtocolError("not_ready")
    match = state.begin_match()
    if state.settings.hints:
        state.settings = replace(state.settings, rated=False)  # a match with hints changes no rating
    state.status = PLAYING  # before the announcement, so that its info says "playing"
    first = state.next_seq + 1  # the match's events follow the "started" announcement
    state.emit(SaveRow(seed=state.seed, first_event_seq=first))
    log.info("table %s started", state.id, extra={"table": state.id})
    state.table_event("started")
    for event in match.events:
        state.record("event", event)
    state.after_change(None)
    state.publish_listing()


def on_pause(state: TableState, request: Request, msg: Pause) -> None:
    if state.status in (WAITING, FINISHED):
        raise ProtocolError("not_started")
    if msg.paused:
        if state.status == PLAYING and not state.pause_requested:
            state.pause_requested = True
            state.save()  # a restart keeps the request
            state.table_event("pause_requested")
        return
    if state.pause_requested:
        state.pause_requested = False
        if state.status != PAUSED:
            state.save()
            state.table_event("pause_cancelled")
    if state.status == PAUSED:
        state.status = PLAYING
        state.save()
        state.table_event("resumed")
        state.after_change(None)
        state.publish_listing()


def find_user(state: TableState, ref: str) -> Message | None:
    people = [s.user for s in state.seats if s.user] + [m.user for m in state.members.values()]
    for person in people:
        if person["id"] == ref:
            return person
    for person in people:
        if person["name"].lower() == ref.lower():
            return person
    return None


def on_kick(state: TableState, request: Request, msg: Kick) -> None:
    target = find_user(state, msg.user)
    if target is None or target["id"] == request.user["id"]:
        raise ProtocolError("unknown_user")
    remove_member(state, target, "kicked")


def on_ban(state: TableState, request: Request, msg: Ban) -> None:
    # Someone at the table, else whom the room found by that id or name (online, or a registered account).
    target = find_user(state, msg.user) or request.target
    if target is None:
        raise ProtocolError("unknown_user", "error.unknown_name", name=msg.user[:40])
    if target["id"] == request.user["id"]:
        raise ProtocolError("unknown_user")
    state.banned |= ban_entries(target)
    state.invited.discard(target["id"])
    state.save()
    remove_member(state, target, "banned")


def on_host(state: TableState, request: Request, msg: Host) -> None:
    target = find_user(state, msg.user)
    if target is None:
        raise ProtocolError("unknown_user")
    state.host = target
    state.save()
    state.table_event("host", target)


def on_invite(state: TableState, request: Request, msg: Invite) -> None:
    target = request.target  # found by the room: the invitee may be anywhere in the lobby
    if target is None:
        raise ProtocolError("unknown_user", name=msg.user[:40])
    user = request.user
    state.invited.add(target["id"])
    state.banned -= ban_entries(target)
    state.save()
    # The invitee may be on another node, whose language preference this one does not know.
    invited: Invited = {"type": "invited", "table": state.id, "from": cast(UserSummary, user),
                        "entry": state.listing()["entry"]}
    state.emit(Tell(target["id"], invited,
                    say={"key": "lobby.invited", "params": {"name": user["name"], "game": titles(state.game_name)}}))
    state.table_event("invited", target)
    state.publish_listing()


Handler = Callable[["TableState", Request, Any], None]
# Each request a table answers: who may send it, and the function that answers it.
REQUESTS: dict[type[ClientMessage], tuple[str, Handler]] = {
    Watch: (ANYONE, admit), Sit: (ANYONE, admit), Resume: (ANYONE, resume), CloseTableRequest: (ANYONE, on_close_table),
    Chat: (MEMBER, on_chat), Act: (MEMBER, on_act), Hint: (MEMBER, on_hint), Stand: (MEMBER, on_stand),
    Leave: (MEMBER, on_leave),
    SetOptions: (HOST, on_options), SetSettings: (HOST, on_settings), BotAdd: (HOST, on_bot_add),
    BotRemove: (HOST, on_bot_remove), Start: (HOST, on_start), Pause: (HOST, on_pause), Kick: (HOST, on_kick),
    Ban: (HOST, on_ban), Host: (HOST, on_host), Invite: (HOST, on_invite),
}
