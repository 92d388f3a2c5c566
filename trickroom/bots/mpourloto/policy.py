"""Mpourloto heuristics: bidding, the seven, melds and card play. The ``normal`` level, and the playout policy
of the ``hard`` level's search.

Everything here reads only a seat's view (hand, trick, cards played, trumps, bids) and optional void knowledge,
so the same functions serve a real seat and a seat inside a searched world.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from trickroom.bots.mpourloto.odds import Odds
from trickroom.cards import SUITS
from trickroom.games.mpourloto import Mpourloto
from trickroom.games.mpourloto.rules import POINTS, POWER, TEAMS, TRUMP_BASE, card_power, partner_of, team_of

# How much a card is worth towards taking tricks when its suit is trumps, and when it is not (rough trick
# equivalents; the jack and nine of trumps are the two best cards of the game).
TRUMP_STRENGTH = {"J": 3.2, "9": 2.6, "A": 1.6, "T": 1.4, "K": 1.0, "Q": 0.9, "8": 0.7, "7": 0.6}
PLAIN_STRENGTH = {"A": 1.1, "T": 0.45, "K": 0.2}
# On five cards plus the turned card's share. A mesa gives the other team everything, so a maker needs a real
# hand: from 5.2/5.6 to 6.0/6.4 lost nothing against the old normal level and gained against weak players, who
# go mesa when they choose trumps on a worse hand.
ACCEPT_THRESHOLD = 6.0
NAME_THRESHOLD = 6.4
SAFE_FOR_PARTNER = 0.7  # give points to a partner whose card holds the trick at least this likely
CASH_MASTER = 0.5  # lead a plain master when it is at least this likely not to be trumped
KEEP_WEIGHT = 0.5  # how much the future tricks of a trump or master count against spending it now


def hand_strength(hand: Sequence[str], suit: str) -> float:
    strength = 0.0
    for card in hand:
        if card[1] == suit:
            strength += TRUMP_STRENGTH[card[0]]
        else:
            strength += PLAIN_STRENGTH.get(card[0], 0.0)
    return strength


def bid(view: dict[str, Any], strength_bonus: float = 0.0) -> str:
    """accept/pass in round one, name S|H|D|C/pass in round two."""
    seat, dealer = int(view["seat"]), int(view["dealer"])
    hand = list(view["hand"])
    face_up = view["face_up"]
    if view["phase"] == "bidding1":
        suit = face_up[1]
        strength = hand_strength(hand, suit) + _turned_share(seat, dealer, face_up, suit, hand) + strength_bonus
        return "accept" if strength >= ACCEPT_THRESHOLD else "pass"
    scored = sorted(((hand_strength(hand, suit) + _turned_share(seat, dealer, face_up, suit, hand), suit)
                     for suit in SUITS), reverse=True)
    strength, suit = scored[0]
    return f"name {suit}" if strength + strength_bonus >= NAME_THRESHOLD else "pass"


def _turned_share(seat: int, dealer: int, face_up: str, suit: str, hand: Sequence[str] = ()) -> float:
    """The turned card goes to the dealer: all of it counts for the dealer, half for the dealer's partner. A
    player other than the dealer who holds the seven of its suit takes it instead (M5), giving the seven up."""
    value = TRUMP_STRENGTH[face_up[0]] if face_up[1] == suit else PLAIN_STRENGTH.get(face_up[0], 0.0)
    seven = "7" + face_up[1]
    if face_up[1] == suit and face_up != seven and seat != dealer and seven in hand:
        return value - TRUMP_STRENGTH["7"]
    if seat == dealer:
        return value
    if seat == partner_of(dealer):
        return value / 2
    return 0.0


def meld_or_done(legal: Sequence[str]) -> str:
    """Declare every meld: declared points always count for the team, and only help against a mesa."""
    for action in legal:
        if action.startswith("meld "):
            return action
    return "done"


def play(view: dict[str, Any], legal_cards: Sequence[str],
         forbidden: dict[int, set[str]] | None = None, odds: Odds | None = None) -> str:
    """The card to play, from ``legal_cards`` (already filtered by the obligations). ``odds``: the view's
    ``Odds`` with ``forbidden``, when the caller has them already (they are built only when needed)."""
    if len(legal_cards) == 1:
        return legal_cards[0]
    seat = int(view["seat"])
    trumps: str = view["trumps"]
    hand = list(view["hand"])
    trick = [(int(s), str(c)) for s, c in view["trick"]]
    power, points = POWER[trumps], POINTS[trumps]
    outstanding = _ALL_CARDS - set(view["played"]) - set(hand)
    best_out = dict.fromkeys(SUITS, -1)  # the highest power still out in each suit
    for c in outstanding:
        if power[c] > best_out[c[1]]:
            best_out[c[1]] = power[c]

    def is_master(card: str) -> bool:
        return power[card] > best_out[card[1]]

    def cheap(card: str) -> tuple[float, int]:
        """What giving up ``card`` costs: its points, plus the tricks a trump or a master could still take."""
        keep = 0.0
        if card[1] == trumps:
            keep = 6.0 + power[card] - TRUMP_BASE
        elif is_master(card):
            keep = 4.0
        return points[card] + keep, power[card]

    if not trick:
        return _lead(view, hand, legal_cards, outstanding, is_master, forbidden, odds)
    led = trick[0][1][1]
    win_seat, win_power = -1, -1
    for s, c in trick:
        p = card_power(c, trumps, led)
        if p > win_power:
            win_seat, win_power = s, p
    winners = [c for c in legal_cards if card_power(c, trumps, led) > win_power]
    if len(trick) == 3:  # last to play: the trick is decided now
        if win_seat == partner_of(seat):
            return _gift(legal_cards, trumps)
        return min(winners, key=cheap) if winners else min(legal_cards, key=cheap)
    odds = odds or Odds(view, forbidden)
    opponents_after = [(seat + k) & 3 for k in range(1, 4 - len(trick)) if team_of((seat + k) & 3) != team_of(seat)]
    if win_seat == partner_of(seat):
        winning_card = next(c for s, c in trick if s == win_seat)
        if odds.holds(winning_card, led, opponents_after) >= SAFE_FOR_PARTNER:
            return _gift(legal_cards, trumps)
    if not winners:
        return min(legal_cards, key=cheap)
    # The duty to beat (M8) leaves only winners here: pick the one whose expected gain, given the chance that
    # an opponent still to play beats it, best outweighs what it costs to spend it.
    trick_points = sum(points[c] for _, c in trick)

    def value(card: str) -> float:
        hold = odds.holds(card, led, opponents_after)
        return (hold * (trick_points + points[card]) - (1.0 - hold) * points[card]
                - KEEP_WEIGHT * (cheap(card)[0] - points[card]))

    return max(winners, key=lambda c: (value(c), -power[c]))


def _gift(legal_cards: Sequence[str], trumps: str) -> str:
    """Points for a partner who takes the trick, but not the jack or nine of trumps: they win tricks of their own."""
    points, power = POINTS[trumps], POWER[trumps]
    gifts = [c for c in legal_cards if not (c[1] == trumps and c[0] in "J9")] or list(legal_cards)
    return max(gifts, key=lambda c: (points[c], -power[c]))


_ALL_CARDS = frozenset(Mpourloto.deck)


def _trumps_out(trumps: str, outstanding: AbstractSet[str]) -> bool:
    return any(c[1] == trumps for c in outstanding)


def _lead(view: dict[str, Any], hand: list[str], legal: Sequence[str], outstanding: AbstractSet[str],
          is_master: Callable[[str], bool], forbidden: dict[int, set[str]] | None, odds: Odds | None) -> str:
    seat, trumps = int(view["seat"]), view["trumps"]
    power, points = POWER[trumps], POINTS[trumps]
    my_trumps = [c for c in legal if c[1] == trumps]
    trumps_out = _trumps_out(trumps, outstanding)
    # Draw trumps with a master trump while the opponents may still hold some: the makers to protect their side
    # suits, the defenders too, since every trump a maker must give up is a trick the makers no longer take.
    if my_trumps and trumps_out:
        top = max(my_trumps, key=lambda c: power[c])
        if is_master(top):
            return top
    # Cash plain masters (aces, tens whose ace is gone) while the opponents probably still follow suit.
    plain_masters = [c for c in legal if c[1] != trumps and is_master(c)]
    if plain_masters:
        if trumps_out:
            odds = odds or Odds(view, forbidden)
            opponents = TEAMS[1 - team_of(seat)]
            plain_masters = [c for c in plain_masters if odds.holds(c, c[1], opponents) >= CASH_MASTER]
        if plain_masters:
            return max(plain_masters, key=lambda c: (points[c], power[c]))
    plain = [c for c in legal if c[1] != trumps]
    if plain:
        # A low card from the longest suit (the short ones are where we may trump later), not from a suit where
        # it would leave a ten alone.
        def risk(card: str) -> tuple[int, int, int, int]:
            suit_cards = [c for c in hand if c[1] == card[1]]
            guards_ten = any(c[0] == "T" for c in suit_cards) and len(suit_cards) <= 2
            return int(guards_ten), -len(suit_cards), points[card], power[card]

        return min(plain, key=risk)
    return min(legal, key=lambda c: (points[c], power[c]))


def choose(view: dict[str, Any], legal: Sequence[str], forbidden: dict[int, set[str]] | None = None) -> str:
    """The normal level's action in any phase."""
    phase = view["phase"]
    if len(legal) == 1:
        return legal[0]
    if phase in ("bidding1", "bidding2"):
        return bid(view)
    if phase == "exchange":
        return "exchange"  # the face-up card always outranks the seven of the same suit
    if phase == "melds":
        return meld_or_done(legal)
    cards = [a[5:] for a in legal]
    return "play " + play(view, cards, forbidden)
