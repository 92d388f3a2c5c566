"""How much a two-player Bura opponent's plays say about its hand, and what a reading fitted to them is worth.

The hard level weighs its sampled worlds by how well the normal level's heuristic explains the other player's last
plays (trickroom/bots/bura/inference.py). Against ISMCTS that reading barely helps. This bench asks whether a
better model of the opponent would: it fits one to the opponent's own plays and measures it three ways.

    # 1. Log every play decision with a choice (hand, trick, points, options, choice) of every seat in arena play:
    .venv/bin/python bench/bura_reading.py collect -- --seats hard:0.1,ismcts:0.1 --hands 600 --seed 500
    # 2. Fit P(play | hand, public state) for one level's decisions (a conditional logit over its legal plays, on
    #    the features below), and print how well it and the hard level's reading predict the held-out quarter:
    .venv/bin/python bench/bura_reading.py fit --level ismcts
    # 3. At the hard seat's decisions, how much of the other hand the sampled worlds hold: uniform, weighed by the
    #    level's reading, weighed by the fitted model (each by rejection as the level samples, and exactly):
    .venv/bin/python bench/bura_reading.py posterior -- --seats read:0.1,ismcts:0.1 --hands 60 --seed 900
    # 4. The hard level with the fitted model as its reading (``--tree``: also as its model of the other player's
    #    moves in the tree), in the arena:
    .venv/bin/python bench/bura_reading.py arena -- --seats read:0.1,ismcts:0.1 --hands 1600 --seed 101

Everything goes to ``--out`` (default /tmp/reading; ``collect`` adds to what is there). The ``read`` seat is the
hard level with the fitted reading, its weights read from ``--out`` (``--level``'s fit). After ``--`` come the
arena's own options (``--game bura --players 2`` are added). Not a level: it lives here because it is fitted to one
opponent (docs/bots.md, "A reading fitted to ISMCTS's plays").
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trickroom.bots.bura as bura_bots
from trickroom.bots import arena
from trickroom.bots.bura import inference, later_players, rollout
from trickroom.bots.bura.memory import card_points, remember, sample_hidden
from trickroom.bots.bura.policy import keep_value, play_beats, score_play
from trickroom.bots.feeder import winning_play
from trickroom.bots.hard import HardBot
from trickroom.cli import main as trickroom_main
from trickroom.games import Event, Game, Match
from trickroom.games.bura.tables import ID_OF

SCALE = 2.0  # a world's factor for one play: min(1, SCALE * P(play)), so that a well explained play costs nothing
FEATURES = ("heuristic's choice", "score behind the best / 10", "trumps", "points / 10", "keep value / 10",
            "trump aces and tens", "other aces and tens", "lead: extra cards", "lead: trumps", "beats the trick",
            "beats: points on the table / 10", "beats: trumps", "throws: points / 10", "throws: trumps")
ALL_CARDS = (1 << len(ID_OF)) - 1

out_dir = Path("/tmp/reading")
weights: list[float] = []  # the fitted model (``read`` seats), set before the arena's workers are forked
tree_model = False  # the fitted model also stands for the other player in the tree
measuring = False  # ``posterior``: the read seat measures its worlds at each decision
playing: Match | None = None  # the match the arena is playing now (one at a time per worker)
reading_now = False  # a read seat is deciding


# --- the model ----------------------------------------------------------------------------------------------

def option_features(plays: Sequence[Sequence[str]], trick: Sequence[tuple[int, Sequence[str]]], seat: int,
                    points: Sequence[int], unseen: set[str], trump: str, later: int) -> list[list[float]]:
    """The features of each of ``plays`` (FEATURES), for the player at ``seat`` who knows ``unseen`` unseen."""
    scores = [score_play(play, trick, seat, points, unseen, trump, later) for play in plays]
    best = max(scores)
    leading = winning_play([{"seat": other, "cards": cards} for other, cards in trick], trump)
    winning = leading[1] if leading else []
    on_table = sum(card_points(card) for _, cards in trick for card in cards)
    rows = []
    for play, score in zip(plays, scores, strict=True):
        trumps = sum(1 for card in play if card[1] == trump)
        own = sum(card_points(card) for card in play) / 10
        beat = 1.0 if trick and play_beats(play, winning, trump) else 0.0
        throw = 1.0 if trick and not beat else 0.0
        rows.append([1.0 if score == best else 0.0, max((score - best) / 10, -3.0), trumps, own,
                     sum(keep_value(card, trump) for card in play) / 10,
                     sum(1 for card in play if card[1] == trump and card[0] in "AT"),
                     sum(1 for card in play if card[1] != trump and card[0] in "AT"),
                     0.0 if trick else len(play) - 1, 0.0 if trick else trumps,
                     beat, beat * on_table / 10, beat * trumps, throw * own, throw * trumps])
    return rows


def distribution(model: Sequence[float], rows: Sequence[Sequence[float]]) -> list[float]:
    """The model's probability of each option (a softmax of the weighted features)."""
    scores = [sum(w * x for w, x in zip(model, row, strict=True)) for row in rows]
    top = max(scores)
    odds = [math.exp(score - top) for score in scores]
    total = sum(odds)
    return [odd / total for odd in odds]


def unseen_cards(mask: int) -> set[str]:
    """The cards of a bit set (rollout.card_mask's inverse)."""
    return {card for card, index in ID_OF.items() if mask >> index & 1}


class FittedReading(inference.Inference):
    """The level's reading of hands, a world counting min(1, SCALE * P) for each play read, P the fitted model's
    probability of the play, instead of 1 for the heuristic's choice and MISMATCH for any other."""

    def likelihood(self, move: inference.Move, hand: list[str]) -> float:
        ordered = tuple(rollout.sorted_cards(hand))
        options = (rollout.follow_options(ordered, len(move.trick[0][1])) if move.trick
                   else rollout.lead_options(ordered))
        if len(options) <= 1:
            return 1.0
        unseen = ~move.played_mask & ~rollout.card_mask(hand) & ALL_CARDS
        if move.trump_card_hidden and self.trump_card is not None:
            unseen &= ~rollout.card_mask([self.trump_card])
        rows = option_features(options, move.trick, move.seat, move.points, unseen_cards(unseen), self.trump,
                               move.later)
        chosen = options.index(tuple(rollout.sorted_cards(move.cards)))
        return min(1.0, SCALE * distribution(weights, rows)[chosen])


def fitted(base: inference.Inference) -> FittedReading:
    return FittedReading(base.seat, base.trump, base.moscow, base.trump_card, base.steps)


# --- the seats and patches ------------------------------------------------------------------------------------

def read_moves(view: dict[str, Any], events: Sequence[Event]) -> inference.Inference:
    base = _read_moves(view, events)
    return fitted(base) if reading_now else base


def tree_choose(world: rollout.Playout, actor: int) -> list[str]:
    """The tree's model of the other player: a play drawn from the fitted model (``--tree``), else the normal
    level's."""
    hand = world.hands[actor]
    options = (rollout.follow_options(tuple(hand), len(world.trick[0][1])) if world.trick
               else rollout.lead_options(tuple(hand)))
    if not (reading_now and tree_model) or len(options) <= 1:
        return _choose(world, actor)
    unseen = ~world.played_mask & ~rollout.card_mask(hand) & ALL_CARDS
    if world.trump_card is not None and world.stock:
        unseen &= ~rollout.card_mask([world.trump_card])
    later = len(world.order) - len(world.trick) - 1
    rows = option_features(options, world.trick, actor, world.points, unseen_cards(unseen), world.trump, later)
    return list(_tree_rng.choices(options, distribution(weights, rows))[0])


class ReadingHardBot(HardBot):
    level = "read"

    def __init__(self, game: Game, seed: int | None = None, budget: float | None = None) -> None:
        super().__init__(seed=seed, budget=budget)

    def choose(self, game: Game, seat: int, view: dict[str, Any], events: Sequence[Event],
               legal: Sequence[str]) -> str:
        global reading_now
        if measuring and playing is not None and len([a for a in legal if a.startswith("play ")]) > 1:
            measure(seat, view, events)
        reading_now = True
        try:
            return super().choose(game, seat, view, events, legal)
        finally:
            reading_now = False


def logging_seat(spec: arena.SeatSpec, game: Game, seed: int) -> Any:
    """arena.make_seat_bot, its bot's play decisions with a choice logged (``collect``)."""
    bot = _make_seat_bot(spec, game, seed)
    inner = bot.choose

    def choose(game: Game, seat: int, view: dict[str, Any], events: Sequence[Event], legal: Sequence[str]) -> str:
        action = inner(game, seat, view, events, legal)
        plays = [a for a in legal if a.startswith("play ")]
        if len(plays) > 1 and action.startswith("play "):
            memory = remember(view, events)
            record = {"level": spec.level, "hand": view["hand"], "seat": seat, "trump": view["trump"],
                      "trick": [[int(p["seat"]), p["cards"]] for p in view["trick"]], "points": memory.points,
                      "unseen": sorted(memory.unseen), "later": later_players(view),
                      "plays": [p.split()[1:] for p in plays], "chosen": action.split()[1:]}
            with open(out_dir / f"decisions-{os.getpid()}.jsonl", "a") as file:
                file.write(json.dumps(record) + "\n")
        return action

    bot.choose = choose  # type: ignore[method-assign]
    return bot


def play_one_hand(game: Game, match: Match, *args: Any, **kwargs: Any) -> None:
    global playing
    playing = match
    _play_one_hand(game, match, *args, **kwargs)


_read_moves = bura_bots.read_moves
_choose = rollout.Playout.choose
_make_seat_bot = arena.make_seat_bot
_play_one_hand = arena.play_one_hand
_tree_rng = random.Random(7)
bura_bots.read_moves = read_moves
rollout.Playout.choose = tree_choose  # type: ignore[method-assign]
arena.play_one_hand = play_one_hand
arena.OUTSIDE_SEATS["read"] = ("__main__", "ReadingHardBot")  # the workers are forked from this process


# --- posterior: what the worlds hold --------------------------------------------------------------------------

def held(hands: Sequence[Sequence[str]], odds: Sequence[float], real: Sequence[str], trump: str) -> list[float]:
    """Over worlds weighed by ``odds``: the share of the real hand's cards that a world's hand holds, and how often
    it holds as many trumps as the real hand."""
    total = sum(odds)
    trumps = sum(1 for card in real if card[1] == trump)
    share = sum(w * len(set(hand) & set(real)) / len(real) for hand, w in zip(hands, odds, strict=True))
    count = sum(w for hand, w in zip(hands, odds, strict=True) if sum(1 for c in hand if c[1] == trump) == trumps)
    return [share / total, count / total]


def measure(seat: int, view: dict[str, Any], events: Sequence[Event], worlds: int = 1500, drawn: int = 300) -> None:
    assert playing is not None
    other = 1 - seat
    real = playing.view(other)["hand"]
    memory = remember(view, events)
    rng = random.Random(len(events))
    sampled = [hidden for hidden in (sample_hidden(memory, rng) for _ in range(worlds)) if hidden is not None]
    hands = [hidden["hands"][other] for hidden in sampled]
    record: dict[str, list[float]] = {"uniform": held(hands, [1.0] * len(hands), real, view["trump"])}
    base = _read_moves(view, events)
    for name, reading in (("heuristic", base), ("fitted", fitted(base))):
        record[f"{name}, exactly"] = held(hands, [reading.weight(h["hands"]) for h in sampled], real, view["trump"])
        accepted = []
        for _ in range(drawn):  # as the level samples: rejection, at most TRIES draws
            hidden = sample_hidden(memory, rng)
            for _ in range(inference.TRIES - 1):
                if hidden is None or rng.random() < reading.weight(hidden["hands"]):
                    break
                hidden = sample_hidden(memory, rng)
            if hidden is not None:
                accepted.append(hidden["hands"][other])
        record[f"{name}, as sampled"] = held(accepted, [1.0] * len(accepted), real, view["trump"])
    with open(out_dir / f"posterior-{os.getpid()}.jsonl", "a") as file:
        file.write(json.dumps(record) + "\n")


def report_posterior() -> None:
    records = [json.loads(line) for path in sorted(out_dir.glob("posterior-*.jsonl"))
               for line in path.read_text().splitlines()]
    print(f"{len(records)} decisions of the read seat; the other hand's cards held by a world, and its trumps "
          "counted right")
    for key in records[0]:
        share = sum(r[key][0] for r in records) / len(records)
        count = sum(r[key][1] for r in records) / len(records)
        print(f"  {key:22} {share:7.2%} {count:7.2%}")


# --- fit ------------------------------------------------------------------------------------------------------

def load_decisions(level: str) -> list[dict[str, Any]]:
    return [record for path in sorted(out_dir.glob("decisions-*.jsonl")) for line in path.read_text().splitlines()
            if (record := json.loads(line))["level"] == level]


def design(records: Sequence[dict[str, Any]]) -> list[tuple[Any, int]]:
    """Each decision's feature matrix (options by FEATURES) and the index of the play chosen."""
    import numpy as np

    rows = []
    for r in records:
        trick = [(int(s), cards) for s, cards in r["trick"]]
        matrix = np.array(option_features(r["plays"], trick, r["seat"], r["points"], set(r["unseen"]), r["trump"],
                                          r["later"]))
        rows.append((matrix, [sorted(p) for p in r["plays"]].index(sorted(r["chosen"]))))
    return rows


def log_likelihood(model: Any, rows: Sequence[tuple[Any, int]], l2: float = 0.0) -> tuple[float, Any]:
    """The mean log-probability of the choices made, less ``l2`` times the squared weights, and its gradient."""
    import numpy as np

    total, gradient = 0.0, np.zeros_like(model)
    for matrix, chosen in rows:
        scores = matrix @ model
        odds = np.exp(scores - scores.max())
        odds /= odds.sum()
        total += math.log(odds[chosen])
        gradient += matrix[chosen] - odds @ matrix
    return total / len(rows) - l2 * model @ model, gradient / len(rows) - 2 * l2 * model


def fit(level: str) -> None:
    import numpy as np
    from scipy.optimize import minimize

    records = load_decisions(level)
    cut = len(records) * 3 // 4
    train, test = design(records[:cut]), design(records[cut:])
    print(f"{level}: {len(records)} decisions, fitted on the first {cut}; mean log-probability of the held-out "
          "choices:")
    print(f"  every legal play alike            {np.mean([-math.log(len(m)) for m, _ in test]):.3f}")
    mismatch = np.zeros(len(FEATURES))
    mismatch[0] = -math.log(inference.MISMATCH)
    print(f"  the level's reading (MISMATCH)    {log_likelihood(mismatch, test)[0]:.3f}")
    chosen_share = np.mean([m[c, 0] for m, c in test])
    print(f"  (the heuristic's choice, or one scored as well, in {chosen_share:.1%} of them)")
    result = minimize(lambda w: tuple(-x for x in log_likelihood(w, train, 0.01)), np.zeros(len(FEATURES)),
                      jac=True, method="L-BFGS-B")
    print(f"  the fitted model                  {log_likelihood(result.x, test)[0]:.3f} "
          f"(on its own decisions {log_likelihood(result.x, train)[0]:.3f})")
    for name, weight in zip(FEATURES, result.x, strict=True):
        print(f"    {name:34} {weight:+.3f}")
    (out_dir / f"{level}.json").write_text(json.dumps({"level": level, "weights": list(result.x)}))


# --- command line ---------------------------------------------------------------------------------------------

def main(argv: Sequence[str]) -> int:
    global out_dir, weights, tree_model, measuring
    mine, rest = list(argv), []
    if "--" in mine:  # the arena's own options follow
        mine, rest = mine[:mine.index("--")], mine[mine.index("--") + 1:]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["collect", "fit", "posterior", "arena"])
    parser.add_argument("--out", type=Path, default=out_dir, help="where decisions, weights and measures go")
    parser.add_argument("--level", default="ismcts", help="whose decisions to fit, whose weights to read")
    parser.add_argument("--tree", action="store_true", help="arena: the fitted model plays the other in the tree")
    args = parser.parse_args(mine)
    out_dir = args.out
    out_dir.mkdir(parents=True, exist_ok=True)
    if args.command == "fit":
        fit(args.level)
        return 0
    arena_args = ["arena", "--game", "bura", "--players", "2", *rest]
    if args.command == "collect":
        arena.make_seat_bot = logging_seat
        return trickroom_main(arena_args)
    weights = json.loads((out_dir / f"{args.level}.json").read_text())["weights"]
    tree_model = args.tree
    if args.command == "posterior":
        measuring = True
        for path in out_dir.glob("posterior-*.jsonl"):
            path.unlink()
        code = trickroom_main(arena_args)
        report_posterior()
        return code
    return trickroom_main(arena_args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
