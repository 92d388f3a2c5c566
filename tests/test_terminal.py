"""The terminal client: reading commands, and whole games driven through a pipe and a pseudo-terminal.

The games run ``python -m trickroom play ...`` as a child process with a fixed --seed and easy bots, and a small
strategy here reads the printed "Actions:" lines and types answers, as a player would.
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from trickroom.terminal.commands import Act, Info, Other, Problem, Quit, completions, parse
from trickroom.terminal.render import Style, actions_line, hand_line

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 30.0


# --- Reading commands -------------------------------------------------------------------------------------


BURA_LEGAL = ["play AS QS", "play AS", "play QS", "play 7D", "claim"]


def test_full_action_notation_any_order_and_spelling_gives_the_legal_string() -> None:
    hand = ["AS", "QS", "7D"]
    assert parse("play qs as", BURA_LEGAL, hand) == Act("play AS QS")
    assert parse("PLAY q♠ a♠", BURA_LEGAL, hand) == Act("play AS QS")
    assert parse("claim", BURA_LEGAL, hand) == Act("claim")


def test_short_forms() -> None:
    hand = ["AS", "QS", "7D"]
    assert parse("qs", BURA_LEGAL, hand) == Act("play QS")
    assert parse("qs as", BURA_LEGAL, hand) == Act("play AS QS")
    assert parse("c", BURA_LEGAL, hand) == Act("claim")
    assert parse("2", BURA_LEGAL, hand) == Act("play AS")
    assert parse("p", ["pass", "claim"], hand) == Act("pass")
    mp_bidding = ["name S", "name H", "name D", "name C", "pass"]
    assert parse("n hearts", mp_bidding, None) == Act("name H")
    assert parse("name ♣", mp_bidding, None) == Act("name C")
    assert parse("a", ["accept", "pass"], None) == Act("accept")
    melds = ["meld KH QH JH", "meld KH QH", "done"]
    assert parse("jh qh kh", melds, ["KH", "QH", "JH", "7S"]) == Act("meld KH QH JH")
    assert parse("m kh qh", melds, ["KH", "QH", "JH", "7S"]) == Act("meld KH QH")
    assert parse("d", melds, None) == Act("done")
    assert parse("announce", ["pass", "announce bura", "claim"], None) == Act("announce bura")
    assert parse("announce three aces", ["pass", "announce aces", "claim"], None) == Act("announce aces")


def test_information_and_quit() -> None:
    assert parse("hand", BURA_LEGAL, None) == Info("hand")
    assert parse("h", [], None) == Info("hand")
    assert parse("history 5", [], None) == Info("history", "5")
    assert parse("?", [], None) == Info("help")
    assert parse("actions", [], None) == Info("legal")
    assert parse("quit", [], None) == Quit()


def test_problems_are_clear_sentences() -> None:
    hand = ["AS", "QS", "7D"]
    assert parse("9", BURA_LEGAL, hand) == Problem("There is no action 9; choose 1 to 5.")
    assert parse("play KH", BURA_LEGAL, hand) == Problem("You do not hold the king of hearts.")
    assert parse("play zz", BURA_LEGAL, hand) == Problem("zz is not a card: write a rank and a suit, like QS or 10H.")
    assert parse("accept", BURA_LEGAL, hand) == Problem("You cannot accept now. Type legal for your choices.")
    assert parse("claim", [], hand) == Problem("It is not your turn.")
    assert parse("play", BURA_LEGAL, hand) == Problem("Say which cards, for example: play AS QS.")
    assert parse("frobnicate", BURA_LEGAL, hand) == Other(("frobnicate",))
    assert parse("9", ["pass"], None, lang="ru") == Problem("Хода 9 нет; выберите от 1 до 1.")
    # Legal as words but not as a move: the engine decides and explains, the parser passes it on.
    assert parse("play AS 7D", BURA_LEGAL, hand) == Act("play AS 7D")


def test_completion_offers_words_then_cards() -> None:
    assert completions("cl", True, BURA_LEGAL, ["AS"]) == ["claim"]
    assert completions("h", True, [], []) == ["hand", "h", "history", "help", "hint"]
    assert completions("q", False, BURA_LEGAL, ["AS", "QS", "7D"]) == ["QS"]


def test_lines_for_hand_and_actions() -> None:
    view = {"game": "bura", "trump": "D", "hand": ["AS", "TD", "7S"]}
    assert hand_line(view, Style(), "en") == "Your hand: diamonds, trumps: 10D; spades: AS 7S."
    assert hand_line(view, Style(symbols=True), "ru") == "Ваши карты: бубны, козыри: 10♦; пики: A♠ 7♠."
    mp = {"game": "mpourloto", "trumps": "H", "hand": ["AH", "JH", "9H", "TC"]}
    assert hand_line(mp, Style(), "en") == "Your hand: hearts, trumps: JH 9H AH; clubs: 10C."
    assert actions_line(["play TS", "claim"], Style(), "en") == "Actions: 1 play 10S, 2 claim."
    assert actions_line(["play TH"], Style(color=True), "en") == "Actions: 1 play \x1b[31m10H\x1b[0m."


# --- Driving the real command -----------------------------------------------------------------------------


class Driver:
    """``python -m trickroom play ARGS`` with stdin and stdout as pipes; every printed line is kept. A program a
    test left running (it failed half-way) is stopped after the test (``programs_stopped``), so that the next
    test does not inherit it, nor the warning its ``Popen`` gives when it is collected still running."""

    started: ClassVar[list[Driver]] = []

    def __init__(self, *args: str) -> None:
        Driver.started.append(self)
        env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
        self.process = subprocess.Popen([sys.executable, "-m", "trickroom", "play", *args], cwd=ROOT, env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, encoding="utf-8")
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._pumping = threading.Thread(target=self._pump, daemon=True)
        self._pumping.start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def next_line(self) -> str | None:
        try:
            line = self._queue.get(timeout=TIMEOUT)
        except queue.Empty:
            raise AssertionError(f"the program printed nothing for {TIMEOUT:.0f} s after: {self.lines[-12:]}") from None
        if line is not None:
            self.lines.append(line)
        return line

    def until(self, wanted: Callable[[str], bool]) -> str | None:
        """Read up to the first line that satisfies ``wanted`` (None if the program ended first)."""
        while True:
            line = self.next_line()
            if line is None or wanted(line):
                return line

    def prompts(self, until: str) -> Iterator[str]:
        """Each ``Actions:`` line, until the program ends or prints a line starting with ``until``."""
        while True:
            line = self.until(lambda text: is_actions(text) or text.startswith(until))
            if line is None or line.startswith(until):
                return
            yield line

    def type(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def answer(self, text: str) -> str:
        """Type a command that prints exactly one line and return that line."""
        self.type(text)
        line = self.next_line()
        assert line is not None
        return line

    def close(self) -> int:
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        while self.next_line() is not None:
            pass
        code = self.process.wait(timeout=TIMEOUT)
        if self.process.stdout is not None:
            self.process.stdout.close()
        return code

    def stop(self) -> None:
        """Kill the program if it still runs, let the output pump read the end of its output, close the pipes."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=TIMEOUT)
        self._pumping.join(timeout=TIMEOUT)
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None and not pipe.closed:
                with contextlib.suppress(OSError):  # (a pipe to a killed program)
                    pipe.close()


@pytest.fixture(autouse=True)
def programs_stopped() -> Iterator[None]:
    """After each test, every terminal program it started has ended (see Driver); the modules that import
    Driver import this fixture with it."""
    yield
    while Driver.started:
        Driver.started.pop().stop()


def actions_of(line: str) -> list[str]:
    """``Actions: 1 play QS, 2 claim.`` -> ``["play QS", "claim"]``."""
    body = line.split(":", 1)[1].strip().rstrip(".")
    return [entry.split(" ", 1)[1] for entry in body.split(", ")]


def is_actions(line: str) -> bool:
    return line.startswith("Actions:")


def test_a_full_bura_match_through_a_pipe() -> None:
    driver = Driver("bura", "--players", "2", "--scoring", "points", "--hand-limit", "1", "--seed", "11",
                    "--bots", "easy")
    first = driver.until(is_actions)
    # Nobody holds a combination: the announcement pause is passed for the player, unsaid (issue 21).
    assert first == "Actions: 1 play AC, 2 play 8H, 3 play 6C, 4 claim."
    assert not any("pass" in line.lower() or "announce" in line.lower() for line in driver.lines), driver.lines
    assert driver.lines[:3] == ["Bura, 2 players, classic, points to 11, at most 1 hand.",
                                "You sit in seat 1. At the table: Anna (easy bot, seat 2).",
                                "Type help for the commands, legal for your choices."]
    assert "Your cards: ace of clubs, eight of hearts, six of clubs." in driver.lines
    # Mistyped and illegal commands: a clear sentence each, and nothing changes.
    hand = driver.answer("hand")
    assert hand == "Your hand: hearts: 8H; clubs: AC 6C."
    assert driver.answer("frobnicate") == "Unknown command: frobnicate. Type help for the commands."
    assert driver.answer("accept") == "You cannot accept now. Type legal for your choices."
    assert driver.answer("7") == "There is no action 7; choose 1 to 4."
    assert driver.answer("pass") == "You cannot pass now. Type legal for your choices."
    assert driver.answer("announce bura") == "You cannot announce now. Type legal for your choices."
    assert driver.answer("legal") == first
    assert driver.answer("hand") == hand
    plays = 0
    refused = ""
    driver.type("6c")
    for line in driver.prompts(until="Final standings"):
        actions = actions_of(line)
        if "pass" in actions:
            driver.type("p")
        elif plays == 2:
            driver.type("c")  # claim after two tricks: a short match, and a claim in the summary
        else:
            held = cards_in(driver.answer("hand"))
            if not refused and sorted(held) not in [sorted(a.split()[1:]) for a in actions]:
                # Well-formed but against the rules: the engine's sentence, and nothing changes.
                refused = driver.answer("play " + " ".join(held))
                assert driver.answer("legal") == line
                assert cards_in(driver.answer("hand")) == held
            plays += 1
            driver.type(next(a for a in actions if a.startswith("play")).split(" ", 1)[1].lower())
    assert driver.close() == 0
    assert refused.startswith("That is not allowed: ") and refused.endswith(" Nothing was changed.")
    text = "\n".join(driver.lines)
    assert "You pass." not in text and "has answered" not in text
    assert "You play the " in text
    assert "Hand 1 is over. Tricks: You " in text
    assert "Claims: " in text
    final = [x for x in driver.lines if x.startswith("Final standings")]
    assert final and final[0].startswith("Final standings: 1. ")


def test_a_pot_match_of_several_hands_to_its_end_with_the_information_commands() -> None:
    driver = Driver("bura", "--players", "3", "--stack", "2", "--seed", "3", "--bots", "easy")
    asked = False
    for line in driver.prompts(until="Final standings"):
        actions = actions_of(line)
        if "pass" in actions:
            driver.type("p")
            continue
        if not asked:  # the first play of the match: Anna and Boris have led and followed, the stock holds 27
            asked = True
            table = driver.answer("table")
            assert table.startswith("Trick 1: Anna: ") and "; Boris: " in table
            assert table.endswith(" Waiting for you.")  # was "Waiting for You.": the listener's own seat is "you"
            assert driver.answer("score") == "Chips: You 1, Anna 1, Boris 1. The pot holds 3."
            trump = driver.answer("trump")
            assert trump.startswith("Trumps are ") and trump.endswith(", at the bottom of the stock of 27.")
            driver.type("history")
            assert driver.until(lambda text: text == "Everyone antes one chip; the pot holds 3 chips.")
            driver.type("legal")
            assert driver.until(lambda text, wanted=line: text == wanted)
        driver.type("1")  # the first legal play; this player never claims
    assert driver.close() == 0
    assert asked
    text = "\n".join(driver.lines)
    hands = [x for x in driver.lines if x.startswith("Hand ") and " is over." in x]
    assert len(hands) >= 2, hands
    assert "cannot pay and leave" in text or "cannot pay and leaves" in text
    assert "The match is over." in text
    final = driver.lines[-1]
    assert final.startswith("Final standings: 1. ") and final.endswith(" wins the match.")


def test_a_full_mpourloto_hand_through_a_pipe_with_an_illegal_card() -> None:
    driver = Driver("mpourloto", "--seed", "5", "--hands", "1", "--bots", "easy")
    refused = False
    for line in driver.prompts(until="Standings"):
        actions = actions_of(line)
        if "accept" in actions:
            driver.type("a")
        elif any(a.startswith("name") for a in actions):
            driver.type("n " + actions[0].split()[1].lower())
        elif any(a.startswith("meld") for a in actions):
            driver.type(actions[0])  # every meld offered, then done
        elif actions == ["pass"] or "pass" in actions:
            driver.type("p")
        elif "done" in actions:
            driver.type("d")
        elif "exchange" in actions:
            driver.type("x")
        else:
            playable = [a.split()[1] for a in actions]
            held = cards_in(driver.answer("hand"))
            illegal = [c for c in held if c not in playable]
            if illegal and not refused:
                refused = True
                assert driver.answer(illegal[0].lower()).startswith("That is not allowed: You must ")
                assert driver.answer("legal") == line
                assert cards_in(driver.answer("h")) == held
            driver.type(playable[0].lower())
    assert driver.close() == 0
    assert refused
    text = "\n".join(driver.lines)
    assert "Your partner is Boris." in text
    assert "Hand 1 is over. Your team (You and Boris): " in text
    # The hand's result is printed once: the summary, not also the room's sentence saying the same totals.
    assert not any(x.startswith("Hand 1: your team has ") for x in driver.lines), driver.lines
    assert " won the hand." in text or "The hand is level." in text
    assert driver.lines[-2] == "Stopping after hand 1, as asked."
    assert driver.lines[-1].startswith("Standings: 1. ")


def cards_in(hand: str) -> list[str]:
    """The card codes in ``Your hand: hearts, trumps: JH 9H; clubs: 10C.``"""
    body = hand.split(":", 1)[1].strip().rstrip(".")
    cards = []
    for group in body.split("; "):
        for label in group.split(": ", 1)[1].split():
            cards.append(label.replace("10", "T"))
    return cards


def test_russian_sentences_and_eof_exits_cleanly() -> None:
    driver = Driver("bura", "--lang", "ru", "--seed", "11", "--bots", "random", "--name", "Ира")
    first = driver.until(lambda text: text.startswith("Ходы:"))
    assert first == "Ходы: 1 сыграть AC, 2 сыграть 8H, 3 сыграть 6C, 4 заявить."  # in Russian, as typed
    assert driver.lines[1] == "Вы — Ира, место 1. За столом: Анна (бот: случайный, место 2)."
    assert "Ваш ход." in driver.lines
    assert driver.answer("что") == "Неизвестная команда: что. Наберите «справка», чтобы узнать команды."
    assert driver.answer("ходы") == first
    assert driver.answer("пас") == "Сейчас нельзя: пас. Наберите «ходы», чтобы услышать свои ходы."
    assert driver.close() == 0
    assert driver.lines[-1] == "Ввод закончился: выходим из игры."


def test_quit_prints_the_standings_so_far() -> None:
    driver = Driver("bura", "--players", "2", "--scoring", "points", "--seed", "11", "--bots", "easy")
    assert driver.until(is_actions)
    driver.type("quit")
    assert driver.close() == 0
    assert driver.lines[-2] == "Standings: 1. You, 0 points; 2. Anna, 0 points."
    assert driver.lines[-1] == "Goodbye."


def test_unknown_option_value_is_refused_before_playing() -> None:
    result = subprocess.run([sys.executable, "-m", "trickroom", "play", "bura", "--players", "9"], cwd=ROOT,
                            capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 2
    assert "Option players must be at most 6; got 9." in result.stderr


@pytest.mark.parametrize(("lang", "sentence"), [
    ("en", "Option players must be one of: 4; got 3."),
    ("ru", "Параметр players может быть одним из: 4; задано 3."),
    ("el", "Η ρύθμιση players πρέπει να είναι ένα από: 4. Δόθηκε 3."),
])
def test_an_option_value_the_game_refuses_is_said_in_a_sentence_in_the_language(lang: str, sentence: str) -> None:
    """``play mpourloto --players 3`` answered with argparse's "unrecognized arguments"; now the game's refusal."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    result = subprocess.run([sys.executable, "-m", "trickroom", "play", "mpourloto", "--players", "3", "--lang", lang],
                            cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=TIMEOUT, env=env)
    assert result.returncode == 2
    assert result.stderr.strip() == sentence


# --- Through a pseudo-terminal ----------------------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_a_bura_match_through_a_pseudo_terminal_with_tab_completion() -> None:
    import pty

    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "dumb", "PYTHONIOENCODING": "utf-8"}
    process = subprocess.Popen([sys.executable, "-m", "trickroom", "play", "bura", "--scoring", "points",
                                "--hand-limit", "1", "--seed", "4", "--bots", "easy"],
                               cwd=ROOT, env=env, stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    output = ""
    typed_completion = False
    answered = 0
    deadline = time.monotonic() + TIMEOUT
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 4096).decode("utf-8", "replace")
            except OSError:  # the child closed the terminal
                break
            output += chunk
            if not typed_completion and output.rstrip().endswith(">"):
                typed_completion = True
                os.write(master, b"hel\t\r")  # tab completes "help"
                continue
            if output.count("Actions:") > answered and output.rstrip().endswith(">") and "Commands (" in output:
                answered = output.count("Actions:")
                os.write(master, b"1\r")
        process.wait(timeout=TIMEOUT)
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0
    assert "Commands (type them, then Enter):" in output  # "hel" + Tab became "help"
    assert "Hand 1 is over." in output
    assert "Final standings: 1. " in output


def test_the_trick_command_says_the_last_trick_in_the_players_language() -> None:
    """Issue 21: a command for the last trick (who played what, who took it), as the web client's Shift+C."""
    driver = Driver("bura", "--players", "2", "--seed", "11", "--bots", "easy")
    first = driver.until(is_actions)
    assert first is not None
    assert driver.answer("trick") == "No trick has been taken yet in this hand."
    driver.type("1")
    assert driver.until(is_actions)
    last = driver.answer("trick")
    assert last.startswith("Last trick: ") and " took it." in last, last
    assert driver.close() == 0
    russian = Driver("bura", "--players", "2", "--seed", "11", "--bots", "easy", "--lang", "ru")
    assert russian.until(lambda text: text.startswith("Ходы:"))
    assert russian.answer("взятка") == "В этой раздаче ещё не было взяток."
    assert russian.close() == 0
