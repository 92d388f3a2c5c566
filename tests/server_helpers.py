"""Helpers for the server tests: a room on a free 127.0.0.1 port (in a thread or a real process) and a
websocket test client that keeps every message it received.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import uvicorn
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from trickroom.server.app import create_app
from trickroom.server.connection import Connection
from trickroom.server.main import uvicorn_config
from trickroom.server.settings import Settings

Message = dict[str, Any]
TIMEOUT = 20.0
# A room process's start: a cold Python importing the room took 6 s of wall time on the busy 2-core machine, and
# three starts went past 20 s in one full run there.
START_TIMEOUT = 60.0


def heard(conn: Connection) -> list[Message]:
    """The messages queued on a room's connection (without a socket), decoded, in order; the queue is left empty."""
    messages = []
    while not conn.queue.empty():
        frame = conn.queue.get_nowait()
        assert frame is not None
        messages.append(json.loads(frame))
    return messages


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ThreadServer:
    """The room's ASGI app under uvicorn in a background thread."""

    def __init__(self, uvicorn_options: dict[str, Any] | None = None, **settings: Any) -> None:
        self.port = free_port()
        values = {"host": "127.0.0.1", "port": self.port, "timer_minimum": 1, "log_level": "warning",
                  "replacement_bot": "random", **settings}
        self.settings = Settings(**values)
        self.app = create_app(self.settings)
        config = uvicorn_config(self.app, self.settings, ws_max_size=self.settings.max_frame_bytes, log_level="warning",
                                **(uvicorn_options or {}))
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ThreadServer:
        self.thread.start()
        deadline = time.monotonic() + TIMEOUT
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=TIMEOUT)


class ProcessServer:
    """The real ``trickroom serve`` command in a subprocess, for crash tests."""

    def __init__(self, db_path: Path | str, port: int | None = None, args: tuple[str, ...] = (), **env: str) -> None:
        self.port = port or free_port()
        self.db_path = db_path
        self.args = args  # more command-line flags (e.g. --redis URL)
        self.log_path: Path | None = None  # set it to collect the server's output in a file instead of pipes
        self.env = {**os.environ, "TRICKROOM_TIMER_MINIMUM": "1", "TRICKROOM_REPLACEMENT_BOT": "random",
                    "TRICKROOM_LOG_LEVEL": "warning", **env}
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> ProcessServer:
        output = self._output()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "trickroom", "serve", "--host", "127.0.0.1", "--port", str(self.port),
             "--db", self.db_path if isinstance(self.db_path, str) else f"sqlite:///{self.db_path}", *self.args],
            env=self.env, stdout=output, stderr=subprocess.STDOUT if self.log_path else subprocess.PIPE)
        if self.log_path:
            output.close()  # the child has its own copy
        deadline = time.monotonic() + START_TIMEOUT
        try:
            while True:
                if self.process.poll() is not None:
                    errors = self.process.stderr.read().decode() if self.process.stderr else str(self.log_path)
                    raise RuntimeError(f"server exited: {errors}")
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
                if time.monotonic() > deadline:
                    raise RuntimeError("the server process did not start")
                time.sleep(0.05)
        except BaseException:
            # Not left running: a process and pipes nobody waits for fail a later test (ResourceWarning) and
            # load the machine for the rest of the run.
            self.kill()
            raise

    def _output(self) -> Any:
        return self.log_path.open("ab") if self.log_path else subprocess.PIPE

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()  # SIGKILL: no clean shutdown at all
        self.process.wait(timeout=TIMEOUT)
        self.close_pipes()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.close_pipes()

    def close_pipes(self) -> None:
        assert self.process is not None
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()


class Client:
    """A websocket client for tests: a reader thread files every message; ``wait`` finds the next match."""

    def __init__(self, url: str, origin: str | None = None, headers: dict[str, str] | None = None) -> None:
        """``headers``: more handshake headers (``X-Forwarded-For`` makes the client come from another address:
        the test room believes it from 127.0.0.1, as from a proxy on the same machine)."""
        sent = {**({"Origin": origin} if origin else {}), **(headers or {})}
        self.ws: ClientConnection = connect(url, open_timeout=TIMEOUT, additional_headers=sent or None,
                                            max_size=2**22)
        self.inbox: queue.Queue[Message | None] = queue.Queue()
        self.history: list[Message] = []  # every message received, in order
        self.pending: list[Message] = []  # received but not yet returned by next() or wait()
        self.user: Message | None = None
        self.token: str | None = None
        self.closed = False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.hello = self.wait(type="hello")

    def _read(self) -> None:
        try:
            for raw in self.ws:
                self.inbox.put(json.loads(raw))
        except ConnectionClosed:
            pass
        finally:
            self.closed = True
            self.inbox.put(None)

    def send(self, **message: Any) -> None:
        self.ws.send(json.dumps(message))

    def send_raw(self, raw: str | bytes) -> None:
        self.ws.send(raw)

    def next(self, timeout: float = TIMEOUT) -> Message:
        if self.pending:
            return self.pending.pop(0)
        return self._receive(timeout)

    def _receive(self, timeout: float) -> Message:
        message = self.inbox.get(timeout=timeout)
        if message is None:
            self.inbox.put(None)
            raise ConnectionError("connection closed")
        self.history.append(message)
        return message

    def wait(self, predicate: Callable[[Message], bool] | None = None, timeout: float = TIMEOUT,
             **fields: Any) -> Message:
        """The first message not yet returned with these ``fields`` (and satisfying ``predicate``); the
        messages passed over stay pending for later calls."""

        def matches(message: Message) -> bool:
            return all(message.get(k) == v for k, v in fields.items()) and (predicate is None or predicate(message))

        for index, message in enumerate(self.pending):
            if matches(message):
                return self.pending.pop(index)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no message {fields} within {timeout}s; last: {self.history[-5:]}")
            try:
                message = self._receive(left)
            except queue.Empty:
                continue
            if matches(message):
                return message
            self.pending.append(message)

    def request(self, timeout: float = TIMEOUT, **message: Any) -> Message:
        """Send ``message`` with an id and return the reply carrying it back (``re``) within ``timeout`` seconds."""
        message.setdefault("id", random.getrandbits(30))
        self.send(**message)
        return self.wait(re=message["id"], timeout=timeout)

    def drain(self, quiet: float = 0.3) -> list[Message]:
        """Everything that arrives until ``quiet`` seconds pass with nothing new."""
        got, self.pending = self.pending, []
        while True:
            try:
                got.append(self._receive(quiet))
            except queue.Empty:
                return got

    def login_guest(self, nickname: str, lang: str = "en", auto_pass: bool | None = False) -> Message:
        """A guest's login. ``auto_pass``: the preference set right after (False by default: most tests answer
        Bura's announcement pause themselves; None leaves the room's default, on)."""
        welcome = self.request(type="login", nickname=nickname, lang=lang)
        assert welcome["type"] == "welcome", welcome
        self.user, self.token = welcome["user"], welcome["token"]
        if auto_pass is not None:
            assert self.request(type="preferences", auto_pass=auto_pass)["type"] == "preferences"
        return welcome

    def close(self) -> None:
        """Drop the connection, as a lost network would: a guest's name stays held for them (guest_hold_minutes)."""
        self.ws.close()
        self.reader.join(timeout=5)

    def leave(self) -> None:
        """Log out, then close: the guest's name is free again at once (tests reuse names)."""
        if self.user is not None and not self.closed:
            with contextlib.suppress(Exception):
                self.request(type="logout")
        self.close()


@contextlib.contextmanager
def clients(url: str, *names: str) -> Iterator[list[Client]]:
    made = []
    try:
        for name in names:
            client = Client(url)
            client.login_guest(name)
            made.append(client)
        yield made
    finally:
        for client in made:
            client.leave()


@contextlib.contextmanager
def room_on(db: str, **settings: Any) -> Iterator[tuple[ThreadServer, list[Client]]]:
    """A room on ``db`` (two in a row on the same file make a restart) and the clients a test makes in it, all
    closed and stopped at the end."""
    room = ThreadServer(db=db, bot_workers=0, **settings).start()
    made: list[Client] = []
    try:
        yield room, made
    finally:
        for client in made:
            client.close()
        room.stop()


def choose(legal: list[str], rng: random.Random) -> str:
    """A test player's move: random, never a claim unless nothing else is possible (as the random bot)."""
    options = [a for a in legal if a != "claim"] or legal
    return rng.choice(options)


class AutoPlayer:
    """Plays a seat from a client's ``update``/``your_turn`` messages in a thread, until a stop condition."""

    def __init__(self, client: Client, table: str, seat: int, seed: int,
                 until: Callable[[Message], bool]) -> None:
        self.client, self.table, self.seat = client, table, seat
        self.rng = random.Random(seed)
        self.until = until
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> AutoPlayer:
        self.thread.start()
        return self

    def _run(self) -> None:
        """Act on the latest update where this seat is to act, one action at a time: after sending, wait for
        the seat's event (accepted) or an error (then act again on the latest state, after a pause if the
        error was the rate limit)."""
        try:
            latest: Message | None = None
            waiting = False
            while True:
                try:
                    message = self.client.next(TIMEOUT * 3)
                except queue.Empty:
                    raise TimeoutError(f"seat {self.seat} heard nothing; last: {self.client.history[-6:]}") from None
                if message["type"] == "error" and waiting:
                    if message["code"] == "rate_limited":
                        time.sleep(0.2)
                    waiting = False
                    self._act(latest)
                    waiting = latest is not None and self.seat in latest["to_act"] and bool(latest["legal"])
                    continue
                if message.get("table") != self.table:
                    continue
                if self.until(message):
                    self.done.set()
                    return
                if message["type"] == "event" and message["event"].get("seat") == self.seat:
                    waiting = False
                if message["type"] == "update":
                    latest = message
                    if not waiting:
                        waiting = self._act(latest)
        except BaseException as exc:  # reported by join()
            self.error = exc
            self.done.set()

    def _act(self, update: Message | None) -> bool:
        if update is None or self.seat not in update["to_act"] or not update["legal"]:
            return False
        self.client.send(type="act", table=self.table, action=choose(update["legal"], self.rng))
        return True

    def join(self, timeout: float = 120) -> None:
        self.thread.join(timeout)
        if self.error is not None:
            raise self.error
        assert self.done.is_set(), "the autoplayer did not finish"


def match_finished(message: dict[str, Any]) -> bool:
    return message.get("type") == "table_event" and message.get("kind") == "finished"


def finished_against_bots(client: Client, game: str, options: dict[str, Any], seat: int = 0,
                          **create: Any) -> str:
    """``client`` creates a table (``create``: more of its fields), plays seat ``seat`` against random bots (a
    random legal move each turn) to the match's end, and returns the table's id."""
    from trickroom.games import load_game

    table: str = client.request(type="create", game=game, options=options, **create)["table"]
    client.request(type="sit", table=table, seat=seat)
    for other in range(load_game(game, **options).players):
        if other != seat:
            client.request(type="bot_add", table=table, level="random", seat=other)
    client.request(type="start", table=table)
    AutoPlayer(client, table, seat, 11, match_finished).start().join()
    return table


def play_rated_bura_match(account: Client, guest: Client, seeds: tuple[int, int] = (41, 42)) -> dict[str, Any]:
    """Two signed-in clients play a one-hand 2-player Bura match to its end; returns ``account``'s stats reply."""
    table = account.request(type="create", game="bura",
                            options={"players": 2, "scoring": "points", "hand_limit": 1})["table"]
    account.request(type="sit", table=table, seat=0)
    guest.request(type="sit", table=table, seat=1)
    account.request(type="start", table=table)
    players = [AutoPlayer(account, table, 0, seeds[0], match_finished).start(),
               AutoPlayer(guest, table, 1, seeds[1], match_finished).start()]
    for player in players:
        player.join()
    stats: dict[str, Any] = account.request(type="stats")
    return stats
