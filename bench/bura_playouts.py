"""Self-play between Bura playout policies: the hard level's tuned heuristic against the normal level's.

    .venv/bin/python bench/bura_playouts.py [--decks N] [--seed S] [--workers W]
    .venv/bin/python bench/bura_playouts.py --climb [--rounds R] [--decks N]

Both policies are the same heuristic (rollout.heuristic_choice) with different weights (policy.Weights). Each
deck's first hand is played twice on the light simulator with every card known to the simulator, the policies
swapping seats, so the luck of the deal cancels; a policy's share is its hands won (half a hand for a hand nobody
wins) over all hands, with a 95% interval taken over decks. Two players, classic preset.

``--climb`` searches the weights one at a time (each tried at 0.5, 0.75, 1.33 and 2 times its value, or 0.5, 1 and
2 when it is 0) against the weights found so far, keeping a change that wins with its interval's lower bound
(2.5 standard errors) above a half, starting from the hard level's weights (``--from normal``: the normal
level's). It prints every trial and the weights it ends with. A policy is not a level: what it is worth inside
the search is measured by the arena (docs/bots.md).
"""

from __future__ import annotations

import argparse
import dataclasses
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache

from trickroom.bots.bura import PLAYOUT_WEIGHTS
from trickroom.bots.bura.policy import Weights
from trickroom.bots.bura.rollout import Tables, self_play_share
from trickroom.bots.stats import Z_95, Share, ratio_share
from trickroom.cards import deal_rng, shuffled
from trickroom.games import load_game
from trickroom.games.bura import Bura

GAME = load_game("bura", players=2)
HARD = PLAYOUT_WEIGHTS[2, "classic"]  # the weights it measures (the hard level's at this table)


def deck_score(job: tuple[int, Weights, Weights]) -> float:
    """Policy A's share of the deck's two hands (A in seat 0, then in seat 1)."""
    index, weights_a, weights_b = job
    deck = shuffled(list(Bura.deck), deal_rng(index, 0))
    return self_play_share(GAME, deck, tables_of(weights_a), tables_of(weights_b))


@lru_cache(maxsize=16)
def tables_of(weights: Weights) -> Tables:
    return Tables(weights)  # its lookups take longer to build than a hand takes to play


def share(weights_a: Weights, weights_b: Weights, decks: int, seed: int, pool: ProcessPoolExecutor) -> Share:
    """A's share of the hands against B over ``decks`` duplicate decks, with its 95% interval (as the arena's)."""
    jobs = [(seed * 1_000_003 + i, weights_a, weights_b) for i in range(decks)]
    scores = list(pool.map(deck_score, jobs, chunksize=200))
    return ratio_share(scores, [1.0] * decks)


def climb(start: Weights, rounds: int, decks: int, seed: int, pool: ProcessPoolExecutor) -> Weights:
    best = start
    for round_number in range(rounds):
        for field in dataclasses.fields(Weights):
            value = getattr(best, field.name)
            trials = [value * f for f in (0.5, 0.75, 1.33, 2.0)] if value else [0.5, 1.0, 2.0]
            kept: tuple[float, Weights] | None = None
            for trial in trials:
                candidate = dataclasses.replace(best, **{field.name: round(trial, 3)})
                result = share(candidate, best, decks, seed + round_number, pool)
                mean, error = result.value, (result.high - result.value) / Z_95
                print(f"round {round_number} {field.name} = {trial:.3g}: {result.percent()}", flush=True)
                if mean - 2.5 * error > 0.5 and (kept is None or mean > kept[0]):
                    kept = (mean, candidate)
            if kept is not None:
                best = kept[1]
                print(f"kept {best}", flush=True)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", type=int, default=40_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--climb", action="store_true")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--from", dest="start", choices=("hard", "normal"), default="hard")
    args = parser.parse_args()
    with ProcessPoolExecutor(args.workers) as pool:
        if args.climb:
            start = HARD if args.start == "hard" else Weights()
            print(f"ends with {climb(start, args.rounds, args.decks, args.seed, pool)}")
            return
        result = share(HARD, Weights(), args.decks, args.seed, pool)
        print(f"{args.decks} duplicate decks, seed {args.seed}: the hard level's playout policy wins "
              f"{result.percent()} of the hands against the normal level's")
        print(f"hard's weights: {HARD}")


if __name__ == "__main__":
    main()
