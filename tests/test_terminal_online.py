"""The terminal client on a real room: ``trickroom serve`` in a child process, ``trickroom play --server`` in
another, a Bura hand against a bot typed through a pipe."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_helpers import START_TIMEOUT, Client, ProcessServer, play_rated_bura_match
from test_terminal import ROOT, TIMEOUT, Driver, actions_of, cards_in, is_actions, programs_stopped  # noqa: F401  (an autouse fixture)


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
        deadline = time.monotonic() + START_TIMEOUT
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


def first_turn(url: str, name: str, *options: str) -> tuple[Driver, str, str]:
    """A Bura table for two against a random bot (``options``: more ``play`` options), created by the guest
    ``name`` (with a number after it on a second try), up to the first actions line of hand 1. A random deal
    gives the bot a Bura about once in 116 deals, and announced at once it wins hand 1 before the player is asked
    anything: then the table is left and another one made. Returns the driver, the name and that line."""
    for attempt in range(5):
        named = f"{name}{attempt or ''}"  # a guest's name stays held for a while after they leave
        driver = Driver("--server", url, "--name", named, "--create", "bura", "--players", "2", "--scoring",
                        "points", "--bots", "random", *options)
        first = driver.until(lambda text: is_actions(text) or text.startswith("Hand 1 is over"))
        if first is not None and is_actions(first):
            return driver, named, first
        driver.close()  # (waited for: a driver dropped while its program runs fails the test, ResourceWarning)
    pytest.fail("five deals in a row won by the bot before the player's first turn")


def test_join_a_room_create_a_table_and_play_a_hand_against_a_bot(room: str) -> None:
    driver, name, first = first_turn(room, "Tess", "--hand-limit", "1")
    for expected in (f"Connecting to {room}.", f"Welcome, {name}.", "You sit in seat 1.",
                     "A random bot sits in seat 2.", "The game begins."):
        assert expected in driver.lines
    assert "You are watching." not in driver.lines  # made, then sat at once: one sentence, not two
    # The first turn is said: "Your turn.", or the one sentence naming a combination held.
    assert any(line == "Your turn." or line.startswith("You may announce") for line in driver.lines), driver.lines
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
            shown = driver.until(lambda text: text.startswith("Your hand"))
            # (A program that ended answers nothing: say so, with its exit code, rather than wait on.)
            assert shown is not None, f"the program ended (exit {driver.process.poll()}): {driver.lines[-12:]}"
            held = cards_in(shown)
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
    assert f"Hand 1 is over. Tricks: {name} " in text
    assert "The game is over." in text
    assert driver.lines[-1].startswith("Final standings: 1. ")


def test_play_in_the_lobby_starts_a_quick_game_against_a_bot(room: str) -> None:
    """Issue 21: ``play`` with no table: Bura for two against an easy bot, seated and started."""
    driver = Driver("--server", room, "--name", "Pia")
    assert driver.until(lambda text: text.startswith("Type play for a quick game")) is not None
    driver.type("play")
    assert driver.until(is_actions) is not None
    assert "You sit in seat 1." in driver.lines
    assert any(re.fullmatch(r"An? \w+ bot sits in seat 2\.", text) for text in driver.lines), driver.lines
    assert "The game begins." in driver.lines
    driver.type("quit")
    assert driver.close() == 0


def test_the_lobby_lists_the_open_tables_and_counts_the_ones_in_play(room: str) -> None:
    host = Client(room)
    try:
        host.login_guest("Hana")
        waiting = host.request(type="create", game="bura", options={"players": 3})["table"]
        playing = host.request(type="create", game="bura", options={"players": 2})["table"]
        host.request(type="sit", table=playing, seat=0)
        host.request(type="bot_add", table=playing, level="random")
        assert host.request(type="start", table=playing)["type"] == "ok"
        driver = Driver("--server", room, "--name", "Lior")
        listed = driver.until(lambda text: text.startswith("Open tables"))
        assert listed is not None and waiting in listed and playing not in listed
        assert driver.until(lambda text: "in play" in text) == (
            "1 more table is in play; type tables all to hear it too.")
        driver.type("tables all")
        every = driver.until(lambda text: text.startswith("Tables: "))
        assert every is not None and waiting in every and playing in every
        driver.type("quit")
        assert driver.close() == 0
    finally:
        host.leave()


def test_a_busy_room_stops_announcing_arrivals_and_says_so(tmp_path: Path) -> None:
    server = ProcessServer(tmp_path / "room.sqlite3", TRICKROOM_LOBBY_PEOPLE_LIMIT="2")
    server.log_path = tmp_path / "serve.log"
    server.start()
    hana, ivo = Client(server.url), Client(server.url)
    try:
        driver = Driver("--server", server.url, "--name", "Lior")
        assert driver.until(lambda text: text.startswith("There are no open tables")) is not None
        hana.login_guest("Hana")
        assert driver.until(lambda text: "comes in" in text) == "Hana comes in."
        ivo.login_guest("Ivo")  # three people: past the limit of two, and nobody hears Ivo come in
        assert driver.until(lambda text: "busy" in text or "Ivo" in text) == (
            "The room is busy: arrivals and departures are no longer announced.")
        ivo.leave()
        hana.leave()  # one left: nine tenths of the limit or fewer
        assert driver.until(lambda text: "again" in text or "leaves" in text) == (
            "Arrivals and departures are announced again.")
        driver.type("quit")
        assert driver.close() == 0
        assert not any("Ivo" in line for line in driver.lines)  # nor his leaving
        assert sum(line.startswith("There are no open tables") for line in driver.lines) == 1  # not read again
    finally:
        for client in (hana, ivo):
            client.leave()
        server.stop()


def test_quit_at_a_table_says_the_score_so_far(room: str) -> None:
    driver, name, _first = first_turn(room, "Quinn")  # (a turn of hand 1: nobody has a game point yet)
    driver.type("quit")
    assert driver.close() == 0
    assert driver.lines[-1] == "Goodbye."
    assert driver.lines[-2] == f"Game points: {name} 0, Bot 2 0. Target 11."


# --- A room that stops and comes back; statistics ------------------------------------------------------------


@pytest.fixture
def restartable(tmp_path: Path) -> Iterator[ProcessServer]:
    """A single-node room (SQLite): SIGTERM closes every socket with code 1012, as a node of several does after
    its ``reconnect`` message; started again on the same port, it restores its tables (seq numbers 1000 ahead)."""
    server = ProcessServer(tmp_path / "room.sqlite3")
    server.log_path = tmp_path / "serve.log"
    server.start()
    yield server
    server.stop()


def play_until_end(driver: Driver, line: str | None) -> None:
    """Answer every prompt with pass or the first play, up to the final standings."""
    while line is not None and not line.startswith("Final standings"):
        actions = actions_of(line)
        driver.type("p" if "pass" in actions else next(a for a in actions if a.startswith("play")).lower())
        line = driver.until(lambda text: is_actions(text) or text.startswith("Final standings"))
    assert line is not None


def test_the_room_restarts_mid_hand_and_the_terminal_moves_and_resumes(restartable: ProcessServer) -> None:
    driver, name, first = first_turn(restartable.url, "Mira", "--hand-limit", "1")
    restartable.stop()
    assert driver.until(lambda text: text.startswith("Moving")) == "Moving to another server…"
    restartable.start()
    assert driver.until(lambda text: text.startswith("Back at")) == "Back at the table."
    # The same decision is asked again after the resume, and the game goes on to its end.
    again = driver.until(is_actions)
    assert again is not None and actions_of(again) == actions_of(first)
    play_until_end(driver, again)
    assert driver.close() == 0
    after = driver.lines[driver.lines.index("Moving to another server…"):]
    assert f"{name} is back." not in after and "You are back." not in after  # her own return is not said to her
    assert not any(text.startswith(("Connection lost", "The server closed")) for text in driver.lines)
    assert sum(1 for text in driver.lines if text == "The game begins.") == 1  # nothing printed twice
    assert "The game is over." in driver.lines


def test_an_act_the_room_never_answered_is_sent_again_after_reconnecting(restartable: ProcessServer) -> None:
    """The room freezes (SIGSTOP) as the player plays, then dies (SIGKILL): the play never arrived. The
    terminal reconnects to the restarted room and sends it again with its ``move``; it is played once."""
    driver, _name, first = first_turn(restartable.url, "Olga", "--hand-limit", "1")
    # With no combination the pause was passed for the player (auto_pass) and the first choice is a card; with
    # one, they announce it (a pass is not said).
    choices = actions_of(first)
    announce = next((i for i, a in enumerate(choices) if a.startswith("announce")), None)
    assert restartable.process is not None
    restartable.process.send_signal(signal.SIGSTOP)
    driver.type(str(announce + 1) if announce is not None else "1")
    time.sleep(0.5)  # the line reaches the frozen room's socket, never its code
    restartable.kill()
    restartable.start()
    assert driver.until(lambda text: text.startswith(("You announce ", "You play the ", "You take the trick with")))
    play_until_end(driver, driver.until(lambda text: is_actions(text) or text.startswith("Final standings")))
    assert driver.close() == 0
    refusals = ("It is not your turn.", "You cannot do that now.", "Something went wrong on the server")
    assert not any(text.startswith(refusals) for text in driver.lines)


def test_stats_command_for_a_guest_and_for_an_account(restartable: ProcessServer) -> None:
    account, guest = Client(restartable.url), Client(restartable.url)
    try:
        account.request(type="register", username="tomas", password="secret-77")
        guest.login_guest("Gleb")
        figures = play_rated_bura_match(account, guest, seeds=(51, 52))["games"]["bura"]
    finally:
        account.close()
        guest.close()

    driver = Driver("--server", restartable.url, "--name", "Vlad")
    driver.until(lambda text: text.startswith("Type play"))
    driver.type("stats")
    assert driver.until(lambda text: text.startswith("Statistics")) == (
        "Statistics need an account; type stats and a player's name to see theirs.")
    driver.type("stats tomas")
    assert driver.until(lambda text: text.startswith("Statistics of")) == "Statistics of tomas:"
    assert driver.next_line() == (f"Bura: 1 played, {figures['won']} won, rating {figures['rating']:.1f}.")
    driver.type("quit")
    assert driver.close() == 0



def test_report_and_ignore_typed_in_the_terminal(restartable: ProcessServer) -> None:
    """``report NAME REASON`` reaches the moderators (it waits for them: ``trickroom admin reports`` would list
    it); ``ignore NAME`` stops a player's chat and private messages, ``unignore NAME`` lets them through again."""
    boris = Client(restartable.url)
    boris.login_guest("Boris")
    try:
        driver = Driver("--server", restartable.url, "--name", "Vera")
        driver.until(lambda text: text.startswith("Type play"))
        driver.type("report Boris shouting in the lobby")
        assert driver.until(lambda text: "moderators" in text) == "Your report on Boris went to the moderators."
        driver.type("ignore Boris")
        assert driver.until(lambda text: "Boris" in text) == "You will hear nothing more from Boris."
        boris.request(type="private", to="Vera", message="can you hear me")
        driver.type("unignore Boris")
        assert driver.until(lambda text: "Boris" in text) == "You hear Boris again."
        boris.request(type="private", to="Vera", message="and now")
        assert driver.until(lambda text: "Boris" in text) == "Boris whispers: and now"
        driver.type("help")
        assert driver.until(lambda text: text.startswith("  report NAME")) is not None
        driver.type("quit")
        assert driver.close() == 0
        assert not any("can you hear me" in line for line in driver.lines)
    finally:
        boris.leave()
