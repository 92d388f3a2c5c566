"""One Mpourloto match: deals, bidding, the seven, melds, tricks and scores until a team reaches the target.

The state is plain lists and ints so that :meth:`MpourlotoMatch.clone` is a handful of list copies: search bots
clone and play forward hundreds of thousands of times. Exactly one seat acts at a time (``self.turn``).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from trickroom.cards import (
    DECK_32,
    RANKS,
    SUITS,
    CardError,
    checked_deck,
    deal_rng,
    parse_card,
    parse_cards,
    parse_suit,
    shuffled,
)
from trickroom.games.base import JSON, PRIVATE_TO, Event, IllegalAction, Match
from trickroom.games.mpourloto import rules
from trickroom.games.mpourloto.rules import POINTS, POWER, MeldInfo, legal_plays, meld_action, melds_in, sort_hand

if TYPE_CHECKING:
    from trickroom.games.mpourloto.game import Mpourloto

BIDDING1 = "bidding1"  # accept the face-up suit or pass
BIDDING2 = "bidding2"  # name any suit or pass
EXCHANGE = "exchange"  # the holder of the seven of trumps may take the face-up card (M5)
MELDS = "melds"  # declarations before the first lead (M7)
PLAY = "play"
OVER = "over"

PLAY_ACTION = {card: "play " + card for card in DECK_32}
BIDDING1_ACTIONS = ("accept", "pass")
BIDDING2_ACTIONS = (*(f"name {suit}" for suit in SUITS), "pass")
EXCHANGE_ACTIONS = ("exchange", "keep")
DONE = "done"  # no more melds to declare


class MpourlotoMatch(Match):
    game: Mpourloto
    # The current hand's state, reset by _next_deal.
    phase: str
    turn: int  # the one seat the game waits for; -1 when the match is over
    hands: list[list[str]]
    face_up: str | None
    stock: list[str]  # the undealt cards, in dealing order
    turned: str | None  # the face-up card the dealer took when completing the deal (public knowledge)
    trumps: str | None
    maker: int | None
    bids: list[tuple[int, str]]
    passes: int
    offered: list[list[MeldInfo]]  # per seat: melds held and not declared yet
    declared: list[JSON]
    meld_points: list[int]
    melds_done: int
    trick: list[tuple[int, str]]
    leader: int | None
    win_seat: int
    win_power: int
    tricks_won: list[int]
    card_points: list[int]
    tricks_played: int
    last_trick: list[tuple[int, str]]
    played: list[str]
    _legal: list[str] | None  # legal actions of self.turn, computed on demand

    def __init__(self, game: Mpourloto, seed: int, decks: Sequence[Sequence[str]] = ()) -> None:
        self.game = game
        self.relief: bool = bool(game.options["partner_relief"])
        self.target: int = int(game.options["target"])
        self.seed = seed
        self.decks = [checked_deck(d, DECK_32, k) for k, d in enumerate(decks)]
        self.actions = []
        self.events = []
        self.scores = [0, 0]
        self.results: list[JSON] = []
        self.extra_left = 0  # hands still to play after both teams reached the target level (M11)
        self.winner: int | None = None
        self.deal_index = -1
        self.dealer = 3  # so that the first deal is seat 0's
        self._next_deal()

    # --- the public API ----------------------------------------------------------------------------------------

    @property
    def to_act(self) -> list[int]:
        return [] if self.phase == OVER else [self.turn]

    def legal_actions(self, seat: int) -> list[str]:
        if seat != self.turn or self.phase == OVER:
            return []
        legal = self._legal if self._legal is not None else self._compute_legal()
        return list(legal)

    def apply(self, seat: int, action: str) -> list[Event]:
        if self.phase == OVER:
            raise IllegalAction("The match is over.", key="illegal.over")
        if seat != self.turn:
            raise IllegalAction("It is not your turn.", key="illegal.turn")
        legal = self._legal if self._legal is not None else self._compute_legal()
        if action not in legal:  # the fast path above takes canonical strings; anything else is read here
            action = self._canonical(seat, action, legal)
        start = len(self.events)
        self.actions.append((seat, action))
        self._legal = None
        phase = self.phase
        if phase == PLAY:
            self._play(seat, action[5:])
        elif phase == MELDS:
            self._meld(seat, action)
        elif phase == BIDDING1:
            self._bid_round_one(seat, action)
        elif phase == BIDDING2:
            self._bid_round_two(seat, action)
        else:
            self._exchange(seat, action)
        return self.events[start:]

    @property
    def hand_results(self) -> list[JSON]:
        return copy.deepcopy(self.results)  # copies all the way down: callers may edit them

    @property
    def hands_done(self) -> int:
        return len(self.results)

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def standings(self) -> JSON:
        order = [0, 1] if self.scores[0] >= self.scores[1] else [1, 0]
        return {"kind": "teams", "unit": "points", "teams": [list(team) for team in rules.TEAMS],
                "scores": list(self.scores), "winner": self.winner, "order": order}

    def view(self, seat: int | None) -> JSON:
        own = seat is not None and 0 <= seat < rules.PLAYERS
        return {
            "game": "mpourloto",
            "options": dict(self.game.options),
            "players": rules.PLAYERS,
            "seat": seat if own else None,
            "team": rules.team_of(seat) if own and seat is not None else None,
            "hand_number": self.deal_index + 1,
            "dealer": self.dealer,
            "phase": self.phase,
            "face_up": self.face_up,
            "turned_card": self.turned,
            "trumps": self.trumps,
            "maker": self.maker,
            "trump_team": None if self.maker is None else rules.team_of(self.maker),
            "bids": [[s, b] for s, b in self.bids],
            "hand": list(self.hands[seat]) if own and seat is not None else None,
            "hand_sizes": [len(h) for h in self.hands],
            "trick": [[s, c] for s, c in self.trick],
            "leader": self.leader,
            "to_act": self.to_act,
            "melds": [dict(m, cards=list(m["cards"])) for m in self.declared],
            "meld_points": list(self.meld_points),
            "tricks_won": list(self.tricks_won),
            "card_points": list(self.card_points),
            "played": list(self.played),
            "last_trick": [[s, c] for s, c in self.last_trick],
            "scores": list(self.scores),
            "target": self.target,
            "extra_hands_left": self.extra_left,
            "winner": self.winner,
        }

    def client_view(self, seat: int | None) -> JSON:
        return {**self.view(seat), "stock": len(self.stock)}  # the cards still to be dealt (M6)

    def clone(self) -> MpourlotoMatch:
        twin = object.__new__(MpourlotoMatch)
        twin.__dict__.update(self.__dict__)
        twin.actions = list(self.actions)
        twin.events = list(self.events)
        twin.scores = list(self.scores)
        twin.results = list(self.results)
        twin.hands = [list(h) for h in self.hands]
        twin.stock = list(self.stock)
        twin.bids = list(self.bids)
        twin.offered = [list(m) for m in self.offered]
        twin.declared = list(self.declared)
        twin.meld_points = list(self.meld_points)
        twin.trick = list(self.trick)
        twin.tricks_won = list(self.tricks_won)
        twin.card_points = list(self.card_points)
        twin.played = list(self.played)
        return twin

    # --- legal actions -----------------------------------------------------------------------------------------

    def _compute_legal(self) -> list[str]:
        phase, seat = self.phase, self.turn
        legal: list[str]
        if phase == PLAY:
            trumps = self.trumps
            assert trumps is not None
            partner_winning = self.relief and bool(self.trick) and self.win_seat == (seat + 2) & 3
            cards = legal_plays(self.hands[seat], self.trick, trumps, self.win_power, partner_winning)
            legal = [PLAY_ACTION[c] for c in cards]
        elif phase == MELDS:
            legal = [meld_action(m[1]) for m in self.offered[seat]] + [DONE]
        elif phase == BIDDING1:
            legal = list(BIDDING1_ACTIONS)
        elif phase == BIDDING2:
            legal = list(BIDDING2_ACTIONS)
        else:
            legal = list(EXCHANGE_ACTIONS)
        self._legal = legal
        return legal

    def _canonical(self, seat: int, action: str, legal: list[str]) -> str:
        """``action`` as its canonical string if it is legal, else :class:`IllegalAction` with the reason."""
        words = action.replace(",", " ").split() if isinstance(action, str) else []  # JSON may carry anything
        if not words:
            raise IllegalAction(f"Say what to do: {', '.join(legal)}.", key="illegal.mpourloto.empty",
                                actions=list(legal))
        verb = words[0].lower()
        try:
            if verb == "play" and len(words) == 2:
                card = parse_card(words[1])
                if card not in PLAY_ACTION:  # a six: a card, but not of this deck
                    raise IllegalAction(f"There is no {card} in Mpourloto: the deck runs from seven to ace.",
                                        key="illegal.mpourloto.no_card", card=card)
                canonical = PLAY_ACTION[card]
            elif verb == "name" and len(words) == 2:
                canonical = "name " + parse_suit(words[1])
            elif verb == "meld" and len(words) > 1:
                canonical = self._meld_canonical(seat, parse_cards(words[1:]))
            else:
                canonical = " ".join([verb, *words[1:]])
        except CardError as error:
            raise IllegalAction(str(error), key=error.key, **error.params) from None
        if canonical in legal:
            return canonical
        raise self._why_illegal(seat, canonical, legal)

    def _meld_canonical(self, seat: int, cards: list[str]) -> str:
        wanted = sorted(cards)
        for _kind, meld_cards, _points in self.offered[seat]:
            if sorted(meld_cards) == wanted:
                return meld_action(meld_cards)
        for meld in self.declared:
            if meld["seat"] == seat and sorted(meld["cards"]) == wanted:
                raise IllegalAction("You have already declared that meld.", key="illegal.mpourloto.declared",
                                    cards=cards)
        raise IllegalAction("That is not one of your melds: a meld is a whole run of 3 or more cards of one suit, "
                            "four cards of one rank, or the king and queen of trumps.",
                            key="illegal.mpourloto.not_meld", cards=cards)

    def _why_illegal(self, seat: int, action: str, legal: list[str]) -> IllegalAction:
        if self.phase == PLAY and action.startswith("play "):
            card = action[5:]
            if card not in self.hands[seat]:
                # Several words after "play": the English names the first card, held or not, as it always did
                # (the engine digest pins it); the key says what is wrong when that card is held.
                code = card[:2]
                if code[:1] not in RANKS or code[1:] not in SUITS:
                    return IllegalAction("Play one card at a time.", key="illegal.mpourloto.one_card")
                message = f"You do not hold {code}."
                if code in self.hands[seat]:
                    return IllegalAction(message, key="illegal.mpourloto.one_card")
                return IllegalAction(message, key="illegal.mpourloto.not_held", card=code)
            led = self.trick[0][1][1]
            if any(c[1] == led for c in self.hands[seat]):
                if card[1] != led:
                    return IllegalAction("You must follow suit.", key="illegal.mpourloto.follow", suit=led)
                return IllegalAction("You must beat the highest card so far if you can.",
                                     key="illegal.mpourloto.beat")
            if card[1] != self.trumps:
                return IllegalAction("You cannot follow suit, so you must play a trump.",
                                     key="illegal.mpourloto.trump", suit=self.trumps)
            return IllegalAction("You must play a trump that beats the highest trump so far if you can.",
                                 key="illegal.mpourloto.overtrump")
        return IllegalAction(f"{action!r} is not possible now; you can: {', '.join(legal)}.",
                             key="illegal.mpourloto.not_now", action=action, actions=list(legal))

    # --- the deal and the bidding ------------------------------------------------------------------------------

    def _next_deal(self) -> None:
        """Start deal number ``deal_index + 1`` with the next dealer (M1: the deal passes to the left)."""
        self.deal_index += 1
        self.dealer = (self.dealer + 1) & 3
        k, dealer = self.deal_index, self.dealer
        deck = list(self.decks[k]) if k < len(self.decks) else shuffled(DECK_32, deal_rng(self.seed, k))
        hands: list[list[str]] = [[], [], [], []]
        for i in range(4 * rules.FIRST_ROUND_CARDS):  # M3: one at a time from the dealer's left
            hands[(dealer + 1 + i) & 3].append(deck[i])
        self.hands = [sort_hand(h) for h in hands]
        self.face_up = deck[20]
        self.stock = deck[21:]
        self.turned = None
        self.trumps = None
        self.maker = None
        self.bids = []
        self.passes = 0
        self.offered = [[], [], [], []]
        self.declared = []
        self.meld_points = [0, 0]
        self.melds_done = 0
        self.trick = []
        self.leader = None
        self.win_seat = -1
        self.win_power = -1
        self.tricks_won = [0, 0]
        self.card_points = [0, 0]
        self.tricks_played = 0
        self.last_trick = []
        self.played = []
        self.phase = BIDDING1
        self.turn = (dealer + 1) & 3
        self._legal = None
        self.events.append({"type": "deal", "hand": k + 1, "dealer": dealer, "face_up": self.face_up})
        for seat in range(4):
            self.events.append({"type": "cards", "seat": seat, "stage": "deal", "cards": list(self.hands[seat]),
                                "hand": list(self.hands[seat]), PRIVATE_TO: seat})

    def _bid_round_one(self, seat: int, action: str) -> None:
        self.bids.append((seat, action))
        if action == "accept":
            assert self.face_up is not None
            self.events.append({"type": "bid", "seat": seat, "round": 1, "bid": "accept", "suit": self.face_up[1]})
            self._trumps_chosen(seat, self.face_up[1])
            return
        self.events.append({"type": "bid", "seat": seat, "round": 1, "bid": "pass"})
        self.passes += 1
        if self.passes == 4:
            self.phase, self.passes = BIDDING2, 0
        self.turn = (seat + 1) & 3

    def _bid_round_two(self, seat: int, action: str) -> None:
        self.bids.append((seat, action))
        if action != "pass":
            suit = action[5:]
            self.events.append({"type": "bid", "seat": seat, "round": 2, "bid": "name", "suit": suit})
            self._trumps_chosen(seat, suit)
            return
        self.events.append({"type": "bid", "seat": seat, "round": 2, "bid": "pass"})
        self.passes += 1
        if self.passes < 4:
            self.turn = (seat + 1) & 3
            return
        # M4: all passed twice; the hand is thrown in and the next dealer deals. It scores nothing.
        self.results.append({"hand": self.deal_index + 1, "dealer": self.dealer, "trump_team": None, "trumps": None,
                             "maker": None, "card_points": [0, 0], "meld_points": [0, 0], "last_trick": None,
                             "capo": False, "mesa": False, "added": [0, 0], "melds": []})
        self.events.append({"type": "throw_in", "hand": self.deal_index + 1, "dealer": self.dealer,
                            "next_dealer": (self.dealer + 1) & 3})
        self._next_deal()

    def _trumps_chosen(self, maker: int, suit: str) -> None:
        self.trumps, self.maker = suit, maker
        face_up = self.face_up
        assert face_up is not None
        if suit == face_up[1] and face_up[0] != "7":
            seven = "7" + suit
            for seat in range(4):
                if seat != self.dealer and seven in self.hands[seat]:
                    self.phase, self.turn = EXCHANGE, seat  # M5: only the holder is asked
                    return
        self._complete_deal()

    def _exchange(self, seat: int, action: str) -> None:
        face_up = self.face_up
        assert face_up is not None and self.trumps is not None
        seven = "7" + self.trumps
        if action == "exchange":
            hand = self.hands[seat]
            hand.remove(seven)
            hand.append(face_up)
            self.hands[seat] = sort_hand(hand)
            self.face_up = seven
            self.events.append({"type": "exchange", "seat": seat, "card": seven, "took": face_up})
        else:
            # Only the holder hears about it; the others saw the wait (see docs/rules/mpourloto.md).
            self.events.append({"type": "keep", "seat": seat, "card": seven, PRIVATE_TO: seat})
        self._complete_deal()

    def _complete_deal(self) -> None:
        """M6: three more cards each from the dealer's left; the dealer's last card is the face-up card."""
        dealer, face_up, trumps = self.dealer, self.face_up, self.trumps
        assert face_up is not None and trumps is not None
        new: list[list[str]] = [[], [], [], []]
        stock = iter(self.stock)
        for round_number in range(3):
            for i in range(1, 5):
                seat = (dealer + i) & 3
                new[seat].append(face_up if seat == dealer and round_number == 2 else next(stock))
        self.stock = []
        self.turned, self.face_up = face_up, None
        self.events.append({"type": "deal_complete", "dealer": dealer, "card": face_up, "trumps": trumps,
                            "maker": self.maker})
        for seat in range(4):
            self.hands[seat] = sort_hand(self.hands[seat] + new[seat])
            self.offered[seat] = melds_in(self.hands[seat], trumps)
            self.events.append({"type": "cards", "seat": seat, "stage": "complete", "cards": new[seat],
                                "hand": list(self.hands[seat]), PRIVATE_TO: seat})
        self.phase, self.turn, self.melds_done = MELDS, (dealer + 1) & 3, 0

    # --- melds and play ----------------------------------------------------------------------------------------

    def _meld(self, seat: int, action: str) -> None:
        if action == DONE:
            declared = sum(1 for m in self.declared if m["seat"] == seat)
            self.events.append({"type": "meld_done", "seat": seat, "declared": declared})
            self.melds_done += 1
            if self.melds_done == 4:
                self.phase = PLAY
                self.leader = self.turn = (self.dealer + 1) & 3
            else:
                self.turn = (seat + 1) & 3
            return
        offered = self.offered[seat]
        for index, (kind, cards, points) in enumerate(offered):
            if meld_action(cards) == action:
                del offered[index]
                team = seat & 1
                meld = {"seat": seat, "team": team, "kind": kind, "cards": list(cards), "points": points}
                self.declared.append(meld)
                self.meld_points[team] += points
                self.events.append({"type": "meld", **meld})
                return
        raise AssertionError(f"legal meld {action!r} not offered")  # unreachable: legal_actions offered it

    def _play(self, seat: int, card: str) -> None:
        trumps = self.trumps
        assert trumps is not None
        self.hands[seat].remove(card)
        self.played.append(card)
        trick = self.trick
        trick.append((seat, card))
        if len(trick) == 1:
            self.win_seat, self.win_power = seat, POWER[trumps][card]
        elif (power := rules.taking_power(trumps, trick[0][1][1], card, self.win_power)) is not None:
            self.win_seat, self.win_power = seat, power
        self.events.append({"type": "play", "seat": seat, "card": card})
        if len(trick) < 4:
            self.turn = (seat + 1) & 3
            return
        points = POINTS[trumps]
        trick_points = points[trick[0][1]] + points[trick[1][1]] + points[trick[2][1]] + points[trick[3][1]]
        winner = self.win_seat
        team = winner & 1
        self.card_points[team] += trick_points
        self.tricks_won[team] += 1
        self.tricks_played += 1
        event: Event = {"type": "trick", "number": self.tricks_played, "winner": winner, "team": team,
                        "cards": [[s, c] for s, c in trick], "points": trick_points}
        last = self.tricks_played == rules.TRICKS
        if last:
            capo = self.tricks_won[1 - team] == 0
            event["last"] = True
            event["bonus"] = rules.CAPO_BONUS if capo else rules.LAST_TRICK_BONUS
            event["capo"] = capo
        self.events.append(event)
        self.last_trick = list(trick)
        self.trick = []
        if last:
            self._score_hand(team)
        else:
            self.leader = self.turn = winner

    # --- scoring -----------------------------------------------------------------------------------------------

    def _score_hand(self, last_team: int) -> None:
        """M10, then M11, then the next deal."""
        assert self.maker is not None
        makers = self.maker & 1
        capo = self.tricks_won[1 - last_team] == 0
        totals = [self.meld_points[t] + self.card_points[t] for t in (0, 1)]
        totals[last_team] += rules.CAPO_BONUS if capo else rules.LAST_TRICK_BONUS
        mesa = totals[makers] <= totals[1 - makers]
        added = [0, 0]
        if mesa:
            added[1 - makers] = totals[0] + totals[1]
        else:
            added = list(totals)
        self.scores[0] += added[0]
        self.scores[1] += added[1]
        result: JSON = {"hand": self.deal_index + 1, "dealer": self.dealer, "trump_team": makers,
                        "trumps": self.trumps, "maker": self.maker, "card_points": list(self.card_points),
                        "meld_points": list(self.meld_points), "last_trick": last_team, "capo": capo,
                        "mesa": mesa, "added": added, "totals": totals,
                        "melds": [dict(m, cards=list(m["cards"])) for m in self.declared]}
        self.results.append(result)
        self.events.append({"type": "hand_end", **{k: v for k, v in result.items() if k != "melds"},
                            "scores": list(self.scores)})
        if self._match_decided():
            self.phase = OVER
            self.turn = -1
            self._legal = None
            self.events.append({"type": "match_end", "winner": self.winner, "scores": list(self.scores)})
            return
        self._next_deal()

    def _match_decided(self) -> bool:
        """M11: first to the target; both in one hand: the higher; equal: two more played hands, again."""
        s0, s1 = self.scores
        if self.extra_left:
            self.extra_left -= 1
            if self.extra_left:
                return False
        elif max(s0, s1) < self.target:
            return False
        if s0 != s1:
            self.winner = 0 if s0 > s1 else 1
            return True
        self.extra_left = 2
        self.events.append({"type": "extra_hands", "hands": 2, "scores": [s0, s1]})
        return False

    # --- building a match from a view (search bots) ------------------------------------------------------------

    @classmethod
    def from_view(cls, game: Mpourloto, view: JSON, hidden: JSON) -> MpourlotoMatch:
        """See :meth:`Mpourloto.determinized_match`."""
        match = object.__new__(cls)
        match.game = game
        match.relief = bool(game.options["partner_relief"])
        match.target = int(game.options["target"])
        match.seed = int(hidden.get("seed", 0))
        match.decks = [checked_deck(d, DECK_32, k) for k, d in enumerate(hidden.get("decks", ()))]
        match.actions, match.events, match.results = [], [], []
        match.scores = list(view["scores"])
        match.extra_left = int(view["extra_hands_left"])
        match.winner = view["winner"]
        match.deal_index = int(view["hand_number"]) - 1
        match.dealer = int(view["dealer"])
        match.phase = view["phase"]
        given: dict[Any, list[str]] = hidden.get("hands", {})
        seat = view["seat"]
        hands: list[list[str]] = []
        for s in range(4):
            if s == seat:
                hands.append(list(view["hand"]))
            else:
                cards = given.get(s, given.get(str(s)))
                if cards is None:
                    raise ValueError(f"hidden['hands'] lacks seat {s}")
                hands.append(sort_hand([parse_card(c) for c in cards]))
            if len(hands[s]) != view["hand_sizes"][s]:
                raise ValueError(f"seat {s} must hold {view['hand_sizes'][s]} cards, not {len(hands[s])}")
        match.hands = hands
        match.face_up = view["face_up"]
        match.turned = view["turned_card"]
        match.trumps = view["trumps"]
        match.maker = view["maker"]
        match.bids = [(int(s), str(b)) for s, b in view["bids"]]
        match.declared = [dict(m, cards=list(m["cards"])) for m in view["melds"]]
        match.meld_points = list(view["meld_points"])
        match.trick = [(int(s), str(c)) for s, c in view["trick"]]
        match.leader = view["leader"]
        match.tricks_won = list(view["tricks_won"])
        match.card_points = list(view["card_points"])
        match.tricks_played = sum(match.tricks_won)
        match.last_trick = [(int(s), str(c)) for s, c in view["last_trick"]]
        match.played = list(view["played"])
        match.turn = view["to_act"][0] if view["to_act"] else -1
        match.passes = (match.turn - match.dealer - 1) & 3 if match.phase in (BIDDING1, BIDDING2) else 0
        match.melds_done = (match.turn - match.dealer - 1) & 3 if match.phase == MELDS else 0
        match.offered = [[], [], [], []]
        if match.phase == MELDS:
            assert match.trumps is not None
            for s in range(4):
                done = {tuple(m["cards"]) for m in match.declared if m["seat"] == s}
                match.offered[s] = [m for m in melds_in(hands[s], match.trumps) if m[1] not in done]
        match.win_seat, match.win_power = -1, -1
        if match.trick and match.trumps is not None:
            led = match.trick[0][1][1]
            for s, c in match.trick:
                power = rules.card_power(c, match.trumps, led)
                if power > match.win_power:
                    match.win_seat, match.win_power = s, power
        match.stock = []
        if match.phase in (BIDDING1, BIDDING2, EXCHANGE):
            stock = hidden.get("stock")
            if stock is None:  # the undealt cards in a fixed order; bots that care pass a shuffled "stock"
                seen = {c for h in hands for c in h} | {match.face_up}
                stock = [c for c in DECK_32 if c not in seen]
            match.stock = [parse_card(c) for c in stock]
            if len(match.stock) != 11:
                raise ValueError("hidden['stock'] must hold the 11 undealt cards")
        match._legal = None
        return match
