"""How well the Mpourloto hard level's worlds place the hidden cards, with and without reading the plays.

    .venv/bin/python bench/mpourloto_inference.py [--hands N] [--worlds W] [--seed S]

Plays N hands with the normal level in every seat and, at each card-play decision of seat 0 that has a choice,
draws W worlds as the hard level draws them: uniformly among the deals that respect what the seat knows
(memory.sample_hidden), and weighed by how well they explain the others' recent plays (inference.py, the same
rejection loop as the search). It prints the share of the other players' cards that each kind of world puts in
the right hand, whether the real hands explain every play read (they must, against normal players), and the
time one reading of a world takes. Normal players are the case the reading is built for: against other players
it can only help less.
"""

from __future__ import annotations

import argparse
import random
import time

from trickroom.bots.mpourloto import normal_action
from trickroom.bots.mpourloto.inference import TRIES, read_plays
from trickroom.bots.mpourloto.memory import remember, sample_hidden
from trickroom.games import events_for, load_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=30)
    parser.add_argument("--worlds", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = load_game("mpourloto")
    rng = random.Random(args.seed)
    positions = explained = cards = uniform_right = weighed_right = readings = 0
    reading_time = 0.0
    for hand in range(args.hands):
        match = game.new_match(seed=args.seed * 100_000 + hand)
        players = random.Random(hand)
        while not match.hand_results:
            seat = match.to_act[0]
            legal = match.legal_actions(seat)
            view, events = match.view(seat), events_for(match.events, seat)
            if seat == 0 and view["phase"] == "play" and len(legal) > 1:
                plays = read_plays(view, events)
                memory = remember(view, events)
                real = {s: set(match.view(s)["hand"]) for s in (1, 2, 3)}
                positions += 1
                explained += plays.weight({s: sorted(h) for s, h in real.items()}) == 1.0
                for _ in range(args.worlds):
                    uniform = sample_hidden(memory, rng)
                    assert uniform is not None
                    weighed = uniform
                    for _ in range(TRIES - 1):
                        chance = rng.random()
                        started = time.perf_counter()
                        weight = plays.weight(weighed["hands"], floor=chance)
                        reading_time += time.perf_counter() - started
                        readings += 1
                        if chance < weight:
                            break
                        drawn = sample_hidden(memory, rng)
                        assert drawn is not None
                        weighed = drawn
                    for s, cards_held in real.items():
                        cards += len(cards_held)
                        uniform_right += len(cards_held & set(uniform["hands"][s]))
                        weighed_right += len(cards_held & set(weighed["hands"][s]))
            match.apply(seat, normal_action(game, seat, view, events, legal, players))
    print(f"{args.hands} hands of normal players, {positions} card-play decisions of seat 0 with a choice, "
          f"{args.worlds} worlds each")
    print(f"  the real hands explain every play read in {explained} of {positions} decisions")
    print(f"  the others' cards placed in the right hand: uniform worlds {100 * uniform_right / cards:.1f}%, "
          f"worlds weighed by the plays {100 * weighed_right / cards:.1f}%")
    print(f"  one reading of a world: {1e6 * reading_time / max(1, readings):.0f} us ({readings} readings)")


if __name__ == "__main__":
    main()
