"""Mpourloto rulings M1-M11 on prearranged decks: every case is dealt on purpose and checked exactly."""

from __future__ import annotations

import random

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


# --- melds (M7) ---------------------------------------------------------------------------------------------------

# Hearts trumps (the seven face up). Seat 1: two runs of 3 (one in trumps, with the Mpourlotto inside it);
# seat 2: a run of 4; seat 3: a run of 5; seat 0: four sevens.
MELDS = [["7S", "7D", "7C", "8H", "9D", "AC", "8C", "7H"],
         ["QS", "JS", "TS", "KH", "QH", "JH", "AS", "8D"],
         ["AD", "KD", "QD", "JD", "KS", "9S", "AH", "TH"],
         ["KC", "QC", "JC", "TC", "9C", "8S", "9H", "TD"]]


def test_each_meld_held_is_offered_in_turn_from_the_dealers_left() -> None:
    match = new([deck_from(MELDS, "7H")])
    act(match, "accept")
    assert match.to_act == [1]
    assert match.legal_actions(1) == ["meld QS JS TS", "meld KH QH JH", "meld KH QH", "done"]
    assert match.legal_actions(2) == []
    match.apply(1, "meld qh jh kh")  # any order and spelling
    assert match.actions[-1] == (1, "meld KH QH JH")
    assert match.legal_actions(1) == ["meld QS JS TS", "meld KH QH", "done"]
    with pytest.raises(IllegalAction, match="already declared"):
        match.apply(1, "meld KH QH JH")
    with pytest.raises(IllegalAction, match="not one of your melds"):
        match.apply(1, "meld QS JS")  # part of a run is not a meld: the whole run is one
    act(match, "meld QS JS TS", "meld KH QH", "done")
    assert match.legal_actions(2) == ["meld AD KD QD JD", "done"]
    act(match, "meld AD KD QD JD", "done")
    assert match.legal_actions(3) == ["meld KC QC JC TC 9C", "done"]
    act(match, "meld KC QC JC TC 9C", "done")
    assert match.legal_actions(0) == ["meld 7S 7H 7D 7C", "done"]
    act(match, "meld 7C 7D 7H 7S", "done")
    view = match.view(2)
    assert view["phase"] == "play" and match.to_act == [1]
    assert [(m["seat"], m["kind"], m["points"]) for m in view["melds"]] == [
        (1, "run", 20), (1, "run", 20), (1, "mpourlotto", 20), (2, "run", 50), (3, "run", 100), (0, "four", 100)]
    assert view["meld_points"] == [150, 160]
    meld_events = [e for e in match.events if e["type"] == "meld"]
    assert all("private_to" not in e for e in meld_events) and len(meld_events) == 6
    play_first_legal(match)
    result = match.hand_results[0]
    assert result["meld_points"] == [150, 160]
    bonus = [0, 0]
    bonus[result["last_trick"]] = 90 if result["capo"] else 10
    assert result["totals"] == [result["card_points"][t] + 150 * (t == 0) + 160 * (t == 1) + bonus[t] for t in (0, 1)]


def test_undeclared_melds_score_nothing() -> None:
    match = new([deck_from(MELDS, "7H")])
    act(match, "accept", "meld KH QH", "done", "done", "meld KC QC JC TC 9C", "done", "done")
    play_first_legal(match)
    assert match.hand_results[0]["meld_points"] == [0, 120]


@pytest.mark.parametrize(("cards", "points"), [
    ("AS KS QS", 20), ("AS KS QS JS", 50), ("AS KS QS JS TS", 100), ("KS QS JS TS 9S 8S", 100),
    ("AS KS QS JS TS 9S 8S 7S", 100), ("9D 8D 7D", 20)])
def test_run_scores(cards: str, points: int) -> None:
    assert melds_in(cards.split(), "H") == [("run", tuple(cards.split()), points)]


def test_four_of_a_kind_scores_100_even_sevens_and_a_card_may_serve_twice() -> None:
    assert melds_in(["7S", "7H", "7D", "7C", "8H", "9H"], "H") == [
        ("run", ("9H", "8H", "7H"), 20), ("four", ("7S", "7H", "7D", "7C"), 100)]
    assert melds_in(["KH", "QH", "JH", "KS", "KD", "KC"], "H") == [
        ("run", ("KH", "QH", "JH"), 20), ("four", ("KS", "KH", "KD", "KC"), 100), ("mpourlotto", ("KH", "QH"), 20)]
    assert melds_in(["AS", "QS", "TS", "KD"], "H") == []  # A Q T skip the king and the jack: no run


# --- play (M8, M9) ------------------------------------------------------------------------------------------------

# Hearts trumps, the seven face up. Seat 2 can only trump spades; seat 3 holds only trumps lower than seat 2's;
# seat 0 can overtrump with the jack.
OVERTRUMP = [["JC", "QC", "KC", "AC", "JH", "TH", "KH", "7H"],
             ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S"],
             ["9H", "AH", "7D", "8D", "9D", "TD", "JD", "QD"],
             ["QH", "8H", "KD", "AD", "7C", "8C", "9C", "TC"]]

# Seat 3 can beat its partner's king of spades; seat 2 can trump its partner's ace of diamonds.
RELIEF = [["8H", "9H", "JH", "AD", "KD", "AC", "KC", "7H"],
          ["KS", "7S", "7D", "8D", "9D", "7C", "8C", "9C"],
          ["8S", "9S", "JS", "TH", "QH", "TC", "JC", "QC"],
          ["AS", "TS", "QS", "AH", "KH", "TD", "JD", "QD"]]


def start_play(hands: list[list[str]], relief: bool) -> MpourlotoMatch:
    match = new([deck_from(hands, "7H")], partner_relief=relief)
    act(match, "accept", "done", "done", "done", "done")
    return match


@pytest.mark.parametrize("relief", [False, True])
def test_void_players_must_trump_and_overtrump_if_they_can(relief: bool) -> None:
    match = start_play(OVERTRUMP, relief)
    play(match, "AS")
    assert legal(match) == ["play AH", "play 9H"]  # no trump yet: any trump, but a trump
    play(match, "9H")
    assert legal(match) == ["play QH", "play 8H"]  # cannot beat the nine: any trump, still a trump
    play(match, "8H")
    if relief:  # the partner (seat 2) holds the trick: any card
        assert legal(match) == ["play KH", "play JH", "play TH", "play 7H", "play AC", "play KC", "play QC", "play JC"]
    else:
        assert legal(match) == ["play JH"]
    play(match, "JH")
    assert match.view(0)["tricks_won"] == [1, 0] and match.to_act == [0]
    play(match, "JC")
    assert len(legal(match)) == 7  # no clubs and no trumps: any card


@pytest.mark.parametrize("relief", [False, True])
def test_following_suit_must_beat_unless_trumped_and_relief_spares_the_partner(relief: bool) -> None:
    match = start_play(RELIEF, relief)
    play(match, "KS")
    assert legal(match) == ["play JS", "play 9S", "play 8S"]  # cannot beat the king: any spade
    play(match, "8S")
    if relief:  # partner (seat 1) wins: need not beat, must still follow suit
        assert legal(match) == ["play AS", "play QS", "play TS"]
        play(match, "QS")
    else:
        assert legal(match) == ["play AS", "play TS"]
        play(match, "AS")
    assert legal(match) == ["play JH", "play 9H", "play 8H", "play 7H"]  # void in spades: must trump
    play(match, "8H")
    assert match.to_act == [0]
    play(match, "AD")
    assert legal(match) == ["play 9D", "play 8D", "play 7D"]
    play(match, "7D")
    if relief:  # partner (seat 0) wins: need not trump
        assert legal(match) == ["play JS", "play 9S", "play QH", "play TH", "play QC", "play JC", "play TC"]
        return
    assert legal(match) == ["play QH", "play TH"]
    play(match, "TH")
    # Diamonds were trumped: seat 3 could beat nothing, but must follow with any diamond.
    assert legal(match) == ["play QD", "play JD", "play TD"]
    play(match, "QD")
    assert match.to_act == [2]  # the ten of trumps won
    play(match, "QH")  # trumps led: must beat the highest trump so far if possible
    assert legal(match) == ["play AH", "play KH"]
    play(match, "KH")
    assert legal(match) == ["play JH", "play 9H"]


# Hearts trumps, the seven face up. Seat 1 leads the jack of trumps: seat 2's and seat 0's trumps are all lower,
# and seat 3 holds no trump at all.
TRUMP_LEAD = [["KH", "QH", "8H", "TC", "9C", "8C", "7C", "7H"],
              ["JH", "AS", "KS", "QS", "JS", "TS", "9S", "8S"],
              ["9H", "AH", "TH", "AD", "KD", "QD", "JD", "TD"],
              ["7S", "9D", "8D", "7D", "AC", "KC", "QC", "JC"]]


@pytest.mark.parametrize("relief", [False, True])
def test_trumps_led_that_no_one_can_beat_allow_any_trump_and_with_no_trump_any_card(relief: bool) -> None:
    match = start_play(TRUMP_LEAD, relief)
    play(match, "JH")
    assert legal(match) == ["play AH", "play TH", "play 9H"]  # cannot beat the jack: any trump, but a trump
    with pytest.raises(IllegalAction, match="follow suit"):
        match.apply(2, "play AD")
    play(match, "9H")
    assert legal(match) == ["play 7S", "play 9D", "play 8D", "play 7D", "play AC", "play KC", "play QC",
                            "play JC"]  # no trump: any card
    play(match, "AC")
    assert legal(match) == ["play KH", "play QH", "play 8H", "play 7H"]  # seat 0 cannot beat the jack either
    play(match, "7H")
    view = match.view(0)
    assert view["tricks_won"] == [0, 1] and view["card_points"] == [0, 20 + 14 + 11] and match.to_act == [1]


def test_illegal_plays_are_refused_with_a_reason() -> None:
    match = start_play(RELIEF, False)
    play(match, "KS")
    with pytest.raises(IllegalAction, match="follow suit"):
        match.apply(2, "play TH")
    with pytest.raises(IllegalAction, match="do not hold"):
        match.apply(2, "play AS")
    with pytest.raises(IllegalAction, match="not your turn"):
        match.apply(3, "play AS")
    match.apply(2, "play 8s")
    with pytest.raises(IllegalAction, match="beat"):
        match.apply(3, "play QS")
    match.apply(3, "play 10s")
    assert match.actions[-1] == (3, "play TS")


# --- scoring (M10) ------------------------------------------------------------------------------------------------

def test_a_hand_with_tricks_on_both_sides_scores_162_and_each_team_adds_its_own() -> None:
    match = new([deck_from(BALANCED, "7H")])
    act(match, "accept", "done", "done", "done", "done")
    play(match, BALANCED_PLAY)
    result = match.hand_results[0]
    assert {k: result[k] for k in ("trump_team", "trumps", "card_points", "meld_points", "last_trick", "capo",
                                   "mesa", "added")} == {
        "trump_team": 1, "trumps": "H", "card_points": [60, 92], "meld_points": [0, 0], "last_trick": 1,
        "capo": False, "mesa": False, "added": [60, 102]}
    assert match.standings["scores"] == [60, 102]
    assert match.view(0)["dealer"] == 1 and match.to_act == [2]  # the deal passed to the left


# Seat 2 holds every trump (hearts, named in round two); clubs face up.
CAPO = [["9S", "8S", "KD", "AD", "QC", "KC", "AC", "7S"],
        ["AS", "KS", "QS", "7D", "8D", "TD", "7C", "8C"],
        ["AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H"],
        ["JS", "TS", "9D", "JD", "QD", "9C", "TC", "JC"]]


def test_capo_scores_90_instead_of_10() -> None:
    match = new([deck_from(CAPO, "7S")])
    act(match, *["pass"] * 5, "name H", "done")
    assert match.legal_actions(2) == ["meld AH KH QH JH TH 9H 8H 7H", "meld KH QH", "done"]  # a run of 8: 100
    act(match, "done", "done", "done")
    play_first_legal(match)
    result = match.hand_results[0]
    assert (result["card_points"], result["last_trick"], result["capo"], result["mesa"], result["added"]) == (
        [152, 0], 0, True, False, [242, 0])


def test_mesa_on_less_gives_the_opponents_both_totals() -> None:
    match = new([deck_from(CAPO, "7S")])
    act(match, *["pass"] * 4, "name H", "meld AS KS QS", "done", "done", "done", "done")
    play_first_legal(match)
    result = match.hand_results[0]
    assert (result["trump_team"], result["totals"], result["mesa"], result["added"]) == (1, [242, 20], True, [262, 0])


# Found by random play; tricks: 17 to team 0, 12 to 1, 31 to 0, 21 to 1, 16 to 0, 17 to 1, 17 to 0, 21 to 1 + 10.
TIE_DECK = [
    "TC", "QD", "9H", "QS", "9S", "AC", "9D", "QH", "8C", "AH", "QC", "7S", "JS", "8D", "TH", "KS",
    "TS", "KD", "JC", "7H", "JH", "TD", "AD", "8S", "JD", "KH", "9C", "7C", "AS", "KC", "7D", "8H",
]
TIE_PLAY = "JS AH 8S KS 8D 9D JD TD 8C AC 7C JH AS 9S 9C TH QC QH TC 7D QS TS KD 8H JC 7H KC AD 7S KH QD 9H"


def test_mesa_on_a_tie_gives_the_opponents_everything() -> None:
    match = new([TIE_DECK])
    act(match, "accept", "done", "done", "done", "done")
    play(match, TIE_PLAY)
    result = match.hand_results[0]
    assert [e["points"] for e in match.events if e["type"] == "trick"] == [17, 12, 31, 21, 16, 17, 17, 21]
    assert (result["trump_team"], result["card_points"], result["totals"], result["mesa"], result["added"]) == (
        1, [81, 71], [81, 81], True, [162, 0])


# --- the game (M11) -----------------------------------------------------------------------------------------------

def balanced_hand(match: MpourlotoMatch, *melds: str) -> None:
    """One BALANCED hand: the dealer's left accepts; the dealer's team takes 60, the makers 102 (+ melds)."""
    act(match, "accept")
    for seat_actions in range(4):
        if seat_actions == 2:
            act(match, *melds)
        act(match, "done")
    play(match, BALANCED_PLAY)


def test_the_first_team_to_reach_the_target_wins() -> None:
    match = new([deck_from(BALANCED, "7H")], target=100)
    balanced_hand(match)
    assert match.is_over and match.to_act == [] and match.legal_actions(1) == []
    assert match.standings == {"kind": "teams", "unit": "points", "teams": [[0, 2], [1, 3]], "scores": [60, 102],
                               "winner": 1, "order": [1, 0]}
    assert match.events[-1] == {"type": "match_end", "winner": 1, "scores": [60, 102]}
    with pytest.raises(IllegalAction):
        match.apply(1, "accept")


def test_team_zero_can_win_too() -> None:
    match = new([deck_from(EXCHANGE, "KH"), deck_from(BALANCED, "7H")], target=100)
    act(match, *["pass"] * 8)
    balanced_hand(match)  # dealer 1: team 1 takes 60, team 0 (the makers) 102
    assert match.standings["scores"] == [102, 60] and match.standings["winner"] == 0


def test_both_teams_reaching_the_target_in_one_hand_the_higher_wins() -> None:
    deck = deck_from(BALANCED, "7H")
    match = new([deck, deck], target=160)
    balanced_hand(match)
    balanced_hand(match, "meld KH QH")  # dealer 1: seat 0 holds the king and queen of trumps
    assert match.standings["scores"] == [182, 162] and match.standings["winner"] == 0 and match.is_over


def test_equal_totals_past_the_target_play_two_more_hands_again_while_equal() -> None:
    deck = deck_from(BALANCED, "7H")
    match = new([deck] * 5 + [deck_from(EXCHANGE, "KH"), deck], target=150)
    balanced_hand(match)
    balanced_hand(match)
    assert match.standings["scores"] == [162, 162] and not match.is_over
    assert [e for e in match.events if e["type"] == "extra_hands"] == [
        {"type": "extra_hands", "hands": 2, "scores": [162, 162]}]
    assert match.view(0)["extra_hands_left"] == 2
    balanced_hand(match)
    assert not match.is_over and match.view(0)["extra_hands_left"] == 1
    balanced_hand(match)
    assert match.standings["scores"] == [324, 324] and not match.is_over
    assert match.view(0)["extra_hands_left"] == 2
    balanced_hand(match)
    act(match, *["pass"] * 8)  # a thrown-in hand is not one of the two
    assert match.view(0)["extra_hands_left"] == 1
    balanced_hand(match)
    assert match.is_over and match.standings["scores"] == [444, 528] and match.standings["winner"] == 1
    assert [r["dealer"] for r in match.hand_results] == [0, 1, 2, 3, 0, 1, 2]


def test_both_teams_reaching_1000_in_one_hand_with_the_default_target_the_higher_wins() -> None:
    # BALANCED hands with the deal passing left: the makers' team alternates, each pair adds 162 to each team.
    match = new([deck_from(BALANCED, "7H")] * 13)
    assert match.view(0)["target"] == 1000
    for _ in range(12):
        balanced_hand(match)
    assert match.standings["scores"] == [972, 972] and not match.is_over
    balanced_hand(match)  # dealer 0: team 0 takes 60, team 1 (the makers) 102
    assert match.standings["scores"] == [1032, 1074] and match.is_over
    assert match.standings["winner"] == 1 and match.standings["order"] == [1, 0]
    assert match.events[-1] == {"type": "match_end", "winner": 1, "scores": [1032, 1074]}
    assert not any(e["type"] == "extra_hands" for e in match.events)


def test_equal_totals_past_1000_with_the_default_target_play_two_more_hands() -> None:
    # A thrown-in first hand makes team 0 the makers of the odd hands: after eleven played hands it leads by 42
    # (912 to 870, + 40 each from declared Mpourlottos), and the twelfth brings both to 1012.
    match = new([deck_from(EXCHANGE, "KH")] + [deck_from(BALANCED, "7H")] * 14)
    act(match, *["pass"] * 8)
    for hand_number in range(11):
        balanced_hand(match, *(["meld KH QH"] if hand_number < 4 else []))
    assert match.standings["scores"] == [952, 910] and not match.is_over
    balanced_hand(match)  # dealer 0: team 0 takes 60, team 1 (the makers) 102
    assert match.standings["scores"] == [1012, 1012] and not match.is_over
    assert match.view(0)["extra_hands_left"] == 2
    assert [e for e in match.events if e["type"] == "extra_hands"] == [
        {"type": "extra_hands", "hands": 2, "scores": [1012, 1012]}]
    balanced_hand(match)  # dealer 1: team 0 makes 102, team 1 takes 60
    assert match.standings["scores"] == [1114, 1072] and not match.is_over  # ahead, but one more hand to play
    assert match.view(0)["extra_hands_left"] == 1
    balanced_hand(match, "meld KH QH")  # dealer 2: team 1 makes 102 + 20, team 0 takes 60
    assert match.is_over and match.standings["scores"] == [1174, 1194] and match.standings["winner"] == 1
    assert match.events[-1] == {"type": "match_end", "winner": 1, "scores": [1174, 1194]}


def test_view_of_a_seat_that_is_not_at_the_table_is_a_spectators_view() -> None:
    # As in Bura: no error, and nothing private.
    match = new([deck_from(BALANCED, "7H")])
    assert match.view(4) == match.view(-1) == match.view(None)
    assert match.view(4)["hand"] is None and match.view(4)["team"] is None


def test_hand_results_are_deep_copies_and_a_non_text_action_is_refused() -> None:
    match = load_game("mpourloto", target=100).new_match(seed=1)
    rng = random.Random(1)
    for bad in (None, 5, ["play", "AS"], b"pass"):
        with pytest.raises(IllegalAction):
            match.apply(match.to_act[0], bad)  # type: ignore[arg-type]
    while not match.hand_results:
        seat = match.to_act[0]
        match.apply(seat, rng.choice(match.legal_actions(seat)))
    added = list(match.hand_results[-1]["added"])
    match.hand_results[-1]["added"][0] += 1000
    match.hand_results[-1]["card_points"].append(7)
    assert match.hand_results[-1]["added"] == added
    assert len(match.hand_results[-1]["card_points"]) == 2
