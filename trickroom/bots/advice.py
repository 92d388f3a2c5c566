"""The hard level as a teacher: what it would play at one decision, what it expects of each choice, and the facts
that say why in the game's own terms (for hints, and for the review of a hand).

    advice = advise(game, seat, view, events, legal, seed=1, budget=Budget(0.9))
    advice.action       # "play AH": what the hard level plays here
    advice.estimates    # every choice it searched, best first: (action, value, samples)
    advice.reason       # "beat_claim"
    advice.facts        # {"cards": ["AH"], "points": 21, "total": 33, "target": 31}

It reads only what the seat may see (its view and the events it saw), as every bot does. The search is the hard
level's own (``hard_search`` of the game's bot module, the same one HardBot plays with); a larger ``budget`` makes
the estimates surer. The estimates are in the search's unit: in Bura the share of sampled playouts in which the
seat won the hand after that choice (``unit`` "win", 0 to 1); in Mpourloto the points the seat's team added in
the rest of the hand minus the other team's, on average over the sampled worlds (``unit`` "points").

The reasons are worked out from the games API, never from a copy of the rules: card points (``card_points``),
the claim target, the announcements that win the hand, the rank order of the trumps, the legal actions, and what
the engine itself does when the chosen cards are played in a world sampled from what the seat has seen (who takes
the trick and which cards, when the seat's play completes it). The words are narration's (narration/advice.py).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from trickroom.bots import HARD_BUDGET
from trickroom.bots.levels import GAME_MODULES, game_module
from trickroom.bots.search import Budget, SearchResult
from trickroom.games import HAND_OVER, Event, Game, Match, ends_a_hand, events_for

CLAIM = "claim"
WIN, POINTS = "win", "points"  # the estimates' units: chance of winning the hand; team points ahead


@dataclass(frozen=True)
class Estimate:
    action: str
    value: float  # in the advice's unit
    samples: int  # the playouts (Bura) or worlds (Mpourloto) behind the value


@dataclass(frozen=True)
class Advice:
    action: str  # what the hard level plays
    unit: str  # WIN or POINTS
    estimates: tuple[Estimate, ...] = ()  # best first; empty when nothing needed searching
    worlds: int = 0  # sampled worlds (Bura: tree iterations) the search ran
    reason: str = "estimate"  # the kind of reason; narration says it (hint.<game>.<reason>)
    facts: dict[str, Any] = field(default_factory=dict)  # its parameters as data: cards, points, counts

    def estimate(self, action: str) -> Estimate | None:
        return next((e for e in self.estimates if e.action == action), None)

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "unit": self.unit, "worlds": self.worlds, "reason": self.reason,
                "facts": dict(self.facts),
                "estimates": [{"action": e.action, "value": e.value, "samples": e.samples} for e in self.estimates]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Advice:
        return cls(str(data["action"]), str(data["unit"]),
                   tuple(Estimate(str(e["action"]), float(e["value"]), int(e["samples"])) for e in data["estimates"]),
                   int(data.get("worlds", 0)), str(data.get("reason", "estimate")), dict(data.get("facts") or {}))


def unit_of(game: Game) -> str:
    """Bura's search counts hands won (its claims decide hands); Mpourloto's, points (a hand is scored in points)."""
    return WIN if game.claim_target is not None else POINTS


def advise(game: Game, seat: int, view: dict[str, Any], events: Sequence[Event], legal: Sequence[str],
           seed: int = 0, budget: Budget | None = None) -> Advice:
    """The hard level's choice among ``legal`` at this decision, its estimate of every choice, and the reason."""
    rng = random.Random(seed)
    budget = budget or Budget(HARD_BUDGET)
    module = game_module(game.name)
    choices = [a for a in legal if a != CLAIM]
    unit = unit_of(game)
    if len(choices) <= 1 or len(legal) <= 1:
        action: str = module.normal_action(game, seat, view, events, legal, rng)
        result = SearchResult(action, 0)
    else:
        result = module.hard_search(game, seat, view, events, legal, rng, budget)
    estimates = sorted((Estimate(a, round(s.mean, 4), s.visits) for a, s in result.stats.items() if s.visits),
                       key=lambda e: (-e.value, e.action != result.action))
    reason, facts = (_bura_reason if game.name == "bura" else _mpourloto_reason)(
        game, seat, view, events, legal, result.action, rng)
    chosen = next((e for e in estimates if e.action == result.action), None)
    if chosen is not None:
        facts["value"] = chosen.value
    return Advice(result.action, unit, tuple(estimates), result.worlds, reason, facts)


def _after(game: Game, view: dict[str, Any], events: Sequence[Event], seat: int, action: str,
           rng: random.Random) -> list[Event] | None:
    """The engine's events when ``action`` is played in one world consistent with what the seat saw (None if no
    world could be sampled): enough to tell who takes a trick the seat's play completes, whatever the world."""
    memory_module = importlib.import_module(f"{GAME_MODULES[game.name]}.memory")
    memory = memory_module.remember(view, events)
    for _ in range(20):
        hidden = memory_module.sample_hidden(memory, rng)
        if hidden is None:
            continue
        try:
            match: Match = game.determinized_match(view, hidden)
            return match.apply(seat, action)
        except ValueError:  # a world the engine cannot continue (it should not happen): try another
            continue
    return None


def _taken(events: Sequence[Event] | None) -> Event | None:
    return next((e for e in events or () if e.get("type") == "trick"), None)


# --- Bura --------------------------------------------------------------------------------------------------


def _bura_reason(game: Game, seat: int, view: dict[str, Any], events: Sequence[Event], legal: Sequence[str],
                 action: str, rng: random.Random) -> tuple[str, dict[str, Any]]:
    from trickroom.bots.bura.memory import remember

    target = game.claim_target
    mine = remember(view, events).points[seat]
    verb, *cards = action.split()
    if action == CLAIM:
        return "claim", {"points": mine, "target": target}
    if verb == "announce":
        kind = cards[0]
        announcement = game.announcements().get(kind)
        return ("announce_wins" if announcement and announcement.wins_hand else "announce"), {"kind": kind}
    if verb != "play":
        return "estimate", {"action": action}
    if len([a for a in legal if a != CLAIM]) == 1:
        return "only", {"cards": cards}
    if not view["trick"]:
        return "lead", {"cards": cards}
    trick = _taken(_after(game, view, events, seat, action, rng))
    if trick is None:  # others still play to this trick: what it is worth depends on them
        return "follow", {"cards": cards}
    points = sum(game.card_points(c, view["trump"]) for c in trick["cards"])
    if trick["winner"] == seat:
        total = mine + points
        if target is not None and total >= target:
            return "beat_claim", {"cards": cards, "points": points, "total": total, "target": target}
        return "beat", {"cards": cards, "points": points, "total": total}
    return "throw", {"cards": cards, "points": sum(game.card_points(c, view["trump"]) for c in cards)}


# --- Mpourloto ---------------------------------------------------------------------------------------------


def _mpourloto_reason(game: Game, seat: int, view: dict[str, Any], events: Sequence[Event], legal: Sequence[str],
                      action: str, rng: random.Random) -> tuple[str, dict[str, Any]]:
    verb, *rest = action.split()
    if verb in ("meld", "done", "exchange", "keep"):
        facts: dict[str, Any] = {"cards": rest} if rest else {}
        if verb in ("exchange", "keep"):
            facts["suit"] = (view.get("face_up") or view.get("turned_card") or "  ")[1]
        return verb, facts
    if verb in ("accept", "name", "pass"):
        suit = rest[0] if rest else (view.get("face_up") or view.get("turned_card") or "  ")[1]
        return f"bid_{verb}", {"suit": suit}
    if verb != "play":
        return "estimate", {"action": action}
    card = rest[0]
    duty = _duty(game, view, [a.split()[1] for a in legal if a.startswith("play ")])
    if duty is not None:
        reason, facts = duty
        return reason, {"card": card, **facts}
    if len(view["trick"]) == game.players - 1:  # the seat's card completes the trick: the engine says who takes it
        trick = _taken(_after(game, view, events, seat, action, rng))
        if trick is not None and game.team_of(int(trick["winner"])) == game.team_of(seat):
            return "win_trick", {"card": card, "points": int(trick["points"])}
    return "play", {"card": card}


def _duty(game: Game, view: dict[str, Any], playable: list[str]) -> tuple[str, dict[str, Any]] | None:
    """Which duty restricts the seat's cards now, read from what the engine allows against what the seat holds:
    every playable card a trump higher than the best trump on the table (overtrump), every one a trump while
    another suit was led (trump), every one of the led suit (follow); None when the hand is not restricted."""
    hand, trumps = list(view["hand"]), view["trumps"]
    trick = [card for _, card in view["trick"]]  # Mpourloto's view: [seat, card] in the order played
    if not trick or set(playable) == set(hand) or not playable:
        return None
    led = trick[0][1]
    order = game.rank_order(trumps, trumps)  # high to low
    on_table = [c for c in trick if c[1] == trumps]
    if all(c[1] == trumps for c in playable):
        if on_table:
            top = min(on_table, key=lambda c: order.index(c[0]))
            if all(order.index(c[0]) < order.index(top[0]) for c in playable):
                return "overtrump", {"top": top}
        if led != trumps:
            return "trump", {"led": led}
    if all(c[1] == led for c in playable):
        return "follow", {"led": led}
    return None


# --- The review of a hand ----------------------------------------------------------------------------------

# Differences smaller than these are within the search's noise at the review's budget (docs/replays.md): they are
# not listed as mistakes.
NOISE = {WIN: 0.03, POINTS: 3.0}


@dataclass(frozen=True)
class Decision:
    """One of a seat's decisions with a real choice, as the seat saw it then."""

    move: int  # the actions the match had before it
    seat: int
    view: dict[str, Any]
    events: tuple[Event, ...]  # what the seat saw of the hand so far
    legal: tuple[str, ...]
    played: str
    context: dict[str, Any]  # where in the hand: {"phase": view's phase, "trick": the hand's trick number}


def hand_decisions(game: Game, seed: int, decks: Sequence[Sequence[str]] | None,
                   actions: Sequence[tuple[int, str]], hand: int, seat: int) -> list[Decision] | None:
    """``seat``'s decisions in hand ``hand`` (1, 2...: hands are counted by the games' ``HAND_OVER`` events) that
    had more than one choice besides a claim; None when the actions do not finish that hand."""
    match = game.new_match(seed=seed, decks=decks)
    number, start, tricks = 1, 0, 0
    found: list[Decision] = []
    for acting, action in actions:
        if number == hand and acting == seat:
            legal = match.legal_actions(seat)
            if len([a for a in legal if a != CLAIM]) > 1:
                view = match.view(seat)
                seen = tuple(events_for(match.events[start:], seat))
                found.append(Decision(len(match.actions), seat, view, seen, tuple(legal), action,
                                      {"phase": view.get("phase"), "trick": tricks + 1}))
        new = match.apply(acting, action)
        tricks += sum(1 for e in new if e.get("type") == "trick")
        if ends_a_hand(new):
            if number == hand:
                return found
            number, tricks = number + 1, 0
            start = len(match.events) - len(new) + _next_deal(new)
    return None


def finished_hands(game: Game, seed: int, decks: Sequence[Sequence[str]] | None,
                   actions: Sequence[tuple[int, str]]) -> int:
    """How many hands these actions finish."""
    match = game.new_match(seed=seed, decks=decks)
    return sum(1 for acting, action in actions if ends_a_hand(match.apply(acting, action)))


def _next_deal(events: Sequence[Event]) -> int:
    """Where, among an action's events, the next hand's deal begins (its first ``deal`` after the hand's end)."""
    ended = False
    for index, event in enumerate(events):
        if ended and event.get("type") == "deal":
            return index
        ended = ended or event.get("type") in HAND_OVER
    return len(events)


def mistakes(decisions: Sequence[Decision], advices: Sequence[Advice]) -> list[dict[str, Any]]:
    """The decisions where the hard level's estimate of its own choice beats that of the one made by more than the
    noise, the costliest first: where, what was played, what is better, the difference and the samples."""
    items: list[dict[str, Any]] = []
    for decision, advice in zip(decisions, advices, strict=True):
        if decision.played == advice.action:
            continue
        best, played = advice.estimate(advice.action), advice.estimate(decision.played)
        if best is None or played is None:
            continue  # a choice the rules or the count settle (a winning announcement): nothing was estimated
        loss = best.value - played.value
        if loss <= NOISE[advice.unit]:
            continue
        items.append({"move": decision.move, "context": dict(decision.context), "played": decision.played,
                      "better": advice.action, "loss": round(loss, 4), "unit": advice.unit,
                      "samples": best.samples, "played_samples": played.samples})
    return sorted(items, key=lambda item: (-item["loss"], item["move"]))
