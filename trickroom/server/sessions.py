"""Accounts and sessions: the front door (logging in as a guest, with an account or a session token,
registering, logging out), preferences, and a user's connections on this node (:meth:`FrontDoor.attach_user`:
the ``user:<id>`` bus channel delivers to them, from any node; the lobby hears who comes and goes).

What it promises (docs/security.md):

- Tokens are stored only as their SHA-256 (:func:`trickroom.server.accounts.token_digest`).
- A wrong name and a wrong password get the same answer after the same work: one password-hash check either way
  (a name without an account is checked against :func:`~trickroom.server.accounts.unknown_user_hash`).
- Guessing is limited (:mod:`trickroom.server.limits`): account passwords per account and address, guest and
  account names (``name_taken`` answers) and tokens the same way, every address over all it tries, and the room
  as a whole. An owner who has not failed is never held back by somebody else's failures.
- One name, one person: a name is refused when it looks like (:mod:`trickroom.server.names`) the name of someone
  online, of an account, or of a guest whose session still holds it (``guest_hold_minutes`` after they left).
- Logging out ends the session on every connection that uses it, on every node.
- A disabled account, and anyone a room ban keeps out (their account, their guest nickname or a look-alike of
  it, their address: :meth:`trickroom.server.moderation.Moderation.ban_for`), cannot log in.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import math
import time
from typing import TYPE_CHECKING, Any, cast

from trickroom.narration import LANGUAGES, said_in, translate
from trickroom.server import metrics
from trickroom.server.accounts import (
    DEFAULT_PREFERENCES,
    check_password,
    hash_password,
    needs_rehash,
    new_guest_id,
    new_token,
    token_digest,
    unknown_user_hash,
    valid_name,
    valid_password,
)
from trickroom.server.bus import Handler
from trickroom.server.dispatch import ANYONE, USER, Requests
from trickroom.server.errors import error_message
from trickroom.server.frames import batch_frame
from trickroom.server.hygiene import clean_name
from trickroom.server.limits import Counters, GuessLimiter, Policy
from trickroom.server.messages import Pong, PreferencesMessage, UserSummary, Welcome, ok
from trickroom.server.moderation import Moderation, RoomBanRow
from trickroom.server.names import name_key
from trickroom.server.protocol import (
    PROTOCOL_VERSION,
    PROTOCOLS,
    Login,
    Logout,
    Message,
    Ping,
    Preferences,
    ProtocolError,
    Register,
    replying,
    user_summary,
)
from trickroom.server.rows import SessionRow, UserRow, utcnow
from trickroom.server.store import NameTaken, Store

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from trickroom.server.connection import Connection
    from trickroom.server.room import Room

log = logging.getLogger("trickroom.sessions")
CLOSE_SESSION_ENDED = 4401  # websocket close code: the session was logged out on another connection
CLOSE_LOGIN_TIMEOUT = 4408  # ... the connection did not log in within Settings.login_timeout


def login_policy(room: Room) -> Policy:
    s = room.settings
    return Policy(free=s.login_free_failures, base=s.login_backoff_seconds, cap=s.login_backoff_max,
                  target_alarm=s.login_account_alarm, origin_free=s.login_address_free,
                  global_alarm=s.login_room_alarm, global_wait=s.login_room_wait)


def refuse_for(wait: float) -> ProtocolError:
    err = ProtocolError("too_many_attempts")
    err.extra["retry_after"] = max(1, math.ceil(wait))
    return err


async def check_table_password(limiter: GuessLimiter, table_id: str, stored: str, password: str | None,
                               sources: list[str]) -> None:
    """Let a stranger into a password table if ``password`` is right; the guesses of each person and each address
    at one table are limited like logins (``table_password_free`` free, then a back-off)."""
    if not password:
        raise ProtocolError("wrong_password", "error.need_password")
    wait = await limiter.retry_after(table_id, sources)
    if wait > 0:
        raise refuse_for(wait)
    if await asyncio.to_thread(check_password, stored, password):
        await limiter.succeeded(table_id, sources)
        return
    await limiter.failed(table_id, sources)
    raise ProtocolError("wrong_password", "error.wrong_password")


class FrontDoor:
    def __init__(self, room: Room, counters: Counters) -> None:
        self.room = room
        self.settings = room.settings
        self.store = room.store
        self.logins = GuessLimiter("login", counters, login_policy(room))
        self.moderation = Moderation(room.store)
        self.holder: asyncio.Task[None] | None = None
        self.user_handlers: dict[str, Handler] = {}

    # Messages

    async def login(self, conn: Connection, msg: Login | Register) -> None:
        if msg.lang in LANGUAGES:
            conn.preferences["lang"] = msg.lang
        if msg.protocol is not None and msg.protocol not in PROTOCOLS:
            raise ProtocolError("bad_protocol", version=PROTOCOL_VERSION)
        line = self.room.line
        newcomer = False
        if isinstance(msg, Login) and msg.token:
            line.leave(conn)  # someone coming back never waits (a login of theirs waiting in line is forgotten)
        elif conn.user is None:
            if not line.may_enter(conn, msg):
                return  # a newcomer while the node is full: answered when their turn comes (waiting_line.py)
            newcomer = True
        try:
            await self.enter(conn, msg)
        finally:
            if newcomer:
                line.done()  # one sign-in fewer under way: the next in line may come in

    async def enter(self, conn: Connection, msg: Login | Register) -> None:
        # A refused login leaves a signed-in connection its protocol and its lobby's scopes (lang: the error's).
        kept = conn.protocol, conn.lobby_tables, conn.lobby_people, conn.follows_lobby
        conn.protocol = msg.protocol or 1
        if msg.lobby_tables is not None:
            conn.lobby_tables = msg.lobby_tables
        if msg.lobby_people is not None:
            conn.lobby_people = msg.lobby_people
        # A new login follows the lobby, unless it says otherwise (a client moving to its table's node).
        conn.follows_lobby = msg.follow_lobby if isinstance(msg, Login) else True
        try:
            await self.sign_in(conn, msg)
        except ProtocolError:
            conn.protocol, conn.lobby_tables, conn.lobby_people, conn.follows_lobby = kept
            raise

    async def sign_in(self, conn: Connection, msg: Login | Register) -> None:
        if isinstance(msg, Register):
            await self.register(conn, clean_name(msg.username), msg.password, msg.id)
        elif msg.token:
            await self.login_token(conn, msg.token, msg.id)
        elif msg.username is not None:
            await self.login_account(conn, clean_name(msg.username), msg.password or "", msg.id)
        elif msg.nickname is not None:
            await self.login_guest(conn, clean_name(msg.nickname), msg.id)
        else:
            raise ProtocolError("bad_message", field="nickname")

    async def logout(self, conn: Connection, msg: Logout) -> None:
        user, session = conn.user, conn.session
        await self.detach_user(conn)
        conn.session = None
        if session is not None and user is not None:
            await self.store.drop_session(session)
            await self.room.bus.publish(f"user:{user['id']}", {"end_session": session})
        if msg.id is not None:
            conn.send(ok(msg.id))

    async def set_preferences(self, conn: Connection, msg: Preferences) -> None:
        user = conn.me
        given = {"lang": msg.lang, "verbosity": msg.verbosity, "sounds": msg.sounds, "auto_pass": msg.auto_pass,
                 "lobby_chat_at_table": msg.lobby_chat_at_table}
        # A field left out, or null, keeps its value (a stored null lang would have made conn.lang "None").
        prefs = {**conn.preferences, **{name: value for name, value in given.items() if value is not None}}
        for other in self.room.by_user.get(user["id"], {conn}):
            other.preferences = dict(prefs)
            self.room.lobby.reads_chat(other)
        if user["guest"]:
            if conn.session:
                await self.store.set_session_preferences(conn.session, prefs)
        else:
            await self.store.set_user_preferences(int(user["id"][1:]), prefs)
        for table_id in self.room.tables_of(user["id"]):
            with contextlib.suppress(ProtocolError):
                await self.room.ownership.deliver(table_id, {"kind": "lang", "user": user, "lang": prefs["lang"],
                                                                     "auto_pass": prefs.get("auto_pass", True)})
        conn.send(replying(PreferencesMessage(type="preferences", preferences=prefs), msg.id))

    # A user on this node's connections

    async def attach_user(self, conn: Connection, user: Message, token: str, preferences: dict[str, Any],
                          re: Any = None, roles: set[str] | None = None) -> None:
        """``conn`` signed in as ``user`` (``roles``: an account's, if the sign-in read them already)."""
        room = self.room
        await self.detach_user(conn)
        conn.user, conn.session = user, token_digest(token)
        conn.logged_out_at = None
        conn.preferences = {**DEFAULT_PREFERENCES, **preferences}
        room.lobby.reads_chat(conn)
        uid = user["id"]
        first = uid not in room.by_user
        room.by_user.setdefault(uid, set()).add(conn)
        elsewhere = False
        if first:
            await room.bus.subscribe(f"user:{uid}", self.user_handler(uid))
            if room.cluster is not None:
                elsewhere = await room.cluster.arrive(user, conn.lang)
        welcome = Welcome(type="welcome", user=cast(UserSummary, user), token=token, preferences=conn.preferences,
                          tables=room.tables_of(uid), text=translate("welcome", conn.lang, name=user["name"]))
        conn.send(replying(welcome, re))
        if first and not elsewhere:
            await room.lobby.presence(user, True)
        if conn.follows_lobby:
            room.lobby.send_snapshot(conn)
        await room.moderator.signed_in(conn, roles)  # the message of the day; a moderator's waiting reports
        metrics.PLAYERS_ONLINE.set(len(room.by_user))

    async def detach_user(self, conn: Connection) -> None:
        room, user = self.room, conn.user
        if user is None:
            return
        conn.user = None
        conn.logged_out_at = time.monotonic()
        uid = user["id"]
        conns = room.by_user.get(uid, set())
        conns.discard(conn)
        if not conns:
            room.by_user.pop(uid, None)
            handler = self.user_handlers.pop(uid, None)
            if handler is not None:
                await room.bus.unsubscribe(f"user:{uid}", handler)
            if room.cluster is not None:
                if room.ownership.draining:  # they are reconnecting to another node: they have not left the room
                    return
                if await room.cluster.leave(uid):
                    return
            await room.lobby.presence(user, False)
        metrics.PLAYERS_ONLINE.set(len(room.by_user))

    def user_handler(self, uid: str) -> Handler:
        """What reaches ``user:<uid>`` (from any node): a message for this user's connections here (or one of
        them), or the end of a session logged out elsewhere."""
        async def deliver(payload: Message) -> None:
            if payload.get("end_session"):  # a logout elsewhere: that session's connections here close
                await self.end_session(uid, str(payload["end_session"]))
                return
            items = payload.get("batch", (payload,))  # a table step's messages, in order
            for conn in list(self.room.by_user.get(uid, ())):
                frames = [frame for item in items if (frame := self.frame_for(conn, item)) is not None]
                if conn.protocol >= 3 and len(frames) > 1:
                    conn.send_frame(batch_frame(frames))
                else:
                    for frame in frames:
                        conn.send_frame(frame)

        self.user_handlers[uid] = deliver
        return deliver

    def frame_for(self, conn: Connection, item: Message) -> str | None:
        """One message of a delivery (``Table.item``) as ``conn`` gets it; None if it is not for ``conn``."""
        target, message = item.get("conn"), item["message"]
        if (target is not None and conn.id != target) or self.room.moderator.hides(conn, message):
            return None
        say = item.get("say")  # {"key", "params"}: the message's text, in each connection's language
        frame = item.get("frame")  # the message encoded once for everyone who gets it
        if frame is not None and say is None:
            return str(frame)
        if say is not None:
            message = {**message, "text": translate(say["key"], conn.lang, **said_in(say["params"], conn.lang))}
        return conn.encoded(message)

    # Guests

    async def login_guest(self, conn: Connection, nickname: str, re: Any) -> None:
        target = "name:" + name_key(nickname)
        await self.check_limit(target, conn)
        if not valid_name(nickname):
            raise ProtocolError("bad_name")
        ban, held_here = await self.store.read(lambda s: (  # the sign-in's reads in one trip
            self.moderation.ban_in(s, name=nickname, address=conn.address), self.store.name_held_in(s, nickname)))
        self.refuse_banned(ban)
        held = self.name_online(nickname) or held_here
        if held:
            await self.count_failure(target, conn)
            raise ProtocolError("name_taken", name=nickname)
        user = user_summary(new_guest_id(), nickname, True)
        prefs = {**DEFAULT_PREFERENCES, "lang": conn.lang}
        try:
            token = await self.new_session(user, prefs)
        except NameTaken:
            await self.count_failure(target, conn)
            raise ProtocolError("name_taken", name=nickname) from None
        await self.attach_user(conn, user, token, prefs, re)

    def name_online(self, name: str) -> bool:
        return self.room.lobby.name_online(name)

    # Accounts

    async def login_account(self, conn: Connection, username: str, password: str, re: Any) -> None:
        target = name_key(username)
        await self.check_limit(target, conn)
        row = await self.store.user_by_name(username)
        # The same check either way: a name without an account costs what a wrong password does.
        matches = await asyncio.to_thread(check_password, row.password_hash if row else unknown_user_hash(), password)
        if row is None or not matches:
            await self.count_failure(target, conn)
            raise ProtocolError("login_failed")
        await self.logins.succeeded(target, [conn.address])
        if row.disabled_at is not None:  # said only to someone who knows the password
            raise ProtocolError("account_disabled")
        await self.check_room_ban(conn, user_id=f"u{row.id}")
        if needs_rehash(row.password_hash):
            await self.store.set_password_hash(row.id, await asyncio.to_thread(hash_password, password))
        user = user_summary(f"u{row.id}", row.name, False)
        prefs = {**DEFAULT_PREFERENCES, **(row.preferences or {})}
        await self.attach_user(conn, user, await self.new_session(user, prefs), prefs, re)

    async def register(self, conn: Connection, username: str, password: str, re: Any) -> None:
        target = "name:" + name_key(username)
        await self.check_limit(target, conn)
        if not valid_name(username):
            raise ProtocolError("bad_name")
        if not valid_password(password):
            raise ProtocolError("bad_password")
        await self.check_room_ban(conn, name=username)
        if self.name_online(username) or await self.store.name_held(username):
            await self.count_failure(target, conn)
            raise ProtocolError("name_taken", name=username)
        prefs = {**DEFAULT_PREFERENCES, "lang": conn.lang}
        password_hash = await asyncio.to_thread(hash_password, password)
        try:
            row = await self.store.create_user(username, password_hash, prefs)
        except NameTaken:
            await self.count_failure(target, conn)
            raise ProtocolError("name_taken", name=username) from None
        user = user_summary(f"u{row.id}", row.name, False)
        await self.attach_user(conn, user, await self.new_session(user, prefs), prefs, re)

    # Sessions

    async def login_token(self, conn: Connection, token: str, re: Any) -> None:
        await self.check_limit("token", conn)
        digest = token_digest(token)

        def reads(s: Session) -> tuple[SessionRow | None, UserRow | None, RoomBanRow | None, set[str] | None]:
            """The sign-in's reads in one trip: the session, its account and the account's roles, a room ban on
            either or on the address."""
            session = Store.session_in(s, digest)
            if session is None:
                return None, None, None, None
            row = None if session.guest else Store.user_by_id_in(s, int(session.user_id[1:]))
            ban = self.moderation.ban_in(s, user_id=session.user_id, name=session.name if session.guest else None,
                                         address=conn.address)
            return session, row, ban, None if row is None else Moderation.roles_in(s, row.id)

        session, row, ban, roles = await self.store.read(reads)
        if session is None or (not session.guest and (row is None or row.disabled_at is not None)):
            await self.count_failure("token", conn)
            raise ProtocolError("bad_token")
        self.refuse_banned(ban)
        user = user_summary(session.user_id, session.name, session.guest)
        prefs = dict(row.preferences or {}) if row is not None else dict(session.preferences or {})
        # A guest's session is held while they are online (hold_guest_names, every hold_interval). One held within
        # that interval (a client moving to its table's node, a reconnection) needs no write now: it is held as
        # long as it would have been, and the next beat holds it again.
        hold_until = self.guest_hold_until()
        if session.guest and session.expires_at < hold_until - dt.timedelta(seconds=self.hold_interval):
            await self.store.hold_guest_sessions([session.token_hash], hold_until)
        await self.attach_user(conn, user, token, prefs, re, roles)

    async def new_session(self, user: Message, preferences: dict[str, Any]) -> str:
        token = new_token()
        expires = self.guest_hold_until() if user["guest"] else utcnow() + dt.timedelta(days=self.settings.session_days)
        await self.store.add_session(SessionRow(token_hash=token_digest(token), user_id=user["id"], name=user["name"],
                                                guest=user["guest"], preferences=preferences, expires_at=expires))
        return token

    @property
    def hold_interval(self) -> float:
        """Seconds between two holds of the online guests' sessions (hold_guest_names)."""
        return max(0.5, min(60.0, self.settings.guest_hold_minutes * 20))

    def guest_hold_until(self) -> dt.datetime:
        return utcnow() + dt.timedelta(minutes=self.settings.guest_hold_minutes)

    async def end_session(self, uid: str, session: str) -> None:
        """The session was logged out elsewhere: its connections on this node hear so and close."""
        for conn in list(self.room.by_user.get(uid, ())):
            if conn.session == session:
                await self.detach_user(conn)
                conn.session = None
                conn.send(error_message(ProtocolError("bad_token"), conn.lang))
                conn.close(CLOSE_SESSION_ENDED, "session ended")

    async def check_room_ban(self, conn: Connection, user_id: str | None = None, name: str | None = None) -> None:
        """Refuse whoever a room ban keeps out: the account, the nickname, or the connection's address."""
        self.refuse_banned(await self.moderation.ban_for(user_id=user_id, name=name, address=conn.address))

    @staticmethod
    def refuse_banned(ban: RoomBanRow | None) -> None:
        if ban is None:
            return
        if ban.expires_at is None:
            raise ProtocolError("room_banned")
        err = ProtocolError("room_banned", "error.room_banned_until",
                            until=ban.expires_at.strftime("%Y-%m-%d %H:%M UTC"))
        err.extra["until"] = ban.expires_at.isoformat() + "Z"
        raise err

    # Limits

    async def check_limit(self, target: str, conn: Connection) -> None:
        wait = await self.logins.retry_after(target, [conn.address], origin=conn.address)
        if wait > 0:
            raise refuse_for(wait)

    async def count_failure(self, target: str, conn: Connection) -> None:
        await self.logins.failed(target, [conn.address], origin=conn.address)

    # Guests' names are held while they are online and for guest_hold_minutes after

    def start(self) -> None:
        self.holder = asyncio.get_running_loop().create_task(self.hold_guest_names())

    async def stop(self) -> None:
        if self.holder is not None:
            self.holder.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.holder

    async def hold_guest_names(self) -> None:
        """Every minute (or third of the hold, if shorter): push on the expiry of the sessions of the guests
        online here, and delete the sessions that have ended."""
        beats = 0
        while True:
            await asyncio.sleep(self.hold_interval)
            try:
                online = [c.session for conns in self.room.by_user.values() for c in conns
                          if c.session is not None and c.user is not None and c.user["guest"]]
                await self.store.hold_guest_sessions(online, self.guest_hold_until())
                beats += 1
                if beats % 10 == 0:
                    await self.store.drop_expired_sessions()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database hiccuped: try again at the next beat
                log.exception("could not hold the guests' sessions")


# Client messages


async def on_login(room: Room, conn: Connection, msg: Login | Register) -> None:
    await room.door.login(conn, msg)


async def on_logout(room: Room, conn: Connection, msg: Logout) -> None:
    await room.door.logout(conn, msg)


async def on_preferences(room: Room, conn: Connection, msg: Preferences) -> None:
    await room.door.set_preferences(conn, msg)


async def on_ping(room: Room, conn: Connection, msg: Ping) -> None:
    conn.send(replying(Pong(type="pong"), msg.id))


REQUESTS: Requests = {Login: (ANYONE, on_login), Register: (ANYONE, on_login), Ping: (ANYONE, on_ping),
                      Logout: (USER, on_logout), Preferences: (USER, on_preferences)}
