"""A probe of the cycle collector in ``trickroom serve``: put this directory on PYTHONPATH (the load generator's
server inherits it) and every collection of the server's is logged to /tmp/trickroom-gc.PID.log, with its
generation, how long it stopped the process and the counts that started it. ``TRICKROOM_GC_CENSUS=SECONDS``: also,
at the first two young collections after that many seconds, the types of the live young objects.

    PYTHONPATH=$PWD/bench/gcprobe .venv/bin/python bench/load.py --scenario evening --clients 10000 --seconds 60

(an absolute path: the server runs in a directory of its own; docs/performance.md, "The floor under the full-speed
figure, and the collector's pauses").
"""

from __future__ import annotations

import collections
import gc
import os
import time
from pathlib import Path
from typing import Any

if b"serve" in Path("/proc/self/cmdline").read_bytes().split(b"\0"):
    _started: dict[str, Any] = {}
    _log = open(f"/tmp/trickroom-gc.{os.getpid()}.log", "a", buffering=1)  # noqa: SIM115 (open for the process)
    _census_after = float(os.environ.get("TRICKROOM_GC_CENSUS", "inf"))
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
