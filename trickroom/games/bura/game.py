"""The Bura game: its options, new matches, and matches rebuilt from a view for search bots."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any, ClassVar

from trickroom import cards
from trickroom.games.base import JSON, Announcement, Game, Option
from trickroom.games.bura.match import BuraMatch
from trickroom.games.bura.tables import (
    ANSWERS,
    BURA_RANKS,
    CLAIM,
    CLAIM_TARGET,
    ID_OF,
    KINDS_CLASSIC,
    KINDS_MOSCOW,
    POINTS,
    WINS_AT_ONCE,
    announce_action,
    combination,
    play_string,
)


class Bura(Game):
    """Bura for 2 to 6 players, as docs/rules/bura.md describes it."""

    name: ClassVar[str] = "bura"
    title: ClassVar[str] = "Bura"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    # Descriptions, short names and choice names: bura.option.* in the narration catalogs (bura.po).
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("players", 2, "bura.option.players", minimum=2, maximum=6),
        Option("preset", "classic", "bura.option.preset", choices=("classic", "moscow")),
        Option("scoring", "pot", "bura.option.scoring", choices=("pot", "points")),
        Option("stack", 20, "bura.option.stack", minimum=1, maximum=1000),
        Option("target", 11, "bura.option.target", choices=(11, 21)),
        Option("hand_limit", 0, "bura.option.hand_limit", minimum=0, maximum=1000),
        Option("show_points", False, "bura.option.show_points"),
    )

    deck: ClassVar[tuple[str, ...]] = cards.DECK_36
    claim_target: ClassVar[int] = CLAIM_TARGET
    off_turn_actions: ClassVar[tuple[str, ...]] = (CLAIM,)  # B7: a claim, at any moment of the play

    def new_match(self, seed: int | None = None, decks: Sequence[Sequence[str]] | None = None) -> BuraMatch:
        return BuraMatch(self, seed=seed, decks=decks)

    @classmethod
    def card_points(cls, card: str, trumps: str | None = None) -> int:
        return POINTS[ID_OF[card]]  # B1: the same in every suit, trumps too

    @classmethod
    def rank_order(cls, suit: str, trumps: str | None = None) -> str:
        return BURA_RANKS[::-1]  # B1: A T K Q J 9 8 7 6 in every suit

    @classmethod
    def _spelled(cls, verb: str, words: list[str]) -> str | None:
        if verb == "play" and words:  # the cards in the engine's order (tables.py)
            return play_string(tuple(sorted(ID_OF[card] for card in cards.parse_cards(words))))
        if verb == "announce" and len(words) == 1:
            return announce_action(words[0].lower())
        return None

    @classmethod
    def action_space(cls) -> tuple[str, ...]:
        plays = [play_string(tuple(sorted(ID_OF[card] for card in combo)))
                 for size in (1, 2, 3) for combo in combinations(cards.DECK_36, size)]
        answers = dict.fromkeys(answer for options in ANSWERS.values() for answer in options if answer != CLAIM)
        return (*plays, *answers, CLAIM)

    def announcements(self) -> dict[str, Announcement]:
        kinds = KINDS_MOSCOW if self.options["preset"] == "moscow" else KINDS_CLASSIC
        return {kind: Announcement(kind, announce_action(kind), rank, kind in WINS_AT_ONCE)
                for kind, rank in kinds.items()}

    def determinized_match(self, view: JSON, hidden: JSON) -> BuraMatch:
        """A match that continues ``view``'s hand as the real one would if the hidden cards were ``hidden``'s.

        ``view`` is one seat's ``match.view(seat)`` (taken while the match is not over). ``hidden`` holds:

        - ``"hands"``: ``{seat: [cards]}`` for every other seat in the hand (keys may be ints or strings);
        - ``"stock"``: the undrawn cards, top first, the face-up trump card last while it is undrawn (dead
          cards that will never be drawn included);
        - ``"points"``: card points taken so far per seat, as the bot remembers them;
        - optional ``"won"``: ``{seat: [cards]}`` taken in tricks (only shown when someone claims);
        - optional ``"answers"``: ``{seat: "pass" | "announce <kind>"}`` for seats that already answered in
          the current announcement phase; a seat that answered but is missing here answers again;
        - optional ``"seed"``: the seed for later deals (default 0).

        The result has no history (``actions``, ``events`` and ``hand_results`` start empty) and its hand
        limit counts from the view's hand number.
        """
        match = object.__new__(BuraMatch)
        match._init_state(self, int(hidden.get("seed", 0)))
        seat = int(view["seat"])
        n = match.n
        match.scores = [int(x) for x in view["scores"]]
        match.active = [bool(x) for x in view["active"]]
        match.pot = int(view["pot"])
        match.dealer = int(view["dealer"])
        match.deal_count = int(view["deal"])
        match.hand_number = int(view["hand_number"])
        match.hands_played = match.hand_number - 1
        match.in_hand = [bool(x) for x in view["in_hand"]]
        seats = [s for s in range(n) if match.in_hand[s]]
        match._seat_players(seats)
        others = _by_seat(hidden.get("hands", {}))
        match.hands = [[] for _ in range(n)]
        for s in seats:
            held = view["hand"] if s == seat else others.get(s, [])
            match.hands[s] = sorted(ID_OF[cards.parse_card(c)] for c in held)
            if len(match.hands[s]) != view["hand_sizes"][s]:
                raise ValueError(f"Seat {s} must hold {view['hand_sizes'][s]} cards.")
        stock = [ID_OF[cards.parse_card(c)] for c in hidden.get("stock", [])]
        if len(stock) != view["stock"]:
            raise ValueError(f"The stock must hold {view['stock']} cards.")
        match.stock = tuple(stock)
        match.stock_dead = bool(view["stock_dead"])
        match.trump = cards.SUITS.index(view["trump"])
        match.trump_card = ID_OF[view["trump_card"]] if view["trump_card"] else -1
        match.won_points = [int(x) for x in hidden.get("points", [0] * n)]
        won = _by_seat(hidden.get("won", {}))
        match.won_cards = [[ID_OF[cards.parse_card(c)] for c in won.get(s, [])] for s in range(n)]
        match.tricks_won = [int(x) for x in view["tricks_won"]]
        match.trick_number = int(view["trick_number"])
        match.leader = int(view["leader"])
        match.trick = [(int(p["seat"]), tuple(sorted(ID_OF[c] for c in p["cards"]))) for p in view["trick"]]
        last = view.get("last_trick")
        match.last_trick = None if last is None else {
            "plays": [{"seat": p["seat"], "cards": list(p["cards"])} for p in last["plays"]], "winner": last["winner"]}
        match.announced = [{k: list(v) if isinstance(v, list) else v for k, v in a.items()}
                           for a in view["announcements"]]
        if view["phase"] == "announce":
            kinds = KINDS_MOSCOW if match.moscow else KINDS_CLASSIC
            known = {s: str(a) for s, a in _by_seat(hidden.get("answers", {})).items() if s != seat}
            if view.get("my_answer"):
                known[seat] = str(view["my_answer"])
            match.phase = "announce"
            match.combos = {s: combination(match.hands[s], match.trump, match.moscow) for s in seats}
            match.answers = {s: a for s, a in known.items()
                             if a == "pass" or (a.split()[-1] in kinds and match.combos[s] == a.split()[-1])}
            match.pending = [s for s in match._clockwise_in_hand(match.leader) if s not in match.answers]
            if not match.pending:
                events: list[Any] = []
                match._resolve_announcements(events)
        elif view["phase"] == "play":
            match._set_turn(int(view["to_act"][0]))
        else:
            raise ValueError("A finished match cannot be continued.")
        return match


def _by_seat(mapping: Mapping[Any, Any]) -> dict[int, Any]:
    return {int(k): v for k, v in mapping.items()}

