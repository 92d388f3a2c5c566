"""Mpourloto rulings M1-M11 on prearranged decks: every case is dealt on purpose and checked exactly."""

from __future__ import annotations

import pytest

from trickroom.games import IllegalAction, load_game
from trickroom.games.mpourloto import MpourlotoMatch
from trickroom.games.mpourloto.rules import melds_in


def deck_from(hands: list[list[str]], face_up: str, dealer: int = 0) -> list[str]:
    """The deck (top first) that deals ``hands`` (by seat): each hand lists its first five cards, then the three
    of the completion; the dealer's last card must be ``face_up``. Dealing goes from the dealer's left, so the
    same deck deals the same hands relative to any dealer."""
    assert hands[dealer][7] == face_up
    deck = [hands[(dealer + i) % 4][r] for r in range(5) for i in range(1, 5)]
    deck.append(face_up)
    for r in range(5, 8):
        for i in range(1, 5):
            seat = (dealer + i) % 4
            if not (seat == dealer and r == 7):
                deck.append(hands[seat][r])
    assert len(set(deck)) == 32
    return deck


def new(decks: list[list[str]], **options: object) -> MpourlotoMatch:
    match = load_game("mpourloto", **options).new_match(seed=5, decks=decks)
    assert isinstance(match, MpourlotoMatch)
    return match


def act(match: MpourlotoMatch, *actions: str) -> None:
    for action in actions:
        match.apply(match.to_act[0], action)


def play(match: MpourlotoMatch, cards: str) -> None:
    for card in cards.split():
        match.apply(match.to_act[0], "play " + card)


def legal(match: MpourlotoMatch) -> list[str]:
    return match.legal_actions(match.to_act[0])


def hand(match: MpourlotoMatch, seat: int) -> set[str]:
    cards = match.view(seat)["hand"]
    assert cards is not None
    return set(cards)


def play_first_legal(match: MpourlotoMatch) -> None:
    """Finish the current hand playing the first legal card each time."""
    hands = len(match.hand_results)
    while len(match.hand_results) == hands:
        act(match, legal(match)[0])


# Seat 0 deals. Hearts proposed by the seven of hearts (so nobody can exchange).
BALANCED = [["AS", "TS", "8H", "JD", "9D", "KC", "QC", "7H"],
            ["KS", "QS", "JH", "9H", "8D", "7D", "JC", "9C"],
            ["JS", "9S", "AH", "TH", "AD", "TD", "8C", "7C"],
            ["8S", "7S", "KH", "QH", "KD", "QD", "AC", "TC"]]
# Every suit is led twice and everyone follows: the dealer's team takes 60, the dealer's left (the makers) 92 + 10.
BALANCED_PLAY = ("KS 9S 7S AS  TS QS JS 8S  JD 8D AD QD  TD KD 9D 7D  8C TC QC 9C  AC KC JC 7C  KH 8H 9H TH"
                 "  JH AH QH 7H")

# Seat 2 holds the seven of hearts among its first five; the king of hearts is face up.
EXCHANGE = [["7C", "AH", "QH", "JH", "TH", "9H", "8H", "KH"],
            ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S"],
            ["7H", "AD", "KD", "QD", "JD", "TD", "9D", "8D"],
            ["7D", "AC", "KC", "QC", "JC", "TC", "9C", "8C"]]


# --- bidding (M4) -------------------------------------------------------------------------------------------------

def test_bidding_goes_clockwise_from_the_dealers_left_and_round_two_names_any_suit() -> None:
    match = new([deck_from(EXCHANGE, "KH")])
    assert match.view(None)["face_up"] == "KH"
    for seat in (1, 2, 3, 0):
        assert match.to_act == [seat]
        assert match.legal_actions(seat) == ["accept", "pass"]
        assert all(match.legal_actions(other) == [] for other in range(4) if other != seat)
        match.apply(seat, "pass")
    assert match.view(2)["phase"] == "bidding2"
    assert match.to_act == [1]
    assert match.legal_actions(1) == ["name S", "name H", "name D", "name C", "pass"]


def test_accepting_makes_the_face_up_suit_trumps_for_the_acceptors_team() -> None:
    match = new([deck_from(BALANCED, "7H")])
    act(match, "pass", "pass", "accept")
    view = match.view(0)
    assert (view["trumps"], view["maker"], view["trump_team"]) == ("H", 3, 1)
    assert view["phase"] == "melds"


def test_round_two_may_name_the_rejected_face_up_suit_and_offers_the_seven() -> None:
    match = new([deck_from(EXCHANGE, "KH")])
    act(match, "pass", "pass", "pass", "pass", "pass")
    match.apply(2, "Name hearts")  # any spelling cards.parse_suit reads
    assert match.actions[-1] == (2, "name H")
    assert (match.trumps, match.maker) == ("H", 2)
    assert match.to_act == [2] and match.legal_actions(2) == ["exchange", "keep"]


def test_naming_another_suit_in_round_two_offers_no_exchange() -> None:
    match = new([deck_from(EXCHANGE, "KH")])
    act(match, "pass", "pass", "pass", "pass", "name D")
    assert match.view(0)["phase"] == "melds"
    assert hand(match, 2) == set(EXCHANGE[2]) and hand(match, 0) == set(EXCHANGE[0])


def test_double_pass_throws_the_hand_in_and_the_next_dealer_deals_the_next_deck() -> None:
    match = new([deck_from(EXCHANGE, "KH"), deck_from(BALANCED, "7H")])
    act(match, *["pass"] * 8)
    assert match.hand_results == [{"hand": 1, "dealer": 0, "trump_team": None, "trumps": None, "maker": None,
                                   "card_points": [0, 0], "meld_points": [0, 0], "last_trick": None,
                                   "capo": False, "mesa": False, "added": [0, 0], "melds": []}]
    assert [e["type"] for e in match.events if e["type"] in ("throw_in", "deal")] == ["deal", "throw_in", "deal"]
    view = match.view(1)
    assert (view["dealer"], view["hand_number"], view["phase"], view["face_up"]) == (1, 2, "bidding1", "7H")
    assert match.to_act == [2]
    # The same deck deals relative to the dealer: seat 1 now gets what seat 0 got, and so on.
    assert [hand(match, (s + 1) % 4) for s in range(4)] == [set(h[:5]) for h in BALANCED]


# --- the seven (M5) and completing the deal (M6) ------------------------------------------------------------------

def test_holder_exchanges_the_seven_and_the_dealer_gets_it_as_the_last_card() -> None:
    match = new([deck_from(EXCHANGE, "KH")])
    act(match, "accept")
    assert match.to_act == [2] and match.view(0)["phase"] == "exchange"
    assert all(match.legal_actions(seat) == [] for seat in (0, 1, 3))
    events = match.apply(2, "exchange")
    assert events[0] == {"type": "exchange", "seat": 2, "card": "7H", "took": "KH"}
    assert hand(match, 2) == {"KH", "AD", "KD", "QD", "JD", "TD", "9D", "8D"}
    assert hand(match, 0) == {"7C", "AH", "QH", "JH", "TH", "9H", "8H", "7H"}
    assert hand(match, 1) == set(EXCHANGE[1]) and hand(match, 3) == set(EXCHANGE[3])
    assert match.view(3)["turned_card"] == "7H" and match.view(3)["face_up"] is None


def test_holder_keeps_the_seven_and_only_the_holder_hears_of_it() -> None:
    match = new([deck_from(EXCHANGE, "KH")])
    act(match, "accept")
    events = match.apply(2, "keep")
    assert events[0]["type"] == "keep" and events[0]["private_to"] == 2
    assert [hand(match, s) for s in range(4)] == [set(h) for h in EXCHANGE]
    assert match.view(1)["turned_card"] == "KH"


def test_dealer_holding_the_seven_is_not_asked() -> None:
    hands = [list(h) for h in EXCHANGE]
    hands[0][0], hands[2][0] = "7H", "7C"
    match = new([deck_from(hands, "KH")])
    act(match, "accept")
    assert match.view(0)["phase"] == "melds"
    assert hand(match, 0) == set(hands[0])


def test_no_exchange_when_the_face_up_card_is_the_seven() -> None:
    hands = [list(h) for h in EXCHANGE]
    hands[0][7], hands[2][0] = "7H", "KH"
    match = new([deck_from(hands, "7H")])
    act(match, "pass", "accept")
    assert match.view(0)["phase"] == "melds"
    assert hand(match, 0) == set(hands[0])


def test_a_seven_still_in_the_stock_gives_no_exchange() -> None:
    hands = [list(h) for h in EXCHANGE]
    hands[2] = ["TD", "AD", "KD", "QD", "JD", "9D", "8D", "7H"]
    match = new([deck_from(hands, "KH")])
    act(match, "accept")
    assert match.view(0)["phase"] == "melds"
    assert hand(match, 2) == set(hands[2])


def test_deal_order_is_five_one_at_a_time_then_three_from_the_dealers_left() -> None:
    deck = [f"{r}{s}" for s in "SHDC" for r in "AKQJT987"]
    match = new([deck])
    # Cards 0-19 go to seats 1, 2, 3, 0, 1, ...; card 20 (TD) is face up; cards 21-31 go round the same way,
    # the dealer's third card of the completion being the face-up card.
    assert match.view(1)["hand"] == ["AS", "TS", "AH", "TH", "AD"]
    assert match.view(0)["hand"] == ["JS", "7S", "JH", "7H", "JD"]
    assert match.view(0)["face_up"] == "TD"
    act(match, "accept")  # the seven of diamonds is still in the stock: no exchange
    assert match.view(1)["hand"] == ["AS", "TS", "AH", "TH", "AD", "9D", "KC", "9C"]
    assert match.view(2)["hand"] == ["KS", "9S", "KH", "9H", "KD", "8D", "QC", "8C"]
    assert match.view(3)["hand"] == ["QS", "8S", "QH", "8H", "QD", "7D", "JC", "7C"]
    assert match.view(0)["hand"] == ["JS", "7S", "JH", "7H", "JD", "TD", "AC", "TC"]
