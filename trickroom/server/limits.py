"""Limits on guessing: account passwords and session tokens, guest names, table passwords.

The limits slow a guesser down without locking the real owner out. Failures are counted per *pair* (what is
guessed and who guesses: an account name and an address, a table and a person), per *target* (all guessers of
one account or table), per *origin* (one address, whatever it guesses) and over the whole room. Each count only
ever makes a guesser wait since **its own** last failure, so someone who has not failed is never held back by
what others did, and a refused attempt is not counted (asking again early extends nothing):

- a pair gets ``free`` failures, then waits ``base`` seconds, doubling with each further failure up to ``cap``;
- a target with ``target_alarm`` failures or more is under attack: every pair of it gets one free failure only;
- an origin gets ``origin_free`` failures over all targets, then backs off the same way (spraying many
  accounts from one address);
- when the whole room has seen ``global_alarm`` failures in the last minute, every origin that has failed waits
  ``global_wait`` seconds after each failure.

Counts are forgotten ``window`` seconds after their last failure. The numbers are settings (docs/security.md).

Counters live in Redis when the room runs on several nodes (:class:`RedisCounters`: every node sees every
failure) and in this process otherwise (:class:`MemoryCounters`, bounded: it keeps at most ``max_keys`` counters
and forgets the least recently failed first). Time comes from a clock that tests replace.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from trickroom.server.redis_publisher import Publisher

Clock = Callable[[], float]
BUCKET_SECONDS = 10  # the room-wide count is kept in 10-second buckets
GLOBAL_SPAN = 60  # ... and summed over the last minute


@dataclass(frozen=True)
class Count:
    failures: int
    last: float  # clock time of the last failure


class Counters(Protocol):
    async def read(self, keys: Sequence[str], now: float) -> list[Count | None]: ...

    async def fail(self, keys: Sequence[str], now: float) -> None: ...

    async def forget(self, keys: Sequence[str]) -> None: ...

    async def room_failures(self, now: float) -> int: ...


class MemoryCounters:
    """Counters of one process, at most ``max_keys`` of them (the least recently failed go first)."""

    def __init__(self, window: float, max_keys: int = 100_000) -> None:
        self.window = window
        self.max_keys = max_keys
        self.counts: OrderedDict[str, Count] = OrderedDict()
        self.buckets: dict[int, int] = {}

    async def read(self, keys: Sequence[str], now: float) -> list[Count | None]:
        found: list[Count | None] = []
        for key in keys:
            count = self.counts.get(key)
            found.append(count if count is not None and now - count.last <= self.window else None)
        return found

    async def fail(self, keys: Sequence[str], now: float) -> None:
        for key, count in zip(keys, await self.read(keys, now), strict=True):
            self.counts[key] = Count((count.failures if count else 0) + 1, now)
            self.counts.move_to_end(key)
        while len(self.counts) > self.max_keys:
            self.counts.popitem(last=False)
        bucket = int(now // BUCKET_SECONDS)
        self.buckets[bucket] = self.buckets.get(bucket, 0) + 1
        for old in [b for b in self.buckets if b <= bucket - GLOBAL_SPAN // BUCKET_SECONDS]:
            del self.buckets[old]

    async def forget(self, keys: Sequence[str]) -> None:
        for key in keys:
            self.counts.pop(key, None)

    async def room_failures(self, now: float) -> int:
        bucket = int(now // BUCKET_SECONDS)
        return sum(n for b, n in self.buckets.items() if bucket - GLOBAL_SPAN // BUCKET_SECONDS < b <= bucket)


class RedisCounters:
    """Counters shared by the nodes of one room: a hash ``{n, last}`` per key, expiring ``window`` seconds after
    its last failure, and the room-wide count in 10-second buckets. The expiry only frees memory; staleness is
    judged from ``last``, on the limiter's clock (wall time, the same on every node when they run NTP)."""

    def __init__(self, client: Any, prefix: str, window: float, publisher: Publisher) -> None:
        self.redis = client
        self.publisher = publisher  # the bus's pipelined connection, for the reads (one at every login)
        self.prefix = prefix + "limit:"
        self.window = window

    async def read(self, keys: Sequence[str], now: float) -> list[Count | None]:
        rows = await self.publisher.run([(b"HMGET", (self.prefix + key).encode(), b"n", b"last") for key in keys])
        found: list[Count | None] = []
        for failures, last in rows:
            count = Count(int(failures), float(last)) if failures is not None and last is not None else None
            found.append(count if count is not None and now - count.last <= self.window else None)
        return found

    async def fail(self, keys: Sequence[str], now: float) -> None:
        stale = [key for key, count in zip(keys, await self.read(keys, now), strict=True) if count is None]
        bucket = f"{self.prefix}room:{int(now // BUCKET_SECONDS)}"
        async with self.redis.pipeline(transaction=True) as pipe:
            for key in stale:  # an old count past the window starts again from zero
                pipe.delete(self.prefix + key)
            for key in keys:
                pipe.hincrby(self.prefix + key, "n", 1)
                pipe.hset(self.prefix + key, "last", repr(now))
                pipe.pexpire(self.prefix + key, int(self.window * 1000) + 1000)
            pipe.incr(bucket)
            pipe.expire(bucket, GLOBAL_SPAN * 2)
            await pipe.execute()

    async def forget(self, keys: Sequence[str]) -> None:
        if keys:
            await self.redis.delete(*(self.prefix + key for key in keys))

    async def room_failures(self, now: float) -> int:
        bucket = int(now // BUCKET_SECONDS)
        names = [f"{self.prefix}room:{b}" for b in range(bucket - GLOBAL_SPAN // BUCKET_SECONDS + 1, bucket + 1)]
        return sum(int(v) for v in await self.redis.mget(names) if v is not None)


@dataclass(frozen=True)
class Policy:
    free: int = 5  # failures of one pair before it backs off
    base: float = 1.0  # the first back-off, in seconds; doubles with each further failure
    cap: float = 60.0  # the longest back-off
    target_alarm: int = 20  # failures on one target (from anyone) that put it under attack: one free failure
    origin_free: int | None = None  # failures of one origin over all targets before it backs off (None: no limit)
    global_alarm: int | None = None  # room-wide failures per minute that make every failed origin wait
    global_wait: float = 10.0


def backoff(failures: int, free: int, policy: Policy) -> float:
    if failures < free:
        return 0.0
    return float(min(policy.cap, policy.base * 2 ** min(failures - free, 32)))


class GuessLimiter:
    """How long a guesser must wait before its next try (0: it may try now), and the failures to count.

    ``target`` is what is guessed (an account name, a table), ``sources`` who guesses it (an address; for a table a
    person and an address), ``origin`` the address for the per-address and room-wide rules (None: not counted)."""

    def __init__(self, kind: str, counters: Counters, policy: Policy, clock: Clock = time.time) -> None:
        self.kind = kind
        self.counters = counters
        self.policy = policy
        self.clock = clock

    def _keys(self, target: str, sources: Sequence[str], origin: str | None) -> list[str]:
        keys = [f"{self.kind}:t:{target}", *(f"{self.kind}:p:{target}|{source}" for source in sources)]
        if origin is not None and self.policy.origin_free is not None:
            keys.append(f"{self.kind}:o:{origin}")
        return keys

    async def retry_after(self, target: str, sources: Sequence[str], origin: str | None = None) -> float:
        now = self.clock()
        policy = self.policy
        keys = self._keys(target, sources, origin)
        counts = await self.counters.read(keys, now)
        target_count, pair_counts = counts[0], counts[1:1 + len(sources)]
        origin_count = counts[1 + len(sources)] if len(counts) > 1 + len(sources) else None
        attacked = target_count is not None and target_count.failures >= policy.target_alarm
        free = 1 if attacked else policy.free
        wait = 0.0
        for count in pair_counts:
            if count is not None:
                wait = max(wait, count.last + backoff(count.failures, free, policy) - now)
        if origin_count is not None:
            assert policy.origin_free is not None
            wait = max(wait, origin_count.last + backoff(origin_count.failures, policy.origin_free, policy) - now)
            if policy.global_alarm is not None and await self.counters.room_failures(now) >= policy.global_alarm:
                wait = max(wait, origin_count.last + policy.global_wait - now)
        return max(0.0, wait)

    async def failed(self, target: str, sources: Sequence[str], origin: str | None = None) -> None:
        await self.counters.fail(self._keys(target, sources, origin), self.clock())

    async def succeeded(self, target: str, sources: Sequence[str]) -> None:
        """The guesser got it right: its pairs start again (the target's and origin's counts stay)."""
        await self.counters.forget([f"{self.kind}:p:{target}|{source}" for source in sources])


class FakeClock:
    """A clock for tests: time stands still until ``advance``."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
