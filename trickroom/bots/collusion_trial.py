"""``trickroom arena --collusion``: how often the collusion measure flags a feeder, and how often a fair table.

Each trial match is a whole Bura match (pot scoring, the default, with ``--hand-limit`` hands) at one of two
kinds of table, as many of each (``--matches``):

- *fair*: every seat a bot drawn at random from :data:`FAIR_LEVELS` (easy, normal, and hard with a small fixed
  search, :data:`HARD_WORLDS` worlds a decision, so that the run is reproducible and affordable);
- *colluding*: one seat a :class:`~trickroom.bots.feeder.FeederBot` feeding another seat drawn at random (its
  partner), every other seat, the partner included, drawn as at a fair table. ``--share`` is the part of its
  chances the feeder takes.

Every finished match is read by :func:`trickroom.bots.collusion.feeding`, as the server reads a finished table.
The matches are split in two: the first half (the training set) chooses the threshold, the lowest score at
which no more than ``--false-flags`` of the fair training matches are flagged (default 0: just above the highest
fair training match); the second half (held out)
measures, at that threshold and at the one the server uses (:data:`~trickroom.bots.collusion.THRESHOLD`), the
detection rate (colluding matches in which the feeder and its partner are flagged, in that order), the
false-flag rate (fair matches with any flag) and wrong flags at colluding tables (a pair that is not the feeder
and its partner).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from trickroom.bots import Bot, make_bot
from trickroom.bots.arena import RoleTally, bot_seed, play_one_hand
from trickroom.bots.collusion import MINIMUM_POINTS, THRESHOLD, feeding
from trickroom.bots.feeder import FeederBot
from trickroom.bots.hard import HardBot
from trickroom.games import load_game

FAIR_LEVELS = ("easy", "normal", "hard")
HARD_WORLDS = 8  # tree iterations per decision for the trial's hard seats (no clock: reproducible)


@dataclass(frozen=True)
class TrialTable:
    index: int
    colluding: bool
    levels: tuple[str, ...]  # by seat; "feeder" at the feeder's seat
    feeder: int | None
    partner: int | None


def trial_table(seed: int, players: int, index: int, colluding: bool) -> TrialTable:
    rng = random.Random(f"collusion-trial/{seed}/{players}/{index}/{colluding}")
    levels = [rng.choice(FAIR_LEVELS) for _ in range(players)]
    if not colluding:
        return TrialTable(index, False, tuple(levels), None, None)
    feeder, partner = rng.sample(range(players), 2)
    levels[feeder] = "feeder"
    return TrialTable(index, True, tuple(levels), feeder, partner)


def seat_bot(table: TrialTable, seat: int, seed: int, share: float) -> Bot:
    level = table.levels[seat]
    if level == "feeder":
        assert table.partner is not None
        return FeederBot(table.partner, seed=seed, share=share)
    if level == "hard":
        return HardBot(seed=seed, budget=60.0, max_worlds=HARD_WORLDS)
    return make_bot(level, seed=seed)


def play_trial(seed: int, players: int, hand_limit: int, share: float, index: int,
               colluding: bool) -> dict[str, Any]:
    """One whole match at a trial table, and the measure's pair scores for it."""
    table = trial_table(seed, players, index, colluding)
    game = load_game("bura", players=players, hand_limit=hand_limit)
    rotation = 1 if colluding else 0
    bots = [seat_bot(table, seat, bot_seed(seed, index, rotation, seat), share) for seat in range(players)]
    match = game.new_match(seed=bot_seed(seed, index, rotation, 7))
    tallies = [RoleTally() for _ in range(players)]
    play_one_hand(game, match, bots, tallies, list(range(players)), whole_match=True)
    measured = feeding(game, match.seed, match.actions)
    return {**asdict(table), "hands": len(match.hand_results),
            "pairs": [asdict(pair) for pair in measured.scores()]}


def flagged(trial: dict[str, Any], threshold: float) -> list[tuple[int, int]]:
    return [(p["feeder"], p["partner"]) for p in trial["pairs"]
            if p["score"] >= threshold and p["excess"] >= MINIMUM_POINTS]


def rates(trials: list[dict[str, Any]], threshold: float) -> dict[str, Any]:
    fair = [t for t in trials if not t["colluding"]]
    colluding = [t for t in trials if t["colluding"]]
    false_flags = sum(1 for t in fair if flagged(t, threshold))
    detected = sum(1 for t in colluding if (t["feeder"], t["partner"]) in flagged(t, threshold))
    wrong = sum(1 for t in colluding if set(flagged(t, threshold)) - {(t["feeder"], t["partner"])})
    return {"threshold": threshold, "fair": len(fair), "colluding": len(colluding),
            "false_flags": false_flags, "detected": detected, "wrong_pair_flags": wrong,
            "false_flag_rate": false_flags / max(1, len(fair)), "detection_rate": detected / max(1, len(colluding))}


def choose_threshold(trials: list[dict[str, Any]], false_flag_rate: float) -> float:
    """The lowest score at which at most ``false_flag_rate`` of the fair ``trials`` are flagged."""
    tops = sorted((max((p["score"] for p in t["pairs"] if p["excess"] >= MINIMUM_POINTS), default=0.0)
                   for t in trials if not t["colluding"]), reverse=True)
    allowed = int(false_flag_rate * len(tops))
    if allowed >= len(tops):
        return 0.0
    return round(tops[allowed] + 0.01, 2)  # just above the first fair match that must not be flagged


def add_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument("--matches", type=int, default=200, help="matches of each kind (fair, colluding)")
    parser.add_argument("--hand-limit", type=int, default=20, help="hands per match (pot scoring)")
    parser.add_argument("--share", type=float, default=1.0, help="the part of its chances a feeder takes")
    parser.add_argument("--false-flags", type=float, default=0.0,
                        help="the false-flag rate allowed on the training set when choosing the threshold "
                             "(default 0: just above every fair training match)")
    parser.add_argument("--summarize", metavar="FILE", help="do not play: the figures of a run's --json FILE again "
                                                            "(another --false-flags)")


def run(args: argparse.Namespace) -> int:
    if args.summarize:
        with open(args.summarize, encoding="utf-8") as source:
            done = json.load(source)
        trials = done["trials"]
        args.players, args.matches, args.hand_limit, args.share, args.seed = (
            done[key] for key in ("players", "matches", "hand_limit", "share", "seed"))
        wall = done["wall_seconds"]
    else:
        started = time.perf_counter()
        jobs = [(args.seed, args.players or 3, args.hand_limit, args.share, index, colluding)
                for index in range(args.matches) for colluding in (False, True)]
        with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
            trials = list(pool.map(play_trial, *zip(*jobs, strict=True), chunksize=4))
        wall = time.perf_counter() - started
    players = args.players or 3
    half = args.matches // 2
    training = [t for t in trials if t["index"] < half]
    held_out = [t for t in trials if t["index"] >= half]
    chosen = choose_threshold(training, args.false_flags)
    summary = {
        "players": players, "matches": args.matches, "hand_limit": args.hand_limit, "share": args.share,
        "seed": args.seed, "wall_seconds": wall, "chosen_threshold": chosen,
        "training_at_chosen": rates(training, chosen), "held_out_at_chosen": rates(held_out, chosen),
        "all_at_server_threshold": rates(trials, THRESHOLD),
    }
    print(format_summary(summary))
    if args.json and not args.summarize:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"command": " ".join(sys.argv), **summary, "trials": trials}, out, indent=1)
    return 0


def format_summary(summary: dict[str, Any]) -> str:
    lines = [f"collusion trial: bura, {summary['players']} players, pot, {summary['hand_limit']} hands a match, "
             f"feeder share {summary['share']:g}, {summary['matches']} fair and {summary['matches']} colluding "
             f"matches, seed {summary['seed']}, {summary['wall_seconds']:.0f}s"]
    for label, key in (("training set, chosen threshold", "training_at_chosen"),
                       ("held-out set, chosen threshold", "held_out_at_chosen"),
                       ("all matches, the server's threshold", "all_at_server_threshold")):
        r = summary[key]
        lines.append(f"{label} {r['threshold']:g}: detected {r['detected']}/{r['colluding']} "
                     f"({100 * r['detection_rate']:.1f}%), false flags {r['false_flags']}/{r['fair']} "
                     f"({100 * r['false_flag_rate']:.1f}%), wrong pairs at colluding tables {r['wrong_pair_flags']}")
    return "\n".join(lines)
