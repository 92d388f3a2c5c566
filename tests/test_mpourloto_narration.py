"""Mpourloto sentences: every event type the engine emits is spoken in English, Russian and Greek, for every
listener."""

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
from trickroom.narration import LANGUAGES, narrate
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


def test_every_event_type_is_spoken_in_every_language() -> None:
    seen: set[str] = set()
    for match in scenario_matches():
        for seat in (0, 1, 2, 3, None):
            events = events_for(match.events, seat)
            seen |= {e["type"] for e in events}
            for lang in LANGUAGES:
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
    assert english[0] == "Hand 1. You deal; the face-up card is the seven of hearts. Your partner is Clara."
    assert "Boris accepts hearts as trumps." in english
    assert "Boris plays the king of spades." in english and "You play the ace of spades." in english
    assert "Boris wins the last trick: 34 points, and 10 points more for the other team." in english
    assert ("Hand 1: your team has 60 points, the other team 102 points; the other team made trumps and scored "
            "more, so each team adds its own. Score 60 to 102.") in english
    assert english[-1] == "The other team wins the match, 102 to 60."
    russian = spoken(match, 1, "ru")
    assert "Вы соглашаетесь: козыри — червы." in russian
    assert "Anna играет туза пик." in russian and "Вы играете короля пик." in russian
    assert russian[-1] == "Ваша команда выигрывает партию со счётом 102 : 60."
    spectator = spoken(match, None, "en")
    assert spectator[-1] == "The team of Boris and Dmitri wins the match, 102 to 60."
    greek = spoken(match, 1, "el")
    assert "Παίρνετε το κόζι: κούπες." in greek
    assert "Anna παίζει τον άσο μπαστούνι." in greek and "Παίζετε τον ρήγα μπαστούνι." in greek
    assert ("Μοιρασιά 1: η ομάδα σας έχει 102 πόντους, η άλλη ομάδα 60 πόντους. Η ομάδα σας όρισε το κόζι και "
            "μάζεψε περισσότερους, οπότε κάθε ομάδα γράφει τους δικούς της. Σκορ 102 προς 60.") in greek
    assert greek[-1] == "Η ομάδα σας κερδίζει την παρτίδα, 102 προς 60."


def test_mesa_is_explained() -> None:
    match = new([deck_from(CAPO, "7S")])
    act(match, *["pass"] * 4, "name H", "meld AS KS QS", "done", "done", "done", "done")
    play_first_legal(match)
    english = spoken(match, 2, "en")
    assert any(s.startswith("You win the last trick") and "capo: your team took every trick and scores 90 points."
               in s for s in english)
    assert ("Hand 1: your team has 242 points, the other team 20 points. Mesa: the other team made trumps without "
            "scoring more, so your team adds all 262 points. Score 262 to 0. Melds in it: your team 0, the other "
            "team 20.") in english


def test_plural_forms_come_from_each_catalog() -> None:
    assert [points_text(n, "ru") for n in (1, 2, 5, 11, 14, 21, 22, 102, 111)] == [
        "1 очко", "2 очка", "5 очков", "11 очков", "14 очков", "21 очко", "22 очка", "102 очка", "111 очков"]
    assert [points_text(n, "el") for n in (1, 2, 21)] == ["1 πόντος", "2 πόντοι", "21 πόντοι"]
    assert [points_text(n, "el", "acc") for n in (1, 2)] == ["1 πόντο", "2 πόντους"]
    assert [points_text(n, "en") for n in (0, 1, 2)] == ["0 points", "1 point", "2 points"]


def test_the_partner_is_named_at_the_first_deal_and_the_russian_deal_is_not_the_hands_end() -> None:
    """Issue 21: the partner is named when the match starts; "Раздача закончена" read as "the hand is over"."""
    from trickroom.narration import narrate

    deal = {"type": "deal", "hand": 1, "dealer": 3, "face_up": "AS"}
    names = ["Anna", "Boris", "Clara", "Dmitri"]
    assert narrate("mpourloto", deal, 0, "en", names).endswith("Your partner is Clara.")
    assert narrate("mpourloto", deal, 1, "ru", names).endswith("Ваш партнёр: Dmitri.")
    assert narrate("mpourloto", deal, 2, "el", names).endswith("Συμπαίκτης σας: Anna.")
    assert "partner" not in narrate("mpourloto", {**deal, "hand": 2}, 0, "en", names)
    assert "partner" not in narrate("mpourloto", deal, None, "en", names)
    complete = {"type": "deal_complete", "dealer": 0, "card": "AS"}
    for seat in (0, 1):
        assert not narrate("mpourloto", complete, seat, "ru", names).startswith("Раздача закончена")


def test_a_hand_with_melds_says_how_much_of_each_total_the_melds_made() -> None:
    """Issue 21: the hand's summary names the melds' share, your team first; a hand without melds says nothing
    more."""
    event = {"type": "hand_end", "hand": 2, "trump_team": 1, "totals": [40, 122], "scores": [40, 122],
             "mesa": False, "meld_points": [0, 70]}
    assert narrate("mpourloto", event, 1, "en", NAMES).endswith(
        "Score 122 to 40. Melds in it: your team 70, the other team 0.")
    assert narrate("mpourloto", event, 0, "ru", NAMES).endswith(
        "Из них комбинации: ваша команда — 0, другая команда — 70.")
    assert "Melds" not in narrate("mpourloto", {**event, "meld_points": [0, 0]}, 1, "en", NAMES)
