"""Three nodes as one room on PostgreSQL and Redis (issue 9): a match played across nodes, lobby chat everywhere, a
player moving to the table's node unheard, the owner node killed mid-hand (another node takes the table over from
the log), the owner node stopped with SIGTERM (it hands its tables over; nobody sees an error).

Each test uses a fresh PostgreSQL schema (dropped afterwards) and its own Redis key prefix in database
``TRICKROOM_TEST_REDIS`` (default redis://127.0.0.1:6379/9); without PostgreSQL or Redis the tests are skipped,
and under TRICKROOM_REQUIRE_SERVICES=1 they fail instead.
"""

from __future__ import annotations

import asyncio
import os
import queue
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import need_service
from server_helpers import TIMEOUT, Client, ProcessServer, choose
from websockets.exceptions import ConnectionClosed

from trickroom.games import load_game

POSTGRES = os.environ.get("TRICKROOM_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("TRICKROOM_TEST_REDIS", "redis://127.0.0.1:6379/9")
TAKEOVER_DEADLINE = 8.0  # seconds: lease (3 s) + a heartbeat + room to spare on a busy machine

pytestmark = pytest.mark.services
Message = dict[str, Any]


async def _postgres(sql: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(POSTGRES, timeout=3)
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


async def _redis_ping() -> None:
    import redis.asyncio as redis

    client = redis.from_url(REDIS, socket_timeout=3)
    try:
        await client.ping()
    finally:
        await client.aclose()


async def _redis_forget(prefix: str) -> None:
    import redis.asyncio as redis

    client = redis.from_url(REDIS)
    try:
        keys = [key async for key in client.scan_iter(match=f"{prefix}*")]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


def available(check: Any) -> bool:
    try:
        asyncio.run(check)
    except Exception:
        return False
    return True


class Nodes:
    """Three ``trickroom serve`` processes sharing one schema and one Redis prefix."""

    def __init__(self, schema: str, prefix: str, logs: Path) -> None:
        self.nodes: list[ProcessServer] = []
        for number in range(3):
            node = ProcessServer(POSTGRES, args=("--redis", REDIS), TRICKROOM_DB_SCHEMA=schema,
                                 TRICKROOM_REDIS_PREFIX=prefix, TRICKROOM_NODE_ID=f"n{number + 1}",
                                 TRICKROOM_BOT_WORKERS="0", TRICKROOM_GRACE_SECONDS="30",
                                 # (players here act as soon as they can: on one node, faster than any person)
                                 TRICKROOM_MESSAGES_PER_SECOND="200",
                                 TRICKROOM_LOG_LEVEL="info")  # a failing test's nodes' logs say who owned what
            node.log_path = logs / f"n{number + 1}.log"
            self.nodes.append(node)

    def start(self) -> Nodes:
        for node in self.nodes:
            node.start()
        return self

    @property
    def urls(self) -> list[str]:
        return [node.url for node in self.nodes]

    def stop(self) -> None:
        for node in self.nodes:
            if node.process is not None and node.process.poll() is None:
                node.stop()


@pytest.fixture
def nodes(tmp_path: Path) -> Iterator[Nodes]:
    need_service(available(_postgres("SELECT 1")), f"PostgreSQL is not reachable at {POSTGRES}")
    need_service(available(_redis_ping()), f"Redis is not reachable at {REDIS}")
    schema = f"trickroom_cluster_{secrets.token_hex(4)}"
    prefix = f"trickroom_test_{secrets.token_hex(4)}:"
    group = Nodes(schema, prefix, tmp_path)
    try:
        yield group.start()
    finally:
        group.stop()
        for node in group.nodes:  # captured: shown when the test fails (the room's own story of it)
            if node.log_path is not None and node.log_path.exists():
                lines = [line for line in node.log_path.read_text(errors="replace").splitlines()
                         if '"trickroom.' in line]
                print(f"--- {node.log_path.name}", *lines[-30:], sep="\n")
        asyncio.run(_postgres(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        asyncio.run(_redis_forget(prefix))


class Roamer:
    """A player who plays a seat to the match's end with random legal moves and, when their node goes away
    (closed connection or a ``reconnect`` message), connects to another node, logs in with the token and
    resumes after the last table message seen. Everything seen is kept; errors are collected."""

    def __init__(self, urls: list[str], first: int, name: str, seed: int, follows: bool = False) -> None:
        """``follows``: moves to the table's node when told (``table_node``), as our clients do; otherwise it
        ignores the message, as an older client would, and plays through its own node."""
        self.urls = urls
        self.follows = follows
        self.current = urls[first]
        self.client = Client(self.current)
        self.client.login_guest(name)
        self.token = self.client.token
        self.seed = seed
        self.table = ""
        self.seat = -1
        self.last_seq = 0
        self.events: dict[int, Message] = {}  # journal seq -> game event, as this player saw it
        self.errors: list[Message] = []
        self.reconnects = 0
        self.moves: list[str] = []  # the addresses moved to when told the table's node
        self.final: Message | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.failure: BaseException | None = None
        self.dead: set[str] = set()
        self.holding = threading.Event()  # set: make no new move (acts already sent still go again if unanswered)
        self.heard_at = time.monotonic()  # when the last message came

    def play(self, table: str, seat: int) -> Roamer:
        self.table, self.seat = table, seat
        self.thread.start()
        return self

    def _reconnect(self, nodes: list[str] | None = None) -> None:
        self.dead.add(self.current)
        candidates = [u for u in (nodes or []) + self.urls if u not in self.dead]
        last_error: Exception | None = None
        for url in candidates:
            try:
                client = Client(url)
            except OSError as exc:
                last_error = exc
                self.dead.add(url)
                continue
            self._take(client, url)
            self.reconnects += 1
            return
        raise ConnectionError(f"no node to reconnect to: {last_error}")

    def _move(self, url: str) -> None:
        """To the table's node, as our clients go: logged in there before the first connection closes (so that
        nobody hears us leave), then the table resumed after the last message seen."""
        self._take(Client(url), url, follow_lobby=False)
        self.moves.append(url)

    def _take(self, client: Client, url: str, **login: Any) -> None:
        """Log in on ``client`` (at ``url``) with the token, close the connection played on so far (what it still
        held comes again with the resume) and resume the table after the last message seen."""
        welcome = client.request(type="login", token=self.token, **login)
        assert welcome["type"] == "welcome" and self.table in welcome["tables"], welcome
        old, self.client, self.current = self.client, client, url
        old.close()
        client.send(type="resume", table=self.table, after=self.last_seq)

    def _run(self) -> None:
        import random

        rng = random.Random(self.seed)
        latest: Message | None = None
        # The act sent and not yet answered: (move, action, id). After a reconnect, or when no answer comes (its
        # node died), the same act goes again with the same ``move``; the owner applies it at most once.
        pending: tuple[int, str, int] | None = None
        sent_at = 0.0
        acted_move = -1  # one act per state (``move``): later updates of the same state are not new decisions
        try:
            silent_since = time.monotonic()
            while True:
                resend = False
                try:
                    message: Message | None = self.client.next(0.3)
                except ConnectionError:
                    self._reconnect()
                    resend = True
                    message = None
                except queue.Empty:
                    message = None
                    if time.monotonic() - silent_since > TIMEOUT * 2:
                        raise TimeoutError(f"seat {self.seat} heard nothing; last {self.client.history[-4:]}") from None
                if message is not None:
                    silent_since = self.heard_at = time.monotonic()
                    if message["type"] == "reconnect":
                        self._reconnect(message["nodes"])
                        resend = True
                    elif message["type"] == "table_node" and message["table"] == self.table and self.follows:
                        self._move(message["url"])
                        resend = True
                    elif message["type"] in ("error", "ok") and pending is not None and message.get("re") == pending[2]:
                        if message["type"] == "error":
                            self.errors.append(message)
                        pending = None
                    elif message["type"] == "error":
                        self.errors.append(message)
                    elif message.get("table") == self.table:
                        if message["type"] in ("event", "table_event", "chat"):
                            self.last_seq = max(self.last_seq, message["seq"])
                        if message["type"] == "event":
                            self.events[message["seq"]] = message["event"]
                        if message["type"] == "table_event" and message["kind"] == "finished":
                            self.final = message
                            return
                        if message["type"] in ("update", "snapshot"):  # a snapshot: the state after a resume
                            latest = message
                if pending is not None and (resend or time.monotonic() - sent_at > 3):
                    sent_at = time.monotonic()
                    self._send_act(pending)
                    continue
                if latest is None or pending is not None or not self.client.inbox.empty() or self.client.pending:
                    continue  # act on the newest state only, once our last action was answered
                if self.holding.is_set():
                    silent_since = time.monotonic()  # (waiting on purpose)
                    continue
                if self.seat in latest["to_act"] and latest["legal"] and latest["move"] > acted_move:
                    acted_move, sent_at = latest["move"], time.monotonic()
                    pending = (latest["move"], choose(latest["legal"], rng), rng.getrandbits(30))
                    self._send_act(pending)
        except BaseException as exc:
            self.failure = exc

    def _send_act(self, pending: tuple[int, str, int]) -> None:
        """Send the act; a connection its node has just closed (a stop) is replaced first, and the same act (its
        ``move``: applied at most once) goes to the next node."""
        try:
            self.client.send(type="act", table=self.table, move=pending[0], action=pending[1], id=pending[2])
        except ConnectionClosed:
            self._reconnect()
            self.client.send(type="act", table=self.table, move=pending[0], action=pending[1], id=pending[2])

    def join(self, timeout: float = 90) -> None:
        self.thread.join(timeout)
        if self.failure is not None:
            raise self.failure
        assert self.final is not None, "the match did not finish"

    def close(self) -> None:
        self.client.close()


def start_table(host: Roamer, guest: Roamer, players: int, bot: bool) -> str:
    options = {"players": players, "scoring": "points", "hand_limit": 1}
    table: str = host.client.request(type="create", game="bura", options=options)["table"]
    host.client.request(type="sit", table=table, seat=0)
    guest.client.request(type="sit", table=table, seat=1)
    if bot:
        host.client.request(type="bot_add", table=table, level="random", seat=2)
    host.client.request(type="start", table=table)
    return table


def history(client: Client, table: str) -> Message:
    reply = client.request(type="history", table=table)
    assert reply["type"] == "history", reply
    return reply


def check_log_matches_what_players_saw(log: Message, players: list[Roamer]) -> None:
    """Replaying the action log gives the standings the players were told, and every game event a player saw
    is the log's event with the same number: no action lost, none applied twice."""
    game = load_game("bura", **log["options"])
    replayed = game.replay(log["seed"], [(a["seat"], a["action"]) for a in log["actions"]])
    assert [a["seq"] for a in log["actions"]] == list(range(1, len(log["actions"]) + 1))
    for player in players:
        assert player.final is not None
        assert replayed.standings == player.final["standings"]
        plays_seen = [e for _, e in sorted(player.events.items()) if e["type"] in ("play", "trick", "claim")]
        plays_logged = [{k: v for k, v in e.items() if k != "private_to"} for e in replayed.events
                        if e["type"] in ("play", "trick", "claim")]
        assert plays_seen == plays_logged


def test_two_nodes_one_match_and_lobby_chat_everywhere(nodes: Nodes) -> None:
    anna, boris = Roamer(nodes.urls, 0, "Anna", 1), Roamer(nodes.urls, 1, "Boris", 2)
    carl, dasha = Client(nodes.urls[2]), Client(nodes.urls[1])
    try:
        carl.login_guest("Carl")
        assert sorted(carl.hello["nodes"]) == sorted(nodes.urls)
        carl.send(type="chat", message="hello from node 3")
        for client in (anna.client, boris.client):
            heard = client.wait(type="chat", message="hello from node 3")
            assert heard["text"] == "Carl: hello from node 3"
        carl.wait(type="lobby")  # the one after welcome
        carl.send(type="lobby")
        users = {u["name"] for u in carl.wait(type="lobby")["users"]}
        assert {"Anna", "Boris", "Carl"} <= users
        # Sentences for one person are made on their node, in their language: a whisper and an invitation.
        dasha.login_guest("Dasha", lang="ru")
        # Wait until the news of her arrival has reached Carl's node, which looks her up by name.
        carl.wait(lambda m: m["user"]["id"] == dasha.user["id"], type="presence", online=True)
        assert carl.request(type="private", to="Dasha", message="hi")["type"] == "ok"
        assert dasha.wait(type="private")["text"] == "Carl шепчет: hi"
        private = carl.request(type="create", game="bura", private=True)["table"]
        assert carl.request(type="invite", table=private, user="Dasha")["type"] == "ok"
        assert dasha.wait(type="invited")["text"] == "Carl приглашает вас за стол (Бура)."
        table = start_table(anna, boris, 2, bot=False)
        anna.play(table, 0)
        boris.play(table, 1)
        anna.join()
        boris.join()
        assert anna.errors == [] and boris.errors == [] and anna.reconnects == boris.reconnects == 0
        check_log_matches_what_players_saw(history(carl, table), [anna, boris])
    finally:
        for player in (anna, boris):
            player.close()
        carl.close()
        dasha.close()


def test_a_player_seated_from_another_node_moves_to_the_table_s_node_unheard(nodes: Nodes) -> None:
    """Boris, on node 2, sits at Anna's table, held by node 1, and is told the table's node; he connects there,
    logs in with his token (no lobby: he stays at the table), closes his first connection and resumes
    (``Roamer._move``). Nobody hears him leave or come back, nothing is lost or played twice, and he is not told
    again as the second hand begins."""
    anna, boris = Roamer(nodes.urls, 0, "Anna", 7, follows=True), Roamer(nodes.urls, 1, "Boris", 8, follows=True)
    carl = Client(nodes.urls[2])
    try:
        table = anna.client.request(type="create", game="bura", options={"players": 2, "hand_limit": 2})["table"]
        anna.client.request(type="sit", table=table, seat=0)
        boris.client.request(type="sit", table=table, seat=1)
        anna.client.request(type="start", table=table)
        anna.play(table, 0)
        boris.play(table, 1)
        anna.join()
        boris.join()
        assert boris.moves == [nodes.urls[0]] and anna.moves == [] and boris.current == nodes.urls[0]
        assert boris.reconnects == 0 and anna.errors == [] and boris.errors == []
        heard = [m.get("kind") for m in anna.client.history if m["type"] == "table_event"]
        assert "disconnected" not in heard and "reconnected" not in heard
        assert "lobby" not in [m["type"] for m in boris.client.history]  # logged in there without the lobby
        carl.login_guest("Carl")
        check_log_matches_what_players_saw(history(carl, table), [anna, boris])
    finally:
        for player in (anna, boris):
            player.close()
        carl.close()


def playing_mid_hand(nodes: Nodes, seeds: tuple[int, int], players: int, bot: bool,
                     events: int) -> tuple[Roamer, Roamer, str]:
    """Anna (node 1, the table's owner) and Boris (node 2) in a one-hand match, ``events`` game events in, both
    holding their next move until the caller lets them go (``release``): the owner is then stopped mid-hand, not
    in the few milliseconds in which a winning combination ends the hand and its end is still on its way. Such a
    match is played out and another dealt."""
    for attempt in range(6):
        suffix = str(attempt) if attempt else ""
        anna = Roamer(nodes.urls, 0, f"Anna{suffix}", seeds[0] + 10 * attempt)
        boris = Roamer(nodes.urls, 1, f"Boris{suffix}", seeds[1] + 10 * attempt)
        table = start_table(anna, boris, players, bot)  # created on node 1: node 1 owns it
        anna.play(table, 0)
        boris.play(table, 1)
        wait_until(lambda b=boris: len(b.events) >= events or b.final is not None, "the hand to get going")
        for player in (anna, boris):
            player.holding.set()
        # The table now waits for a person (a bot's move may still come): both have heard everything once no
        # message has come for a while.
        wait_until(lambda a=anna, b=boris: time.monotonic() - max(a.heard_at, b.heard_at) > 0.5, "the table to wait")
        if anna.final is None and boris.final is None:
            return anna, boris, table
        release(anna, boris)
        anna.join()
        boris.join()
        anna.close()
        boris.close()
    pytest.fail("six deals in a row ended before the hand got going")


def release(*players: Roamer) -> None:
    for player in players:
        player.holding.clear()


def test_owner_killed_mid_hand_another_node_takes_over(nodes: Nodes) -> None:
    watcher = Client(nodes.urls[2])
    watcher.login_guest("Watcher")
    anna, boris, table = playing_mid_hand(nodes, (3, 4), 3, bot=True, events=16)
    try:
        nodes.nodes[0].kill()
        release(anna, boris)
        anna.join()
        boris.join()
        assert anna.reconnects >= 1 and boris.reconnects == 0
        # An act lost with its node or racing the take-over is sent again with the same ``move``: applied once,
        # never refused.
        assert anna.errors == [] and boris.errors == []
        check_log_matches_what_players_saw(history(watcher, table), [anna, boris])
        assert any(a["actor"] == "bot:random" for a in history(watcher, table)["actions"])
    finally:
        for player in (anna, boris):
            player.close()
        watcher.close()


def test_sigterm_hands_tables_over_with_nothing_lost(nodes: Nodes) -> None:
    anna, boris, table = playing_mid_hand(nodes, (5, 6), 2, bot=False, events=12)
    try:
        release(anna, boris)  # (moves made while the node stops its tables and hands them over)
        nodes.nodes[0].stop()  # SIGTERM
        assert nodes.nodes[0].process is not None and nodes.nodes[0].process.returncode == 0
        anna.join()
        boris.join()
        assert anna.reconnects == 1 and boris.reconnects == 0
        # An intent sent to the stopping node may reach the new owner after the same act, sent again: the
        # ``move`` it carries makes the second harmless. Nobody sees an error; nothing is lost or applied twice.
        assert anna.errors == [] and boris.errors == []
        check_log_matches_what_players_saw(history(boris.client, table), [anna, boris])
    finally:
        for player in (anna, boris):
            player.close()


def wait_until(condition: Any, what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited too long for {what}")
        time.sleep(0.05)
