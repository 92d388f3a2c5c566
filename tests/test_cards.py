from __future__ import annotations

import pytest

from trickroom import cards


@pytest.mark.parametrize(
    ("text", "code"),
    [("QS", "QS"), ("qs", "QS"), ("10H", "TH"), ("10h", "TH"), ("th", "TH"), ("A♠", "AS"), ("6♦", "6D"),
     (" kc ", "KC")],
)
def test_parse_card_accepts_common_spellings(text: str, code: str) -> None:
    assert cards.parse_card(text) == code


@pytest.mark.parametrize("text", ["", "Q", "QX", "1S", "5S", "11H", "ZZ"])
def test_parse_card_rejects_nonsense_with_a_sentence(text: str) -> None:
    with pytest.raises(cards.CardError, match="not a card"):
        cards.parse_card(text)


def test_parse_cards_and_suits() -> None:
    assert cards.parse_cards("QS, 7s 10d") == ["QS", "7S", "TD"]
    assert cards.parse_suit("hearts") == "H"
    assert cards.parse_suit("♣") == "C"
    assert cards.parse_suit("d") == "D"
    assert cards.parse_suit("пики") == "S"
    with pytest.raises(cards.CardError):
        cards.parse_suit("stars")


def test_shuffle_is_deterministic_per_seed_and_deal() -> None:
    a = cards.shuffled(cards.DECK_36, cards.deal_rng(7, 0))
    b = cards.shuffled(cards.DECK_36, cards.deal_rng(7, 0))
    c = cards.shuffled(cards.DECK_36, cards.deal_rng(7, 1))
    assert a == b
    assert a != c
    assert sorted(a) == sorted(cards.DECK_36)
    assert cards.new_seed() != cards.new_seed()


def test_card_labels() -> None:
    assert cards.card_label("TH", symbols=True) == "10♥"
    assert cards.card_label("QS") == "QS"


@pytest.mark.parametrize(("game", "deck"), [("bura", cards.DECK_36), ("mpourloto", cards.DECK_32)])
def test_a_prearranged_deck_must_hold_every_card_of_the_game_once(game: str, deck: tuple[str, ...]) -> None:
    from trickroom.games import load_game

    spelled = ["10" + card[1].lower() if card[0] == "T" else card for card in deck]
    match = load_game(game).new_match(seed=1, decks=[spelled])  # any spelling parse_card reads
    assert match.decks == [list(deck)]  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="Deck 2 must hold each of the"):
        load_game(game).new_match(seed=1, decks=[list(deck), [*deck[1:], deck[2]]])
    with pytest.raises(ValueError, match="Deck 1: "):
        load_game(game).new_match(seed=1, decks=[["ZZ", *deck[1:]]])
    assert cards.checked_deck(list(reversed(deck)), deck, 0) == list(reversed(deck))
