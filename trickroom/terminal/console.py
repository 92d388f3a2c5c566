"""Lines out, lines in: the only place the terminal client touches stdin and stdout.

Every line is written whole and flushed at once, so a screen reader (or a test reading a pipe) gets it as soon
as it happens. When stdin is a terminal the prompt is ``> `` and readline gives line editing and tab
completion; through a pipe there is no prompt and no readline, only lines.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any, TextIO

Completer = Callable[[str, bool], list[str]]  # (text, is the first word) -> candidates
# What must never reach the terminal from someone else: C0 and C1 controls (ESC, NUL, BEL, newline...), DEL,
# the Unicode line and paragraph separators, the bidi embeddings, overrides and isolates, lone surrogates.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(value: Any) -> Any:
    """``value`` (a string, or JSON from the room: every string in it) with each character that could move the
    cursor, clear the screen, ring, start a new line or turn text around shown as an escape instead (``\\x1b``).
    For everything that came from the network: the room cleans people's text, but the terminal does not rely on
    it, so that no other person's chat, name or table name can write a line the player did not get."""
    if isinstance(value, str):
        return _UNPRINTABLE.sub(_escape, value)
    if isinstance(value, dict):
        return {printable(key): printable(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [printable(inner) for inner in value]
    return value


class Console:
    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.interactive = self.stdin.isatty() and self.stdout.isatty()
        self.history: list[str] = []  # every sentence said, for the ``history`` command
        self._completer: Completer | None = None
        self._matches: list[str] = []
        if self.interactive:
            self._setup_readline()

    def say(self, line: str, remember: bool = True) -> None:
        """Print one line now; ``remember`` keeps it for ``history`` (game sentences, not help or lists)."""
        if not line:
            return
        if remember:
            self.history.append(line)
        self.stdout.write(line + "\n")
        self.stdout.flush()

    def read(self) -> str | None:
        """One typed line without its newline, or None at the end of input (Ctrl-D, a closed pipe)."""
        if self.interactive:
            try:
                return input("> ")
            except EOFError:
                self.stdout.write("\n")
                return None
            except KeyboardInterrupt:
                self.stdout.write("\n")
                return None
        line = self.stdin.readline()
        if not line:
            return None
        return line.rstrip("\r\n")

    def set_completer(self, completer: Completer) -> None:
        self._completer = completer

    def _setup_readline(self) -> None:
        try:
            import readline
        except ImportError:  # Windows without pyreadline: plain input() still works
            return
        readline.set_completer(self._complete)
        readline.set_completer_delims(" \t")
        if "libedit" in (readline.__doc__ or ""):
            readline.parse_and_bind("bind ^I rl_complete")
        else:
            readline.parse_and_bind("tab: complete")

    def _complete(self, text: str, state: int) -> str | None:
        if state == 0:
            import readline

            before = readline.get_line_buffer()[: readline.get_begidx()]
            first_word = not before.strip()
            self._matches = self._completer(text, first_word) if self._completer else []
        if state < len(self._matches):
            return self._matches[state]
        return None
