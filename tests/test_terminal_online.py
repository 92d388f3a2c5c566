"""The terminal client on a real room: ``trickroom serve`` in a child process, ``trickroom play --server`` in
another, a Bura hand against a bot typed through a pipe."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_terminal import ROOT, TIMEOUT, Driver, actions_of, cards_in, is_actions


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def room(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    log = (tmp_path / "serve.log").open("w")
    env = {**os.environ, "TRICKROOM_LOG_LEVEL": "warning"}
    process = subprocess.Popen([sys.executable, "-m", "trickroom", "serve", "--port", str(port),
                                "--db", f"sqlite:///{tmp_path / 'room.sqlite3'}"],
                               cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((tmp_path / "serve.log").read_text()) from None
                time.sleep(0.1)
        yield f"ws://127.0.0.1:{port}/ws"
    finally:
        process.terminate()
        process.wait(timeout=TIMEOUT)
        log.close()


def test_join_a_room_create_a_table_and_play_a_hand_against_a_bot(room: str) -> None:
    driver = Driver("--server", room, "--name", "Tess", "--create", "bura", "--players", "2", "--scoring", "points",
                    "--hand-limit", "1", "--bots", "random")
    first = driver.until(is_actions)
    assert first is not None
    for expected in (f"Connecting to {room}.", "Welcome, Tess.", "Tess sits in seat 1.",
                     "A random bot sits in seat 2.", "The game begins.", "Your turn."):
        assert expected in driver.lines
    # Messages from the room may come in between: read up to the line we wait for.
    driver.type("frobnicate")
    assert driver.until(lambda text: text.startswith("Unknown")) == (
        "Unknown command: frobnicate. Type help for the commands.")
    refused = ""
    line: str | None = first
    while line is not None and not line.startswith("Final standings"):
        actions = actions_of(line)
        if "pass" in actions:
            driver.type("p")
        else:
            driver.type("hand")
            held = cards_in(driver.until(lambda text: text.startswith("Your hand")) or "")
            if not refused and sorted(held) not in [sorted(a.split()[1:]) for a in actions]:
                # The room refuses with the engine's sentence; the next prompt is still ours.
                driver.type("play " + " ".join(held))
                refused = driver.until(lambda text: text.startswith(("A lead", "You must"))) or ""
                driver.type("legal")
                assert driver.until(is_actions) == line
            driver.type(next(a for a in actions if a.startswith("play")).split(" ", 1)[1].lower())
        line = driver.until(lambda text: is_actions(text) or text.startswith("Final standings"))
    assert driver.close() == 0
    text = "\n".join(driver.lines)
    assert refused in ("A lead is one, two or three cards of one suit.",
                       "You must play exactly 1 card, as many as were led.",
                       "You must play exactly 2 cards, as many as were led.")
    assert "You play the " in text
    assert "Hand 1 is over. Tricks: Tess " in text
    assert "The game is over." in text
    assert driver.lines[-1].startswith("Final standings: 1. ")
