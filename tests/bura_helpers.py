"""Prearranged Bura decks and moves for the rule scenarios (test_bura_rules.py, test_bura_scoring.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from trickroom import cards
from trickroom.games import load_game
from trickroom.games.bura import BuraMatch

FILLER = [r + s for r in "6789TJQKA" for s in "SHDC"]  # low cards first, suits mixed


def deck_for(players: int, hands: Mapping[int, Sequence[str]], trump: str, stock: Sequence[str] = (),
             dealer: int = 0) -> list[str]:
    """A deck that deals ``hands`` (seat -> 3 cards) with ``trump`` face up and ``stock`` on top of the stock.

    Seats not named get the lowest remaining cards; the rest of the stock follows in FILLER order.
    """
    used = {c for hand in hands.values() for c in hand} | {trump} | set(stock)
    spare = [c for c in FILLER if c not in used]
    full = {s: list(hands[s]) if s in hands else [spare.pop(0) for _ in range(3)] for s in range(players)}
    order = [(dealer + 1 + i) % players for i in range(players)]
    deck = [full[s][r] for r in range(3) for s in order]
    deck += [trump, *stock, *spare]
    assert sorted(deck) == sorted(cards.DECK_36)
    return deck


def new(players: int = 2, decks: Sequence[Sequence[str]] = (), **options: object) -> BuraMatch:
    match = load_game("bura", players=players, **options).new_match(seed=99, decks=decks)
    assert isinstance(match, BuraMatch)
    return match


def pass_all(match: BuraMatch) -> None:
    while match.phase == "announce":
        match.apply(match.to_act[0], "pass")


def play(match: BuraMatch, *plays: str) -> None:
    """Pass any announcements, then make each play by whoever is to act."""
    for cards_text in plays:
        pass_all(match)
        match.apply(match.to_act[0], "play " + cards_text)


def finish_trick(match: BuraMatch) -> None:
    while match.phase == "play" and match.trick:
        seat = match.to_act[0]
        match.apply(seat, match.legal_actions(seat)[0])


def types(events: Sequence[Mapping[str, object]]) -> list[object]:
    return [e["type"] for e in events]


def bura_for(seat: int, dealer: int, players: int = 2) -> list[str]:
    return deck_for(players, {seat: ["AH", "KH", "QH"]}, trump="6H", dealer=dealer)


def win_by_bura(match: BuraMatch, seat: int) -> None:
    match.apply(seat, "announce bura")
    for other in match.to_act:  # only this pause: the next hand's pause follows at once
        match.apply(other, "pass")


def play_out_without_claims(match: BuraMatch) -> None:
    start = len(match.hand_results)
    while len(match.hand_results) == start:
        seat = match.to_act[0]
        match.apply(seat, match.legal_actions(seat)[0])  # pass, or the first play; never claim
