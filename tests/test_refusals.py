"""Refused actions in the player's language: every IllegalAction the engines raise carries a message id and its
parameters as data, both catalogs hold every id, and ``narration.refusal`` says it in English or Russian."""

from __future__ import annotations

import io
import random
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from trickroom import cards
from trickroom.games import IllegalAction, Match, load_game
from trickroom.narration import LANGUAGES, catalog, refusal
from trickroom.narration.refusals import domain_of
from trickroom.terminal.console import Console
from trickroom.terminal.offline import OfflineGame
from trickroom.terminal.render import Style

ROOT = Path(__file__).resolve().parent.parent
ENGINE_SOURCES = [ROOT / "trickroom" / "cards.py", *sorted((ROOT / "trickroom" / "games").rglob("*.py"))]


def refused(match: Match, seat: int, action: str) -> IllegalAction:
    with pytest.raises(IllegalAction) as info:
        match.apply(seat, action)
    return info.value


def said(match: Match, seat: int, action: str) -> tuple[str, str]:
    """The refusal of ``action`` in English and in Russian."""
    exc = refused(match, seat, action)
    return refusal(exc, "en"), refusal(exc, "ru")


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
                                         "комбинацию или конец.")
    bura.apply(1, "play AS KS")
    assert said(bura, 0, "play 6C") == ("You must play exactly 2 cards, as many as were led.",
                                        "Нужно сыграть ровно 2 карты: столько же, сколько в заходе.")


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
                                         "В мпурлото играют без шестёрок: колода — от семёрки до туза.")
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


# --- Every id, in both catalogs ---------------------------------------------------------------------------

def raised_keys() -> set[str]:
    keys: set[str] = set()
    for path in ENGINE_SOURCES:
        keys |= set(re.findall(r'key="(illegal\.[a-z_.]+)"', path.read_text(encoding="utf-8")))
    return keys


def calls(source: str, name: str) -> list[str]:
    """The text of every call ``name(...)`` in ``source``, parentheses matched."""
    found = []
    for match in re.finditer(rf"\b{name}\(", source):
        depth, end = 0, match.end() - 1
        for end in range(match.end() - 1, len(source)):
            depth += {"(": 1, ")": -1}.get(source[end], 0)
            if depth == 0:
                break
        found.append(source[match.start():end + 1])
    return found


def test_every_refusal_the_engines_raise_has_a_message_id() -> None:
    for path in ENGINE_SOURCES:
        source = path.read_text(encoding="utf-8")
        for name in ("IllegalAction", "CardError"):
            for call in calls(source, name):
                if call.startswith(f"{name}(ValueError)"):  # the class statement
                    continue
                assert "key=" in call, f"{path.name}: {call}"


def test_every_message_id_is_in_both_catalogs_with_the_same_keys() -> None:
    keys = raised_keys()
    assert len(keys) > 30
    for key in keys:
        for lang in LANGUAGES:
            assert key in catalog(lang, domain_of(key)), f"{key} missing from {lang}/{domain_of(key)}.po"
    for domain in ("room", "bura", "mpourloto"):
        english = {k for k in catalog("en", domain) if k.startswith(("illegal.", "action."))}
        russian = {k for k in catalog("ru", domain) if k.startswith(("illegal.", "action."))}
        assert english == russian
        unused = {k for k in russian if k.startswith("illegal.") and k.removesuffix(".many") not in keys}
        assert unused == set(), f"{domain}.po has refusals no engine raises: {unused}"


# The English sentences that say cards, combinations or actions by name where the engine's message has codes.
RESPOKEN = {"illegal.bura.not_held", "illegal.bura.kinds", "illegal.bura.kind_not_held", "illegal.mpourloto.empty",
            "illegal.mpourloto.not_now", "illegal.mpourloto.one_card"}
ILLEGAL = ["", "dance", "play", "play XX", "play AS AS", "play 6S", "play 6S 7S", "pass now", "announce",
           "announce bura", "announce moscow", "claim 31", "name X", "name S", "meld", "meld AS", "meld KS QS",
           "accept now", "exchange 7S", "keep", "done", "play 1H", "play 10H 9H JH QH"]


@pytest.mark.parametrize("name, options", [("bura", {"players": 3}), ("bura", {"players": 2, "preset": "moscow"}),
                                           ("mpourloto", {})])
def test_random_refusals_are_all_said_in_both_languages(name: str, options: dict[str, object]) -> None:
    """Random matches with random mistakes: each refusal has a message id, Russian in Cyrillic, English as the
    engine's message (unless it speaks card names or actions), and no template left unfilled."""
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
            english, russian = refusal(exc, "en"), refusal(exc, "ru")
            assert re.search("[а-яё]", russian, re.IGNORECASE), russian
            assert "{" not in english + russian
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
