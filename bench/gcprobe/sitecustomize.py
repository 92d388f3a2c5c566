"""A probe of the cycle collector in ``trickroom serve``: put this directory on PYTHONPATH (the load generator's
server inherits it) and every collection of the server's is logged to /tmp/trickroom-gc.PID.log, with its
generation, how long it stopped the process and the counts that started it, and the server's resident memory
every 10 s. Two more readings, each from an environment variable (not ``TRICKROOM_*``: the load generator keeps
those from the server):

- ``GCPROBE_CENSUS=SECONDS``: at the first two young collections after that many seconds, the types of the live
  young objects;
- ``GCPROBE_GARBAGE_AT=SECONDS``: at that time, one full collection that keeps what it finds unreachable, and the
  types of those objects (what the young collections left for the full ones: the leak if there were none).

    PYTHONPATH=$PWD/bench/gcprobe .venv/bin/python bench/load.py --scenario evening --clients 10000 --seconds 60

(an absolute path: the server runs in a directory of its own; docs/performance.md, "Young collections on a clock,
the tables' saves past SQLAlchemy").
"""

from __future__ import annotations

import collections
import gc
import os
import threading
import time
from pathlib import Path
from typing import Any

if b"serve" in Path("/proc/self/cmdline").read_bytes().split(b"\0"):
    _started: dict[str, Any] = {}
    _log = open(f"/tmp/trickroom-gc.{os.getpid()}.log", "a", buffering=1)  # noqa: SIM115 (open for the process)
    _census_after = float(os.environ.get("GCPROBE_CENSUS", "inf"))
    _garbage_at = float(os.environ.get("GCPROBE_GARBAGE_AT", "inf"))
    _census_done: list[float] = []
    _born = time.time()

    def _census() -> None:
        young = gc.get_objects(0)
        _log.write(f"census at {time.time() - _born:.0f} s: {len(young)} live young objects\n")
        for name, count in collections.Counter(type(o).__qualname__ for o in young).most_common(30):
            _log.write(f"  {count:8d} {name}\n")
        _census_done.append(time.time())

    def _on_collection(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            if info["generation"] == 0 and time.time() - _born > _census_after and len(_census_done) < 2:
                _census()
            _started["counts"], _started["at"] = gc.get_count(), time.perf_counter()
            return
        pause = time.perf_counter() - _started.get("at", time.perf_counter())
        _log.write(f"{time.time() - _born:8.1f} s  gen{info['generation']}  {1000 * pause:7.1f} ms  "
                   f"collected {info['collected']}  counts {_started.get('counts')}\n")

    gc.callbacks.append(_on_collection)

    def _rss_mb() -> float:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    def _garbage() -> None:
        gc.set_debug(gc.DEBUG_SAVEALL)
        started = time.perf_counter()
        found = gc.collect()
        _log.write(f"full collection: {found} unreachable, {1000 * (time.perf_counter() - started):.0f} ms; "
                   f"by type:\n")
        for name, count in collections.Counter(f"{type(o).__module__}.{type(o).__qualname__}"
                                               for o in gc.garbage).most_common(40):
            _log.write(f"  {count:8d} {name}\n")
        gc.garbage.clear()
        gc.set_debug(0)

    def _watch() -> None:
        garbage_at = _garbage_at
        while True:
            time.sleep(10)
            _log.write(f"{time.time() - _born:8.1f} s  rss {_rss_mb():.0f} MB\n")
            if time.time() - _born > garbage_at:
                garbage_at = float("inf")
                _garbage()

    threading.Thread(target=_watch, daemon=True).start()
