"""A light Bura simulator for the hard level's playouts: the rest of a hand, every seat playing the normal level.

The engine (trickroom.games.bura) is the authority on the rules, and its public API is built for tables: every
action produces JSON events and every decision needs a view. A playout needs neither, so this module replays
the engine's rules for the rest of one hand on plain lists (tricks, B5; drawing, B6; the first to 31 claims at
once, B7; announcements at the start of a trick, B9/B10; no claim after the last trick, B8) and asks the normal
level's heuristic (policy.choose_play, on precomputed ``tables``) for every play,
with exactly the memory a normal bot would have. A test plays the same worlds through the engine with the normal
bots and checks that both end the same way.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from itertools import combinations
from typing import Any

from trickroom.bots.bura.memory import CLAIM_TARGET, card_points
from trickroom.bots.bura.policy import NORMAL_WEIGHTS, Weights, _miss_chance, beats
from trickroom.cards import SUITS
from trickroom.games import Game
from trickroom.games.bura import tables
from trickroom.games.bura.match import BuraMatch
from trickroom.games.bura.tables import BEATS, ID_OF, KINDS_CLASSIC, KINDS_MOSCOW, WINS_AT_ONCE, play_beats

_ID = ID_OF.__getitem__
NOBODY = -1
UNDECIDED = -2


_BIT = {card: 1 << ID_OF[card] for card in ID_OF}
_POINTS = {card: card_points(card) for card in ID_OF}


class Tables:
    """The heuristic's weights and lookups per trump suit: keep values, beaters as bit masks, and which card
    beats which."""

    def __init__(self, weights: Weights) -> None:
        self.weights = weights
        self.keep = {trump: {card: weights.keep(card, trump) for card in ID_OF} for trump in SUITS}
        self.beaters = {trump: {card: sum(_BIT[o] for o in ID_OF if beats(o, card, trump)) for card in ID_OF}
                        for trump in SUITS}
        self.beats = {trump: {(a, b): beats(a, b, trump) for a in ID_OF for b in ID_OF} for trump in SUITS}


NORMAL = Tables(NORMAL_WEIGHTS)  # exactly the normal level's heuristic (policy.py)


_FULL = (1 << len(ID_OF)) - 1
_LEADS: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
_FOLLOWS: dict[tuple[tuple[str, ...], int], list[tuple[str, ...]]] = {}


def card_mask(cards: Collection[str]) -> int:
    """The cards as a bit set (bit ``ID_OF[card]``)."""
    mask = 0
    for card in cards:
        mask |= _BIT[card]
    return mask


def lead_options(hand: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The engine's leads from a sorted hand, in its order: 1, 2 or 3 cards of one suit."""
    found = _LEADS.get(hand)
    if found is None:
        found = _LEADS[hand] = [c for size in (1, 2, 3) for c in combinations(hand, size)
                                if all(card[1] == c[0][1] for card in c)]
    return found


def follow_options(hand: tuple[str, ...], count: int) -> list[tuple[str, ...]]:
    """The engine's answers from a sorted hand to a lead of ``count`` cards, in its order: any ``count`` cards."""
    found = _FOLLOWS.get((hand, count))
    if found is None:
        found = _FOLLOWS[hand, count] = list(combinations(hand, count))
    return found


def sorted_cards(cards: Sequence[str]) -> list[str]:
    return sorted(cards, key=_ID)  # the engine's order, so that plays are listed (and tie-broken) as it lists them


def combination(hand: Sequence[str], trump: str, moscow: bool) -> str | None:
    """The engine's combination of a three-card hand (tables.combination, on card codes)."""
    return tables.combination([ID_OF[card] for card in hand], SUITS.index(trump), moscow)


class Playout:
    """The rest of one hand from a seat's decision, in one sampled world. ``run(action)`` plays ``action`` for
    the deciding seat, then every seat (the deciding one too) by the heuristic until the hand is decided.
    ``tables``: the heuristic's weights and lookups for the playouts; NORMAL (default) plays exactly like the
    normal level. ``choose``, the tree's model of the others, is always the normal level's.
    """

    def __init__(self, view: Mapping[str, Any], hidden: Mapping[str, Any], played: set[str],
                 tables: Tables | None = None) -> None:
        self.seat = int(view["seat"])
        self.n = int(view["players"])
        self.moscow = view["options"].get("preset") == "moscow"
        self.kinds = KINDS_MOSCOW if self.moscow else KINDS_CLASSIC
        self.trump: str = view["trump"]
        self.trump_card: str | None = view["trump_card"]
        self.order = [s for s in range(self.n) if view["in_hand"][s]]
        self.next_seat = {s: self.order[(i + 1) % len(self.order)] for i, s in enumerate(self.order)}
        self.seat_tables = {s: tables or NORMAL for s in self.order}  # a self-play may give each seat its own
        others = {int(k): v for k, v in hidden["hands"].items()}
        self.hands = {s: sorted_cards(view["hand"] if s == self.seat else others[s]) for s in self.order}
        self.stock: list[str] = list(hidden["stock"])
        self.stock_dead = bool(view["stock_dead"])
        self.points = [int(p) for p in hidden["points"]]
        self.played_mask = card_mask(played)
        self.trick = [(int(p["seat"]), list(p["cards"])) for p in view["trick"]]
        self.leader = int(view["leader"])
        self.trick_number = int(view["trick_number"])
        self.announce = view["phase"] == "announce"

    # --- state ---------------------------------------------------------------------------------------------

    def _copy(self) -> Playout:
        twin = object.__new__(Playout)
        twin.__dict__.update(self.__dict__)
        twin.hands = {s: hand[:] for s, hand in self.hands.items()}
        twin.stock = self.stock[:]
        twin.points = self.points[:]
        twin.trick = self.trick[:]
        return twin

    def _clockwise(self, start: int) -> list[int]:
        i = self.order.index(start)
        return self.order[i:] + self.order[:i]

    # --- playing -------------------------------------------------------------------------------------------

    def run(self, action: str) -> tuple[int, list[int]]:
        """The winner of the hand (NOBODY when no one wins) and the card points taken, after ``action``."""
        state = self.copy()
        return state.finish(state.start(action)), state.points

    def start(self, action: str) -> int:
        """Apply the deciding seat's ``action`` in place: the winner, or UNDECIDED while the hand goes on."""
        if self.announce:
            return self._announcements({self.seat: action})
        return self._play(self.seat, action.split()[1:])

    def play_all(self) -> int:
        """Play the hand out in place with the heuristic for every seat, the deciding seat too (a self-play)."""
        return self.finish(self._announcements({}) if self.announce else UNDECIDED)

    def finish(self, winner: int) -> int:
        """Play the hand out in place with the heuristic for every seat; the winner (NOBODY: no one)."""
        while winner == UNDECIDED:
            actor = self.actor()
            winner = self._play(actor, self._choose(actor, self.seat_tables[actor]))
        return winner

    # --- stepping, for a tree search -----------------------------------------------------------------------

    def copy(self) -> Playout:
        return self._copy()

    def actor(self) -> int:
        """The seat to play next (public: the same in every world)."""
        return self.next_seat[self.trick[-1][0]] if self.trick else self.leader

    def options(self, actor: int) -> list[tuple[str, ...]]:
        """``actor``'s legal plays in this world, as sorted card tuples."""
        hand = self.hands[actor]
        if self.trick:
            return follow_options(tuple(hand), len(self.trick[0][1]))
        return lead_options(tuple(hand))

    def choose(self, actor: int) -> list[str]:
        """The normal level's play for ``actor`` in this world, whatever the playouts play: the tree's model of
        how the others answer."""
        return self._choose(actor, NORMAL)

    def play(self, actor: int, cards: Sequence[str]) -> int:
        """Play ``cards`` for ``actor`` in place: the winner, or UNDECIDED while the hand goes on."""
        return self._play(actor, list(cards))

    def _choose(self, actor: int, tables: Tables) -> list[str]:
        hand = self.hands[actor]
        if self.trick:
            count = len(self.trick[0][1])
            if count == len(hand):
                return hand[:]
            options = follow_options(tuple(hand), count)
        else:
            options = lead_options(tuple(hand))
            if len(options) == 1:
                return list(options[0])
        unseen = _FULL & ~self.played_mask
        for card in hand:
            unseen &= ~_BIT[card]
        if self.trump_card is not None and self.stock:
            unseen &= ~_BIT[self.trump_card]
        later = len(self.order) - len(self.trick) - 1
        return list(options[heuristic_choice(options, self.trick, actor, self.points, unseen, self.trump, later,
                                             tables)])

    def _play(self, actor: int, cards: list[str]) -> int:
        hand = self.hands[actor]
        for card in cards:
            hand.remove(card)
        self.trick.append((actor, cards))
        for card in cards:
            self.played_mask |= _BIT[card]
        if self.next_seat[actor] != self.leader:
            return UNDECIDED
        winner = self._take_trick()
        self._draw(winner)
        if not self.hands[winner]:
            return NOBODY  # B8: the last trick ends the hand at once; no one can claim after it, even with 31
        if self.points[winner] >= CLAIM_TARGET:
            return winner  # the normal level claims the moment it reaches 31
        self.leader = winner
        return self._start_trick()

    def _take_trick(self) -> int:
        beats = BEATS[SUITS.index(self.trump)]  # the engine's table: the heuristic's own ranks are not the rules
        winner, winning = self.trick[0][0], tuple(map(_ID, self.trick[0][1]))
        for seat, cards in self.trick[1:]:
            ids = tuple(map(_ID, cards))
            if play_beats(ids, winning, beats):
                winner, winning = seat, ids
        self.points[winner] += sum(card_points(c) for _, cards in self.trick for c in cards)
        self.trick = []
        return winner

    def _draw(self, winner: int) -> None:
        order = self._clockwise(winner)
        need = 3 - len(self.hands[winner])
        rounds = min(need, len(self.stock) // len(order))
        for _ in range(rounds):
            for seat in order:
                self.hands[seat].append(self.stock.pop(0))
        if rounds:
            for seat in order:
                self.hands[seat].sort(key=_ID)
        if rounds < need and self.stock and not self.stock_dead:
            self.stock_dead = True

    def _start_trick(self) -> int:
        self.trick_number += 1
        if len(self.hands[self.leader]) == 3 and not (self.moscow and self.trick_number == 1):
            return self._announcements({})
        return UNDECIDED

    def _announcements(self, answers: dict[int, str]) -> int:
        """Everyone without an answer announces what they hold (the normal level always does); then B9/B10."""
        combos = {s: combination(self.hands[s], self.trump, self.moscow) for s in self.order}
        made: list[tuple[int, str]] = []
        for s in self._clockwise(self.leader):
            answer = answers.get(s)
            if answer is None:
                kind = combos[s]
                if kind is not None:
                    made.append((s, kind))
            elif answer != "pass":
                made.append((s, answer.split()[1]))
        if not made:
            return UNDECIDED
        top = max(self.kinds[kind] for _, kind in made)
        first, kind = next((s, k) for s, k in made if self.kinds[k] == top)
        if kind in WINS_AT_ONCE:  # a single one wins the hand; several Buras play one trick between them
            others = [s for s in self._clockwise(first)[1:] if combos[s] == kind]
            if not others:
                return first
            self.leader = first
            for s in (first, *others):
                self.trick.append((s, self.hands[s]))
            return self._take_trick()
        self.leader = first
        return self._play(first, self.hands[first][:])


def _heuristic_play_beats(play: Sequence[str], winning: Sequence[str], table: dict[tuple[str, str], bool]) -> bool:
    """policy.play_beats on a precomputed table."""
    if len(play) != len(winning):
        return False
    if len(play) == 1:
        return table[play[0], winning[0]]
    first = play[0]
    for index, target in enumerate(winning):
        if table[first, target] and _heuristic_play_beats(play[1:], [*winning[:index], *winning[index + 1:]], table):
            return True
    return False


def heuristic_choice(plays: Sequence[Sequence[str]], trick: Sequence[tuple[int, Sequence[str]]], seat: int,
                     points: Sequence[int], unseen_mask: int, trump: str, later_players: int,
                     tables: Tables = NORMAL) -> int:
    """policy.choose_play (hand size 3) with the unseen cards as a bit mask (bit ``ID_OF[card]``), computed the
    same way on precomputed tables: the same scores to the last bit, so the same choice (a test compares them)."""
    total = unseen_mask.bit_count()
    keep = tables.keep[trump]
    beaters = tables.beaters[trump]
    held = min(3 * later_players, total)
    mine = points[seat]
    weights = tables.weights

    def beat_chance(play: Sequence[str]) -> float:
        if total == 0 or later_players <= 0:
            return 0.0
        chance = 1.0
        for card in play:
            chance *= 1.0 - _miss_chance(total, (beaters[card] & unseen_mask).bit_count(), held)
        return chance

    best_index, best_score = 0, float("-inf")
    if not trick:
        for index, play in enumerate(plays):
            own_points = sum([_POINTS[c] for c in play])
            spent = sum([keep[c] for c in play])
            chance = beat_chance(play)
            pot = own_points + weights.throw_points * len(play) * later_players
            lost = own_points + weights.lost_extra * len(play)
            score = (1 - chance) * pot - chance * lost - weights.lead_spent * spent
            if mine + pot >= CLAIM_TARGET:
                score += (1 - chance) * weights.decides
            score += weights.long_lead * (len(play) - 1) * (1 - chance)
            if score > best_score:
                best_index, best_score = index, score
        return best_index
    table = tables.beats[trump]
    winner, winning = trick[0]
    for other, other_play in trick[1:]:
        if _heuristic_play_beats(other_play, winning, table):
            winner, winning = other, other_play
    on_table = sum([_POINTS[c] for _, p in trick for c in p])
    for index, play in enumerate(plays):
        own_points = sum([_POINTS[c] for c in play])
        spent = sum([keep[c] for c in play])
        pot = on_table + own_points
        if _heuristic_play_beats(play, winning, table):
            chance = beat_chance(play) if later_players else 0.0
            score = (1 - chance) * pot - chance * pot - spent
            if mine + pot >= CLAIM_TARGET:
                score += (1 - chance) * weights.decides
        else:
            score = -pot - spent
            if points[winner] + pot >= CLAIM_TARGET and not later_players:
                score -= weights.decides
        if score > best_score:
            best_index, best_score = index, score
    return best_index


def dealt_playout(game: Game, deck: Sequence[str]) -> Playout:
    """The first hand dealt from ``deck`` (card codes, top first) as a playout that knows every card: for
    self-play between heuristics (bench/bura_playouts.py). The engine deals, and its stock is the playout's."""
    match = game.new_match(seed=0, decks=[list(deck)])
    assert isinstance(match, BuraMatch)
    view = match.view(0)
    hands = {seat: list(match.view(seat)["hand"]) for seat in range(1, game.players)}
    stock = [tables.CODES[card] for card in match.stock[match.stock_pos:]]
    return Playout(view, {"hands": hands, "stock": stock, "points": [0] * game.players}, set())


def self_play_share(game: Game, deck: Sequence[str], mine: Tables, theirs: Tables) -> float:
    """``mine``'s share of the two hands dealt from ``deck`` at a two-player table, the two policies swapping
    seats (half a hand for a hand nobody wins)."""
    won = 0.0
    for my_seat in (0, 1):
        playout = dealt_playout(game, deck)
        playout.seat_tables = {my_seat: mine, 1 - my_seat: theirs}
        winner = playout.play_all()
        won += 0.5 if winner == NOBODY else float(winner == my_seat)
    return won / 2
