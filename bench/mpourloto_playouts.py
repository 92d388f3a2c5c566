"""The Mpourloto hard level's CPU for the same decisions, its card play searched on the engine and on the light
simulator (trickroom/bots/mpourloto/rollout.py).

    .venv/bin/python bench/mpourloto_playouts.py [--hands N] [--worlds N] [--seed S]

Plays ``--hands`` hands with the hard level on team 0 (a fixed ``--worlds`` per decision, so that both runs make
the same decisions whatever the machine's load) against normal seats, once with the engine's playouts and once
with the light simulator's, and prints whether both chose the same actions and the CPU seconds the hard seats
spent, in card play and in the other phases (bidding: always on the engine).
"""

from __future__ import annotations

import argparse
import time

from trickroom.bots import make_bot
from trickroom.bots import mpourloto as mpourloto_bots
from trickroom.bots.hard import HardBot
from trickroom.games import events_for, load_game


def run(light: bool, hands: int, worlds: int, seed: int) -> tuple[dict[str, float], list[str]]:
    mpourloto_bots.LIGHT_PLAYOUTS = light
    game = load_game("mpourloto")
    cpu = {"play": 0.0, "other": 0.0}
    actions = []
    for hand in range(hands):
        match = game.new_match(seed=seed + hand)
        bots = [HardBot(seed=s, budget=1e9, max_worlds=worlds) if s in game.teams[0] else make_bot("normal", seed=s)
                for s in range(game.players)]
        while not match.hand_results:
            seat = match.to_act[0]
            legal, view = match.legal_actions(seat), match.view(seat)
            started = time.process_time()
            action = bots[seat].choose(game, seat, view, events_for(match.events, seat), legal)
            if seat in game.teams[0]:
                cpu["play" if view["phase"] == "play" else "other"] += time.process_time() - started
            actions.append(action)
            match.apply(seat, action)
    return cpu, actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=4)
    parser.add_argument("--worlds", type=int, default=30)
    parser.add_argument("--seed", type=int, default=10)
    args = parser.parse_args()
    engine, engine_actions = run(False, args.hands, args.worlds, args.seed)
    light, light_actions = run(True, args.hands, args.worlds, args.seed)
    print(f"{len(engine_actions)} actions, the same with both: {engine_actions == light_actions}")
    print(f"card play: engine {engine['play']:.2f} s, light {light['play']:.2f} s of CPU "
          f"({engine['play'] / max(light['play'], 1e-9):.2f}x); other phases {engine['other']:.2f} s / "
          f"{light['other']:.2f} s")


if __name__ == "__main__":
    main()
