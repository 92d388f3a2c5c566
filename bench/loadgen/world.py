"""One generator process: its people, their shared view of the lobby, their figures.

``run_process`` is what each worker process runs: it connects its people over the sign-in ramp, lets them spend
the evening until ``end_at`` (times are ``time.monotonic()``, the same clock in every process of the machine),
then closes every connection and returns its ``Stats``.
"""

from __future__ import annotations

import asyncio
import random
import resource
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from loadgen.person import Person


@dataclass(frozen=True)
class Plan:
    """How the people behave (the defaults are the issue's evening)."""

    think: tuple[float, float] = (1.5, 8.0)  # seconds before every decision
    look: tuple[float, float] = (2.0, 10.0)  # seconds spent looking at the lobby, or at a finished table
    ramp: float = 60.0  # everyone signs in within this many seconds
    hands: int = 1  # hands per match: Bura hand_limit, Mpourloto target 100 per hand
    bot_tables: float = 0.25  # share of hosts who add bots at once (the others add them only after waiting)
    fill_wait: tuple[float, float] = (15.0, 30.0)  # a host waits this long for people, then fills with bots
    chat: float = 0.03  # chance of a table chat line after each action
    lobby_chat: float = 0.05  # chance of a lobby chat line each time a person looks at the lobby
    drops: float = 0.05  # share of people who drop their connection once during play and come back
    watchers: float = 0.01  # share of people who only watch the lobby (and decode it for the others)


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # act sent -> first event naming the seat
    late_latencies: list[float] = field(default_factory=list)  # the same, of the acts sent after the sign-in ramp
    lobby_latencies: list[float] = field(default_factory=list)  # create sent -> a watcher hears the listing
    sit_times: list[float] = field(default_factory=list)  # create or watch sent -> sit answered
    reconnect_times: list[float] = field(default_factory=list)  # connection dropped -> resume answered
    line_waits: list[float] = field(default_factory=list)  # first told a number in line -> welcome
    loop_lag: list[float] = field(default_factory=list)  # how late the generator's 50 ms ticks were
    errors: Counter[str] = field(default_factory=Counter)  # error codes the server sent; requests unanswered
    failures: Counter[str] = field(default_factory=Counter)  # connections that failed or closed unasked
    counts: Counter[str] = field(default_factory=Counter)
    cpu_seconds: float = 0.0  # this process's own CPU time
    people: int = 0
    players: int = 0  # people who are not lobby watchers
    seated: int = 0  # people (not lobby watchers) who sat down at least once
    acted: int = 0  # people who had at least one action acknowledged

    def count_error(self, message: dict[str, Any], request: str | None = None) -> None:
        """An error the server sent, by its code and, for a reply, the request's type ("sit: seat_taken")."""
        code = str(message.get("code"))
        self.errors[f"{request}: {code}" if request else code] += 1

    def merge(self, other: Stats) -> None:
        for name in ("latencies", "late_latencies", "lobby_latencies", "sit_times", "reconnect_times", "line_waits",
                     "loop_lag"):
            getattr(self, name).extend(getattr(other, name))
        self.errors.update(other.errors)
        self.failures.update(other.failures)
        self.counts.update(other.counts)
        self.cpu_seconds += other.cpu_seconds
        self.people += other.people
        self.players += other.players
        self.seated += other.seated
        self.acted += other.acted


class World:
    def __init__(self, plan: Plan, seed: str) -> None:
        self.plan = plan
        self.rng = random.Random(seed)
        self.stats = Stats()
        self.lobby: dict[str, dict[str, Any]] = {}  # table id -> latest entry, as the watchers heard it
        self.running = True
        self.loop = asyncio.get_running_loop()
        self.people: list[Person] = []
        self.ramp_end = float("inf")  # (monotonic) when the last person has signed in

    async def watch_loop(self, end_at: float, done: Callable[[World], bool] | None = None) -> None:
        """Measure the generator's own lateness (a tick every 50 ms) and time out unanswered requests, until
        ``end_at`` or, sooner, until ``done(world)`` holds (checked every tick)."""
        last_sweep = time.monotonic()
        while self.running and time.monotonic() < end_at and not (done is not None and done(self)):
            before = time.monotonic()
            await asyncio.sleep(0.05)
            self.stats.loop_lag.append(max(0.0, time.monotonic() - before - 0.05))
            if before - last_sweep > 5:
                last_sweep = before
                for person in self.people:
                    person.sweep(before)


def raise_file_limit() -> int:
    """The soft limit of open files up to the hard one (each connection is a file); returns the new limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


async def evening(people: list[tuple[str, str]], plan: Plan, seed: str, start_at: float, end_at: float,
                  done: Callable[[World], bool] | None = None) -> Stats:
    """``people``: (nickname, websocket address) of each person of this process. ``done``: the evening ends
    as soon as it holds of the world, before ``end_at`` (a test's condition, instead of a fixed length)."""
    world = World(plan, seed)
    world.ramp_end = start_at + plan.ramp
    rng = world.rng
    for offset, (name, url) in enumerate(people):
        watcher = rng.random() < plan.watchers or offset == 0  # every process has a lobby watcher
        world.people.append(Person(world, offset, name, url, watcher=watcher,
                                   drops=not watcher and rng.random() < plan.drops))
    for person in world.people:  # sign in at a random moment of the ramp
        world.loop.call_at(world.loop.time() + max(0.0, start_at - time.monotonic()) + rng.uniform(0, plan.ramp),
                           person.connect)
    cpu0 = time.process_time()
    await world.watch_loop(end_at, done)
    world.running = False
    stats = world.stats
    stats.cpu_seconds = time.process_time() - cpu0
    stats.people = len(world.people)
    players = [person for person in world.people if not person.watcher]
    stats.players = len(players)
    stats.seated = sum(person.ever_seated for person in players)
    stats.acted = sum(person.ever_acted for person in players)
    stats.counts["still in line at the end"] += sum(person.in_line_since is not None for person in world.people)
    for person in world.people:
        if person.link is not None:
            person.link.drop()
    return stats


def run_process(people: list[tuple[str, str]], plan: Plan, seed: str, start_at: float, end_at: float,
                results: Any) -> None:
    """A worker process's body: ``people``'s evening, their ``Stats`` put on ``results`` (a queue)."""
    raise_file_limit()
    results.put(asyncio.run(evening(people, plan, seed, start_at, end_at)))
