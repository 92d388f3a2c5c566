"""``trickroom arena``: bots play each other on duplicate deals, and the arena measures them.

Duplicate deals: every deck is played once per seating, with the bots rotated round the table, so that each bot
gets each seat's cards once and the luck of the deal cancels out. In Bura with n players a deck is played n times
(bot i sits at seat (i + r) mod n in rotation r); in Mpourloto the seats name teams (``--seats hard,normal``: team
0, seats 0 and 2, is hard; team 1, seats 1 and 3, is normal) and a deck is played twice, the teams swapped.

Each deck is one hand: the first hand of a fresh match dealt from that deck (a Bura redeal is played on to the
next real hand). Per bot the arena prints hands won (Bura) or its share of all points added (Mpourloto) with a
95% confidence interval taken over decks, false claims, illegal moves, and the median and 95th-percentile time
of its decisions that had a real choice (more than one action legal besides a claim).

Decks run in a process pool (``--workers``, default: every core). A bot seat is ``level`` or ``level:budget``
(seconds of thinking for search levels; default: the server's budget for that level, DEFAULT_BUDGETS), or
``ismcts`` for OpenSpiel's ISMCTSBot through trickroom.integrations.openspiel at the same budget as hard.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from trickroom.bots import DEFAULT_BUDGETS, Bot, make_bot, off_turn_action
from trickroom.bots.stats import percentile, ratio_share
from trickroom.cards import DECK_32, DECK_36, deal_rng, shuffled
from trickroom.games import Game, IllegalAction, Match, events_for, load_game

DECKS = {"bura": DECK_36, "mpourloto": DECK_32}
MAX_ACTIONS_PER_HAND = 2000  # far above any real hand: a guard against an engine or bot that loops


@dataclass(frozen=True)
class SeatSpec:
    level: str
    budget: float | None

    @property
    def label(self) -> str:
        return self.level if self.budget is None else f"{self.level}:{self.budget:g}"


def parse_seats(text: str) -> list[SeatSpec]:
    specs = []
    for part in text.split(","):
        level, _, budget = part.strip().partition(":")
        specs.append(SeatSpec(level, float(budget) if budget else None))
    return specs


def make_seat_bot(spec: SeatSpec, game: Game, seed: int) -> Bot:
    if spec.level == "ismcts":
        from trickroom.integrations.openspiel import ISMCTSSeatBot

        budget = spec.budget if spec.budget is not None else DEFAULT_BUDGETS["hard"]
        return ISMCTSSeatBot(game, seed=seed, budget=budget or 0.7)
    budget = spec.budget if spec.budget is not None else DEFAULT_BUDGETS.get(spec.level)
    return make_bot(spec.level, seed=seed, budget=budget)


@dataclass
class RoleTally:
    """What one bot (a position in ``--seats``) did on one deck, over all its rotations."""

    score: float = 0.0  # hands won (Bura) or points added to its team (Mpourloto)
    false_claims: int = 0
    illegal: int = 0
    times: list[float] = field(default_factory=list)  # seconds per decision with a real choice
    quick: int = 0  # decisions with one choice


@dataclass
class DeckResult:
    index: int
    denominator: float  # hands played (Bura) or all points added (Mpourloto)
    roles: list[RoleTally]
    no_winner: int = 0
    errors: list[str] = field(default_factory=list)


def seating(game_name: str, players: int, roles: int, rotation: int) -> list[int]:
    """Which role (index into --seats) sits at each seat in ``rotation``."""
    if game_name == "mpourloto":
        return [(seat + rotation) % 2 for seat in range(4)]
    return [(seat - rotation) % roles for seat in range(players)]


def rotations(game_name: str, players: int) -> int:
    return 2 if game_name == "mpourloto" else players


def bot_seed(seed: int, deck: int, rotation: int, seat: int) -> int:
    return (seed * 1_000_003 + deck) * 64 + rotation * 8 + seat


def play_one_hand(game: Game, match: Match, bots: Sequence[Bot], tallies: Sequence[RoleTally],
                  role_at: Sequence[int]) -> None:
    """Play ``match`` until its first real hand (not a redeal) is over, timing every bot decision."""
    for _ in range(MAX_ACTIONS_PER_HAND):
        results = match.hand_results
        if match.is_over or (results and results[-1].get("reason") != "redeal"):
            return
        if _offer_off_turn(game, match, bots, tallies, role_at):
            continue
        seat = match.to_act[0]
        legal = match.legal_actions(seat)
        tally = tallies[role_at[seat]]
        started = time.perf_counter()
        action = bots[seat].choose(game, seat, match.view(seat), events_for(match.events, seat), legal)
        elapsed = time.perf_counter() - started
        if len([a for a in legal if a != "claim"]) > 1:
            tally.times.append(elapsed)
        else:
            tally.quick += 1
        if action not in legal:
            tally.illegal += 1
            raise IllegalAction(f"{bots[seat].level} at seat {seat} chose {action!r}, not in {legal}")
        match.apply(seat, action)
    raise RuntimeError(f"hand did not end after {MAX_ACTIONS_PER_HAND} actions")


def _offer_off_turn(game: Game, match: Match, bots: Sequence[Bot], tallies: Sequence[RoleTally],
                    role_at: Sequence[int]) -> bool:
    """Give every seat that is not first to act its chance at an off-turn action (a Bura claim)."""
    first = match.to_act[0] if match.to_act else None
    for seat, bot in enumerate(bots):
        if seat == first:
            continue
        legal = match.legal_actions(seat)
        if not legal:
            continue
        action = off_turn_action(bot, game, seat, match.view(seat), events_for(match.events, seat), legal)
        if action is None:
            continue
        if action not in legal:
            tallies[role_at[seat]].illegal += 1
            raise IllegalAction(f"{bot.level} at seat {seat} chose {action!r} off turn, not in {legal}")
        match.apply(seat, action)
        return True
    return False


def play_deck(game_name: str, options: dict[str, Any], specs: Sequence[SeatSpec], seed: int,
              deck_index: int) -> DeckResult:
    """Play one deck in every rotation; the unit of work of the process pool."""
    game = load_game(game_name, **options)
    deck = shuffled(DECKS[game_name], deal_rng(seed, deck_index))
    roles = [RoleTally() for _ in specs]
    result = DeckResult(deck_index, 0.0, roles)
    for rotation in range(rotations(game_name, game.players)):
        role_at = seating(game_name, game.players, len(specs), rotation)
        bots = [make_seat_bot(specs[role_at[seat]], game, bot_seed(seed, deck_index, rotation, seat))
                for seat in range(game.players)]
        match = game.new_match(seed=bot_seed(seed, deck_index, rotation, 7), decks=[deck])
        try:
            play_one_hand(game, match, bots, roles, role_at)
        except Exception as error:  # one broken hand must not end a long run: it is reported, and the run fails
            result.errors.append(f"deck {deck_index} rotation {rotation}: {type(error).__name__}: {error}")
            continue
        hand = next(h for h in match.hand_results if h.get("reason") != "redeal")
        _score_hand(game_name, hand, roles, role_at, result)
    return result


def _score_hand(game_name: str, hand: dict[str, Any], roles: Sequence[RoleTally], role_at: Sequence[int],
                result: DeckResult) -> None:
    if game_name == "mpourloto":
        added = hand.get("added") or [0, 0]
        for seat in (0, 1):  # seat 0 speaks for team 0, seat 1 for team 1
            roles[role_at[seat]].score += added[seat]
        result.denominator += added[0] + added[1]
        return
    result.denominator += 1
    winner = hand.get("winner")
    if winner is None:
        result.no_winner += 1
    else:
        roles[role_at[winner]].score += 1
    if hand.get("reason") == "false-claim" and hand.get("claimant") is not None:
        roles[role_at[hand["claimant"]]].false_claims += 1


# --- The command ---------------------------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=sorted(DECKS), default="bura")
    parser.add_argument("--players", type=int, default=None, help="Bura: 2 to 6 (Mpourloto is always 4)")
    parser.add_argument("--seats", required=True,
                        help="bots by seat (Bura) or by team (Mpourloto): level[:budget],... "
                             "levels random, easy, normal, hard, ismcts")
    parser.add_argument("--hands", type=int, default=200,
                        help="hands to play in all, rounded up to whole duplicate decks")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option, e.g. --option preset=moscow (repeatable)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    specs = parse_seats(args.seats)
    options: dict[str, Any] = dict(item.split("=", 1) for item in args.option)
    if args.game == "bura":
        options["players"] = args.players or len(specs)
        if len(specs) != options["players"]:
            print(f"--seats names {len(specs)} bots for {options['players']} players", file=sys.stderr)
            return 2
    elif len(specs) != 2:
        print("Mpourloto takes two teams: --seats TEAM0,TEAM1", file=sys.stderr)
        return 2
    game = load_game(args.game, **options)
    per_deck = rotations(args.game, game.players)
    decks = max(1, -(-args.hands // per_deck))
    started = time.perf_counter()
    results = run_decks(args.game, game.options, specs, args.seed, decks, args.workers, show_progress=not args.quiet)
    wall = time.perf_counter() - started
    summary = summarize(args.game, specs, results)
    print(format_summary(args, summary, decks * per_deck, wall))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"command": " ".join(sys.argv), "wall_seconds": wall, **summary}, out, indent=2)
    return 1 if summary["errors"] else 0


def run_decks(game_name: str, options: dict[str, Any], specs: Sequence[SeatSpec], seed: int, decks: int,
              workers: int, show_progress: bool = True) -> list[DeckResult]:
    progress = Progress(decks, enabled=show_progress)
    if workers <= 1:
        results = []
        for index in range(decks):
            results.append(play_deck(game_name, options, specs, seed, index))
            progress.advance()
        progress.finish()
        return results
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures: list[Future[DeckResult]] = [pool.submit(play_deck, game_name, options, specs, seed, index)
                                             for index in range(decks)]
        for future in futures:
            future.add_done_callback(lambda _f: progress.advance())
        collected = [future.result() for future in futures]
    progress.finish()
    return collected


class Progress:
    """A progress bar on stderr: redrawn in place on a terminal, a line per tenth otherwise (logs)."""

    def __init__(self, total: int, enabled: bool = True) -> None:
        self.total = total
        self.done = 0
        self.enabled = enabled and total >= 10
        self.tty = sys.stderr.isatty()
        self.started = time.perf_counter()
        self.last_tenth = 0

    def advance(self) -> None:
        self.done += 1
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.started
        remaining = elapsed / self.done * (self.total - self.done)
        if self.tty:
            filled = int(30 * self.done / self.total)
            bar = "#" * filled + "." * (30 - filled)
            sys.stderr.write(f"\r[{bar}] {self.done}/{self.total} decks, {elapsed:.0f}s, ~{remaining:.0f}s left")
            sys.stderr.flush()
        elif self.done * 10 // self.total > self.last_tenth:
            self.last_tenth = self.done * 10 // self.total
            print(f"{self.done}/{self.total} decks, {elapsed:.0f}s, ~{remaining:.0f}s left", file=sys.stderr,
                  flush=True)

    def finish(self) -> None:
        if self.enabled and self.tty:
            sys.stderr.write("\n")


def summarize(game_name: str, specs: Sequence[SeatSpec], results: Sequence[DeckResult]) -> dict[str, Any]:
    bots = []
    for role, spec in enumerate(specs):
        share = ratio_share([r.roles[role].score for r in results], [r.denominator for r in results])
        times = [t for r in results for t in r.roles[role].times]
        bots.append({
            "seat": role,
            "bot": spec.label,
            "share": share.value,
            "low": share.low,
            "high": share.high,
            "false_claims": sum(r.roles[role].false_claims for r in results),
            "illegal": sum(r.roles[role].illegal for r in results),
            "decisions": len(times),
            "quick_moves": sum(r.roles[role].quick for r in results),
            "median_s": percentile(times, 0.5),
            "p95_s": percentile(times, 0.95),
            "max_s": max(times, default=0.0),
        })
    return {
        "game": game_name,
        "decks": len(results),
        "hands": sum(r.denominator for r in results) if game_name == "bura" else None,
        "no_winner": sum(r.no_winner for r in results),
        "bots": bots,
        "errors": [e for r in results for e in r.errors],
    }


def format_summary(args: argparse.Namespace, summary: dict[str, Any], hands: int, wall: float) -> str:
    measure = "hands won" if args.game == "bura" else "points share"
    lines = [f"{args.game}: {summary['decks']} duplicate decks, {hands} hands, seed {args.seed}, "
             f"{wall:.0f}s on {args.workers} workers"]
    header = f"{'bot':<14} {measure + ' [95% CI]':<26} {'false claims':>12} {'illegal':>8} " \
             f"{'decisions':>9} {'median':>8} {'p95':>8}"
    lines += [header, "-" * len(header)]
    for bot in summary["bots"]:
        interval = f"{100 * bot['share']:.1f}% [{100 * bot['low']:.1f}, {100 * bot['high']:.1f}]"
        lines.append(f"{bot['bot']:<14} {interval:<26} {bot['false_claims']:>12} {bot['illegal']:>8} "
                     f"{bot['decisions']:>9} {bot['median_s']:>7.3f}s {bot['p95_s']:>7.3f}s")
    if args.game == "bura":
        lines.append(f"hands nobody won (false claim or no claim): {summary['no_winner']}")
    for error in summary["errors"][:20]:
        lines.append(f"ERROR {error}")
    return "\n".join(lines)
