"""Bura heuristics: the ``normal`` level's play, and the playout policy of the ``hard`` level's search.

A play is scored by what it is expected to win or give away in card points now, minus the beating power it
spends (trumps, aces and tens are worth keeping), with a large bonus or penalty when the trick decides the hand
(a player reaching 31 claims at once). The chance that a play is beaten later is estimated from how many unseen
cards could beat each of its cards.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb

from trickroom.bots.bura.memory import CLAIM_TARGET, card_points
from trickroom.cards import SUITS
from trickroom.games.bura import Bura, tables

DECIDES = 60.0  # the value of winning (or stopping an opponent from winning) the hand with this trick


def rank_index(card: str) -> int:
    return tables.BURA_RANKS.index(card[0])  # Bura's order (B1), low to high: a heuristic's measure of strength


def beats(card: str, other: str, trump: str) -> bool:
    """B5, from the engine's table: a higher card of the same suit, or a trump against a plain card."""
    return tables.BEATS[SUITS.index(trump)][tables.ID_OF[card] * 36 + tables.ID_OF[other]]


def play_beats(play: Sequence[str], winning: Sequence[str], trump: str) -> bool:
    """B5, by the engine: each card of ``play`` pairs with one of ``winning`` that it beats."""
    if len(play) != len(winning):
        return False
    ids = tables.ID_OF
    return tables.play_beats(tuple(ids[c] for c in play), tuple(ids[c] for c in winning),
                             tables.BEATS[SUITS.index(trump)])


def _beaters_table() -> dict[str, dict[str, frozenset[str]]]:
    deck = Bura.deck
    return {trump: {card: frozenset(o for o in deck if beats(o, card, trump)) for card in deck} for trump in SUITS}


BEATERS = _beaters_table()  # trump -> card -> the cards that beat it


@lru_cache(maxsize=4096)
def _miss_chance(total: int, beaters: int, held: int) -> float:
    """Chance that ``held`` cards drawn from ``total`` include none of ``beaters`` given ones."""
    return comb(total - beaters, held) / comb(total, held) if total - beaters >= held else 0.0


@dataclass(frozen=True)
class Weights:
    """The heuristic's weights: the card points a losing player is expected to throw per card, what a lead risks
    beyond its own points when it is beaten, how much of a lead's beating power counts as spent, the bonus per
    extra card of a long lead, the value of deciding the hand, and the beating power kept by trumps, aces and
    tens. The defaults are the normal level's; the hard level's playouts may use others (rollout.Tables)."""

    decides: float = DECIDES
    throw_points: float = 2.0
    lost_extra: float = 4.0
    lead_spent: float = 0.5
    long_lead: float = 0.8
    trump_keep: float = 3.0
    trump_rank: float = 0.6
    ace_keep: float = 2.0
    ten_keep: float = 1.0

    def keep(self, card: str, trump: str) -> float:
        """Beating power lost when ``card`` leaves the hand (its points are counted separately)."""
        if card[1] == trump:
            return self.trump_keep + self.trump_rank * rank_index(card)
        return {"A": self.ace_keep, "T": self.ten_keep}.get(card[0], 0.0)


NORMAL_WEIGHTS = Weights()


def keep_value(card: str, trump: str) -> float:
    """The normal level's beating power lost when ``card`` leaves the hand."""
    return NORMAL_WEIGHTS.keep(card, trump)


def beat_chance(play: Sequence[str], unseen: Collection[str], trump: str, cards_against: int) -> float:
    """Rough chance that someone holding ``cards_against`` of the ``unseen`` cards can beat ``play``."""
    total = len(unseen)
    if total == 0 or cards_against <= 0:
        return 0.0
    held = min(cards_against, total)
    unseen_set = unseen if isinstance(unseen, (set, frozenset)) else set(unseen)
    table = BEATERS[trump]
    chance = 1.0
    for card in play:
        chance *= 1.0 - _miss_chance(total, len(table[card] & unseen_set), held)
    return chance


def choose_play(hand: Sequence[str], plays: Sequence[Sequence[str]], trick: Sequence[tuple[int, Sequence[str]]],
                seat: int, points: Sequence[int], unseen: Collection[str], trump: str, later_players: int,
                hand_size: int = 3) -> int:
    """The index in ``plays`` of the best play by the heuristic score."""
    best_index, best_score = 0, float("-inf")
    for index, play in enumerate(plays):
        score = score_play(play, trick, seat, points, unseen, trump, later_players, hand_size)
        if score > best_score:
            best_index, best_score = index, score
    return best_index


def score_play(play: Sequence[str], trick: Sequence[tuple[int, Sequence[str]]], seat: int, points: Sequence[int],
               unseen: Collection[str], trump: str, later_players: int, hand_size: int = 3) -> float:
    weights = NORMAL_WEIGHTS
    own_points = sum(card_points(c) for c in play)
    spent = sum(keep_value(c, trump) for c in play)
    mine = points[seat]
    if not trick:
        # A lead: later players answer with as many cards; assume they throw about 2 points a card if they lose.
        chance = beat_chance(play, unseen, trump, hand_size * later_players)
        pot = own_points + weights.throw_points * len(play) * later_players
        lost = own_points + weights.lost_extra * len(play)
        score = (1 - chance) * pot - chance * lost - weights.lead_spent * spent
        if mine + pot >= CLAIM_TARGET:
            score += (1 - chance) * weights.decides
        # Long leads of cheap cards make the others spend or throw cards; they are worth a little extra.
        score += weights.long_lead * (len(play) - 1) * (1 - chance)
        return score
    winner, winning = trick[0]
    for other, other_play in trick[1:]:
        if play_beats(other_play, winning, trump):
            winner, winning = other, other_play
    on_table = sum(card_points(c) for _, p in trick for c in p)
    pot = on_table + own_points
    if play_beats(play, winning, trump):
        chance = beat_chance(play, unseen, trump, hand_size * later_players) if later_players else 0.0
        score = (1 - chance) * pot - chance * pot - spent
        if mine + pot >= CLAIM_TARGET:
            score += (1 - chance) * weights.decides
        return score
    # Not beating: the points go to whoever wins the trick; throw cheap cards, keep trumps.
    score = -pot - spent
    if points[winner] + pot >= CLAIM_TARGET and not later_players:
        score -= weights.decides
    return score
