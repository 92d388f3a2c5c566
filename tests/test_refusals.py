"""Refused actions in the player's language: every IllegalAction the engines raise carries a message id and its
parameters as data, every catalog holds every id, and ``narration.refusal`` says it in English, Russian or
Greek."""

from __future__ import annotations

import io
import random
import re
from collections.abc import Sequence

import pytest

from trickroom import cards
from trickroom.games import IllegalAction, Match, load_game
from trickroom.narration import LANGUAGES, catalog, refusal
from trickroom.narration.refusals import domain_of
from trickroom.terminal.console import Console
from trickroom.terminal.offline import OfflineGame
from trickroom.terminal.render import Style


def refused(match: Match, seat: int, action: str) -> IllegalAction:
    with pytest.raises(IllegalAction) as info:
        match.apply(seat, action)
    return info.value


def said(match: Match, seat: int, action: str) -> tuple[str, str]:
    """The refusal of ``action`` in English and in Russian."""
    exc = refused(match, seat, action)
    return refusal(exc, "en"), refusal(exc, "ru")


def greek(match: Match, seat: int, action: str) -> str:
    return refusal(refused(match, seat, action), "el")


# --- Bura -------------------------------------------------------------------------------------------------

def bura_deck(hands: dict[int, list[str]], trump: str) -> list[str]:
    """Two players, seat 0 deals: seat 1 gets ``hands[1]``, seat 0 ``hands[0]``, then ``trump`` is turned up."""
    deck = [hands[s][r] for r in range(3) for s in (1, 0)] + [trump]
    return deck + [c for c in cards.DECK_36 if c not in deck]


@pytest.fixture
def bura() -> Match:
    deck = bura_deck({1: ["AS", "KS", "7H"], 0: ["6C", "8D", "JH"]}, trump="9C")
    match = load_game("bura", players=2).new_match(seed=99, decks=[deck])
    assert match.view(None)["phase"] == "announce" and match.view(None)["leader"] == 1
    return match


def test_bura_refusals_in_english_and_russian(bura: Match) -> None:
    assert said(bura, 1, "play AS") == ("First answer the announcement: pass, or announce your combination.",
                                        "Сначала ответьте на объявление: спасуйте или объявите свою комбинацию.")
    assert said(bura, 1, "announce bura") == ("You do not hold that combination: Bura.",
                                              "У вас нет такой комбинации: бура.")
    assert said(bura, 1, "announce")[1] == "Объявить можно: бура, три туза, молодка."
    bura.apply(1, "pass")
    bura.apply(0, "pass")
    assert said(bura, 0, "play 6C") == ("It is not your turn to play.", "Сейчас не ваш ход.")
    assert said(bura, 1, "play XX") == ("'XX' is not a card: the suit must be one of S H D C.",
                                        "«XX» — не карта: масть — одна из букв S, H, D, C.")
    assert said(bura, 1, "play QS") == ("You do not hold the queen of spades.", "Этой карты у вас нет: дама пик.")
    assert said(bura, 1, "play QS JS")[1] == "Этих карт у вас нет: дама и валет пик."
    assert said(bura, 1, "play AS 7H") == ("A lead is one, two or three cards of one suit.",
                                           "Заходить можно одной, двумя или тремя картами одной масти.")
    assert said(bura, 1, "dance")[1] == ("Неизвестный ход «dance»: можно сыграть карты, пасовать, объявить "
                                         "комбинацию или заявить 31.")
    assert greek(bura, 1, "play QS JS") == "Δεν έχετε την ντάμα και τον βαλέ μπαστούνι."
    bura.apply(1, "play AS KS")
    assert said(bura, 0, "play 6C") == ("You must play exactly 2 cards, as many as were led.",
                                        "Нужно сыграть ровно 2 карты: столько же, сколько в заходе.")
    assert greek(bura, 0, "play 6C") == "Πρέπει να παίξετε ακριβώς 2 φύλλα, όσα και στο άνοιγμα."


def test_bura_refusal_keeps_its_english_message_and_gives_data(bura: Match) -> None:
    bura.apply(1, "pass")
    bura.apply(0, "pass")
    exc = refused(bura, 1, "play QS JS")
    assert str(exc) == "You do not hold QS, JS."  # library users still read the engine's English
    assert exc.key == "illegal.bura.not_held" and exc.params == {"cards": ["QS", "JS"]}


# --- Mpourloto --------------------------------------------------------------------------------------------

def mpourloto_deck(hands: Sequence[Sequence[str]], face_up: str) -> list[str]:
    """Seat 0 deals: five cards each from seat 1, the face-up card, then three each; seat 0's last is ``face_up``."""
    deck = [hands[(1 + i) % 4][r] for r in range(5) for i in range(4)] + [face_up]
    deck += [hands[(1 + i) % 4][r] for r in range(5, 8) for i in range(4) if not ((1 + i) % 4 == 0 and r == 7)]
    assert sorted(deck) == sorted(cards.DECK_32)
    return deck


# Hearts will be trumps. Seat 1 leads spades; seat 2 holds spades it must follow with, seat 3 can beat them.
FOLLOW = [["8H", "9H", "JH", "AD", "KD", "AC", "KC", "7H"],
          ["KS", "7S", "7D", "8D", "9D", "7C", "8C", "9C"],
          ["8S", "9S", "JS", "TH", "QH", "TC", "JC", "QC"],
          ["AS", "TS", "QS", "AH", "KH", "TD", "JD", "QD"]]
# Seat 2 has no spades but trumps; seat 0 can overtrump.
TRUMP = [["JC", "QC", "KC", "AC", "JH", "TH", "KH", "7H"],
         ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S"],
         ["9H", "AH", "7D", "8D", "9D", "TD", "JD", "QD"],
         ["QH", "8H", "KD", "AD", "7C", "8C", "9C", "TC"]]
# Seat 1 holds runs and the king and queen of trumps.
MELDS = [["7S", "7D", "7C", "8H", "9D", "AC", "8C", "7H"],
         ["QS", "JS", "TS", "KH", "QH", "JH", "AS", "8D"],
         ["AD", "KD", "QD", "JD", "KS", "9S", "AH", "TH"],
         ["KC", "QC", "JC", "TC", "9C", "8S", "9H", "TD"]]


def mpourloto(hands: Sequence[Sequence[str]]) -> Match:
    return load_game("mpourloto").new_match(seed=5, decks=[mpourloto_deck(hands, "7H")])


def to_play(match: Match) -> Match:
    for action in ("accept", "done", "done", "done", "done"):
        match.apply(match.to_act[0], action)
    return match


def test_mpourloto_play_refusals_in_english_and_russian() -> None:
    match = to_play(mpourloto(FOLLOW))
    match.apply(1, "play KS")
    assert said(match, 2, "play TH") == ("You must follow suit.", "Нужно ходить в масть.")
    assert said(match, 2, "play AS") == ("You do not hold the ace of spades.", "Этой карты у вас нет: туз пик.")
    assert said(match, 3, "play AS") == ("It is not your turn.", "Сейчас не ваш ход.")
    assert said(match, 2, "play 1S")[1] == "«1S» — не карта: достоинство — одно из 6, 7, 8, 9, 10, J, Q, K, A."
    assert said(match, 2, "play 6S") == ("There is no six of spades in Mpourloto: the deck runs from seven to ace.",
                                         "Такой карты в мпурлото нет (шестёрка пик): колода — от семёрки до туза.")
    assert greek(match, 2, "play 6S") == ("Στο μπουρλότο δεν υπάρχει εξάρι μπαστούνι: η τράπουλα έχει από εφτάρι "
                                          "έως άσο.")
    assert greek(match, 2, "play TH") == "Πρέπει να ακολουθήσετε το χρώμα."
    assert said(match, 2, "play 8S 9S")[1] == "Играйте по одной карте."
    match.apply(2, "play 8s")
    assert said(match, 3, "play QS") == ("You must beat the highest card so far if you can.",
                                         "Если можете, нужно перебить старшую карту на столе.")

    match = to_play(mpourloto(TRUMP))
    match.apply(1, "play AS")
    assert said(match, 2, "play 7D") == ("You cannot follow suit, so you must play a trump.",
                                         "В масть ходить нечем, поэтому нужно играть козырем.")
    match.apply(2, "play 9H")
    match.apply(3, "play 8H")
    assert said(match, 0, "play TH")[1] == "Если можете, нужно перебить старший козырь на столе."


def test_mpourloto_bidding_and_meld_refusals_in_english_and_russian() -> None:
    match = mpourloto(MELDS)
    assert said(match, 1, "dance") == ("'dance' is not possible now; you can: accept the trump, pass.",
                                       "«dance» сейчас нельзя; можно: принять козырь, пас.")
    assert greek(match, 1, "dance") == "«dance» δεν γίνεται τώρα. Επιλογές: παίρνω το κόζι, πάσο."
    assert said(match, 1, "name X")[1] == "«X» — не масть: напишите S, H, D или C."
    match.apply(1, "accept")
    assert said(match, 1, "meld QS JS") == (
        "That is not one of your melds: a meld is a whole run of 3 or more cards of one suit, four cards of one "
        "rank, or the king and queen of trumps.",
        "Такой комбинации у вас нет: объявляют последовательность одной масти целиком (от 3 карт), четыре карты "
        "одного достоинства или короля и даму козырей.")
    match.apply(1, "meld KH QH JH")
    assert said(match, 1, "meld KH QH JH") == ("You have already declared that meld.",
                                               "Эту комбинацию вы уже объявили.")
    assert said(match, 1, "") == (
        "Say what to do: meld the queen, jack and ten of spades, meld the king and queen of hearts, done with melds.",
        "Скажите, что делать: объявить даму, валета и десятку пик, объявить короля и даму червей, "
        "закончить объявления.")


# --- Every id, in every catalog ---------------------------------------------------------------------------

# Matches in which every refusal the engines have can happen: seats that leave (two chips each), a finished match
# (one hand), Moscow's combinations, Mpourloto with and without partner relief, and a short one that finishes.
EXPLORED = [("bura", {"players": 2}), ("bura", {"players": 5, "stack": 2}), ("bura", {"players": 2, "hand_limit": 1}),
            ("bura", {"players": 4, "preset": "moscow"}), ("mpourloto", {}), ("mpourloto", {"partner_relief": True}),
            ("mpourloto", {"target": 100})]
MISTAKES = ["", "dance", "play", "play X", "play XX", "play 1H", "play AS AS", "play 6S", "play 6S 7S", "pass now",
            "announce", "announce bura", "announce aces", "announce moscow", "claim 31", "name X", "name S", "meld",
            "meld AS", "meld KS QS", "accept now", "exchange 7S", "keep", "done", "play 10H 9H JH QH"]


def mistakes(match: Match, seat: int, rng: random.Random, done: list[str]) -> list[str]:
    """What a player might wrongly try now: the fixed mistakes, their own cards in wrong numbers and orders, a
    meld they declared before."""
    held = list(match.view(seat if 0 <= seat < match.game.players else None)["hand"] or [])
    rng.shuffle(held)
    tries = [*MISTAKES, *(f"play {card}" for card in held), f"play {' '.join(held)}", f"play {' '.join(held[:2])}"]
    tries += [f"meld {' '.join(held[:k])}" for k in (2, 3)] + done
    return tries


def explored_refusals() -> set[str]:
    """Every refusal met in random matches full of mistakes (each must carry a message id): their ids."""
    keys: set[str] = set()
    rng = random.Random(3)
    for name, options in EXPLORED:
        for seed in range(3):
            match = load_game(name, **options).new_match(seed=seed)
            for _ in range(250):
                if match.is_over:
                    break
                seats = [*range(match.game.players), match.game.players]  # a seat that does not exist too
                for seat in rng.sample(seats, 2) + match.to_act[:1]:
                    declared = [a for s, a in match.actions if s == seat and a.startswith("meld ")]
                    legal = match.legal_actions(seat)
                    for action in mistakes(match, seat, rng, declared):
                        if match.game.canonical_action(action) in legal:
                            continue  # not a mistake after all
                        try:
                            match.apply(seat, action)
                            raise AssertionError(f"{name}: {action!r} was accepted")
                        except IllegalAction as exc:
                            assert exc.key, f"{name}: {action!r} refused without a message id: {exc}"
                            keys.add(exc.key)
                seat = rng.choice(match.to_act)
                legal = match.legal_actions(seat)
                plays = [a for a in legal if a != "claim"]
                match.apply(seat, "claim" if "claim" in legal and (not plays or rng.random() < 0.1) else
                            rng.choice(plays))
            if match.is_over:  # a finished match refuses everything
                keys.add(str(refused(match, 0, "pass").key))
    return keys


def test_every_refusal_has_an_id_in_every_catalog_and_every_id_is_one_the_engines_raise() -> None:
    keys = explored_refusals()
    for key in keys:
        for lang in LANGUAGES:
            assert key in catalog(lang, domain_of(key)), f"{key} missing from {lang}/{domain_of(key)}.po"
    for domain in ("room", "bura", "mpourloto"):
        english = {k for k in catalog("en", domain) if k.startswith(("illegal.", "action."))}
        for lang in LANGUAGES:
            assert {k for k in catalog(lang, domain) if k.startswith(("illegal.", "action."))} == english, lang
        never = {k for k in english if k.startswith("illegal.") and k.removesuffix(".many") not in keys}
        assert never == set(), f"{domain}.po has refusals no engine raised in the random matches: {never}"


# The English sentences that say cards, combinations or actions by name where the engine's message has codes.
RESPOKEN = {"illegal.bura.not_held", "illegal.bura.kinds", "illegal.bura.kind_not_held", "illegal.mpourloto.empty",
            "illegal.mpourloto.not_now", "illegal.mpourloto.one_card", "illegal.mpourloto.no_card",
            "illegal.mpourloto.not_held"}
ILLEGAL = ["", "dance", "play", "play XX", "play AS AS", "play 6S", "play 6S 7S", "pass now", "announce",
           "announce bura", "announce moscow", "claim 31", "name X", "name S", "meld", "meld AS", "meld KS QS",
           "accept now", "exchange 7S", "keep", "done", "play 1H", "play 10H 9H JH QH"]


@pytest.mark.parametrize("name, options", [("bura", {"players": 3}), ("bura", {"players": 2, "preset": "moscow"}),
                                           ("mpourloto", {})])
def test_random_refusals_are_all_said_in_every_language(name: str, options: dict[str, object]) -> None:
    """Random matches with random mistakes: each refusal has a message id, Russian in Cyrillic, Greek in Greek,
    English as the engine's message (unless it speaks card names or actions), and no template left unfilled."""
    rng = random.Random(7)
    seen: set[str] = set()
    match = load_game(name, **options).new_match(seed=11)
    for _ in range(600):
        if match.is_over:
            break
        seat = rng.randrange(match.game.players) if rng.random() < 0.2 else rng.choice(match.to_act)
        legal = match.legal_actions(seat)
        held = match.view(seat)["hand"] or []
        action = rng.choice([*ILLEGAL, *(f"play {c}" for c in held), f"play {' '.join(held[:2])}"])
        if rng.random() < 0.5 and legal and seat in match.to_act:
            action = rng.choice([a for a in legal if a != "claim"] or legal)
        try:
            match.apply(seat, action)
        except IllegalAction as exc:
            assert exc.key, f"{action!r}: {exc}"
            seen.add(exc.key)
            english, russian, greek = refusal(exc, "en"), refusal(exc, "ru"), refusal(exc, "el")
            assert re.search("[а-яё]", russian, re.IGNORECASE), russian
            assert re.search("[α-ωά-ώ]", greek, re.IGNORECASE), greek
            assert "{" not in english + russian + greek
            if exc.key not in RESPOKEN:
                assert english == str(exc)
    assert len(seen) >= 8, seen


def test_refusal_falls_back_to_the_engines_sentence() -> None:
    assert refusal(IllegalAction("Plain English."), "ru") == "Plain English."
    assert refusal(IllegalAction("No such id.", key="illegal.nowhere"), "ru") == "No such id."
    assert refusal(IllegalAction("Missing parameter.", key="illegal.bura.count"), "ru") == "Missing parameter."
    assert refusal(IllegalAction("Any language.", key="illegal.over"), "de") == "The match is over."
    with pytest.raises(cards.CardError) as info:
        cards.parse_card("Z")
    assert refusal(info.value, "ru") == "«Z» — не карта: напишите достоинство и масть, например QS или 10H."


def test_a_refusal_survives_pickling_for_worker_processes() -> None:
    import pickle

    exc = pickle.loads(pickle.dumps(IllegalAction("You must follow suit.", key="illegal.mpourloto.follow", suit="S")))
    assert (str(exc), exc.key, exc.params) == ("You must follow suit.", "illegal.mpourloto.follow", {"suit": "S"})


# --- The offline terminal client --------------------------------------------------------------------------

def test_the_offline_client_says_a_refusal_in_russian() -> None:
    out = io.StringIO()
    game = OfflineGame(load_game("bura", players=2), "random", None, Console(io.StringIO(""), out), "ru", Style(),
                       seed=3)
    assert game.match.view(0)["phase"] == "announce" and 0 in game.match.to_act
    assert game.try_action("play 6S") is False
    assert out.getvalue().splitlines()[-1] == ("Так нельзя: Сначала ответьте на объявление: спасуйте или объявите "
                                               "свою комбинацию. Ничего не изменилось.")
