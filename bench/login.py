"""A wrong user name and a wrong password must cost the same: the login times of both, side by side.

    .venv/bin/python bench/login.py [--attempts 60]

Starts its own ``trickroom serve`` on 127.0.0.1 (a free port, a fresh SQLite file in a temporary directory, the
login limits raised so that they refuse nothing), registers one account, then sends ``--attempts`` logins with a
name that has no account and as many with that account's name and a wrong password, alternating, one at a time
on one websocket. It prints the median and the 10th and 90th percentiles of each, in milliseconds (from sending
``login`` to its ``error``), and the ratio of the medians, which should be within 10% of 1: one argon2 check
either way, so the time does not tell whether a name exists.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from websockets.sync.client import connect

LIMITS_OFF = ("login_free_failures=1000000\nlogin_account_alarm=1000000\nlogin_address_free=1000000\n"
              "login_room_alarm=1000000\nmessages_per_second=1000\nmessage_burst=1000\n")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def request(ws: object, message: dict[str, object]) -> tuple[float, dict[str, object]]:
    started = time.perf_counter()
    ws.send(json.dumps(message))  # type: ignore[attr-defined]
    while True:
        reply = json.loads(ws.recv(timeout=30))  # type: ignore[attr-defined]
        if reply.get("re") == message["id"]:
            return (time.perf_counter() - started) * 1000, reply


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=60, help="logins of each kind (default 60)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        settings = Path(folder) / "settings.env"
        settings.write_text(LIMITS_OFF, encoding="utf-8")
        port = free_port()
        env = {**os.environ, "TRICKROOM_LOG_LEVEL": "warning", "TRICKROOM_CONFIG": str(settings)}
        server = subprocess.Popen([sys.executable, "-m", "trickroom", "serve", "--host", "127.0.0.1", "--port",
                                   str(port), "--db", f"sqlite:///{folder}/bench.sqlite3"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                        break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise SystemExit("the room did not start") from None
                    time.sleep(0.05)
            with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=30) as ws:
                ws.recv(timeout=30)  # hello
                _, welcome = request(ws, {"type": "register", "username": "bench_owner",
                                          "password": "the-right-one", "id": 0})
                assert welcome["type"] == "welcome", welcome
                request(ws, {"type": "logout", "id": 1})
                times: dict[str, list[float]] = {"wrong name": [], "wrong password": []}
                for n in range(args.attempts * 2):
                    kind = "wrong name" if n % 2 == 0 else "wrong password"
                    name = f"nobody_{n}" if kind == "wrong name" else "bench_owner"
                    spent, reply = request(ws, {"type": "login", "username": name, "password": f"guess-{n}",
                                                "id": n + 2})
                    assert reply["code"] == "login_failed", reply
                    if n >= 4:  # the first few warm up the server
                        times[kind].append(spent)
        finally:
            server.terminate()
            server.wait(timeout=30)
    medians = {kind: statistics.median(values) for kind, values in times.items()}
    for kind, values in times.items():
        print(f"{kind:15} median {medians[kind]:7.1f} ms   p10 {percentile(values, 0.1):7.1f}   "
              f"p90 {percentile(values, 0.9):7.1f}   ({len(values)} logins)")
    ratio = medians["wrong name"] / medians["wrong password"]
    print(f"ratio of the medians (wrong name / wrong password): {ratio:.3f}"
          f" ({'within' if abs(ratio - 1) <= 0.10 else 'OUTSIDE'} 10%)")


if __name__ == "__main__":
    main()
