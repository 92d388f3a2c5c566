"""How much the hard level searches in its budget: worlds per decision and decision times, per game.

    .venv/bin/python bench/bots.py [--budget SECONDS] [--decisions N] [--seed S] [--game G] [--engine-playouts]

Plays hard against normal seats (2-player Bura, then Mpourloto with hard on team 0) and prints, over the hard
seats' decisions that had a real choice, the median and 95th percentile of the wall time and of the worlds
searched, and the CPU time per world. The budget is wall-clock time, so on a loaded machine the bot searches fewer
worlds in the same time: compare the worlds, not only the times. In Bura a "world" is one iteration of the tree
search (each samples a new world and plays one line to the end); in Mpourloto it is one world in which every
candidate action is played out.
"""

from __future__ import annotations

import argparse
import os
import time

from trickroom.bots import HARD_BUDGET, make_bot
from trickroom.bots import mpourloto as mpourloto_bots
from trickroom.bots.hard import HardBot
from trickroom.bots.stats import percentile
from trickroom.games import events_for, load_game


def measure(game_name: str, options: dict[str, object], budget: float, decisions: int, seed: int) -> str:
    game = load_game(game_name, **options)
    hard_seats = set(game.teams[0]) if game.teams else {0}  # one seat, or one team
    times: list[float] = []
    worlds: list[int] = []
    cpu_per_world: list[float] = []
    hand = 0
    while len(times) < decisions:
        match = game.new_match(seed=seed + hand)
        bots = [HardBot(seed=seed + hand + s, budget=budget) if s in hard_seats else make_bot("normal", seed=s)
                for s in range(game.players)]
        while not match.hand_results and len(times) < decisions:
            seat = match.to_act[0]
            legal = match.legal_actions(seat)
            view, events = match.view(seat), events_for(match.events, seat)
            wall, cpu = time.perf_counter(), time.process_time()
            action = bots[seat].choose(game, seat, view, events, legal)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            search = getattr(bots[seat], "last_search", None)
            if seat in hard_seats and search is not None and search.worlds:
                times.append(wall)
                worlds.append(search.worlds)
                cpu_per_world.append(cpu / search.worlds)
            match.apply(seat, action)
        hand += 1
    return (f"{game_name:<10} {len(times):>5} decisions  time median {percentile(times, 0.5):.3f}s "
            f"p95 {percentile(times, 0.95):.3f}s  worlds median {percentile(worlds, 0.5):.0f} "
            f"p5 {percentile(worlds, 0.05):.0f}  cpu per world {1000 * percentile(cpu_per_world, 0.5):.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=HARD_BUDGET)
    parser.add_argument("--decisions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", choices=("bura", "mpourloto"), help="only this game (default: both)")
    parser.add_argument("--engine-playouts", action="store_true",
                        help="Mpourloto: play the card-play playouts on the engine, not the light simulator "
                             "(the search before 2026-12-01), to compare the two")
    args = parser.parse_args()
    if args.engine_playouts:
        mpourloto_bots.LIGHT_PLAYOUTS = False
    print(f"hard level, budget {args.budget} s, load average {os.getloadavg()[0]:.2f}")
    if args.game in (None, "bura"):
        print(measure("bura", {"players": 2}, args.budget, args.decisions, args.seed))
    if args.game in (None, "mpourloto"):
        print(measure("mpourloto", {}, args.budget, args.decisions, args.seed))


if __name__ == "__main__":
    main()
