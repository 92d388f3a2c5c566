"""Prearranged deals where one move is clearly right, for the hint and review tests (pure, server and browser).

- Bura, two players, points: seat 1 holds the ace of trumps (hearts) when seat 0 leads the ten of trumps, with 15
  points taken already: beating takes 21 points and brings seat 1 to 36, enough to claim (B7), and nothing else
  beats the ten.
- Mpourloto: seat 1 leads the ace of spades; seat 2, without spades, trumps with the ace of hearts; seat 3 cannot
  overtrump and plays the eight; seat 0, without spades, holds the jack, ten, king and seven of trumps: the duty
  to overtrump (M8) leaves it only the jack.
"""

from __future__ import annotations

from trickroom import cards
from trickroom.bots import make_bot
from trickroom.games import Match, events_for, load_game

BURA_OPTIONS = {"players": 2, "scoring": "points", "hand_limit": 1}
# The deal: seat 1 (the dealer's left, who leads first) AS 6C AH; seat 0 KS TC TH; 7H face up; then the stock.
BURA_HANDS = {1: ["AS", "6C", "AH"], 0: ["KS", "TC", "TH"]}
BURA_STOCK = ["7S", "8S", "7C", "8C", "9S", "9C"]
# Seat 1 takes the ace of spades and the king (15 points), leads the six of clubs, seat 0 takes it with the ten and
# leads the ten of trumps.
BURA_OPENING = [(1, "play AS"), (0, "play KS"), (1, "play 6C"), (0, "play TC"), (0, "play TH")]
BURA_RIGHT = "play AH"
BURA_WRONG = "play 7S"  # seat 1 throws the seven of spades instead: seat 0 takes the trick

MPOURLOTO_HANDS = [["JC", "QC", "KC", "AC", "JH", "TH", "KH", "7H"],
                   ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S"],
                   ["9H", "AH", "7D", "8D", "9D", "TD", "JD", "QD"],
                   ["QH", "8H", "KD", "AD", "7C", "8C", "9C", "TC"]]
# Seat 1 takes hearts (the face-up seven), nobody exchanges or melds; then the first three cards of the trick.
MPOURLOTO_OPENING = [(1, "accept"), (1, "done"), (2, "done"), (3, "done"), (0, "done"),
                     (1, "play AS"), (2, "play AH"), (3, "play 8H")]
MPOURLOTO_RIGHT = "play JH"


def bura_deck() -> list[str]:
    """Seat 0 deals: three rounds of one card from seat 1, then the face-up card, then the stock."""
    used = {c for hand in BURA_HANDS.values() for c in hand} | {"7H"} | set(BURA_STOCK)
    deck = [BURA_HANDS[seat][r] for r in range(3) for seat in (1, 0)] + ["7H", *BURA_STOCK]
    deck += [c for c in cards.DECK_36 if c not in used]
    assert sorted(deck) == sorted(cards.DECK_36)
    return deck


def mpourloto_deck() -> list[str]:
    """Seat 0 deals: five cards each from seat 1, the face-up seven of hearts, then three each (the dealer's last
    being the face-up card)."""
    hands = MPOURLOTO_HANDS
    deck = [hands[(1 + i) % 4][r] for r in range(5) for i in range(4)] + ["7H"]
    deck += [hands[(1 + i) % 4][r] for r in range(5, 8) for i in range(4) if not ((1 + i) % 4 == 0 and r == 7)]
    assert sorted(deck) == sorted(cards.DECK_32)
    return deck


def pass_announcements(match: Match) -> None:
    while match.view(None).get("phase") == "announce":
        match.apply(match.to_act[0], "pass")


def bura_at_the_beat() -> Match:
    """The Bura deal played to seat 1's decision on the ten of trumps."""
    match = load_game("bura", **BURA_OPTIONS).new_match(seed=1, decks=[bura_deck()])
    for seat, action in BURA_OPENING:
        pass_announcements(match)
        match.apply(seat, action)
    pass_announcements(match)
    return match


def mpourloto_at_the_overtrump() -> Match:
    match = load_game("mpourloto").new_match(seed=5, decks=[mpourloto_deck()])
    for seat, action in MPOURLOTO_OPENING:
        match.apply(seat, action)
    return match


def thrown_away_hand() -> tuple[Match, list[tuple[int, str]]]:
    """Seat 1 throws the seven of spades on the ten of trumps instead of beating it for the claim; the rest of the
    hand is played by the normal level for both seats (it claims at 31)."""
    match = bura_at_the_beat()
    match.apply(1, BURA_WRONG)
    bot = make_bot("normal", seed=1)
    while not match.hand_results:
        if any(bot.off_turn(match.game, s, match.view(s), events_for(match.events, s), match.legal_actions(s))
               for s in range(2) if s not in match.to_act):
            seat = next(s for s in range(2) if s not in match.to_act)
            match.apply(seat, "claim")
            continue
        seat = match.to_act[0]
        match.apply(seat, bot.choose(match.game, seat, match.view(seat), events_for(match.events, seat),
                                     match.legal_actions(seat)))
    return match, list(match.actions)
