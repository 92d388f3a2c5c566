"""``trickroom serve`` under tracemalloc, for finding what the room holds per connection (docs/performance.md).

    .venv/bin/python bench/tracemalloc_serve.py serve --host 127.0.0.1 --port 18765 --db sqlite:///m.sqlite3
    kill -USR1 <pid>     # before and after connecting clients: writes tracemalloc-1.bin, tracemalloc-2.bin, ...
    .venv/bin/python bench/tracemalloc_serve.py --compare tracemalloc-1.bin tracemalloc-2.bin

Each SIGUSR1 collects garbage and dumps a snapshot (12 frames per allocation) into the current directory;
``--compare`` prints the growth between two snapshots by file, by line and by whole traceback. Memory that C
code allocates itself (zlib's state, for one) is not traced: compare the process's resident memory too.
"""

from __future__ import annotations

import gc
import signal
import sys
import tracemalloc
from types import FrameType


def compare(before: str, after: str, rows: int = 25) -> None:
    old, new = tracemalloc.Snapshot.load(before), tracemalloc.Snapshot.load(after)
    for key in ("filename", "lineno", "traceback"):
        print(f"\n== growth by {key}")
        for stat in new.compare_to(old, key)[:rows]:
            print(f"{stat.size_diff / 1000:9.0f} KB {stat.count_diff:8d} blocks  {stat.traceback[0]}")
            if key == "traceback":
                for line in stat.traceback.format()[-12:]:
                    print("      " + line.strip()[:150])


def serve(argv: list[str]) -> int:
    tracemalloc.start(12)
    dumps = 0

    def dump(signum: int, frame: FrameType | None) -> None:
        nonlocal dumps
        gc.collect()
        dumps += 1
        tracemalloc.take_snapshot().dump(f"tracemalloc-{dumps}.bin")
        current, peak = tracemalloc.get_traced_memory()
        print(f"tracemalloc-{dumps}.bin: {current / 1e6:.1f} MB traced (peak {peak / 1e6:.1f} MB)", flush=True)

    signal.signal(signal.SIGUSR1, dump)
    from trickroom.cli import main

    sys.argv = ["trickroom", *argv]
    return int(main() or 0)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--compare"] and len(sys.argv) == 4:
        compare(sys.argv[2], sys.argv[3])
        raise SystemExit(0)
    raise SystemExit(serve(sys.argv[1:]))
