"""Lines out, lines in: the only place the terminal client touches stdin and stdout.

Every line is written whole and flushed at once, so a screen reader (or a test reading a pipe) gets it as soon
as it happens. When stdin is a terminal the prompt is ``> `` and readline gives line editing and tab
completion; through a pipe there is no prompt and no readline, only lines.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

Completer = Callable[[str, bool], list[str]]  # (text, is the first word) -> candidates


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
