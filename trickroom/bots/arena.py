"""``trickroom arena``: bots play each other on duplicate deals, and the arena measures them.

Duplicate deals: every deck is played once per seating, with the bots rotated round the table, so that each bot
gets each seat's cards once and the luck of the deal cancels out. In Bura with n players a deck is played n times
(bot i sits at seat (i + r) mod n in rotation r); in Mpourloto the seats name teams (``--seats hard,normal``: team
0, seats 0 and 2, is hard; team 1, seats 1 and 3, is normal) and a deck is played twice, the teams swapped.

Each deck is one hand: the first hand of a fresh match dealt from that deck (a Bura redeal is played on to the
next real hand). Per bot the arena prints hands won (Bura) or its share of all points added (Mpourloto) with a
95% confidence interval taken over decks, false claims, illegal moves, and the median and 95th-percentile time
of its decisions that had a real choice (more than one action legal besides a claim). With three bots or more,
it also prints the first bot's lead over each other one, with an interval paired by deck. In Mpourloto it prints
each team's contracts (the hands in which it made trumps, its mesas, its share of those hands' points) and the
hands thrown in.

Decks run in a process pool (``--workers``, default: every core). A bot seat is ``level`` or ``level:budget``
(seconds of thinking for search levels; default: the server's budget for that level, DEFAULT_BUDGETS), or
``ismcts`` for OpenSpiel's ISMCTSBot through trickroom.integrations.openspiel at the same budget as hard. That
seat is loaded by name (OUTSIDE_SEATS) when asked for: the integrations sit above the bots, so the bots do not
import them.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from trickroom.bots import DEFAULT_BUDGETS, HARD_BUDGET, Bot, make_bot, off_turn_action
from trickroom.bots.stats import percentile, ratio_difference, ratio_share
from trickroom.cards import deal_rng, shuffled
from trickroom.games import GAMES, Event, Game, IllegalAction, Match, events_for, game_class, load_game

# Seats played by bots from outside trickroom.bots: level -> (module, class), imported when first asked for.
OUTSIDE_SEATS = {"ismcts": ("trickroom.integrations.openspiel", "ISMCTSSeatBot")}
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
    if spec.level in OUTSIDE_SEATS:  # at the hard level's budget
        module_name, class_name = OUTSIDE_SEATS[spec.level]
        seat_class = getattr(importlib.import_module(module_name), class_name)
        bot: Bot = seat_class(game, seed=seed, budget=spec.budget if spec.budget is not None else HARD_BUDGET)
        return bot
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
    # Mpourloto: the hands in which its team made trumps, how many of them went mesa, and the points those hands
    # added to its team and to both (where a team's share comes from: its contracts or its defence).
    made: int = 0
    mesas: int = 0
    made_points: float = 0.0
    made_total: float = 0.0


@dataclass
class DeckResult:
    index: int
    denominator: float  # hands played (Bura) or all points added (Mpourloto)
    roles: list[RoleTally]
    no_winner: int = 0  # Bura: hands nobody won; Mpourloto: hands thrown in (everyone passed)
    errors: list[str] = field(default_factory=list)


def seating(game_name: str, players: int, roles: int, rotation: int) -> list[int]:
    """Which role (index into --seats) sits at each seat in ``rotation``: in a game of partners a role is a
    team, and the teams swap seats from one rotation to the next."""
    game = game_class(game_name)
    if game.teams:
        return [(team + rotation) % len(game.teams) for team in map(game.team_of, range(players))
                if team is not None]
    return [(seat - rotation) % roles for seat in range(players)]


def rotations(game_name: str, players: int) -> int:
    teams = game_class(game_name).teams
    return len(teams) if teams else players


def bot_seed(seed: int, deck: int, rotation: int, seat: int) -> int:
    return (seed * 1_000_003 + deck) * 64 + rotation * 8 + seat


def play_one_hand(game: Game, match: Match, bots: Sequence[Bot], tallies: Sequence[RoleTally],
                  role_at: Sequence[int], whole_match: bool = False) -> None:
    """Play ``match`` until its first real hand (not a redeal) is over (``whole_match``: until the match is
    over), timing every bot decision."""
    # In a whole match the bots are shown the events from the last deal on (all they read: trickroom.bots.history),
    # so that a long match is not read again at every decision.
    hand_start = 0
    steps = 0  # in the current deal
    while not match.is_over:
        results = match.hand_results
        if results and results[-1].get("reason") != "redeal" and not whole_match:
            return
        deal = _last_deal(match.events, hand_start) if whole_match else 0
        steps = 0 if deal != hand_start else steps + 1
        hand_start = deal
        if steps > MAX_ACTIONS_PER_HAND:
            raise RuntimeError(f"hand did not end after {MAX_ACTIONS_PER_HAND} actions")
        if _offer_off_turn(game, match, bots, tallies, role_at, hand_start):
            continue
        seat = match.to_act[0]
        legal = match.legal_actions(seat)
        tally = tallies[role_at[seat]]
        started = time.perf_counter()
        action = bots[seat].choose(game, seat, match.view(seat), events_for(match.events[hand_start:], seat), legal)
        elapsed = time.perf_counter() - started
        if len([a for a in legal if a != "claim"]) > 1:
            tally.times.append(elapsed)
        else:
            tally.quick += 1
        if action not in legal:
            tally.illegal += 1
            raise IllegalAction(f"{bots[seat].level} at seat {seat} chose {action!r}, not in {legal}")
        match.apply(seat, action)


def _last_deal(events: Sequence[Event], since: int) -> int:
    """The index of the last ``deal`` event at or after ``since`` (``since`` if there is none)."""
    for index in range(len(events) - 1, since - 1, -1):
        if events[index].get("type") == "deal":
            return index
    return since


def _offer_off_turn(game: Game, match: Match, bots: Sequence[Bot], tallies: Sequence[RoleTally],
                    role_at: Sequence[int], hand_start: int = 0) -> bool:
    """Give every seat that is not first to act its chance at an off-turn action (a Bura claim)."""
    if not game.off_turn_actions:
        return False
    first = match.to_act[0] if match.to_act else None
    for seat, bot in enumerate(bots):
        if seat == first:
            continue
        legal = match.legal_actions(seat)
        if not legal:
            continue
        action = off_turn_action(bot, game, seat, match.view(seat), events_for(match.events[hand_start:], seat),
                                 legal)
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
    deck = shuffled(game.deck, deal_rng(seed, deck_index))
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
        _score_hand(game, hand, roles, role_at, result)
    return result


def _score_hand(game: Game, hand: dict[str, Any], roles: Sequence[RoleTally], role_at: Sequence[int],
                result: DeckResult) -> None:
    if game.teams:  # each team's first seat speaks for it
        added = hand.get("added") or [0] * len(game.teams)
        for team, seats in enumerate(game.teams):
            roles[role_at[seats[0]]].score += added[team]
        result.denominator += sum(added)
        maker = hand.get("maker")
        if maker is None:
            result.no_winner += 1
            return
        makers = roles[role_at[maker]]
        makers.made += 1
        makers.mesas += bool(hand.get("mesa"))
        makers_team = game.team_of(maker)
        assert makers_team is not None  # (a game with teams: every seat has one)
        makers.made_points += added[makers_team]
        makers.made_total += sum(added)
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
    parser.add_argument("--game", choices=sorted(GAMES), default="bura")
    parser.add_argument("--players", type=int, default=None, help="Bura: 2 to 6 (Mpourloto is always 4)")
    parser.add_argument("--seats",
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
    trial = parser.add_argument_group("collusion trial (Bura, 3 or more players; docs/moderation.md)")
    trial.add_argument("--collusion", action="store_true",
                       help="measure the collusion flags on whole matches at fair and colluding tables "
                            "instead of playing --seats")
    from trickroom.bots import collusion_trial

    collusion_trial.add_arguments(trial)


def run(args: argparse.Namespace) -> int:
    if args.collusion:
        from trickroom.bots import collusion_trial

        return collusion_trial.run(args)
    if not args.seats:
        print("--seats is needed (or --collusion)", file=sys.stderr)
        return 2
    specs = parse_seats(args.seats)
    options: dict[str, Any] = dict(item.split("=", 1) for item in args.option)
    teams = game_class(args.game).teams
    if not teams:
        options["players"] = args.players or len(specs)
        if len(specs) != options["players"]:
            print(f"--seats names {len(specs)} bots for {options['players']} players", file=sys.stderr)
            return 2
    elif len(specs) != len(teams):
        print(f"{args.game} is played by {len(teams)} teams: --seats names one bot per team", file=sys.stderr)
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
            "made": sum(r.roles[role].made for r in results),
            "mesas": sum(r.roles[role].mesas for r in results),
            "made_share": _share_of(sum(r.roles[role].made_points for r in results),
                                    sum(r.roles[role].made_total for r in results)),
        })
    # The first bot's lead over each other one, paired deck by deck (the shares' own intervals, side by side,
    # are wider than the difference's).
    scores = [[r.roles[role].score for r in results] for role in range(len(specs))]
    denominators = [r.denominator for r in results]
    leads = []
    for role in range(1, len(specs)):
        lead = ratio_difference(scores[0], scores[role], denominators)
        leads.append({"bot": specs[0].label, "over": specs[role].label, "seat": role, "lead": lead.value,
                      "low": lead.low, "high": lead.high})
    return {
        "game": game_name,
        "decks": len(results),
        "hands": None if game_class(game_name).teams else sum(r.denominator for r in results),
        "no_winner": sum(r.no_winner for r in results),
        "bots": bots,
        "leads": leads,
        "errors": [e for r in results for e in r.errors],
    }


def _share_of(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def format_summary(args: argparse.Namespace, summary: dict[str, Any], hands: int, wall: float) -> str:
    by_teams = bool(game_class(args.game).teams)
    measure = "points share" if by_teams else "hands won"
    lines = [f"{args.game}: {summary['decks']} duplicate decks, {hands} hands, seed {args.seed}, "
             f"{wall:.0f}s on {args.workers} workers"]
    header = f"{'bot':<14} {measure + ' [95% CI]':<26} {'false claims':>12} {'illegal':>8} " \
             f"{'decisions':>9} {'median':>8} {'p95':>8}"
    lines += [header, "-" * len(header)]
    for bot in summary["bots"]:
        interval = f"{100 * bot['share']:.1f}% [{100 * bot['low']:.1f}, {100 * bot['high']:.1f}]"
        lines.append(f"{bot['bot']:<14} {interval:<26} {bot['false_claims']:>12} {bot['illegal']:>8} "
                     f"{bot['decisions']:>9} {bot['median_s']:>7.3f}s {bot['p95_s']:>7.3f}s")
    for lead in summary["leads"] if len(summary["bots"]) > 2 else ():  # with two, the shares say it all
        lines.append(f"{lead['bot']} leads {lead['over']} (bot {lead['seat'] + 1}) by {100 * lead['lead']:+.1f} "
                     f"[{100 * lead['low']:+.1f}, {100 * lead['high']:+.1f}] percentage points, paired by deck")
    if not by_teams:
        lines.append(f"hands nobody won (false claim or no claim): {summary['no_winner']}")
    else:
        for bot in summary["bots"]:
            made = bot["made_share"]
            took = "" if made is None else f"; took {100 * made:.1f}% of those hands' points"
            lines.append(f"{bot['bot']} made trumps in {bot['made']} hands, {bot['mesas']} of them mesa{took}")
        lines.append(f"hands thrown in (everyone passed): {summary['no_winner']}")
    for error in summary["errors"][:20]:
        lines.append(f"ERROR {error}")
    return "\n".join(lines)
