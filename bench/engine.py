"""Random full hands per second through the public game API, optionally beside OpenSpiel's C++ games.

    .venv/bin/python bench/engine.py [--seconds S] [--rounds R] [--case NAME] [--vs-openspiel]

Each case plays random hands: a new match per hand, then, from the first seat in ``to_act``, a random legal
action other than ``claim`` until an action's events hold the first ``hand_end`` (a Moscow redeal or a thrown-in
Mpourloto deal is not a played hand, and shows no ``hand_end``).

One more case, ``bura 2 players, bot playout``, times the faster path of the Bura hard level: a whole hand from
the deal (the announcement pause first) played in the bots' light simulator (``trickroom.bots.bura.rollout``,
plain lists, every seat playing the normal heuristic), in worlds sampled as the hard level samples them (200
worlds made before timing, then played again and again; each playout copies its world, as in the search).

``--vs-openspiel`` (needs the ``openspiel`` extra: ``.venv/bin/pip install -e '.[openspiel]'``) also plays random
full games of OpenSpiel's C++ ``euchre`` and ``hearts`` through pyspiel in the same loop shape: legal actions,
one picked with the same kind of RNG, apply; chance nodes are played the same way, a uniform pick among the
legal outcomes, which is exact for these two games (the script checks that every chance node is uniform before
timing). Our rates are then printed as ratios to euchre's. A third yardstick, ``euchre, weighted``, samples chance
nodes the general way (their outcomes with their probabilities, ``rng.choices``): the same game, but the Python
sampling of its 22 dealing nodes then costs more than the C++ engine does, so it reads about half as fast.

Rates are per CPU second of this process, and the cases run in ``--rounds`` interleaved rounds, so that other
processes on the shared cores, and changes in their load during the run, distort the figures less and touch
every case alike.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from trickroom.bots.bura.memory import remember, sample_hidden
from trickroom.bots.bura.rollout import Playout
from trickroom.games import events_for, load_game

CLAIM = "claim"


@dataclass
class Case:
    name: str
    play: Callable[[random.Random, int], int]  # plays one hand or game from a seed; returns the actions taken
    unit: str = "hands"
    hands: int = 0
    actions: int = 0
    elapsed: float = 0.0

    @property
    def rate(self) -> float:
        return self.hands / self.elapsed if self.elapsed else 0.0


def our_case(name: str, game_name: str, **options: Any) -> Case:
    game = load_game(game_name, **options)

    def play(rng: random.Random, seed: int) -> int:
        match = game.new_match(seed=seed)
        actions = 0
        while True:
            seat = match.to_act[0]
            legal = match.legal_actions(seat)
            if CLAIM in legal:
                legal.remove(CLAIM)
            actions += 1
            for event in match.apply(seat, rng.choice(legal)):
                if event["type"] == "hand_end":
                    return actions
            if match.is_over:
                return actions

    return Case(name, play)


def playout_case(name: str, players: int, worlds: int = 200) -> Case:
    """The Bura hard level's playouts: each hand is a sampled world played out from the deal."""
    game = load_game("bura", players=players)
    rng = random.Random(7)
    made = []
    for seed in range(worlds):
        match = game.new_match(seed=seed)
        view = match.view(0)
        memory = remember(view, events_for(match.events, 0))
        made.append(Playout(view, sample_hidden(memory, rng), set(memory.played)))

    def play(rng: random.Random, seed: int) -> int:
        made[seed % worlds].run("pass")
        return 0  # the simulator does not count its moves

    return Case(name, play)


def openspiel_case(name: str, game_name: str, weighted_chance: bool = False) -> Case:
    """OpenSpiel's ``game_name``; chance nodes by a uniform pick, or with ``weighted_chance`` the general way
    (``chance_outcomes()`` and ``rng.choices`` with their probabilities), which costs the loop far more."""
    import pyspiel  # type: ignore[import-not-found]  # the optional `openspiel` extra

    game = pyspiel.load_game(game_name)
    check_uniform_chance(game, game_name)

    def play(rng: random.Random, seed: int) -> int:
        state = game.new_initial_state()
        actions = 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
        return actions

    def play_weighted(rng: random.Random, seed: int) -> int:
        state = game.new_initial_state()
        actions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probabilities)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
        return actions

    return Case(name, play_weighted if weighted_chance else play, unit="games")


def check_uniform_chance(game: Any, name: str, games: int = 50) -> None:
    """Refuse to time a game whose chance nodes a uniform pick among legal actions would sample wrongly."""
    rng = random.Random(0)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                probabilities = {round(p, 12) for _, p in state.chance_outcomes()}
                if len(probabilities) != 1:
                    raise SystemExit(f"OpenSpiel's {name} has a non-uniform chance node: a uniform pick is wrong.")
            state.apply_action(rng.choice(state.legal_actions()))


def run_round(case: Case, seconds: float, rng: random.Random) -> None:
    # CPU time of this process, not wall time: other processes on the shared cores then distort it far less.
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        for _ in range(20):  # check the clock every few hands only
            case.hands += 1
            case.actions += case.play(rng, case.hands)
    case.elapsed += time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per case in all (default 3)")
    parser.add_argument("--rounds", type=int, default=10, help="interleaved rounds the time is split into (default 10)")
    parser.add_argument("--case", action="append", help="run only cases whose name contains this (repeatable)")
    parser.add_argument("--vs-openspiel", action="store_true", help="also time OpenSpiel's euchre and hearts")
    args = parser.parse_args(argv)
    cases = [
        our_case("bura 2 players", "bura", players=2),
        our_case("bura 4 players", "bura", players=4),
        our_case("bura 6 players", "bura", players=6),
        our_case("mpourloto", "mpourloto"),
        playout_case("bura 2p, bot playout", 2),
    ]
    if args.case:
        cases = [c for c in cases if any(part in c.name for part in args.case)]
    if args.vs_openspiel:
        try:
            cases += [openspiel_case("openspiel euchre", "euchre"), openspiel_case("openspiel hearts", "hearts"),
                      openspiel_case("euchre, weighted", "euchre", weighted_chance=True)]
        except ImportError:
            print("OpenSpiel is not installed: .venv/bin/pip install -e '.[openspiel]'", file=sys.stderr)
            return 2
    print(f"Python {platform.python_version()} on {platform.machine()}; {args.rounds} rounds of "
          f"{args.seconds / args.rounds:.2f} CPU s per case")
    rngs = {case.name: random.Random(1) for case in cases}
    for _ in range(args.rounds):
        for case in cases:
            run_round(case, args.seconds / args.rounds, rngs[case.name])
    yardsticks = [c for c in cases if c.name in ("openspiel euchre", "euchre, weighted")]
    for case in cases:
        ratios = "".join(f"  {case.rate / y.rate:5.2f}x {y.name}" for y in yardsticks if y is not case)
        counts = " " * 39  # the playout case counts no actions
        if case.actions:
            per_hand = case.actions / case.hands
            counts = f"{case.actions / case.elapsed:9.0f} actions/s {per_hand:6.1f} actions/{case.unit[:-1]}"
        print(f"{case.name:20s} {case.rate:9.0f} {case.unit}/s {counts}{ratios}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
