"""The collusion measure for Bura with three or more players (rulings B12; docs/moderation.md).

Colluders feed each other points: a player throws rich cards into the tricks a friend is winning, and never
takes such a trick from them. The measure reads a finished match's history (seed, decks, action log), replays
it, and at every play a seat made to a trick that someone else was winning asks what the ``normal`` bot would
have played from that seat's view (it sees only what the player saw). Each play *leaves* the seat winning the
trick either nothing (the play beats it) or the trick's points so far plus the play's own cards; what the
player's play left beyond what the bot's play would have left is added to ``excess[player][winning seat]``. A
player who plays like the bot adds exactly 0.

A fair player who plays worse than the bot leaves too much to everyone, to whoever happens to be winning; a
feeder to one seat. So the score of the pair (s, t) is how far ``excess[s][t]`` stands above the mean of
``excess[s][u]`` over the other seats u, in standard deviations (the plays' excesses taken as independent, so
the variance is the sum of their squares):

    score(s, t) = (excess[s][t] - mean_u excess[s][u]) / sqrt(squares[s][t] + sum_u squares[s][u] / k**2 + 1)

with k the number of other seats. A pair is suspect when its score reaches :data:`THRESHOLD` (chosen from the
arena's collusion trial: docs/moderation.md) and ``s`` left ``t`` at least :data:`MINIMUM_POINTS` beyond the bot.

Only plays to a trick are read (not leads: who would have won another lead is unknown). The match is replayed
by the engine, so this is a pure function of the history; it costs about 25 microseconds of CPU per action
(15 ms for a match of 20 hands), and the server runs it off the event loop.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from trickroom.bots.bura import heuristic_action
from trickroom.bots.bura.memory import card_points, remember
from trickroom.bots.bura.policy import play_beats
from trickroom.bots.feeder import winning_play
from trickroom.games import Event, Game, events_for
from trickroom.games.bura.tables import CLAIM

THRESHOLD = 3.0  # above every fair match of the trial's training set (2.96), to a tenth: docs/moderation.md
MINIMUM_POINTS = 30.0  # and at least a claim's worth of points given beyond the bot's play
MIN_PLAYERS = 3  # with two players every point given goes to the one opponent: nothing to tell apart


@dataclass(frozen=True)
class PairScore:
    feeder: int  # the seat that gave
    partner: int  # the seat that received
    excess: float  # card points left beyond the normal bot's play
    chances: int  # the feeder's plays to tricks the partner was winning
    squares: float  # the sum of the squares of those plays' excesses
    score: float


@dataclass
class Feeding:
    """What each seat left each other seat beyond the normal bot's play, over a whole match."""

    excess: list[list[float]]  # [giver][receiver]: points
    squares: list[list[float]]  # [giver][receiver]: the sum of the squares of the plays' excesses
    chances: list[list[int]]  # [giver][receiver]: plays to a trick the receiver was winning
    plays: list[int]  # [giver]: plays to a trick someone else had led

    @classmethod
    def empty(cls, players: int) -> Feeding:
        return cls([[0.0] * players for _ in range(players)], [[0.0] * players for _ in range(players)],
                   [[0] * players for _ in range(players)], [0] * players)

    def add(self, giver: int, receiver: int, excess: float) -> None:
        self.excess[giver][receiver] += excess
        self.squares[giver][receiver] += excess * excess
        self.chances[giver][receiver] += 1
        self.plays[giver] += 1

    def scores(self) -> list[PairScore]:
        n = len(self.plays)
        found = []
        for s in range(n):
            if self.plays[s] == 0:
                continue
            for t in range(n):
                if t == s:
                    continue
                others = [u for u in range(n) if u not in (s, t)]
                baseline = sum(self.excess[s][u] for u in others) / len(others)
                # The excesses of single plays are taken as independent: the variance of the difference is the
                # sum of their squares (those of the mean over the others divided by their number, squared).
                variance = self.squares[s][t] + sum(self.squares[s][u] for u in others) / len(others) ** 2
                score = (self.excess[s][t] - baseline) / math.sqrt(variance + 1.0)
                found.append(PairScore(s, t, self.excess[s][t], self.chances[s][t], self.squares[s][t], score))
        return found


def applies(game: Game) -> bool:
    """Whether the measure reads matches of ``game``: Bura with three or more players."""
    return game.name == "bura" and game.players >= MIN_PLAYERS


def feeding(game: Game, seed: int, actions: Iterable[tuple[int, str]],
            decks: Sequence[Sequence[str]] | None = None) -> Feeding:
    """Replay the match and count, for every ordered pair of seats, the points left beyond the bot's play."""
    found = Feeding.empty(game.players)
    match = game.new_match(seed=seed, decks=decks)
    hand_start = 0
    for seat, action in actions:
        view = match.view(seat)
        if view["phase"] == "play" and view["to_act"] == [seat] and view["trick"] and action.startswith("play "):
            receiver, left = _left_beyond_the_bot(view, match.events[hand_start:], match.legal_actions(seat), action)
            found.add(seat, receiver, left)
        new_events = match.apply(seat, action)
        for offset, event in enumerate(new_events):
            if event["type"] == "deal":
                hand_start = len(match.events) - len(new_events) + offset
    return found


def _left_beyond_the_bot(view: dict[str, Any], events: Sequence[Event], legal: Sequence[str],
                         action: str) -> tuple[int, float]:
    """The seat winning the trick when ``action`` was played, and the points the play left it beyond what the
    normal bot's play from the same seat's view would have left it."""
    seat = int(view["seat"])
    memory = remember(view, events_for(events, seat))
    bot_play = heuristic_action(view, [a for a in legal if a != CLAIM], memory.points, memory.unseen)
    trump = view["trump"]
    winning = winning_play(view["trick"], trump)
    assert winning is not None
    on_table = sum(card_points(c) for entry in view["trick"] for c in entry["cards"])

    def left(play: str) -> float:
        cards = play.split()[1:]
        return 0.0 if play_beats(cards, winning[1], trump) else float(on_table + sum(map(card_points, cards)))

    return winning[0], left(action) - left(bot_play)


def suspects(feeding_: Feeding, threshold: float = THRESHOLD,
             minimum_points: float = MINIMUM_POINTS) -> list[PairScore]:
    """The pairs whose score reaches ``threshold`` (with at least ``minimum_points`` left), highest first."""
    found = [p for p in feeding_.scores() if p.score >= threshold and p.excess >= minimum_points]
    return sorted(found, key=lambda p: p.score, reverse=True)
