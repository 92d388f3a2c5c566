"""How sure the review's numbers are: the same decisions searched again with other seeds, at the review's budget.

    .venv/bin/python bench/advice.py [--budget SECONDS] [--positions N] [--repeats R] [--seed S]
                                     [--bura-worlds N] [--mpourloto-worlds N]

Collects decisions with a real choice from games between normal bots (2-player Bura, then Mpourloto), searches
each one ``--repeats`` times with different seeds (trickroom/bots/advice.py, the review's search), and prints, per
game: how often every repeat chose the same move; the median spread (standard deviation across repeats) of the
chosen move's estimate and of the estimate of the least-searched alternative; the median samples behind each; and
the median difference, in the review's unit, between the chosen move and the alternatives. Bura's unit is the
chance of winning the hand (in percentage points), Mpourloto's the points the team should end the hand ahead. The
budget is wall-clock time: on a loaded machine fewer worlds are searched, and the spreads grow; ``--bura-worlds``
and ``--mpourloto-worlds`` fix the number of worlds instead (a quiet machine searches about 7,600 Bura iterations and
1,900 Mpourloto worlds in the review's 2 s: docs/bots.md).
"""

from __future__ import annotations

import argparse
import statistics
import time

from trickroom.bots import make_bot
from trickroom.bots.advice import WIN, advise
from trickroom.bots.search import Budget
from trickroom.bots.stats import percentile
from trickroom.games import events_for, load_game


def positions(game_name: str, options: dict[str, object], count: int, seed: int) -> list[tuple[object, ...]]:
    game = load_game(game_name, **options)
    found: list[tuple[object, ...]] = []
    bots = [make_bot("normal", seed=s) for s in range(game.players)]
    hand = 0
    while len(found) < count:
        match = game.new_match(seed=seed + hand)
        step = 0
        while not match.hand_results and len(found) < count:
            seat = match.to_act[0]
            legal = match.legal_actions(seat)
            view, events = match.view(seat), events_for(match.events, seat)
            if len([a for a in legal if a != "claim"]) > 1 and step % 3 == 0:  # every third real choice
                found.append((game, seat, view, events, legal))
            step += 1
            match.apply(seat, bots[seat].choose(game, seat, view, events, legal))
        hand += 1
    return found


def measure(game_name: str, options: dict[str, object], budget: float, worlds: int | None, count: int, repeats: int,
            seed: int) -> str:
    agree, best_spread, low_spread, best_samples, low_samples, gaps = 0, [], [], [], [], []
    started = time.perf_counter()
    unit = WIN
    for game, seat, view, events, legal in positions(game_name, options, count, seed):
        runs = [advise(game, seat, view, events, legal, seed=seed * 100 + r,  # type: ignore[arg-type]
                       budget=Budget(3600.0 if worlds else budget, worlds)) for r in range(repeats)]
        unit = runs[0].unit
        scale = 100.0 if unit == WIN else 1.0
        agree += len({run.action for run in runs}) == 1
        chosen = runs[0].action
        values = [run.estimate(chosen) for run in runs]
        if all(values):
            best_spread.append(scale * statistics.pstdev(v.value for v in values if v))
            best_samples.extend(v.samples for v in values if v)
        least = min(runs[0].estimates, key=lambda e: e.samples, default=None)
        if least is not None:
            others = [run.estimate(least.action) for run in runs]
            low_spread.append(scale * statistics.pstdev(o.value for o in others if o))
            low_samples.extend(o.samples for o in others if o)
        first = runs[0].estimate(chosen)
        gaps.extend(scale * (first.value - e.value) for e in runs[0].estimates if first and e.action != chosen)
    unit_name = "percentage points" if unit == WIN else "points"
    searched = f"{worlds} worlds" if worlds else f"{budget:.1f}s"
    return "\n".join([
        f"{game_name}: {count} decisions x {repeats} searches of {searched} ({time.perf_counter() - started:.0f}s)",
        f"  same choice in every search: {100 * agree / count:.0f}% of the decisions",
        f"  the chosen move's estimate: spread {percentile(best_spread, 0.5):.1f} {unit_name} median, "
        f"{percentile(best_spread, 0.9):.1f} p90, over a median {percentile(best_samples, 0.5):.0f} samples",
        f"  the least-searched alternative's: spread {percentile(low_spread, 0.5):.1f} median, "
        f"{percentile(low_spread, 0.9):.1f} p90, over a median {percentile(low_samples, 0.5):.0f} samples",
        f"  the chosen move against the alternatives: a median difference of {percentile(gaps, 0.5):.1f}"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=2.0)
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--bura-worlds", type=int, help="a fixed number of tree iterations instead of the budget")
    parser.add_argument("--mpourloto-worlds", type=int, help="a fixed number of worlds instead of the budget")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for game_name, options, worlds in (("bura", {"players": 2, "scoring": "points"}, args.bura_worlds),
                                       ("mpourloto", {}, args.mpourloto_worlds)):
        print(measure(game_name, options, args.budget, worlds, args.positions, args.repeats, args.seed), flush=True)


if __name__ == "__main__":
    main()
