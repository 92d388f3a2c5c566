"""What a Bura seat remembers of the current hand, rebuilt from the events it saw.

Everything here is public or the seat's own: every trick's cards and winner (so every player's card points,
which the table does not show: players must remember them, B7), the cards played, the face-up trump card and who
drew it. Bura has no duty to follow suit, so play reveals no voids; the other hands and the stock are sampled
uniformly from the unseen cards.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from trickroom.bots.history import current_hand_events
from trickroom.bots.sampling import deal_hidden
from trickroom.games import Event
from trickroom.games.bura import Bura

CLAIM_TARGET: int = Bura.claim_target  # B7: a seat claims when its exact count reaches this
card_points = Bura.card_points


@dataclass
class Memory:
    seat: int
    hand: list[str]
    points: list[int]  # card points taken this hand, per seat
    tricks: int  # tricks completed this hand
    played: set[str]
    unseen: list[str]  # cards in other hands or in the stock, the face-up trump card excluded while undrawn
    known: dict[int, list[str]] = field(default_factory=dict)  # the drawn face-up trump card, until played
    sizes: dict[int, int] = field(default_factory=dict)  # other seats in the hand -> cards held
    stock: int = 0  # cards in the stock (dead ones included), the face-up trump card included while there
    trump_card: str | None = None  # still at the bottom of the stock



def remember(view: dict[str, Any], events: Sequence[Event]) -> Memory:
    seat = int(view["seat"])
    players = int(view["players"])
    points = [0] * players
    played: set[str] = set()
    tricks = 0
    face_up_holder: tuple[int, str] | None = None
    for event in current_hand_events(events):
        kind = event.get("type")
        if kind == "trick":
            taken = event["cards"]
            points[int(event["winner"])] += sum(card_points(c) for c in taken)
            played.update(taken)
            tricks += 1
        elif kind == "play":
            played.update(event["cards"])
        elif kind == "draw" and event.get("face_up"):
            face_up_holder = (int(event["seat"]), str(event["card"]))
    hand = list(view["hand"] or [])
    trump_card = view.get("trump_card")
    visible = set(hand) | played
    if trump_card:
        visible.add(trump_card)
    unseen = [c for c in Bura.deck if c not in visible]
    memory = Memory(seat, hand, points, tricks, played, unseen, stock=int(view["stock"]), trump_card=trump_card)
    memory.sizes = {s: int(n) for s, n in enumerate(view["hand_sizes"]) if s != seat and view["in_hand"][s]}
    if face_up_holder is not None:
        holder, card = face_up_holder
        if holder != seat and card not in played:
            memory.known[holder] = [card]
    return memory


def my_points(memory: Memory) -> int:
    return memory.points[memory.seat]


def sample_hidden(memory: Memory, rng: random.Random) -> dict[str, Any] | None:
    """A ``hidden`` dict for ``Bura.determinized_match``: other hands, the stock, and the remembered points."""
    dealt = deal_hidden(memory.unseen, memory.sizes, rng, fixed=memory.known)
    if dealt is None:
        return None
    stock = dealt.pop(-1)
    if memory.trump_card:
        stock.append(memory.trump_card)  # the face-up trump card is the last card of the stock
    if len(stock) != memory.stock:
        return None
    return {"hands": dealt, "stock": stock, "points": list(memory.points)}
