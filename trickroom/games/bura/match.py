"""One match of Bura: deals, announcements, tricks, claims and scores, as /work/shared/rulings.md B1-B12 rule.

Events (JSON dicts, ``"type"`` first; see docs/rules/bura.md for the full list with fields):
``ante``, ``leave``, ``deal``, ``hand`` (private), ``redeal``, ``announce_phase``, ``answer`` (the answer is
secret until all have answered), ``announced``, ``play``, ``trick``, ``draw`` (the card is secret, except the
face-up trump card), ``stock_closed``, ``claim``, ``hand_end``, ``match_end``.

Running card-point totals never appear in an event or a view during a hand (unless ``show_points`` is on, and
then only in the seat's own view): players must remember them, as at a real table (B7).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trickroom import cards
from trickroom.games.base import JSON, Event, Match
from trickroom.games.bura.checks import check_action
from trickroom.games.bura.tables import (
    ANSWERS,
    BEATS,
    CLAIM,
    CLAIM_TARGET,
    CODES,
    DECK_IDS,
    ID_OF,
    KINDS_CLASSIC,
    KINDS_MOSCOW,
    PASS,
    POINTS,
    WINS_AT_ONCE,
    combination,
    follow_moves,
    lead_moves,
    play_beats,
)

if TYPE_CHECKING:
    from trickroom.games.bura.game import Bura


def _codes(ids: list[int] | tuple[int, ...]) -> list[str]:
    return [CODES[c] for c in ids]


class BuraMatch(Match):
    """A Bura match. Create with ``load_game("bura", ...).new_match(seed=..., decks=...)``."""

    game: Bura

    def __init__(self, game: Bura, seed: int | None = None, decks: Any = None) -> None:
        self._init_state(game, cards.new_seed() if seed is None else int(seed))
        self.decks = [cards.checked_deck(deck, cards.DECK_36, k) for k, deck in enumerate(decks or [])]
        events: list[Event] = []
        self._start_hand(events)
        self.events.extend(events)

    # --- state ------------------------------------------------------------------------------------------

    def _init_state(self, game: Bura, seed: int) -> None:
        opts = game.options
        n = int(opts["players"])
        self.game = game
        self.n = n
        self.moscow = opts["preset"] == "moscow"
        self.kinds = KINDS_MOSCOW if self.moscow else KINDS_CLASSIC
        self.pot_mode = opts["scoring"] == "pot"
        self.target = int(opts["target"])
        self.hand_limit = int(opts["hand_limit"])
        self.show_points = bool(opts["show_points"])
        self.seed = seed
        self.decks = []
        self.actions = []
        self.events = []
        self._results: list[JSON] = []
        # Match state.
        self.scores = [int(opts["stack"]) if self.pot_mode else 0] * n
        self.active = [True] * n
        self.left_at = [0] * n  # the hand number at whose start (or end) a seat left; 0 while active
        self.pot = 0
        self.dealer = 0
        self.deal_count = 0
        self.hand_number = 0
        self.hands_played = 0
        self.over = False
        self.winner: int | None = None
        # Hand state.
        self.in_hand = [False] * n
        self.next_seat = list(range(n))  # next seat clockwise among those in the hand
        self.clockwise: list[list[int]] = [[s] for s in range(n)]  # per seat in the hand: the hand's seats from it
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.stock: tuple[int, ...] = ()  # top first, the face-up trump card last
        self.stock_pos = 0
        self.stock_dead = False
        self.trump = 0
        self.trump_card = -1
        self.won_points = [0] * n
        self.won_cards: list[list[int]] = [[] for _ in range(n)]
        self.tricks_won = [0] * n
        self.trick_number = 0
        self.leader = 0  # the normal leader during announcements, then whoever leads the trick
        self.trick: list[tuple[int, tuple[int, ...]]] = []
        self.last_trick: JSON | None = None
        self.phase = "play"
        self.turn = -1
        self.pending: list[int] = []  # seats yet to answer in an announcement phase
        self.answers: dict[int, str] = {}  # canonical answers so far in an announcement phase (secret)
        self.combos: dict[int, str | None] = {}  # what each seat holds at this announcement phase (hidden)
        self.announced: list[JSON] = []  # public announcements of the current trick
        self._legal: list[str] = []
        self._moves: dict[str, tuple[int, ...]] = {}

    def clone(self) -> BuraMatch:
        twin = object.__new__(BuraMatch)
        twin.__dict__.update(self.__dict__)
        # Copy everything mutated in place; tuples, the legal-move cache and finished dicts are shared.
        twin.actions = self.actions[:]
        twin.events = self.events[:]
        twin._results = self._results[:]
        twin.scores = self.scores[:]
        twin.active = self.active[:]
        twin.left_at = self.left_at[:]
        twin.in_hand = self.in_hand[:]
        twin.next_seat = self.next_seat[:]  # (clockwise is replaced, never changed in place: shared)
        twin.hands = [hand[:] for hand in self.hands]
        twin.won_points = self.won_points[:]
        twin.won_cards = [won[:] for won in self.won_cards]
        twin.tricks_won = self.tricks_won[:]
        twin.trick = self.trick[:]
        twin.pending = self.pending[:]
        twin.answers = dict(self.answers)
        twin.combos = dict(self.combos)
        twin.announced = self.announced[:]
        return twin

    # --- public API -------------------------------------------------------------------------------------

    @property
    def to_act(self) -> list[int]:
        if self.phase == "play":
            return [self.turn]
        if self.phase == "announce":
            return self.pending[:]
        return []

    def legal_actions(self, seat: int | None) -> list[str]:
        if self.phase == "play":
            if seat == self.turn:
                return self._legal[:]
        elif self.phase == "announce":
            if seat in self.pending:
                return list(ANSWERS[self.combos.get(seat)])
        else:
            return []
        if seat is not None and 0 <= seat < self.n and self.in_hand[seat]:
            return [CLAIM]
        return []

    def apply(self, seat: int, action: str) -> list[Event]:
        events: list[Event] = []
        if self.phase == "play" and seat == self.turn:
            fast = self._moves.get(action)
            if fast is not None:  # the common case: a canonical legal play, no parsing
                self.actions.append((seat, action))
                self._play(seat, fast, events)
                self.events.extend(events)
                return events
        elif self.phase == "announce" and action == PASS and seat in self.pending:
            self.actions.append((seat, PASS))
            self._answer(seat, PASS, events)
            self.events.extend(events)
            return events
        canonical = check_action(self, seat, action)  # raises IllegalAction before anything changes
        self.actions.append((seat, canonical))
        if canonical == CLAIM:
            self._claim(seat, events)
        elif self.phase == "announce":
            self._answer(seat, canonical, events)
        else:
            self._play(seat, self._moves[canonical], events)
        self.events.extend(events)
        return events

    @property
    def hand_results(self) -> list[JSON]:
        return [dict(result, points=result["points"][:]) for result in self._results]  # copies: callers may edit

    @property
    def hands_done(self) -> int:
        return len(self._results)

    @property
    def is_over(self) -> bool:
        return self.over

    @property
    def standings(self) -> JSON:
        return {
            "kind": "seats",
            "unit": "chips" if self.pot_mode else "points",
            "scores": self.scores[:],
            "active": self.active[:],
            "pot": self.pot,
            "winner": self.winner,
            "order": self._order(),
        }

    def view(self, seat: int | None) -> JSON:
        if seat is not None and not 0 <= seat < self.n:
            seat = None  # no such seat: a spectator's view, as in Mpourloto
        stock_left = len(self.stock) - self.stock_pos
        view: JSON = {
            "game": "bura",
            "options": dict(self.game.options),
            "players": self.n,
            "seat": seat,
            "phase": self.phase,
            "hand_number": self.hand_number,
            "deal": self.deal_count,
            "dealer": self.dealer,
            "trump": cards.SUITS[self.trump],
            "trump_card": CODES[self.trump_card] if stock_left > 0 and self.trump_card >= 0 else None,
            "stock": stock_left,
            "stock_dead": self.stock_dead,
            "hand_sizes": [len(hand) for hand in self.hands],
            "hand": _codes(self.hands[seat]) if seat is not None else None,
            "trick_number": self.trick_number,
            "trick": [{"seat": s, "cards": _codes(play)} for s, play in self.trick],
            "leader": self.leader,
            "to_act": self.to_act,
            "legal": self.legal_actions(seat) if seat is not None else [],
            "announcements": _copy_announcements(self.announced),
            "answered": sorted(self.answers) if self.phase == "announce" else [],
            "my_answer": self.answers.get(seat) if seat is not None and self.phase == "announce" else None,
            "last_trick": _copy_trick(self.last_trick),
            "tricks_won": self.tricks_won[:],
            "unit": "chips" if self.pot_mode else "points",
            "scores": self.scores[:],
            "pot": self.pot,
            "active": self.active[:],
            "in_hand": self.in_hand[:],
            "is_over": self.over,
            "winner": self.winner,
        }
        if self.show_points and seat is not None:
            view["my_points"] = self.won_points[seat]
        return view

    # --- checking an action -------------------------------------------------------------------------------

    # --- the flow of a hand -----------------------------------------------------------------------------

    def _clockwise_all(self, start: int) -> list[int]:
        """All seats clockwise from ``start`` (included)."""
        return [(start + i) % self.n for i in range(self.n)]

    def _clockwise_in_hand(self, start: int) -> list[int]:
        """The seats in the hand clockwise from ``start`` (which must be one of them). Shared: do not change it."""
        return self.clockwise[start]

    def _seat_players(self, seats: list[int]) -> None:
        """Who is in this hand, in clockwise order: the next seat and the orders the hand walks round in."""
        count = len(seats)
        clockwise = [[s] for s in range(self.n)]  # a new list each deal: clones share the old one
        for i, seat in enumerate(seats):
            self.next_seat[seat] = seats[(i + 1) % count]
            clockwise[seat] = seats[i:] + seats[:i]
        self.clockwise = clockwise

    def _leave(self, seat: int, events: list[Event]) -> None:
        self.active[seat] = False
        self.left_at[seat] = self.hand_number
        events.append({"type": "leave", "seat": seat})

    def _start_hand(self, events: list[Event]) -> None:
        """Antes (pot scoring), players who cannot pay leave, then the deal (B11, B11a)."""
        if self.pot_mode:
            for seat in self._clockwise_all(self.dealer + 1):
                if self.active[seat] and self.scores[seat] < 1:
                    self._leave(seat, events)  # owes one chip, has none: pays nothing and leaves
            if sum(self.active) <= 1:
                self._finish_match(events)
                return
            paid = [0] * self.n
            for seat in range(self.n):
                if self.active[seat]:
                    paid[seat] = 1
                    self.scores[seat] -= 1
                    self.pot += 1
            events.append({"type": "ante", "paid": paid, "pot": self.pot})
        self.hand_number += 1
        while not self.active[self.dealer]:  # a dealer who left: the next remaining player on the left deals
            self.dealer = (self.dealer + 1) % self.n
        self._deal(events)

    def _deal(self, events: list[Event]) -> None:
        seats = [s for s in self._clockwise_all(self.dealer + 1) if self.active[s]]
        count = len(seats)
        while True:
            number = self.deal_count
            self.deal_count += 1
            if number < len(self.decks):
                deck = [ID_OF[c] for c in self.decks[number]]
            else:
                deck = cards.shuffled(DECK_IDS, cards.deal_rng(self.seed, number))
            hands: list[list[int]] = [[] for _ in range(self.n)]
            for i, seat in enumerate(seats):  # one card at a time round the table, three rounds
                hands[seat] = sorted(deck[i:3 * count:count])
            self.hands = hands
            self.trump_card = deck[3 * count]
            self.trump = self.trump_card % 4
            self.stock = (*deck[3 * count + 1:], self.trump_card)
            self.stock_pos = 0
            events.append({"type": "deal", "hand": self.hand_number, "dealer": self.dealer,
                           "trump": cards.SUITS[self.trump], "trump_card": CODES[self.trump_card],
                           "seats": sorted(seats), "stock": len(self.stock)})
            for seat in sorted(seats):
                events.append({"type": "hand", "seat": seat, "cards": _codes(hands[seat]), "private_to": seat})
            if not self.moscow:
                break
            holders = [(s, combination(hands[s], self.trump, True)) for s in seats]
            found = [{"seat": s, "kind": kind, "cards": _codes(hands[s])} for s, kind in holders if kind]
            if not found:
                break
            # B10: a combination in the dealt hand means a redeal by the same dealer, no ante, not a hand.
            events.append({"type": "redeal", "hand": self.hand_number, "holders": found})
            self._results.append({"winner": None, "reason": "redeal", "claimant": None, "points": [0] * self.n,
                                  "hand": self.hand_number, "dealer": self.dealer, "counts": False})
        self.in_hand = [bool(self.active[s]) for s in range(self.n)]
        self._seat_players(seats)
        self.stock_dead = False
        self.won_points = [0] * self.n
        self.won_cards = [[] for _ in range(self.n)]
        self.tricks_won = [0] * self.n
        self.trick_number = 0
        self.last_trick = None
        self.leader = seats[0]  # B3: the player on the dealer's left
        self._start_trick(events)

    def _start_trick(self, events: list[Event]) -> None:
        self.trick_number += 1
        self.trick = []
        self.announced = []
        self.answers = {}
        if len(self.hands[self.leader]) == 3 and not (self.moscow and self.trick_number == 1):
            # B9 without leaks: everyone in the hand gets the same pause, holder or not.
            self.phase = "announce"
            order = self._clockwise_in_hand(self.leader)
            self.pending = order[:]
            self.combos = {s: combination(self.hands[s], self.trump, self.moscow) for s in order}
            events.append({"type": "announce_phase", "trick": self.trick_number, "seats": order[:]})
        else:
            self.phase = "play"
            self.pending = []
            self.combos = {}
            self._set_turn(self.leader)

    def _set_turn(self, seat: int) -> None:
        self.phase = "play"
        self.turn = seat
        hand = tuple(self.hands[seat])
        if self.trick:
            self._legal, self._moves = follow_moves(hand, len(self.trick[0][1]))
        else:
            self._legal, self._moves = lead_moves(hand)

    def _answer(self, seat: int, answer: str, events: list[Event]) -> None:
        self.pending.remove(seat)
        self.answers[seat] = answer
        events.append({"type": "answer", "seat": seat, "answer": answer, "private_to": seat, "secret": ["answer"]})
        if not self.pending:
            self._resolve_announcements(events)

    def _resolve_announcements(self, events: list[Event]) -> None:
        """B9/B10: the highest kind announced leads; ties go to the seat that would have played earliest."""
        order = self._clockwise_in_hand(self.leader)
        made = [(s, answer.split()[1]) for s in order if (answer := self.answers.get(s, PASS)) != PASS]
        if not made:
            self.announced = []
            events.append({"type": "announced", "announcements": [], "leader": self.leader})
            self._set_turn(self.leader)
            return
        top = max(self.kinds[kind] for _, kind in made)
        first, kind = next((s, k) for s, k in made if self.kinds[k] == top)
        self.leader = first
        # The leading combination is shown (it is led, or wins the hand); a Bura or Moscow ends the hand, so
        # every announcer shows. Otherwise an outranked announcer keeps their cards hidden: only the kind is public.
        ends = kind in WINS_AT_ONCE
        self.announced = [{"seat": s, "kind": k, "cards": _codes(self.hands[s])} if ends or s == first
                          else {"seat": s, "kind": k} for s, k in made]
        events.append({"type": "announced", "announcements": _copy_announcements(self.announced), "leader": first})
        if kind == "moscow":
            self._end_hand(first, "moscow", None, events)
            return
        if kind == "bura":
            others = [s for s in self._clockwise_in_hand(first)[1:] if self.combos.get(s) == "bura"]
            if not others:
                self._end_hand(first, "bura", None, events)
                return
            # Two or more Buras: the earliest leads, each other Bura holder plays theirs; that trick's winner
            # wins the hand. No one else plays.
            for seat in (first, *others):
                play = tuple(self.hands[seat])
                self.hands[seat] = []
                self.trick.append((seat, play))
                events.append({"type": "play", "seat": seat, "cards": _codes(play)})
            winner = self._take_trick(events)
            self._end_hand(winner, "bura", None, events)
            return
        self.phase = "play"
        self._play(first, tuple(self.hands[first]), events)  # the combination is led as one play

    def _play(self, seat: int, play: tuple[int, ...], events: list[Event]) -> None:
        hand = self.hands[seat]
        for card in play:
            hand.remove(card)
        self.trick.append((seat, play))
        events.append({"type": "play", "seat": seat, "cards": _codes(play)})
        following = self.next_seat[seat]
        if following != self.leader:
            self._set_turn(following)
            return
        winner = self._take_trick(events)
        self._draw(winner, events)
        if not self.hands[winner]:
            self._end_hand(None, "no-claim", None, events)  # B8: all cards played, no one claimed
            return
        self.leader = winner
        self._start_trick(events)

    def _take_trick(self, events: list[Event]) -> int:
        """B5: the trick goes to the last player whose play beat the play winning at that moment."""
        beats = BEATS[self.trump]
        winner, winning = self.trick[0]
        for seat, play in self.trick[1:]:
            if play_beats(play, winning, beats):
                winner, winning = seat, play
        taken = [card for _, play in self.trick for card in play]
        self.won_points[winner] += sum(map(POINTS.__getitem__, taken))
        self.won_cards[winner].extend(taken)
        self.tricks_won[winner] += 1
        self.last_trick = {"plays": [{"seat": s, "cards": _codes(p)} for s, p in self.trick], "winner": winner}
        events.append({"type": "trick", "winner": winner, "cards": _codes(taken)})
        return winner

    def _draw(self, winner: int, events: list[Event]) -> None:
        """B6: whole rounds from the trick's winner clockwise, while the stock holds a card for everyone."""
        order = self._clockwise_in_hand(winner)
        need = 3 - len(self.hands[winner])
        remaining = len(self.stock) - self.stock_pos
        rounds = min(need, remaining // len(order))
        last = len(self.stock) - 1
        for _ in range(rounds):
            for seat in order:
                pos = self.stock_pos
                card = self.stock[pos]
                self.stock_pos = pos + 1
                self.hands[seat].append(card)
                if pos == last:  # the face-up trump card: everyone knows it
                    events.append({"type": "draw", "seat": seat, "card": CODES[card], "face_up": True})
                else:
                    events.append({"type": "draw", "seat": seat, "card": CODES[card], "private_to": seat,
                                   "secret": ["card"]})
        if rounds:
            for seat in order:
                self.hands[seat].sort()
        remaining -= rounds * len(order)
        if rounds < need and remaining and not self.stock_dead:
            self.stock_dead = True
            events.append({"type": "stock_closed", "count": remaining})

    def _claim(self, seat: int, events: list[Event]) -> None:
        points = self.won_points[seat]
        right = points >= CLAIM_TARGET
        events.append({"type": "claim", "seat": seat, "points": points, "right": right,
                       "cards": _codes(self.won_cards[seat])})
        if right:
            self._end_hand(seat, "claim", seat, events)
        else:
            self._end_hand(None, "false-claim", seat, events)

    def _end_hand(self, winner: int | None, reason: str, claimant: int | None, events: list[Event]) -> None:
        result: JSON = {"winner": winner, "reason": reason, "claimant": claimant, "points": self.won_points[:],
                        "hand": self.hand_number, "dealer": self.dealer}
        broke = False  # a false claimant who could not pay the whole penalty leaves (B11)
        if self.pot_mode:
            result["pot"] = self.pot
            if winner is not None:
                self.scores[winner] += self.pot
                self.pot = 0
            if reason == "false-claim" and claimant is not None:
                owed = self.pot
                paid = min(owed, self.scores[claimant])
                self.scores[claimant] -= paid
                self.pot += paid
                result["penalty"] = paid
                broke = paid < owed
        elif winner is not None:
            self.scores[winner] += 1
        elif reason == "false-claim":
            for seat in range(self.n):
                if self.in_hand[seat] and seat != claimant:
                    self.scores[seat] += 2
        self._results.append(result)
        self.hands_played += 1
        self.phase = "between"
        self.pending = []
        events.append({"type": "hand_end", **result, "points": result["points"][:], "scores": self.scores[:],
                       "pot_after": self.pot})
        if broke and claimant is not None:
            self._leave(claimant, events)
        # B11a: the winner deals next; after a claim the claimant; otherwise the same dealer.
        if winner is not None:
            self.dealer = winner
        elif claimant is not None:
            self.dealer = claimant
        if self._match_decided():
            self._finish_match(events)
        else:
            self._start_hand(events)

    def _match_decided(self) -> bool:
        if self.pot_mode:
            if sum(self.active) <= 1:
                return True
        else:
            top = max(self.scores)
            if top >= self.target and self.scores.count(top) == 1:
                return True
        return bool(self.hand_limit) and self.hands_played >= self.hand_limit

    def _finish_match(self, events: list[Event]) -> None:
        self.over = True
        self.phase = "over"
        self.pending = []
        self.turn = -1
        self._legal, self._moves = [], {}
        if self.pot_mode and sum(self.active) == 1:
            self.winner = self.active.index(True)
        else:
            top = max(self.scores)
            self.winner = self.scores.index(top) if self.scores.count(top) == 1 else None
        events.append({"type": "match_end", "winner": self.winner, "order": self._order(),
                       "scores": self.scores[:]})

    def _order(self) -> list[int]:
        """Seats best first: by score, then players still in, then those who left later, then seat."""
        return sorted(range(self.n), key=lambda s: (-self.scores[s], not self.active[s], -self.left_at[s], s))


def _copy_announcements(announced: list[JSON]) -> list[JSON]:
    return [{k: list(v) if isinstance(v, list) else v for k, v in a.items()} for a in announced]


def _copy_trick(trick: JSON | None) -> JSON | None:
    if trick is None:
        return None
    return {"plays": [{"seat": p["seat"], "cards": list(p["cards"])} for p in trick["plays"]],
            "winner": trick["winner"]}
