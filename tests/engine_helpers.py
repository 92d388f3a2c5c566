"""Checks shared by both engines' property tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trickroom.games import IllegalAction, Match


def assert_all_refused(match: Match, tries: list[tuple[int, str]], snapshot: Callable[[Any], str]) -> None:
    """Every try is an IllegalAction, and together they change nothing that ``snapshot`` shows."""
    before = snapshot(match)
    for seat, action in tries:
        try:
            match.apply(seat, action)
        except IllegalAction:
            continue
        raise AssertionError(f"{action!r} by seat {seat} was accepted")
    assert snapshot(match) == before, tries
