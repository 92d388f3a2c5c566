"""Random full hands per second through the public game API.

    .venv/bin/python bench/engine.py [--seconds S] [--case NAME]

Each case plays random hands: a new match per hand, then a random legal action other than ``claim`` from the
first seat in ``to_act`` until the first hand result appears. To measure another game, add one ``Case`` to
``CASES`` (its ``done`` tells when a hand is over).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from trickroom.games import Match, load_game


def first_hand_done(match: Match) -> bool:
    return match.is_over or bool(match.hand_results)


def bura_hand_done(match: Match) -> bool:
    # A Moscow-preset redeal is recorded as a result but is not a hand: keep playing past it.
    return match.is_over or any(r["reason"] != "redeal" for r in match.hand_results)


def mpourloto_hand_done(match: Match) -> bool:
    # A thrown-in deal (everyone passed twice) is recorded as a result but is not a played hand.
    return match.is_over or any(r["trump_team"] is not None for r in match.hand_results)


@dataclass
class Case:
    name: str
    game: str
    options: dict[str, Any] = field(default_factory=dict)
    done: Callable[[Match], bool] = first_hand_done


CASES: list[Case] = [
    Case("bura 2 players", "bura", {"players": 2}, bura_hand_done),
    Case("bura 4 players", "bura", {"players": 4}, bura_hand_done),
    Case("bura 6 players", "bura", {"players": 6}, bura_hand_done),
    Case("mpourloto", "mpourloto", {}, mpourloto_hand_done),
]


def run_case(case: Case, seconds: float) -> tuple[int, int, float]:
    """Play random hands for about ``seconds``; return hands, actions and the time taken."""
    game = load_game(case.game, **case.options)
    rng = random.Random(1)
    hands = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    seed = 0
    while time.perf_counter() < deadline:
        for _ in range(20):  # check the clock every few hands only
            seed += 1
            match = game.new_match(seed=seed)
            while not case.done(match):
                seat = match.to_act[0]
                legal = [a for a in match.legal_actions(seat) if a != "claim"]
                match.apply(seat, rng.choice(legal))
                actions += 1
            hands += 1
    return hands, actions, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per case (default 3)")
    parser.add_argument("--case", action="append", help="run only cases whose name contains this (repeatable)")
    args = parser.parse_args(argv)
    for case in CASES:
        if args.case and not any(part in case.name for part in args.case):
            continue
        hands, actions, elapsed = run_case(case, args.seconds)
        print(f"{case.name:24s} {hands / elapsed:10.0f} hands/s  {actions / elapsed:10.0f} actions/s"
              f"  ({hands} hands in {elapsed:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
