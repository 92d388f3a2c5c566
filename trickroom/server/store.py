"""The database: users, sessions, tables, the action log, table chat, statistics. SQLAlchemy 2 async.

Its rows are in :mod:`trickroom.server.rows`; the moderation tables (roles, room bans, mutes, reports, the audit
log) are in :mod:`trickroom.server.moderation`.

A table's whole truth is its row (game, options, seed, seats, settings) plus its action log. The log's
uniqueness on (table_id, seq) is the fence for several server processes: an owner that lost its lease cannot
append, because the new owner's append of the same ``seq`` already exists.

Actions are appended by group commit (:mod:`trickroom.server.group_commit`): every append waits until its row
is committed, but the appends of all tables that arrive while a commit runs share the next one.

Every write is a plain function of a (synchronous) ORM session, run by :meth:`Store.write` in one transaction, or
of a plain connection where it needs no ORM (:meth:`Store.write_core`: the action log, sessions, table saves).
On SQLite those functions run on the event loop itself, on the only write connection (SQLite has a single
writer anyway): a transaction costs a fraction of a millisecond of CPU, while a trip to a writer thread and back
cost a turn of a busy loop each way and, on the thread, a wait for the GIL after every call into SQLite; that
waiting was the tail of an evening's actions (docs/performance.md, "Writes on the event loop"). The write-ahead
log is checkpointed in a thread of its own (:mod:`trickroom.server.sqlite_file`), so that no write waits for the
disk. Reads are plain functions too, run by :meth:`Store.read` in one of a few reader threads, each with its own
connection (WAL lets them read while the loop writes): one trip for a request's reads, and a slow read (a long
history, someone's statistics) keeps no one else waiting. The database runs in WAL mode with
``synchronous=NORMAL``: a committed transaction survives the server process being killed; only a power cut or an
operating-system crash may lose the last transactions. On PostgreSQL the same functions, writes and reads, run
through an async session of the pool (``run_sync``), except the writes that are one statement (an action log's
batch, a table's save, a lease's renewal, :meth:`Store.write_statement`): a statement is a transaction by itself,
so those go in autocommit, one trip to the database instead of three (begin, the statement, commit) and without
an ORM session, for a third to a half of the CPU (docs/performance.md, "Measured by sampling: three nodes, the
writes, a sign-in").
"""

from __future__ import annotations

import asyncio
import datetime as dt
import secrets
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

from sqlalchemy import (
    Integer,
    Table,
    and_,
    any_,
    bindparam,
    case,
    create_engine,
    delete,
    event,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.sql import Select
from sqlalchemy.sql.base import Executable

from trickroom.server.db_urls import async_url, sync_url
from trickroom.server.group_commit import GroupCommitter
from trickroom.server.names import name_key, name_keys
from trickroom.server.pg_insert import HeldInserts
from trickroom.server.rows import (
    ActionRow,
    ChatRow,
    PlayerRow,
    ReviewRow,
    SessionRow,
    StatRow,
    TableRow,
    UserRow,
    utcnow,
)
from trickroom.server.sqlite_file import Checkpointer, DriverInsert, DriverUpdate, sqlite_pragmas, writer_pragmas
from trickroom.server.statements import INSERT_TABLE, freed_names, name_held_query, table_updates

MIGRATIONS_DIR = Path(__file__).with_name("migrations")

T = TypeVar("T")


READ_WAIT = 10.0  # seconds a read waits for a connection (SQLAlchemy's default is 30) or, on SQLite, a reader
READERS = 4  # SQLite: threads that read, each with its connection (reads are short; the loop is the bottleneck)
FINISHED_ORPHANS_WITHIN = 600.0  # seconds after its end a finished table whose owner died is still taken over


def store_busy(exc: BaseException) -> bool:
    """The database could not take the request now (every pooled connection in use, or SQLite's file locked
    past its busy timeout): the request may be tried again, unlike a bug."""
    if isinstance(exc, PoolTimeout):
        return True
    return isinstance(exc, OperationalError) and "database is locked" in str(exc)


def rowcount(result: Any) -> int:
    return int(getattr(result, "rowcount", 0))


@dataclass
class LoggedAction:
    seq: int
    seat: int
    action: str
    event_seq: int
    actor: str = ""


class StaleOwner(Exception):
    """The action log already holds this (table, seq): someone else owns the table now."""


class NameTaken(Exception):
    """Another account, or a guest whose session still holds the name, has a name that clashes."""


TABLE_IDS = (10**8, 10**9)  # table numbers: nine digits, drawn at random (not guessable, not in creation order)


def new_table_id() -> int:
    low, high = TABLE_IDS
    return low + secrets.randbelow(high - low)


class Store:
    def __init__(self, url: str, schema: str | None = None) -> None:
        self.url = async_url(url)
        self.schema = schema
        kwargs: dict[str, Any] = {}
        if self.url.startswith("postgresql") and schema:
            kwargs["connect_args"] = {"server_settings": {"search_path": schema}}
        # A request waits at most READ_WAIT for a pooled connection, then the room answers ``busy``.
        kwargs.setdefault("pool_timeout", READ_WAIT)
        # A failed statement's error (logged) names no values: a table's row holds its seed, secret until the end.
        kwargs["hide_parameters"] = True
        self.engine: AsyncEngine = create_async_engine(self.url, **kwargs)  # reads (and writes on PostgreSQL)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        # PostgreSQL: the writes that are one statement (the same pool, in autocommit), and the action log's batches
        # on a connection of their own (pg_insert.py)
        self.autocommit: AsyncEngine | None = None
        self.pg_action_log: HeldInserts | None = None
        # SQLite: the write connection (Store.write, on the event loop), its checkpoints' thread, the readers
        # (Store.read)
        self.write_engine: Engine | None = None
        self.write_sessions: sessionmaker[Session] | None = None
        self.checkpointer: Checkpointer | None = None
        self.reader: ThreadPoolExecutor | None = None
        self.read_engine: Engine | None = None
        self.read_sessions: sessionmaker[Session] | None = None
        self.action_insert: DriverInsert | None = None  # SQLite: the action log's batches, past SQLAlchemy
        self.table_update: DriverUpdate | None = None  # SQLite: the tables' saves likewise
        if self.url.startswith("sqlite"):
            event.listen(self.engine.sync_engine, "connect", sqlite_pragmas)
            self.write_engine = create_engine(sync_url(self.url), pool_size=1, max_overflow=0,
                                              hide_parameters=True)
            event.listen(self.write_engine, "connect", writer_pragmas)
            self.write_sessions = sessionmaker(self.write_engine, expire_on_commit=False)
            self.action_insert = DriverInsert(self.write_engine, cast(Table, ActionRow.__table__))
            self.table_update = DriverUpdate(self.write_engine, cast(Table, TableRow.__table__))
            self.checkpointer = Checkpointer(sync_url(self.url))
            # (a reader's connection may serve any of the reader threads, one at a time)
            self.read_engine = create_engine(sync_url(self.url), pool_size=READERS, max_overflow=0,
                                             hide_parameters=True, connect_args={"check_same_thread": False})
            event.listen(self.read_engine, "connect", sqlite_pragmas)
            self.read_sessions = sessionmaker(self.read_engine, expire_on_commit=False)
            self.reader = ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="sqlite-reader")
        else:
            self.autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")
            # (each statement of a read sees what was committed when it began, as in a transaction at READ COMMITTED)
            self.read_sessions_pg = async_sessionmaker(self.autocommit, expire_on_commit=False)
            self.pg_action_log = HeldInserts(self.autocommit, cast(Table, ActionRow.__table__))
        self.action_log = GroupCommitter(self._insert_actions)
        # Sign-ins arrive in bursts (fifty a second at 3000 people): their sessions share transactions as the
        # actions do, instead of queueing one transaction each for SQLite's single write connection.
        self.session_log = GroupCommitter(self._insert_sessions)
        # A table's row is saved at every sit, leave, start and end: on SQLite those saves, one transaction each,
        # queued behind each other for the single write connection (docs/performance.md). Not on PostgreSQL:
        # there a transaction that updates several tables' rows deadlocks with a node's lease renewal, which
        # updates them in another order (seen at 3000 people on three nodes), and the pool writes side by side.
        self.table_log = GroupCommitter(self._update_tables) if self.write_engine is not None else None

    async def migrate(self) -> None:
        """Create the schema (PostgreSQL) and apply every Alembic migration."""
        async with self.engine.begin() as conn:
            if self.url.startswith("postgresql"):
                # Several nodes may start at once: one migrates while the others wait for its transaction.
                await conn.execute(text("SELECT pg_advisory_xact_lock(7262531)"))
                if self.schema:
                    await conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"'))
            await conn.run_sync(_upgrade)

    async def close(self) -> None:
        await self.action_log.close()
        await self.session_log.close()
        if self.table_log is not None:
            await self.table_log.close()
        if self.pg_action_log is not None:
            await self.pg_action_log.close()
        await self.engine.dispose()
        if self.reader is not None and self.read_engine is not None:
            self.reader.shutdown()  # (after the reads under way)
            self.read_engine.dispose()
        if self.write_engine is not None and self.checkpointer is not None:
            self.write_engine.dispose()
            self.checkpointer.close()

    async def write(self, job: Callable[[Session], T]) -> T:
        """Run ``job`` in one transaction, committed when it returns (rolled back if it raises); its result.

        ``job`` must not wait for anything but the database, and must be short: on SQLite it runs on the event
        loop, and the whole room waits for it.
        """
        if self.write_sessions is None:
            async with self.sessions() as s, s.begin():
                return await s.run_sync(job)
        with self.write_sessions() as session, session.begin():
            result = job(session)
        self.wrote()
        return result

    async def write_core(self, job: Callable[[Connection], T]) -> T:
        """Run ``job``, a function of a plain (Core) connection, in one transaction, as :meth:`write` runs a function
        of an ORM session: for statements that need no ORM, it costs less (on SQLite, about 230 us of CPU a
        transaction against 370)."""
        if self.write_engine is None:
            async with self.engine.begin() as conn:
                return await conn.run_sync(job)
        with self.write_engine.begin() as connection:
            result = job(connection)
        self.wrote()
        return result

    def wrote(self) -> None:
        """A write was committed on SQLite: its log is checkpointed soon, in the checkpointer's thread."""
        if self.checkpointer is not None:
            self.checkpointer.wrote()

    async def write_statement(self, statement: Executable, params: Sequence[dict[str, Any]] | None = None) -> int:
        """One statement (run once per dict of ``params``, if given) in a transaction of its own; how many rows
        it changed."""
        if self.autocommit is None:
            return await self.write_core(lambda conn: rowcount(conn.execute(statement, params)))
        async with self.autocommit.connect() as conn:
            return rowcount(await conn.execute(statement, params))

    async def write_returning(self, statement: Executable) -> list[Any]:
        """One statement with ``RETURNING`` in a transaction of its own; the first column of the rows it returned."""
        if self.autocommit is None:
            return await self.write_core(lambda conn: list(conn.execute(statement).scalars()))
        async with self.autocommit.connect() as conn:
            return list((await conn.execute(statement)).scalars())

    async def add(self, row: T) -> T:
        """Insert one ORM row in a transaction of its own; the row, its key set."""
        await self.write(lambda s: s.add(row))
        return row

    async def read(self, job: Callable[[Session], T]) -> T:
        """Run ``job`` on a read session; its result (rows come detached, their columns loaded). On SQLite it
        runs in a reader thread: a read that finds none free within READ_WAIT raises the pool's timeout, which
        the room answers ``busy``, as on PostgreSQL."""
        if self.reader is None:  # PostgreSQL, in autocommit: no BEGIN and ROLLBACK around it (a quarter of its CPU)
            async with self.read_sessions_pg() as s:
                return await s.run_sync(job)
        done = asyncio.get_running_loop().run_in_executor(self.reader, self._read_here, job)
        try:
            return await asyncio.wait_for(done, READ_WAIT)
        except TimeoutError:
            raise PoolTimeout(f"no database reader free within {READ_WAIT:g} s") from None

    def _read_here(self, job: Callable[[Session], T]) -> T:
        assert self.read_sessions is not None
        with self.read_sessions() as s:
            return job(s)

    async def read_rows(self, query: Select[Any]) -> list[Any]:
        """The query's first column, every row (ORM rows for ``select(Row)``)."""
        return await self.read(lambda s: list(s.execute(query).scalars()))

    async def read_one(self, query: Select[Any]) -> Any:
        """The query's first column of its first row; None if it has none."""
        return await self.read(lambda s: s.execute(query.limit(1)).scalars().first())

    async def read_row(self, cls: type[T], key: Any) -> T | None:
        """The row of class ``cls`` with this primary key; None if there is none."""
        return await self.read(lambda s: s.get(cls, key))

    # Users and sessions

    async def user_by_name(self, username: str) -> UserRow | None:
        """The account of this name: the same letters in any case, else a name that looks the same (one query
        either way, so that an unknown name costs what a known one does)."""
        key = name_key(username)
        exact = UserRow.username == username.lower()
        query = (select(UserRow).where(or_(exact, UserRow.name_key == key))
                 .order_by(case((exact, 0), else_=1)).limit(1))
        return await self.read_one(query)  # type: ignore[no-any-return]

    async def name_held(self, name: str, by_guest: str | None = None) -> bool:
        """Whether ``name`` clashes with an account's, or with that of a guest whose session still holds it
        (other than the guest ``by_guest``)."""
        return await self.read(lambda s: self.name_held_in(s, name, by_guest))

    @staticmethod
    def name_held_in(s: Session, name: str, by_guest: str | None = None) -> bool:
        """:meth:`name_held`, read in ``s`` (a sign-in's reads share one trip)."""
        statement, params = name_held_query(name, by_guest)
        return s.connection().execute(statement, params).first() is not None

    async def create_user(self, username: str, password_hash: str, preferences: dict[str, Any]) -> UserRow:
        """A new account; :class:`NameTaken` if its name clashes with another account's."""
        key, shape = name_keys(username)
        row = UserRow(username=username.lower(), name=username, name_key=key, name_shape=shape,
                      password_hash=password_hash, preferences=preferences)
        try:
            await self.add(row)
        except IntegrityError:
            raise NameTaken(username) from None
        return row

    async def set_user_preferences(self, user_id: int, preferences: dict[str, Any]) -> None:
        await self.write_statement(update(UserRow).where(UserRow.id == user_id).values(preferences=preferences))

    async def set_password_hash(self, user_id: int, password_hash: str) -> None:
        await self.write_statement(update(UserRow).where(UserRow.id == user_id).values(password_hash=password_hash))

    async def user_by_id(self, user_id: int) -> UserRow | None:
        """The account of this number; None for a deleted one (its tombstone is no account to the room)."""
        return await self.read(lambda s: self.user_by_id_in(s, user_id))

    @staticmethod
    def user_by_id_in(s: Session, user_id: int) -> UserRow | None:
        """:meth:`user_by_id`, read in ``s`` (a sign-in's reads share one trip)."""
        row = s.get(UserRow, user_id)
        return None if row is None or row.deleted_at is not None else row

    async def add_session(self, row: SessionRow) -> None:
        """Store a session. A guest's takes the guest's name: :class:`NameTaken` if another guest's live session
        holds a clashing name (expired ones give theirs up here)."""
        if row.guest:
            row.name_key, row.name_shape = name_keys(row.name)
        values = {"token_hash": row.token_hash, "user_id": row.user_id, "name": row.name, "guest": row.guest,
                  "preferences": row.preferences or {}, "expires_at": row.expires_at, "name_key": row.name_key,
                  "name_shape": row.name_shape}
        try:
            await self.session_log.write(values)
        except IntegrityError:
            raise NameTaken(row.name) from None

    async def _insert_sessions(self, rows: Sequence[dict[str, Any]]) -> None:
        guests = [row for row in rows if row["guest"]]

        def insert_sessions(conn: Connection) -> None:
            for statement in freed_names(guests) if guests else ():  # expired guests give their names up
                conn.execute(statement)
            conn.execute(insert(SessionRow), list(rows))

        await self.write_core(insert_sessions)

    async def session(self, token_hash: str) -> SessionRow | None:
        """The session of this token digest; None if there is none or it has expired."""
        return await self.read(lambda s: self.session_in(s, token_hash))

    @staticmethod
    def session_in(s: Session, token_hash: str) -> SessionRow | None:
        """:meth:`session`, read in ``s`` (a sign-in's reads share one trip)."""
        row = s.get(SessionRow, token_hash)
        return None if row is None or row.expires_at < utcnow() else row

    async def drop_session(self, token_hash: str) -> None:
        await self.write_statement(delete(SessionRow).where(SessionRow.token_hash == token_hash))

    async def set_session_preferences(self, token_hash: str, preferences: dict[str, Any]) -> None:
        await self.write_statement(update(SessionRow).where(SessionRow.token_hash == token_hash)
                                   .values(preferences=preferences))

    async def hold_guest_sessions(self, token_hashes: Sequence[str], until: dt.datetime) -> None:
        """Keep these guests' sessions (and names) until ``until``: they are online."""
        if not token_hashes:
            return
        await self.write_statement(update(SessionRow).where(SessionRow.token_hash.in_(list(token_hashes)),
                                                            SessionRow.guest.is_(True)).values(expires_at=until))

    async def drop_expired_sessions(self) -> None:
        await self.write_statement(delete(SessionRow).where(SessionRow.expires_at < utcnow()))

    # Tables and the action log

    async def create_table(self, row: TableRow) -> int:
        """Store a new table under a random number (drawn again in the unlikely case it is taken). Its columns go
        in as one insert, without an ORM session (which cost 3% of the server's samples at 10,000 people); the
        columns it leaves empty take their defaults."""
        columns = cast(Table, TableRow.__table__).columns
        values = {column.key: value for column in columns if (value := getattr(row, column.key)) is not None}
        for _ in range(10):
            values["id"] = row.id = new_table_id()
            try:
                await self.write_statement(INSERT_TABLE, [values])
                return row.id
            except IntegrityError:
                continue
        raise RuntimeError("no free table number after 10 draws")

    async def save_table(self, table_id: int, **values: Any) -> None:
        """Update a table's row (returns once it is committed), in one transaction with the saves of the other
        tables that arrive meanwhile (on SQLite)."""
        if self.table_log is None:
            await self._update_tables([{"id": table_id, "values": values}])
            return
        await self.table_log.write({"id": table_id, "values": values})

    async def _update_tables(self, rows: Sequence[dict[str, Any]]) -> None:
        merged: dict[int, dict[str, Any]] = {}  # a table saved twice in one batch: its values in order, the last wins
        for row in rows:
            merged.setdefault(row["id"], {}).update(row["values"])
        if self.table_update is not None:  # SQLite: the saves that came together, in one transaction
            self.table_update(merged)
            self.wrote()
            return
        for statement, params in table_updates(merged):  # PostgreSQL: each save on its own (save_table)
            await self.write_statement(statement, params)

    async def unfinished_tables(self) -> list[TableRow]:
        return await self.read_rows(select(TableRow).where(TableRow.status != "finished")
                                    .order_by(TableRow.created_at))

    async def claim_table(self, table_id: int, node_id: str, lease_seconds: float, force: bool = False) -> bool:
        """Make ``node_id`` the table's owner until the lease runs out, if nobody else holds a live lease (or
        ``force``: a single node owns everything). True when the claim succeeded.

        The row update is atomic in the database: of two nodes claiming an expired lease at once, one wins.
        Leases compare the nodes' clocks (UTC): keep them synchronised (NTP).
        """
        now = utcnow()
        query = update(TableRow).where(TableRow.id == table_id)
        if not force:
            # A finished table is claimed only from an owner that died holding it (orphan_tables).
            query = query.where(TableRow.status != "closed",
                                or_(TableRow.status != "finished",
                                    and_(TableRow.owner_node.is_not(None), TableRow.lease_until < now)),
                                or_(TableRow.owner_node.is_(None), TableRow.owner_node == node_id,
                                    TableRow.lease_until.is_(None), TableRow.lease_until < now))
        claimed = await self.write_statement(query.values(owner_node=node_id,
                                                          lease_until=now + dt.timedelta(seconds=lease_seconds)))
        return claimed == 1

    async def renew_leases(self, node_id: str, table_ids: list[int], lease_seconds: float) -> set[int]:
        """Extend this node's leases; the tables it still owns (another node may have taken one over)."""
        if not table_ids:
            return set()
        until = utcnow() + dt.timedelta(seconds=lease_seconds)
        tables = cast(Table, TableRow.__table__)
        # On PostgreSQL the numbers go as one array (a node renews a few hundred leases a second: a list of as
        # many parameters took twice the CPU, docs/performance.md).
        ids = (tables.c.id == any_(bindparam("ids", table_ids, type_=ARRAY(Integer))) if self.autocommit is not None
               else tables.c.id.in_(table_ids))
        return set(await self.write_returning(
            update(tables).where(ids, tables.c.owner_node == node_id).values(lease_until=until).returning(tables.c.id)))

    async def orphan_tables(self, finished_within: float = FINISHED_ORPHANS_WITHIN) -> list[int]:
        """Unfinished tables whose owner's lease has run out (or that were handed over); and tables that finished
        in the last ``finished_within`` seconds whose owner died holding them (people were still at them, and may
        not have heard the end). A finished table its owner gave up (closed or handed over) has no owner."""
        now = utcnow()
        return await self.read_rows(select(TableRow.id).where(or_(
                and_(TableRow.status.notin_(("finished", "closed")),
                     or_(TableRow.owner_node.is_(None), TableRow.lease_until.is_(None), TableRow.lease_until < now)),
                and_(TableRow.status == "finished", TableRow.owner_node.is_not(None), TableRow.lease_until < now,
                     TableRow.finished_at > now - dt.timedelta(seconds=finished_within)),
            )).order_by(TableRow.created_at))

    async def release_table(self, table_id: int, node_id: str) -> None:
        """Give the table up at once (a clean stop): any node may claim it now."""
        await self.write_statement(update(TableRow).where(TableRow.id == table_id, TableRow.owner_node == node_id)
                                   .values(owner_node=None, lease_until=None))

    async def table(self, table_id: int) -> TableRow | None:
        return await self.read_row(TableRow, table_id)

    async def append_action(self, table_id: int, seq: int, seat: int, action: str, event_seq: int,
                            actor: str) -> None:
        """Write one action (returns once it is committed); :class:`StaleOwner` if (table, seq) exists already."""
        try:
            await self.action_log.write({"table_id": table_id, "seq": seq, "seat": seat, "action": action,
                                         "event_seq": event_seq, "actor": actor, "created_at": utcnow()})
        except IntegrityError as exc:
            raise StaleOwner(f"table {table_id} already has action {seq}") from exc

    async def _insert_actions(self, rows: Sequence[dict[str, Any]]) -> None:
        if self.action_insert is not None:  # SQLite
            self.action_insert(rows)
            self.wrote()
            return
        assert self.pg_action_log is not None
        await self.pg_action_log.insert(rows)  # (the fence: see group_commit)

    async def actions(self, table_id: int) -> list[LoggedAction]:
        rows = await self.read_rows(select(ActionRow).where(ActionRow.table_id == table_id).order_by(ActionRow.seq))
        return [LoggedAction(r.seq, r.seat, r.action, r.event_seq, r.actor) for r in rows]

    # Table chat

    async def add_chat(self, table_id: int, seq: int, sender: dict[str, Any], message: str) -> None:
        """Write one table chat message (returns once it is committed)."""
        await self.add(ChatRow(table_id=table_id, seq=seq, sender=sender, message=message))

    async def chat(self, table_id: int) -> list[ChatRow]:
        """A table's chat messages, in journal order."""
        return await self.read_rows(select(ChatRow).where(ChatRow.table_id == table_id).order_by(ChatRow.seq))

    async def counts(self) -> dict[str, int]:
        """How many accounts (not deleted) and tables the database holds (for the operator's backup)."""
        users = await self.read_one(select(func.count()).select_from(UserRow).where(UserRow.deleted_at.is_(None)))
        tables = await self.read_one(select(func.count()).select_from(TableRow))
        return {"users": int(users or 0), "tables": int(tables or 0)}

    # Finished games and their reviews

    async def record_finished(self, table_id: int, players: dict[str, int], finished_at: dt.datetime, game: str,
                              results: list[tuple[int, bool, float, float]]) -> bool:
        """A finished table's results in one transaction, once: the people (user id -> seat) who played it to
        its end, and for each account (user id, won, new mu, new sigma). False, writing nothing, when they were
        recorded already (by this node before a crash, or by another node)."""
        def record(s: Session) -> bool:
            marked = s.execute(update(TableRow).where(TableRow.id == table_id, TableRow.results_recorded.is_(False))
                               .values(results_recorded=True))
            if rowcount(marked) != 1:
                return False
            if players:  # (no row can be there yet: they are written here only, once, as results_recorded says)
                s.execute(insert(PlayerRow), [{"table_id": table_id, "user_id": user_id, "seat": seat,
                                               "finished_at": finished_at} for user_id, seat in players.items()])
            for account, won, mu, sigma in results:
                stat = s.get(StatRow, (account, game))
                if stat is None:
                    stat = StatRow(user_id=account, game=game, played=0, won=0, mu=mu, sigma=sigma)
                    s.add(stat)
                stat.played += 1
                stat.won += int(won)
                stat.mu, stat.sigma = mu, sigma
            return True

        return await self.write(record)

    async def unrecorded_tables(self) -> list[TableRow]:
        """Finished tables whose results were never recorded (their owner died between the two writes)."""
        return await self.read_rows(select(TableRow).where(TableRow.status == "finished",
                                                           TableRow.results_recorded.is_(False))
                                    .order_by(TableRow.finished_at))

    async def games_of(self, user_id: str, limit: int) -> list[TableRow]:
        """The finished tables ``user_id`` played at, the latest first."""
        query = (select(TableRow).join(PlayerRow, PlayerRow.table_id == TableRow.id)
                 .where(PlayerRow.user_id == user_id, TableRow.status == "finished")
                 .order_by(TableRow.finished_at.desc(), TableRow.id).limit(limit))
        return await self.read_rows(query)

    async def review(self, table_id: int, hand: int, seat: int) -> ReviewRow | None:
        return await self.read_row(ReviewRow, (table_id, hand, seat))

    async def save_review(self, table_id: int, hand: int, seat: int, items: list[Any], budget: float) -> None:
        def save(s: Session) -> None:
            s.merge(ReviewRow(table_id=table_id, hand=hand, seat=seat, items=items, budget=budget,
                              created_at=utcnow()))

        await self.write(save)

    # Statistics

    async def stats(self, user_ids: list[int], game: str) -> dict[int, StatRow]:
        rows = await self.read_rows(select(StatRow).where(StatRow.user_id.in_(user_ids), StatRow.game == game))
        return {r.user_id: r for r in rows}

    async def user_stats(self, user_id: int) -> list[StatRow]:
        return await self.read_rows(select(StatRow).where(StatRow.user_id == user_id).order_by(StatRow.game))


def _upgrade(connection: Connection) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")
