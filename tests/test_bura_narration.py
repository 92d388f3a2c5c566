"""Every event type the Bura engine emits is spoken in English and Russian, for every recipient."""

from __future__ import annotations

import random

from trickroom.games import events_for, load_game
from trickroom.narration import catalog, narrate

EVENT_TYPES = {"ante", "leave", "deal", "hand", "redeal", "announce_phase", "answer", "announced", "play", "trick",
               "draw", "stock_closed", "claim", "hand_end", "match_end"}
NAMES = ["Anna", "Boris", "Vera", "Gleb", "Dina", "Egor"]


def sample_events() -> list[dict[str, object]]:
    events: list[dict[str, object]] = []
    rng = random.Random(5)
    for players in (2, 3, 5, 6):
        for preset in ("classic", "moscow"):
            for scoring in ("pot", "points"):
                game = load_game("bura", players=players, preset=preset, scoring=scoring, stack=2, hand_limit=6)
                match = game.new_match(seed=players)
                while not match.is_over:
                    seat = rng.choice(match.to_act)
                    legal = match.legal_actions(seat)
                    announce = [a for a in legal if a.startswith("announce")]
                    if announce:
                        action = announce[0]
                    elif rng.random() < 0.03:
                        action = "claim"
                    else:
                        action = rng.choice([a for a in legal if a != "claim"])
                    match.apply(seat, action)
                events += match.events
    return events


def test_every_event_type_is_narrated_in_both_languages_for_every_recipient() -> None:
    events = sample_events()
    assert {e["type"] for e in events} == EVENT_TYPES
    for viewer in (0, 1, None):
        for event in events_for(events, viewer):
            for lang in ("en", "ru"):
                sentence = narrate("bura", event, viewer, lang, NAMES)
                assert sentence, (event, lang)
                assert "{" not in sentence and not sentence.startswith("bura."), (sentence, event)
                if lang == "ru":
                    assert any("а" <= ch <= "я" for ch in sentence.lower()), sentence


def test_both_catalogs_have_the_same_keys() -> None:
    assert catalog("en", "bura").keys() == catalog("ru", "bura").keys()
    assert len(catalog("en", "bura")) > 40


def test_plays_are_spoken_for_yourself_and_for_others() -> None:
    event = {"type": "play", "seat": 0, "cards": ["QS", "7S"]}
    assert narrate("bura", event, 0, "en", NAMES) == "You play the queen and seven of spades."
    assert narrate("bura", event, 1, "en", NAMES) == "Anna plays the queen and seven of spades."
    assert narrate("bura", event, 1, "ru", ["Анна"]) == "Анна играет даму и семёрку пик."
    assert narrate("bura", {"type": "answer", "seat": 0}, 1, "en", NAMES) == "Anna has answered."
    assert narrate("bura", {"type": "draw", "seat": 2}, 1, "en", NAMES) == "Vera draws a card."


def test_the_face_up_card_of_a_deal_is_named_in_the_nominative() -> None:
    event = {"type": "deal", "hand": 1, "dealer": 0, "trump": "H", "trump_card": "QH"}
    assert narrate("bura", event, 1, "ru", ["Анна", "Борис"]).endswith("открыта карта: дама червей.")
    assert narrate("bura", event, 1, "en", NAMES).endswith("queen of hearts.")
