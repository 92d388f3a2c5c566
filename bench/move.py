"""What a player's move to their table's node costs the room: the two nodes' CPU per move.

    .venv/bin/python bench/move.py [--players 200] [--rounds 6] [--accounts]

Starts two nodes sharing a fresh PostgreSQL schema and Redis key prefix (``bench/loadgen/deployment.py``). Each
player signs in as a guest (or registers an account: ``--accounts``) on node 2, creates a two-player Bura table
there and sits down; the tables wait (nobody plays), so that what is measured is the move alone. Then,
``--rounds`` times, every player at once:

- *away*: a websocket to node 1, a login there with the token, the connection to node 2 closed (what a player
  whose connection lands on another node costs; not a move our clients make, but it puts them back where the
  next move starts);
- *to the table*: the move our clients make (docs/protocol.md, *Moving to the table's node*): a websocket to node
  2, a login with the token and ``"follow_lobby": false``, the connection to node 1 closed, the table resumed
  after the last message seen.

It prints the two nodes' CPU (from /proc) per move of each kind, the median over the rounds, less what the two
nodes spend idle over the same time (measured between the rounds). Loopback addresses only.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loadgen import deployment as deployment_module
from loadgen.deployment import Deployment, loopback_only

Message = dict[str, Any]
ids = itertools.count(1)


class Player:
    """One guest: a websocket at a time, the token, the table and the last table ``seq`` seen."""

    def __init__(self, number: int, account: bool) -> None:
        self.name = f"mover{number}"
        self.account = account
        self.token = ""
        self.table = ""
        self.seq = 0
        self.ws: Any = None

    async def request(self, ws: Any, **message: Any) -> Message:
        ident = next(ids)
        await ws.send(json.dumps({**message, "id": ident}))
        while True:
            frame: Message = json.loads(await asyncio.wait_for(ws.recv(), 30))
            for reply in frame["messages"] if frame.get("type") == "batch" else [frame]:
                if reply.get("table") == self.table:
                    self.seq = max(self.seq, int(reply.get("seq") or 0))
                if reply.get("re") == ident:
                    if reply.get("type") == "error":
                        raise RuntimeError(f"{self.name}: {message['type']} refused: {reply}")
                    return reply

    async def sit(self, url: str) -> None:
        self.ws = await websockets.connect(url, compression=None, max_size=None)
        if self.account:
            welcome = await self.request(self.ws, type="register", username=self.name, password="moving-on-1",
                                         protocol=3)
        else:
            welcome = await self.request(self.ws, type="login", nickname=self.name, protocol=3)
        self.token = welcome["token"]
        created = await self.request(self.ws, type="create", game="bura", options={"players": 2})
        self.table = created["table"]
        await self.request(self.ws, type="sit", table=self.table, seat=0)

    async def move(self, url: str, resume: bool) -> None:
        """Log in at ``url`` while the old connection stays open, then close the old one (and resume)."""
        new = await websockets.connect(url, compression=None, max_size=None)
        await self.request(new, type="login", token=self.token, follow_lobby=not resume, protocol=3)
        old, self.ws = self.ws, new
        await old.close()
        if resume:
            await self.request(new, type="resume", table=self.table, after=self.seq)

    async def drain(self) -> None:
        """Read what came unasked (a lobby snapshot, presence) so that the socket's buffer does not fill."""
        while True:
            try:
                await asyncio.wait_for(self.ws.recv(), 0.01)
            except TimeoutError:
                return


def cpu(deployment: Deployment) -> float:
    return sum(server.cpu_seconds() for server in deployment.servers)


async def measure(deployment: Deployment, players: list[Player], rounds: int) -> dict[str, list[float]]:
    node1, node2 = deployment.urls
    await asyncio.gather(*(player.sit(node2) for player in players))
    costs: dict[str, list[float]] = {"away": [], "to the table": [], "idle": []}
    for _ in range(rounds):
        for kind, url in (("away", node1), ("to the table", node2)):
            await asyncio.gather(*(player.drain() for player in players))
            await asyncio.sleep(0.5)
            before, started = cpu(deployment), time.perf_counter()
            await asyncio.sleep(1.0)
            idle = (cpu(deployment) - before) / (time.perf_counter() - started)
            before, started = cpu(deployment), time.perf_counter()
            await asyncio.gather(*(player.move(url, resume=kind != "away") for player in players))
            await asyncio.sleep(0.3)  # the old connections' leaving, handled after the close
            elapsed = time.perf_counter() - started
            spent = cpu(deployment) - before - idle * elapsed
            costs[kind].append(spent / len(players) * 1000)
            costs["idle"].append(idle * 100)
    for player in players:
        await player.ws.close()
    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200, help="players moving at once (default 200)")
    parser.add_argument("--rounds", type=int, default=6, help="moves of each kind per player (default 6)")
    parser.add_argument("--accounts", action="store_true", help="players with accounts (default: guests)")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/12?max_connections=4000")
    parser.add_argument("--profile", metavar="PATH", help="run each node under cProfile, its statistics written to "
                        "PATH.<node> when it stops (read them with python -m pstats); the figures are then the "
                        "profiled nodes'")
    args = parser.parse_args()
    deployment_module.PROFILE = args.profile
    loopback_only(args.postgres)
    loopback_only(args.redis)
    deployment = Deployment("postgres", 2, args.postgres, args.redis, "login_room_alarm=1000000\n"
                            "login_address_free=1000000\nlogin_free_failures=1000000\n")
    try:
        deployment.start()
        costs = asyncio.run(measure(deployment, [Player(n, args.accounts) for n in range(args.players)], args.rounds))
    finally:
        deployment.stop("move")
    who = "accounts" if args.accounts else "guests"
    print(f"{args.players} players ({who}), {args.rounds} rounds, two nodes on PostgreSQL and Redis")
    for kind in ("away", "to the table"):
        values = ", ".join(f"{v:.2f}" for v in costs[kind])
        print(f"  {kind:13} ms of the two nodes' CPU per move: median {statistics.median(costs[kind]):.2f} ({values})")
    print(f"  the two nodes idle: {statistics.median(costs['idle']):.1f}% of a core")


if __name__ == "__main__":
    main()
