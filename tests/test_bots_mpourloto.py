"""Mpourloto heuristics in prearranged situations: the normal level's exact choice."""

from __future__ import annotations

from trickroom.bots import make_bot
from trickroom.bots.mpourloto.odds import Odds
from trickroom.games import Match, events_for, load_game

GAME = load_game("mpourloto")


def deck_for(hands: dict[int, list[str]], face_up: str) -> list[str]:
    """A prearranged deck (dealer 0) that deals ``hands``: five cards each from the dealer's left, the face-up
    card, then three more each, the dealer's last card being the face-up card (which ``hands[0]`` holds)."""
    order = [1, 2, 3, 0]
    rest = {seat: [c for c in cards if c != face_up or seat != 0] for seat, cards in hands.items()}
    deck = [rest[seat][round_] for round_ in range(5) for seat in order]
    deck.append(face_up)
    for round_ in range(5, 8):
        for seat in order:
            if seat == 0 and round_ == 7:
                continue
            deck.append(rest[seat][round_])
    assert len(deck) == 32 and len(set(deck)) == 32
    return deck


def normal_choice(match: Match, seat: int) -> str:
    bot = make_bot("normal", seed=1)
    return bot.choose(GAME, seat, match.view(seat), events_for(match.events, seat), match.legal_actions(seat))


def test_normal_counts_the_face_up_card_it_will_take_for_the_seven() -> None:
    # Seat 1 (the dealer's left, first to speak) holds the seven of hearts under the face-up jack of hearts:
    # accepting, it exchanges the seven for the jack, so its hand is worth the jack and it accepts.
    others = {2: ["KS", "QS", "JS", "TS", "9S", "8S", "JD", "9D"],
              3: ["AH", "TH", "KH", "QH", "TD", "QD", "KC", "QC"],
              0: ["JH", "AD", "7D", "AC", "TC", "JC", "9C", "7S"]}
    with_seven = GAME.new_match(seed=1, decks=[deck_for({1: ["7H", "9H", "KD", "AS", "8C", "8H", "8D", "7C"],
                                                        **others}, "JH")])
    assert set(with_seven.view(1)["hand"]) == {"7H", "9H", "KD", "AS", "8C"}
    assert normal_choice(with_seven, 1) == "accept"
    # The same hand with the eight of hearts instead of the seven has no claim on the jack: it passes.
    without = GAME.new_match(seed=1, decks=[deck_for({1: ["8H", "9H", "KD", "AS", "8C", "7H", "8D", "7C"],
                                                     **others}, "JH")])
    assert normal_choice(without, 1) == "pass"


DEFENDER_DEAL = {1: ["JH", "8H", "AS", "7S", "8D", "7D", "8C", "7C"],
                 2: ["9H", "AH", "TH", "KS", "QS", "KD", "QD", "JD"],
                 3: ["KH", "JS", "TS", "9S", "8S", "AD", "TD", "9D"],
                 0: ["QH", "7H", "AC", "TC", "KC", "QC", "JC", "9C"]}


def hearts_made_by_seat_2() -> Match:
    """The queen of hearts turned; seat 1 passes, seat 2 accepts, nobody declares: seat 1 leads the first trick."""
    match = GAME.new_match(seed=1, decks=[deck_for(DEFENDER_DEAL, "QH")])
    match.apply(1, "pass")
    match.apply(2, "accept")
    while match.view(1)["phase"] != "play":
        match.apply(match.to_act[0], "done")
    return match


def test_defender_draws_trumps_with_the_master_trump() -> None:
    # Hearts are trumps, made by seat 2. Seat 1, a defender on lead with the jack and eight of hearts and the ace
    # of spades, leads the jack (the old rule drew trumps only as a maker or with three trumps, and cashed the
    # ace instead): every trump the makers must give up is a trick they will not take.
    match = hearts_made_by_seat_2()
    assert match.to_act == [1] and sorted(match.view(1)["hand"]) == sorted(DEFENDER_DEAL[1])
    assert normal_choice(match, 1) == "play JH"


def test_odds_follow_the_duty_to_beat() -> None:
    # Seat 1 leads the ace of spades (hearts trumps). Seat 2 beats it only by trumping, so only when it has no
    # spade and has a trump; once it is known to hold neither spades nor trumps, the ace holds for sure.
    match = hearts_made_by_seat_2()
    view = match.view(1)
    odds = Odds(view)
    assert 0.0 < odds.holds("AS", "S", [2]) < 1.0
    assert odds.holds("AS", "S", []) == 1.0
    assert odds.p[0]["QH"] == 1.0  # the dealer took the face-up card
    unseen_spades_and_trumps = {c for c in odds.unseen if c[1] in "SH"}
    assert Odds(view, {2: unseen_spades_and_trumps}).holds("AS", "S", [2]) == 1.0
    # Nor can a player without trumps: nobody holds a higher spade.
    assert Odds(view, {2: {c for c in odds.unseen if c[1] == "H"}}).holds("AS", "S", [2]) == 1.0
