"""Every event type the Bura engine emits is spoken in English, Russian and Greek, for every recipient."""

from __future__ import annotations

import random

from trickroom.games import events_for, load_game
from trickroom.narration import LANGUAGES, catalog, narrate, narrate_step, turn_sentence

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


def unsaid(event: dict[str, object]) -> bool:
    """What nobody needs to hear (accessibility.md, speech economy): the pause itself (the person it asks hears
    their turn's sentence), who answered it or that you passed, and that no one announced."""
    kind = event["type"]
    return (kind == "announce_phase" or (kind == "answer" and event.get("answer") in (None, "pass"))
            or (kind == "announced" and not event["announcements"]))


def test_every_event_type_is_narrated_in_every_language_for_every_recipient() -> None:
    events = sample_events()
    assert {e["type"] for e in events} == EVENT_TYPES
    for viewer in (0, 1, None):
        for event in events_for(events, viewer):
            for lang in LANGUAGES:
                sentence = narrate("bura", event, viewer, lang, NAMES)
                if unsaid(event):
                    assert sentence is None, (event, lang)
                    continue
                assert sentence, (event, lang)
                assert "{" not in sentence and not sentence.startswith("bura."), (sentence, event)
                if lang == "ru":
                    assert any("а" <= ch <= "я" for ch in sentence.lower()), sentence
                if lang == "el":
                    assert any("α" <= ch <= "ω" for ch in sentence.lower()), sentence


def test_every_catalog_has_the_same_keys() -> None:
    for lang in LANGUAGES:
        assert catalog(lang, "bura").keys() == catalog("en", "bura").keys(), lang
    assert len(catalog("en", "bura")) > 40


def test_plays_are_spoken_for_yourself_and_for_others() -> None:
    event = {"type": "play", "seat": 0, "cards": ["QS", "7S"]}
    assert narrate("bura", event, 0, "en", NAMES) == "You play the queen and seven of spades."
    assert narrate("bura", event, 1, "en", NAMES) == "Anna plays the queen and seven of spades."
    assert narrate("bura", event, 1, "ru", ["Анна"]) == "Анна играет даму и семёрку пик."
    assert narrate("bura", event, 1, "el", ["Άννα"]) == "Άννα παίζει την ντάμα και το εφτάρι μπαστούνι."
    mixed = {"type": "play", "seat": 0, "cards": ["AH", "KC"]}
    assert narrate("bura", mixed, 0, "el", NAMES) == "Παίζετε τον άσο κούπα και τον ρήγα σπαθί."
    assert narrate("bura", {"type": "answer", "seat": 0}, 1, "en", NAMES) is None  # nobody is told who answered
    assert narrate("bura", {"type": "draw", "seat": 2}, 1, "en", NAMES) == "Vera draws a card."


def test_the_face_up_card_of_a_deal_is_named_in_the_nominative() -> None:
    event = {"type": "deal", "hand": 1, "dealer": 0, "trump": "H", "trump_card": "QH"}
    assert narrate("bura", event, 1, "ru", ["Анна", "Борис"]).endswith("открыта карта: дама червей.")
    assert narrate("bura", event, 1, "en", NAMES).endswith("queen of hearts.")
    assert narrate("bura", event, 1, "el", NAMES).endswith("Ατού: κούπες, ανοιχτό φύλλο: ντάμα κούπα.")


def test_a_false_claim_of_your_own_says_you() -> None:
    """Offline, seat 0 is called "You": the claimant of a false claim was "You pays the penalty"."""
    event = {"type": "hand_end", "reason": "false-claim", "winner": None, "claimant": 0, "pot": 2, "pot_after": 4,
             "points": [12, 3], "scores": [17, 19]}
    names = ["You", "Anna"]
    assert narrate("bura", event, 0, "en", names).startswith(
        "No one wins the hand: you pay the penalty, and the pot of 4 carries over.")
    assert narrate("bura", event, 0, "el", names).startswith(
        "Κανείς δεν κερδίζει τη μοιρασιά: πληρώνετε πρόστιμο και το ποτ (4) μεταφέρεται.")
    assert narrate("bura", {**event, "claimant": 1}, 0, "ru", ["Вы", "Анна"]).startswith(
        "Раздачу никто не выиграл: Анна платит штраф, банк (4) переходит дальше.")


def test_the_end_of_a_hand_says_who_won_why_the_card_points_and_the_score() -> None:
    """Issue 21: a hand's summary (who, why, card points per player, game points or chips now), one sentence
    group, the listener as "you"."""
    event = {"type": "hand_end", "reason": "claim", "winner": 1, "claimant": 1, "points": [12, 33],
             "scores": [0, 2], "pot_after": 0}
    assert narrate("bura", event, 0, "en", NAMES) == (
        "Boris wins the hand and scores a point. Card points: you 12, Boris 33. Score: you 0, Boris 2.")
    assert narrate("bura", event, 0, "ru", ["Анна", "Борис"]) == (
        "Раздачу выигрывает Борис и получает очко. Очки в картах: вы — 12, Борис — 33. Счёт: вы — 0, Борис — 2.")
    assert narrate("bura", {**event, "pot": 3}, None, "el", ["Άννα", "Μπόρις"]).endswith(
        "Πόντοι στα φύλλα: Άννα 12, Μπόρις 33. Μάρκες: Άννα 0, Μπόρις 2.")


def test_the_end_of_a_match_gives_the_final_standings_best_first() -> None:
    event = {"type": "match_end", "winner": 1, "order": [1, 2, 0], "scores": [1, 7, 3]}
    names = ["Anna", "Boris", "Clara"]
    assert narrate("bura", event, 0, "en", names) == (
        "The match is over. Boris wins. Final score: Boris 7, Clara 3, you 1.")
    assert narrate("bura", event, 1, "ru", names).endswith("Итоговый счёт: вы — 7, Clara — 3, Anna — 1.")
    assert narrate("bura", event, 2, "el", names).endswith("Τελικό σκορ: Boris 7, εσείς 3, Anna 1.")


def test_the_end_of_a_trick_is_one_sentence_in_every_language() -> None:
    """The play that ended it, who takes it, the draws: "You take the trick with the eight of clubs and draw the
    king of diamonds." (issue 21)."""
    won = [{"type": "play", "seat": 0, "cards": ["8C"]}, {"type": "trick", "winner": 0, "cards": ["7C", "8C"]},
           {"type": "draw", "seat": 0, "card": "KD"}, {"type": "draw", "seat": 1}]
    assert narrate_step("bura", won, 0, "en", NAMES) == [
        None, "You take the trick with the eight of clubs and draw the king of diamonds; Boris draws a card.", None,
        None]
    lost = [{"type": "play", "seat": 1, "cards": ["6C"]}, {"type": "trick", "winner": 0, "cards": ["AC", "6C"]},
            {"type": "draw", "seat": 0}, {"type": "draw", "seat": 1, "card": "9S"},
            {"type": "announce_phase", "trick": 2, "seats": [0, 1]}]
    assert narrate_step("bura", lost, 1, "en", NAMES) == [
        None, "You play the six of clubs; Anna takes the trick and draws a card; you draw the nine of spades.", None,
        None, None]
    assert narrate_step("bura", lost, 1, "ru", ["Анна", "Борис"])[1] == (
        "Вы играете шестёрку треф; Анна берёт взятку и берёт из колоды 1 карту; вы берёте из колоды девятку пик.")
    assert narrate_step("bura", lost, 1, "el", ["Άννα", "Μπόρις"])[1] == (
        "Παίζετε το εξάρι σπαθί· Άννα παίρνει την μπάζα και τραβάει 1 φύλλο· τραβάτε το εννιάρι μπαστούνι.")
    assert narrate_step("bura", [{"type": "play", "seat": 1, "cards": ["6C"]}], 0, "en", NAMES) is None


def test_the_announcement_pause_is_one_sentence_to_the_person_it_asks() -> None:
    assert turn_sentence("bura", ["pass", "announce molodka", "claim"], "en") == "You may announce a Molodka, or pass."
    assert turn_sentence("bura", ["pass", "announce molodka", "claim"], "ru") == (
        "Можно объявить молодку или сказать «пас».")
    assert turn_sentence("bura", ["pass", "claim"], "en") == "Announcements: you hold no combination; pass."
    assert turn_sentence("bura", ["play 7S", "claim"], "el") == "Σειρά σας."
