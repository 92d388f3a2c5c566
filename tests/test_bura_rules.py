"""Scenario tests with prearranged decks, one or more per ruling B1-B10 (/work/shared/rulings.md); B11 and the match
API are in test_bura_scoring.py."""

from __future__ import annotations

import pytest
from bura_helpers import deck_for, finish_trick, new, pass_all, play, play_out_without_claims

from trickroom import cards
from trickroom.games import IllegalAction, OptionError, events_for, load_game
from trickroom.games.bura.tables import BEATS, ID_OF, combination, play_beats

# --- B1 ---------------------------------------------------------------------------------------------------

def test_card_values_and_players_2_to_6() -> None:
    # A trick of A K J against T Q 9: 11 + 4 + 2 + 10 + 3 + 0 card points, one short of a true claim.
    match = new(2, [deck_for(2, {1: ["AS", "KS", "JS"], 0: ["TH", "QH", "9H"]}, trump="7C")])
    play(match, "AS KS JS", "TH QH 9H")
    claim = next(e for e in match.apply(1, "claim") if e["type"] == "claim")
    assert (claim["points"], claim["right"]) == (30, False)
    game = load_game("bura")
    assert game.options == {"players": 2, "preset": "classic", "scoring": "pot", "stack": 20, "target": 11,
                             "hand_limit": 0, "show_points": False}
    for bad in ({"players": 1}, {"players": 7}, {"target": 15}, {"preset": "odessa"}, {"stack": 0}):
        with pytest.raises(OptionError):
            load_game("bura", **bad)


# --- B2, B3 -----------------------------------------------------------------------------------------------

def test_deal_one_at_a_time_from_dealers_left_then_trump_card_last_of_stock() -> None:
    deck = list(cards.DECK_36)
    match = new(3, [deck])
    # Dealer 0: cards go to seats 1, 2, 0, 1, 2, 0, ...; the 10th card is turned up.
    assert match.view(1)["hand"] == ["QS", "9S", "6S"]
    assert match.view(2)["hand"] == ["TS", "KS", "7S"]  # hands are kept in canonical order
    assert match.view(0)["hand"] == ["AS", "JS", "8S"]
    view = match.view(None)
    assert (view["trump"], view["trump_card"], view["stock"], view["hand"]) == ("H", "6H", 27, None)
    assert match.stock[-1] == ID_OF["6H"] and match.stock[0] == ID_OF["7H"]
    assert view["leader"] == 1 and match.to_act == [1, 2, 0]  # everyone answers the announcement pause
    two = new(2, [deck])
    assert two.view(None)["leader"] == 1  # the non-dealer leads


# --- B4 ---------------------------------------------------------------------------------------------------

def test_lead_is_one_suit_and_followers_play_as_many_cards_of_any_suit() -> None:
    deck = deck_for(2, {1: ["AS", "KS", "7H"], 0: ["6C", "8D", "JH"]}, trump="9C")
    match = new(2, [deck])
    pass_all(match)
    assert match.legal_actions(1) == ["play AS", "play KS", "play 7H", "play AS KS", "claim"]
    with pytest.raises(IllegalAction, match="one suit"):
        match.apply(1, "play AS 7H")
    match.apply(1, "play ks a♠")  # any order, any spelling
    assert match.actions[-1] == (1, "play AS KS")
    assert match.legal_actions(0) == ["play JH 8D", "play JH 6C", "play 8D 6C", "claim"]
    with pytest.raises(IllegalAction, match="exactly 2"):
        match.apply(0, "play 6C")
    match.apply(0, "play 6C 8D")  # a trump and a plain card: no duty to follow suit
    assert match.last_trick is not None and match.last_trick["winner"] == 1  # 6C beats a spade, 8D beats nothing


# --- B5 ---------------------------------------------------------------------------------------------------

def ids(text: str) -> tuple[int, ...]:
    return tuple(sorted(ID_OF[c] for c in text.split()))


def test_beating_example_of_the_request() -> None:
    diamonds = BEATS[2]
    assert play_beats(ids("9D JS"), ids("QS 7S"), diamonds)
    assert play_beats(ids("KD 8D"), ids("9D JS"), diamonds)
    assert not play_beats(ids("8D 9S"), ids("9D JS"), diamonds)
    assert not play_beats(ids("QS 7S"), ids("QS 7S"), diamonds)
    assert play_beats(ids("AS 6D 7H"), ids("KS TH 9C"), diamonds) is False  # 7H cannot beat TH or 9C... paired
    assert play_beats(ids("AS AH 6D"), ids("KS TH 9C"), diamonds)


@pytest.mark.parametrize(("last", "winner"), [("KD 8D", 0), ("8D 9S", 2)])
def test_trick_goes_to_the_last_play_that_beat_the_winning_one(last: str, winner: int) -> None:
    third = "KD 8D 7C" if last == "KD 8D" else "8D 9S 7C"
    deck = deck_for(3, {1: ["QS", "7S", "6H"], 2: ["9D", "JS", "6C"], 0: third.split()}, trump="TD")
    match = new(3, [deck])
    play(match, "QS 7S", "9D JS", last)
    assert match.last_trick is not None and match.last_trick["winner"] == winner
    assert match.won_points[winner] == 3 + 2 + (4 if last == "KD 8D" else 0)


def test_leader_keeps_the_trick_when_no_one_beats_the_lead() -> None:
    deck = deck_for(3, {1: ["7S", "6H", "8C"], 2: ["6S", "9H", "JC"], 0: ["AH", "TH", "KC"]}, trump="QD")
    match = new(3, [deck])
    play(match, "7S", "6S", "AH")
    assert match.last_trick is not None and match.last_trick["winner"] == 1
    assert match.won_points == [0, 11, 0]


# --- B6 ---------------------------------------------------------------------------------------------------

def test_draws_go_round_from_the_tricks_winner() -> None:
    deck = deck_for(3, {1: ["7S", "6H", "8C"], 2: ["AS", "9H", "JC"], 0: ["6S", "TH", "KC"]}, trump="QD",
                    stock=["AD", "KD", "JD"])
    match = new(3, [deck])
    pass_all(match)
    events = match.apply(1, "play 7S")
    events += match.apply(2, "play AS")
    events += match.apply(0, "play 6S")
    draws = [(e["seat"], e["card"]) for e in events if e["type"] == "draw"]
    assert draws == [(2, "AD"), (0, "KD"), (1, "JD")]
    seen_by_0 = [e for e in events_for(events, 0) if e["type"] == "draw"]
    assert seen_by_0 == [{"type": "draw", "seat": 2}, {"type": "draw", "seat": 0, "card": "KD"},
                         {"type": "draw", "seat": 1}]
    assert match.view(2)["leader"] == 2


def test_short_stock_with_five_players_leaves_the_trump_card_unused() -> None:
    match = new(5, [list(cards.DECK_36)])
    all_events = []
    for trick in range(1, 6):
        pass_all(match)
        for _ in range(5):
            seat = match.to_act[0]
            single = next(a for a in match.legal_actions(seat) if len(a.split()) == 2)
            all_events += match.apply(seat, single)
        assert match.view(None)["stock"] == max(21 - 5 * trick, 1)
    view = match.view(None)
    assert view["hand_sizes"] == [2, 2, 2, 2, 2]
    assert view["trump_card"] == "QH" and view["stock_dead"]  # the 16th card of the deck
    assert [e for e in all_events if e["type"] == "stock_closed"] == [{"type": "stock_closed", "count": 1}]
    assert match.phase == "play"  # no announcement pause with fewer than three cards


# Found once by playing seed 0 with first-legal moves: eight single-card tricks, then the winner holds a pair.
SHORT_THREE = cards.parse_cards("QD QC 7H AD 9D AH 6H 6C 6D 8D 9S 9C 7D JC QH AC 9H TS AS TC KH KS 6S JD KC TH "
                                "7S 8S QS TD 8C 7C JH KD 8H JS")


def test_short_stock_with_three_players_draws_only_whole_rounds() -> None:
    match = new(3, [SHORT_THREE])
    for _ in range(8):
        pass_all(match)
        seat = match.to_act[0]
        match.apply(seat, next(a for a in match.legal_actions(seat) if len(a.split()) == 2))
        finish_trick(match)
    assert match.view(None)["stock"] == 3 and match.view(None)["hand_sizes"] == [3, 3, 3]
    pass_all(match)
    seat = match.to_act[0]
    match.apply(seat, next(a for a in match.legal_actions(seat) if len(a.split()) == 3))
    finish_trick(match)
    view = match.view(None)
    assert view["stock"] == 0 and view["hand_sizes"] == [2, 2, 2] and view["trump_card"] is None
    assert not view["stock_dead"]


def test_six_players_lead_three_then_two_cards() -> None:
    # Seat 1 leads three plain spades nobody can beat; the stock then fills every hand again (18 cards),
    # with hearts AH TH for seat 1 (draws go 1, 2, 3, 4, 5, 0, round after round).
    hands = {1: ["AS", "TS", "KS"], 2: ["6H", "7H", "9H"], 3: ["JH", "QH", "KH"], 4: ["6S", "7S", "8S"],
             5: ["9S", "JS", "QS"], 0: ["QD", "KD", "AD"]}
    spare = ["7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC", "6D", "7D", "8D", "9D", "TD", "JD"]
    stock = ["AH", *spare[:5], "TH", *spare[5:10], "8H", *spare[10:]]
    match = new(6, [deck_for(6, hands, trump="6C", stock=stock)])  # clubs trumps: no one holds three
    pass_all(match)
    match.apply(1, "play AS TS KS")
    for seat in (2, 3, 4, 5, 0):
        match.apply(seat, match.legal_actions(seat)[0])
    assert match.last_trick is not None and match.last_trick["winner"] == 1  # no one held three trumps higher
    assert match.view(None)["stock"] == 0 and match.view(1)["hand"] == ["AH", "TH", "8H"]
    assert match.to_act == [1, 2, 3, 4, 5, 0]  # hands hold three again: an announcement pause (molodka for 1)
    assert match.legal_actions(1) == ["pass", "announce molodka", "claim"]
    pass_all(match)
    match.apply(1, "play AH TH")
    assert all(len(a.split()) == 3 for a in match.legal_actions(2)[:-1])
    finish_trick(match)
    assert match.view(None)["hand_sizes"] == [1] * 6
    assert match.phase == "play"


# --- B7 ---------------------------------------------------------------------------------------------------

# Two players, clubs trumps. Seat 1: AS TH KH; seat 0: TS 6D 7D. Stock top: QH 8D JH 9D 6S 7S ...
CLAIM_DECK = deck_for(2, {1: ["AS", "TH", "KH"], 0: ["TS", "6D", "7D"]}, trump="7C",
                      stock=["QH", "8D", "JH", "9D", "6S", "7S"])


def test_true_claim_at_exactly_31() -> None:
    match = new(2, [CLAIM_DECK])
    play(match, "AS", "TS", "TH", "8D")
    assert match.won_points == [0, 31]
    assert match.phase == "announce"
    assert match.legal_actions(1) == ["pass", "announce molodka", "claim"]  # KH QH JH
    events = match.apply(1, "claim")
    claim = next(e for e in events if e["type"] == "claim")
    assert claim == {"type": "claim", "seat": 1, "points": 31, "right": True, "cards": ["AS", "TS", "TH", "8D"]}
    result = match.hand_results[0]
    assert {k: result[k] for k in ("winner", "reason", "claimant", "points")} == {
        "winner": 1, "reason": "claim", "claimant": 1, "points": [0, 31]}
    # Pot 2 to seat 1 (19 + 2); the claimant deals the next hand, and both ante again.
    assert match.scores == [18, 20] and match.pot == 2 and match.dealer == 1 and match.hand_number == 2


def test_false_claim_at_30_doubles_the_pot() -> None:
    match = new(2, [CLAIM_DECK])
    play(match, "AS", "TS", "KH QH", "8D 7D", "JH", "6D")
    assert match.won_points == [0, 30]
    match.apply(1, "claim")
    result = match.hand_results[0]
    assert {k: result[k] for k in ("winner", "reason", "claimant", "points")} == {
        "winner": None, "reason": "false-claim", "claimant": 1, "points": [0, 30]}
    # Seat 1 paid the pot's 2 chips (pot 4), then both anted for hand 2 (pot 6), dealt by the claimant.
    assert match.scores == [18, 16] and match.pot == 6 and match.dealer == 1


def test_claim_is_legal_off_turn_and_points_mode_scores_it() -> None:
    match = new(2, [CLAIM_DECK], scoring="points")
    pass_all(match)
    match.apply(1, "play AS")
    assert match.legal_actions(1) == ["claim"] and match.legal_actions(0)[-1] == "claim"
    match.apply(1, "claim")  # off turn, with 0 points: false
    assert match.scores == [2, 0] and match.dealer == 1 and match.pot == 0


def test_running_points_are_hidden_unless_show_points() -> None:
    hidden = new(2, [CLAIM_DECK])
    play(hidden, "AS", "TS")
    assert "my_points" not in hidden.view(1)
    assert all("points" not in e for e in hidden.events if e["type"] in ("trick", "play", "draw"))
    shown = new(2, [CLAIM_DECK], show_points=True)
    play(shown, "AS", "TS")
    assert shown.view(1)["my_points"] == 21 and shown.view(0)["my_points"] == 0
    assert "my_points" not in shown.view(None)


# --- B8 ---------------------------------------------------------------------------------------------------

def test_no_claim_everyone_antes_again_and_the_same_dealer_deals() -> None:
    match = new(2, [list(cards.DECK_36)])
    play_out_without_claims(match)
    result = match.hand_results[0]
    assert (result["winner"], result["reason"], result["claimant"]) == (None, "no-claim", None)
    assert sum(result["points"]) == 120
    assert match.pot == 4 and match.scores == [18, 18] and match.dealer == 0 and match.hand_number == 2


# --- B9 ---------------------------------------------------------------------------------------------------

def test_one_bura_wins_the_hand_and_answers_stay_secret_until_all_answered() -> None:
    deck = deck_for(3, {2: ["AH", "9H", "6H"]}, trump="7H")
    match = new(3, [deck])
    assert match.legal_actions(2) == ["pass", "announce bura", "claim"]
    assert match.legal_actions(1) == ["pass", "claim"]
    with pytest.raises(IllegalAction, match="do not hold"):
        match.apply(1, "announce bura")
    events = match.apply(2, "announce bura")
    assert events_for(events, 0) == [{"type": "answer", "seat": 2}]
    assert match.view(0)["announcements"] == [] and match.to_act == [1, 0]
    match.apply(1, "pass")
    events = match.apply(0, "pass")
    announced = next(e for e in events if e["type"] == "announced")
    assert announced["announcements"] == [{"seat": 2, "kind": "bura", "cards": ["AH", "9H", "6H"]}]
    result = match.hand_results[0]
    assert (result["winner"], result["reason"]) == (2, "bura")
    # Seat 2 took the pot of 3 (19 + 3), and everyone anted again for hand 2, dealt by seat 2.
    assert match.scores == [18, 18, 21] and match.dealer == 2 and match.pot == 3


@pytest.mark.parametrize("second_announces", [True, False])
def test_two_buras_the_earliest_leads_and_the_other_holder_plays_theirs(second_announces: bool) -> None:
    deck = deck_for(4, {1: ["6D", "7D", "8D"], 3: ["AD", "KD", "QD"], 2: ["AS", "AH", "AC"]}, trump="9D")
    match = new(4, [deck])
    match.apply(1, "announce bura")
    match.apply(2, "announce aces")
    events = match.apply(3, "announce bura" if second_announces else "pass")
    events += match.apply(0, "pass")
    plays = [(e["seat"], e["cards"]) for e in events if e["type"] == "play"]
    assert plays == [(1, ["8D", "7D", "6D"]), (3, ["AD", "KD", "QD"])]
    result = match.hand_results[0]
    assert (result["winner"], result["reason"], result["points"]) == (3, "bura", [0, 0, 0, 18])


def test_three_aces_take_the_lead_over_a_molodka_and_are_led_together() -> None:
    deck = deck_for(3, {1: ["KS", "9S", "7S"], 2: ["AS", "AH", "AC"], 0: ["6D", "TH", "JC"]}, trump="8D")
    match = new(3, [deck])
    match.apply(1, "announce molodka")
    match.apply(2, "announce aces")
    events = match.apply(0, "pass")
    announced = next(e for e in events if e["type"] == "announced")
    assert announced["leader"] == 2
    assert announced["announcements"] == [{"seat": 1, "kind": "molodka"},  # outranked: its cards stay hidden
                                           {"seat": 2, "kind": "aces", "cards": ["AS", "AH", "AC"]}]
    assert match.trick == [(2, tuple(sorted(ID_OF[c] for c in ("AS", "AH", "AC"))))]
    assert match.to_act == [0] and match.legal_actions(0) == ["play TH JC 6D", "claim"]  # order A T K Q J 9 8 7 6
    match.apply(0, "play TH JC 6D")  # 6D trumps an ace, but every ace must be beaten
    match.apply(1, "play KS 9S 7S")
    assert match.last_trick is not None and match.last_trick["winner"] == 2


def test_molodka_takes_the_lead_and_same_kind_goes_to_the_earliest() -> None:
    deck = deck_for(3, {1: ["6S", "7H", "8C"], 2: ["KS", "9S", "7S"], 0: ["KH", "9H", "8H"]}, trump="8D")
    match = new(3, [deck])
    match.apply(0, "announce molodka")  # answers may come in any order
    match.apply(1, "pass")
    match.apply(2, "announce molodka")
    assert match.leader == 2 and match.to_act == [0]  # seat 2 would play before seat 0 (leader was 1)


def test_combinations_by_preset() -> None:
    def kind(hand: str, trump: str, moscow: bool) -> str | None:
        return combination(sorted(ID_OF[c] for c in hand.split()), "SHDC".index(trump), moscow)
    assert kind("AS AH AD", "C", False) == "aces" and kind("AS AH AD", "C", True) == "moscow"
    assert kind("6S 6H 6D", "S", True) == "little-moscow" and kind("6S 6H 6D", "C", True) is None
    assert kind("6S 6H 6D", "S", False) is None
    assert kind("6C 7C 9C", "C", True) == "bura" and kind("6C 7C 9C", "H", False) == "molodka"


# --- B10 --------------------------------------------------------------------------------------------------

def test_moscow_preset_redeals_a_dealt_combination_without_ante() -> None:
    first = deck_for(2, {1: ["KS", "9S", "7S"], 0: ["6D", "TH", "JC"]}, trump="8D")
    second = deck_for(2, {1: ["KS", "9H", "7S"], 0: ["6D", "TH", "JC"]}, trump="8D")
    match = new(2, [first, second], preset="moscow")
    assert match.hand_results[0]["reason"] == "redeal" and match.hand_results[0]["winner"] is None
    assert match.deal_count == 2 and match.hand_number == 1 and match.pot == 2 and match.dealer == 0
    assert match.view(1)["hand"] == ["KS", "9H", "7S"]
    assert match.phase == "play" and match.to_act == [1]  # no announcement pause in the first trick


def test_moscow_outranks_bura() -> None:
    # Diamonds trumps. Trick 1: 7C, 8S, 6C (seat 1 keeps it); the draws give seat 1 a third ace, seat 2 a Bura.
    deck = deck_for(3, {1: ["AS", "AH", "7C"], 2: ["KD", "QD", "8S"], 0: ["JD", "TD", "6C"]}, trump="9D",
                    stock=["AC", "7D", "9S"])
    match = new(3, [deck], preset="moscow")
    play(match, "7C", "8S", "6C")
    assert match.legal_actions(1) == ["pass", "announce moscow", "claim"]
    assert match.legal_actions(2) == ["pass", "announce bura", "claim"]
    with pytest.raises(IllegalAction):
        match.apply(1, "announce aces")
    match.apply(1, "announce moscow")
    match.apply(2, "announce bura")
    match.apply(0, "pass")
    result = match.hand_results[0]
    assert (result["winner"], result["reason"]) == (1, "moscow")


def test_little_moscow_leads_but_bura_outranks_it() -> None:
    deck = deck_for(3, {1: ["6S", "6H", "QC"], 2: ["KD", "QD", "8S"], 0: ["JD", "TD", "7C"]}, trump="9D",
                    stock=["6D", "7D", "9S"])
    match = new(3, [deck], preset="moscow")
    play(match, "QC", "8S", "7C")
    match.apply(1, "announce little-moscow")
    match.apply(2, "announce bura")
    match.apply(0, "pass")
    assert (match.hand_results[0]["winner"], match.hand_results[0]["reason"]) == (2, "bura")


@pytest.mark.parametrize("little_moscow_announces", [True, False])
def test_moscow_little_moscow_outranks_an_earlier_molodka(little_moscow_announces: bool) -> None:
    # Diamonds trumps. Trick 1: 7C, QC (seat 2 takes it), 8C; the draws (2, 0, 1) give seat 2 a Molodka in
    # spades and seat 1 Little Moscow with the trump six. Seat 2 would play first, yet Little Moscow leads (B10).
    deck = deck_for(3, {1: ["6S", "6H", "7C"], 2: ["KS", "QS", "QC"], 0: ["JD", "TD", "8C"]}, trump="9D",
                    stock=["JS", "9S", "6D"])
    match = new(3, [deck], preset="moscow")
    assert match.hand_results == []  # nothing to redeal: the combinations come with the draw
    play(match, "7C", "QC", "8C")
    assert match.to_act == [2, 0, 1]
    assert match.legal_actions(2) == ["pass", "announce molodka", "claim"]
    assert match.legal_actions(1) == ["pass", "announce little-moscow", "claim"]
    match.apply(2, "announce molodka")
    match.apply(0, "pass")
    events = match.apply(1, "announce little-moscow" if little_moscow_announces else "pass")
    announced = next(e for e in events if e["type"] == "announced")
    if not little_moscow_announces:  # the Molodka alone takes the lead
        assert announced == {"type": "announced", "leader": 2,
                             "announcements": [{"seat": 2, "kind": "molodka", "cards": ["KS", "QS", "JS"]}]}
        assert match.trick == [(2, ids("KS QS JS"))] and match.to_act == [0]
        return
    assert announced == {"type": "announced", "leader": 1,
                         "announcements": [{"seat": 2, "kind": "molodka"},  # outranked: its cards stay hidden
                                           {"seat": 1, "kind": "little-moscow", "cards": ["6S", "6H", "6D"]}]}
    assert match.trick == [(1, ids("6S 6H 6D"))] and match.to_act == [2]
    match.apply(2, "play KS QS JS")  # KS beats 6S, but nothing of seat 2's beats 6H or 6D
    match.apply(0, "play JD TD 9S")  # JD over 6D, TD trumps 6H, 9S over 6S: the trick goes on as usual
    assert match.last_trick is not None and match.last_trick["winner"] == 0
    assert match.won_points == [9 + 12, 0, 3] and match.hand_results == []  # spades 9, JD TD 12, sixes 0


@pytest.mark.parametrize("second_announces", [True, False])
def test_moscow_two_buras_the_earliest_leads_and_the_later_one_wins_the_hand(second_announces: bool) -> None:
    # Diamonds trumps. Trick 1: 7C, QC (seat 2 takes it), 8C; the draws (2, 0, 1) give seat 2 a Molodka,
    # seat 0 a low Bura and seat 1 a high one. Order from seat 2: 2, 0, 1. Seat 0 leads its Bura, seat 1 plays
    # its own (even unannounced), the Molodka holder plays nothing, and seat 1 takes the trick and the hand.
    deck = deck_for(3, {1: ["AD", "KD", "7C"], 2: ["KS", "QS", "QC"], 0: ["6D", "7D", "8C"]}, trump="9D",
                    stock=["JS", "8D", "QD"])
    match = new(3, [deck], preset="moscow")
    play(match, "7C", "QC", "8C")
    assert [match.legal_actions(s)[1] for s in (2, 0, 1)] == ["announce molodka", "announce bura", "announce bura"]
    events = match.apply(2, "announce molodka")
    events += match.apply(0, "announce bura")
    events += match.apply(1, "announce bura" if second_announces else "pass")
    assert next(e for e in events if e["type"] == "announced")["leader"] == 0
    plays = [(e["seat"], e["cards"]) for e in events if e["type"] == "play"]
    assert plays == [(0, ["8D", "7D", "6D"]), (1, ["AD", "KD", "QD"])]
    result = match.hand_results[0]
    assert (result["winner"], result["reason"], result["claimant"], result["points"]) == (1, "bura", None,
                                                                                          [0, 18, 3])
    # Seat 1 took the pot of 3 (19 + 3), deals the next hand, and everyone anted again.
    assert match.scores == [18, 21, 18] and match.pot == 3 and match.dealer == 1 and match.hand_number == 2
