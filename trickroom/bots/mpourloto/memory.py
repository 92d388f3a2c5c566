"""What a Mpourloto seat knows about the hidden cards, rebuilt from its view and the events it saw.

Known cards: the turned card goes to the dealer, the card taken for the seven to its taker, declared melds stay
in their owners' hands until played. Impossible cards follow from the play obligations (M8): a player who did
not follow suit holds none of it, one who did not trump holds no trump, and one who followed or trumped without
beating, when beating was required, holds no card that would have beaten. Each play is checked against every
unseen card with the engine's own ``legal_plays``, so the inference is exactly the rule, partner relief
included.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from trickroom.bots.history import current_hand_events
from trickroom.bots.sampling import deal_hidden
from trickroom.games import Event
from trickroom.games.mpourloto import Mpourloto
from trickroom.games.mpourloto.match import BIDDING1, BIDDING2, EXCHANGE
from trickroom.games.mpourloto.rules import card_power, legal_plays, partner_of

BIDDING_PHASES = (BIDDING1, BIDDING2, EXCHANGE)  # the face-up card is still face up


@dataclass
class Memory:
    seat: int
    hand: list[str]
    unseen: list[str]  # cards this seat has not seen: in other hands or (while bidding) undealt
    sizes: dict[int, int]  # other seat -> cards held
    known: dict[int, set[str]] = field(default_factory=dict)
    forbidden: dict[int, set[str]] = field(default_factory=dict)
    stock_size: int = 0



def remember(view: dict[str, Any], events: Sequence[Event]) -> Memory:
    seat = int(view["seat"])
    hand = list(view["hand"])
    played = set(view["played"])
    in_view = set(hand) | played
    bidding = view["phase"] in BIDDING_PHASES
    if bidding and view["face_up"]:
        in_view.add(view["face_up"])
    unseen = [c for c in Mpourloto.deck if c not in in_view]
    sizes = {s: int(n) for s, n in enumerate(view["hand_sizes"]) if s != seat}
    memory = Memory(seat, hand, unseen, sizes, {s: set() for s in sizes}, {s: set() for s in sizes})
    memory.stock_size = len(unseen) - sum(sizes.values())
    if bidding:
        return memory  # nothing is known of the other hands yet
    dealer = int(view["dealer"])
    hand_events = current_hand_events(events)
    turned = view.get("turned_card")
    if turned and turned not in played and dealer != seat:
        memory.known[dealer].add(turned)
    for event in hand_events:
        if event.get("type") == "exchange" and event["seat"] != seat and event["took"] not in played:
            memory.known[event["seat"]].add(event["took"])
    for meld in view["melds"]:
        if meld["seat"] != seat:
            memory.known[meld["seat"]].update(c for c in meld["cards"] if c not in played)
    _infer_voids(memory, view, hand_events)
    return memory


@dataclass
class PlaySeen:
    """A card played in the current hand, with the position it was played in (public)."""

    seat: int
    card: str
    trick: list[tuple[int, str]]  # the trick before the play
    win_power: int  # card_power of the card winning the trick before the play (-1: a lead)
    partner_winning: bool  # partner relief applies: the option is on and the player's partner holds the trick

    def rules_out(self, candidates: Iterable[str], trumps: str) -> set[str]:
        """The ``candidates`` the player cannot hold (M8, by the engine's own ``legal_plays``): every card that
        would have been a legal play, had they held it, while the card they played would not have been."""
        if not self.trick:
            return set()
        return {other for other in candidates if self.card not in legal_plays(
            [self.card, other], self.trick, trumps, self.win_power, self.partner_winning)}


def plays_seen(hand_events: Sequence[Event], trumps: str, relief: bool) -> Iterator[PlaySeen]:
    """The plays of the current hand in order, each in its position."""
    trick: list[tuple[int, str]] = []
    win_seat, win_power = -1, -1
    for event in hand_events:
        kind = event.get("type")
        if kind == "trick":
            trick, win_seat, win_power = [], -1, -1
            continue
        if kind != "play":
            continue
        player, card = int(event["seat"]), str(event["card"])
        yield PlaySeen(player, card, list(trick), win_power, relief and bool(trick) and win_seat == partner_of(player))
        led = trick[0][1][1] if trick else card[1]
        power = card_power(card, trumps, led)
        if power > win_power:
            win_seat, win_power = player, power
        trick.append((player, card))


def _infer_voids(memory: Memory, view: dict[str, Any], hand_events: Sequence[Event]) -> None:
    trumps = view["trumps"]
    if trumps is None:
        return
    relief = bool(view["options"].get("partner_relief", False))
    unseen_now = set(memory.unseen)
    for play in plays_seen(hand_events, trumps, relief):
        if play.seat != memory.seat:
            memory.forbidden[play.seat] |= play.rules_out(unseen_now, trumps)


def sample_hidden(memory: Memory, rng: random.Random) -> dict[str, Any] | None:
    """A ``hidden`` dict for ``Game.determinized_match``, or None if no consistent deal was found."""
    known = {s: [c for c in cards if c in memory.unseen] for s, cards in memory.known.items()}
    dealt = deal_hidden(memory.unseen, memory.sizes, rng, fixed=known, forbidden=memory.forbidden)
    if dealt is None:
        # The void inference can only be wrong if the view and events disagree; fall back to sizes alone.
        dealt = deal_hidden(memory.unseen, memory.sizes, rng, fixed=known)
        if dealt is None:
            return None
    stock = dealt.pop(-1)
    hidden: dict[str, Any] = {"hands": dealt}
    if memory.stock_size:
        hidden["stock"] = stock
    return hidden
