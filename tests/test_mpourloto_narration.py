"""Mpourloto sentences: every event type the engine emits is spoken in English and Russian, for every listener."""

from __future__ import annotations

from test_mpourloto_scenarios import (
    BALANCED,
    CAPO,
    EXCHANGE,
    MELDS,
    act,
    balanced_hand,
    deck_from,
    new,
    play_first_legal,
)

from trickroom.games import events_for
from trickroom.games.mpourloto import MpourlotoMatch
from trickroom.narration import narrate
from trickroom.narration.mpourloto import EVENT_TYPES, points_text

NAMES = ["Anna", "Boris", "Clara", "Dmitri"]


def spoken(match: MpourlotoMatch, seat: int | None, lang: str) -> list[str]:
    sentences = [narrate("mpourloto", e, seat, lang, NAMES) for e in events_for(match.events, seat)]
    return [s for s in sentences if s is not None]


def scenario_matches() -> list[MpourlotoMatch]:
    exchange = new([deck_from(EXCHANGE, "KH"), deck_from(EXCHANGE, "KH")])
    act(exchange, *["pass"] * 8, "accept", "keep")  # thrown in, then a keep
    second = new([deck_from(EXCHANGE, "KH")])
    act(second, "accept", "exchange")
    melds = new([deck_from(MELDS, "7H")])
    act(melds, "accept", "meld KH QH JH", "meld KH QH", "done", "meld AD KD QD JD", "done", "done",
        "meld 7S 7H 7D 7C", "done")
    play_first_legal(melds)
    capo = new([deck_from(CAPO, "7S")])
    act(capo, *["pass"] * 4, "name H", "done", "done", "done", "done")
    play_first_legal(capo)
    deck = deck_from(BALANCED, "7H")
    extra = new([deck] * 3, target=150)
    for _ in range(3):
        balanced_hand(extra)
    ended = new([deck], target=100)
    balanced_hand(ended)
    return [exchange, second, melds, capo, extra, ended]


def test_every_event_type_is_spoken_in_both_languages() -> None:
    seen: set[str] = set()
    for match in scenario_matches():
        for seat in (0, 1, 2, 3, None):
            events = events_for(match.events, seat)
            seen |= {e["type"] for e in events}
            for lang in ("en", "ru"):
                for event in events:
                    sentence = narrate("mpourloto", event, seat, lang, NAMES)
                    if event["type"] == "meld_done" and event["declared"]:
                        assert sentence is None
                        continue
                    assert sentence and "{" not in sentence and not sentence.startswith("mpourloto"), event
    assert seen == EVENT_TYPES


def test_sentences_say_you_for_yourself_and_explain_scores() -> None:
    match = new([deck_from(BALANCED, "7H")], target=100)
    balanced_hand(match)
    english = spoken(match, 0, "en")
    assert english[0] == "Hand 1. You deal; the face-up card is the seven of hearts."
    assert "Boris accepts hearts as trumps." in english
    assert "Boris plays the king of spades." in english and "You play the ace of spades." in english
    assert "Boris wins the last trick: 34 points. The other team takes the last trick: 10 points." in english
    assert ("Hand 1: your team has 60 points, the other team 102 points; the other team made trumps and scored "
            "more, so each team adds its own. Score 60 to 102.") in english
    assert english[-1] == "The other team wins the match, 102 to 60."
    russian = spoken(match, 1, "ru")
    assert "Вы соглашаетесь: козыри — червы." in russian
    assert "Anna играет туза пик." in russian and "Вы играете короля пик." in russian
    assert russian[-1] == "Ваша команда выигрывает партию со счётом 102 : 60."
    spectator = spoken(match, None, "en")
    assert spectator[-1] == "The team of Boris and Dmitri wins the match, 102 to 60."


def test_mesa_is_explained() -> None:
    match = new([deck_from(CAPO, "7S")])
    act(match, *["pass"] * 4, "name H", "meld AS KS QS", "done", "done", "done", "done")
    play_first_legal(match)
    english = spoken(match, 2, "en")
    assert any(s.startswith("You win the last trick") and "Capo: your team took every trick and scores 90 points."
               in s for s in english)
    assert ("Hand 1: your team has 242 points, the other team 20 points. Mesa: the other team made trumps without "
            "scoring more, so your team adds all 262 points. Score 262 to 0.") in english


def test_russian_plural_forms() -> None:
    assert [points_text(n, "ru") for n in (1, 2, 5, 11, 14, 21, 22, 102, 111)] == [
        "1 очко", "2 очка", "5 очков", "11 очков", "14 очков", "21 очко", "22 очка", "102 очка", "111 очков"]
