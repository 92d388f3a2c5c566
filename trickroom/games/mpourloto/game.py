"""The Mpourloto rule set: options, new matches, and matches rebuilt from a view for search bots."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from trickroom.cards import DECK_32, SUITS, new_seed, parse_card, parse_cards, parse_suit
from trickroom.games.base import JSON, Game, Option
from trickroom.games.mpourloto import rules
from trickroom.games.mpourloto.match import (
    BIDDING1_ACTIONS,
    BIDDING2_ACTIONS,
    DONE,
    EXCHANGE_ACTIONS,
    PLAY_ACTION,
    MpourlotoMatch,
)


class Mpourloto(Game):
    """Mpourloto (Greek, a relative of Belote): four players in two teams, 32 cards, played to 1000.

    Rules: docs/rules/mpourloto.md, decided by /work/shared/rulings.md M1-M11.
    """

    name: ClassVar[str] = "mpourloto"
    title: ClassVar[str] = "Mpourloto"
    min_players: ClassVar[int] = 4
    max_players: ClassVar[int] = 4
    # Descriptions, short names and choice names: mpourloto.option.* in the narration catalogs (mpourloto.po).
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("players", 4, "mpourloto.option.players", choices=(4,)),
        Option("partner_relief", False, "mpourloto.option.partner_relief"),
        Option("target", 1000, "mpourloto.option.target", minimum=100, maximum=10000),
    )

    deck: ClassVar[tuple[str, ...]] = DECK_32
    teams: ClassVar[tuple[tuple[int, ...], ...]] = rules.TEAMS

    def new_match(self, seed: int | None = None, decks: Sequence[Sequence[str]] | None = None) -> MpourlotoMatch:
        return MpourlotoMatch(self, new_seed() if seed is None else seed, decks or ())

    @classmethod
    def team_of(cls, seat: int) -> int | None:
        return rules.team_of(seat) if 0 <= seat < rules.PLAYERS else None

    @classmethod
    def card_points(cls, card: str, trumps: str | None = None) -> int:
        return (rules.TRUMP_POINTS if card[1] == trumps else rules.PLAIN_POINTS)[card[0]]  # M2

    @classmethod
    def rank_order(cls, suit: str, trumps: str | None = None) -> str:
        return (rules.TRUMP_ORDER if suit == trumps else rules.PLAIN_ORDER)[::-1]  # M2

    @classmethod
    def _spelled(cls, verb: str, words: list[str]) -> str | None:
        if verb == "play" and len(words) == 1:
            return "play " + parse_card(words[0])
        if verb == "name" and len(words) == 1:
            return "name " + parse_suit(words[0])
        if verb == "meld" and words:
            return rules.meld_action(rules.sort_hand(parse_cards(words)))  # in the order melds_in gives
        return None

    @classmethod
    def action_space(cls) -> tuple[str, ...]:
        melds: list[list[str]] = []
        for suit in SUITS:
            for start in range(8):
                for end in range(start + 3, 9):
                    melds.append([rank + suit for rank in rules.SEQUENCE_ORDER[start:end]])
            melds.append(["K" + suit, "Q" + suit])
        for rank in rules.SEQUENCE_ORDER:
            melds.append([rank + suit for suit in SUITS])
        words = dict.fromkeys([*BIDDING1_ACTIONS, *BIDDING2_ACTIONS, *EXCHANGE_ACTIONS, DONE])
        return (*PLAY_ACTION.values(), *words, *(rules.meld_action(rules.sort_hand(m)) for m in melds))

    def determinized_match(self, view: JSON, hidden: JSON) -> MpourlotoMatch:
        """A match continuing the current hand of ``view`` as the real one would, with ``hidden`` filled in.

        ``hidden`` keys:

        - ``"hands"`` (required): ``{seat: [cards]}`` for every seat whose hand ``view`` does not show (all four
          for a spectator's view), each with as many cards as ``view["hand_sizes"]`` says. Keys may be ints or
          strings. A consistent sample puts the ``turned_card`` in the dealer's hand until it is played, and
          declared meld cards in their owners' hands.
        - ``"stock"`` (during bidding and the exchange only): the 11 undealt cards in dealing order, top first;
          without it they are dealt in a fixed order, so bots that sample the stock should pass it shuffled.
        - ``"seed"`` (optional, default 0) and ``"decks"`` (optional): for the deals after this hand.

        The result has no history (``actions``, ``events`` and ``hand_results`` start empty).
        """
        return MpourlotoMatch.from_view(self, view, hidden)
