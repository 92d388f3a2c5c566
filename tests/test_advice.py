"""The hard bot as a teacher, without a server: hints on prearranged deals where one move is clearly right (a
claim-winning beat in Bura, a forced overtrump in Mpourloto), said in English, Russian and Greek; reasons from
what the seat can see only; the review of a hand that names a thrown-away winning trick first."""

from __future__ import annotations

import pytest
from teaching_helpers import (
    BURA_OPENING,
    BURA_OPTIONS,
    BURA_RIGHT,
    BURA_WRONG,
    MPOURLOTO_RIGHT,
    bura_at_the_beat,
    bura_deck,
    mpourloto_at_the_overtrump,
    pass_announcements,
    thrown_away_hand,
)

from trickroom.bots.advice import WIN, Advice, advise, finished_hands, hand_decisions, mistakes
from trickroom.bots.search import Budget
from trickroom.games import Match, events_for, load_game
from trickroom.narration.advice import hint_text, review_item_text, review_summary

BUDGET = Budget(60.0, 300)  # a cap on worlds, never the clock: the same answer on a busy machine


def advice_at(match: Match, seat: int, budget: Budget = BUDGET) -> Advice:
    return advise(match.game, seat, match.view(seat), events_for(match.events, seat), match.legal_actions(seat),
                  seed=3, budget=budget)


def test_bura_hint_beats_for_the_claim_and_says_why_in_three_languages() -> None:
    match = bura_at_the_beat()
    advice = advice_at(match, 1)
    assert advice.action == BURA_RIGHT
    assert advice.reason == "beat_claim"
    assert advice.facts == {"cards": ["AH"], "points": 21, "total": 36, "target": 31, "value": 1.0}
    assert advice.unit == WIN and advice.estimates[0].action == BURA_RIGHT
    assert {e.action for e in advice.estimates} == {"play AH", "play 8C", "play 7S"}
    assert hint_text("bura", advice, "en") == ("Beat with the ace of hearts: it takes 21 points and brings you to "
                                               "36, enough to claim.")
    assert hint_text("bura", advice, "ru") == ("Побейте, сыграв туза червей: взятка даст 21 очко, у вас станет 36 — "
                                               "хватит, чтобы заявить 31.")
    assert hint_text("bura", advice, "el") == ("Πάρτε την μπάζα με τον άσο κούπα: σας δίνει 21 πόντους και φτάνετε "
                                               "τους 36, αρκετούς για να δηλώσετε 31.")


def test_bura_hint_after_the_beat_is_the_claim() -> None:
    match = bura_at_the_beat()
    match.apply(1, BURA_RIGHT)
    advice = advice_at(match, 1)
    assert (advice.action, advice.reason, advice.facts) == ("claim", "claim", {"points": 36, "target": 31})
    assert hint_text("bura", advice, "en") == "Claim now: you have 36 points, and 31 are enough."
    assert hint_text("bura", advice, "ru") == "Заявляйте 31: у вас 36 очков, а нужно 31."


def test_mpourloto_hint_names_the_forced_overtrump_in_three_languages() -> None:
    match = mpourloto_at_the_overtrump()
    assert match.legal_actions(0) == [MPOURLOTO_RIGHT]
    advice = advice_at(match, 0)
    assert (advice.action, advice.reason, advice.facts) == (MPOURLOTO_RIGHT, "overtrump", {"card": "JH", "top": "AH"})
    assert hint_text("mpourloto", advice, "en") == ("Overtrump with the jack of hearts: you must beat the ace of "
                                                    "hearts on the table.")
    assert hint_text("mpourloto", advice, "ru") == ("Перебейте козырем, сыграв валета червей: нужно перебить туза "
                                                    "червей на столе.")
    assert hint_text("mpourloto", advice, "el") == ("Ανεβείτε με τον βαλέ κούπα: πρέπει να παίξετε πάνω από τον άσο "
                                                    "κούπα στο τραπέζι.")


def test_mpourloto_hint_with_a_real_choice_gives_the_searchs_outlook() -> None:
    match = mpourloto_at_the_overtrump()
    match.apply(0, MPOURLOTO_RIGHT)  # seat 0 takes the trick and leads: a free choice
    advice = advice_at(match, 0, Budget(60.0, 40))
    assert advice.unit == "points" and advice.worlds == 40
    assert advice.action in match.legal_actions(0) and len(advice.estimates) == len(match.legal_actions(0))
    assert [e.value for e in advice.estimates] == sorted((e.value for e in advice.estimates), reverse=True)
    text = hint_text("mpourloto", advice, "en")
    assert text.startswith("Play the ") and "your team should end this hand about" in text, text


def test_a_hint_reads_only_what_the_seat_sees() -> None:
    """The same view and events with the other hands swapped give the same advice: nothing hidden is read."""
    match = bura_at_the_beat()
    other = load_game("bura", **BURA_OPTIONS).new_match(seed=1, decks=[_swapped_opponent_deck()])
    for seat, action in BURA_OPENING:
        pass_announcements(other)
        other.apply(seat, action)
    pass_announcements(other)
    assert other.view(1) == match.view(1) and events_for(other.events, 1) == events_for(match.events, 1)
    assert match.view(0) != other.view(0)
    assert advice_at(match, 1) == advice_at(other, 1)


def _swapped_opponent_deck() -> list[str]:
    """The Bura deal with seat 0's cards drawn from the stock swapped with others it never shows."""
    deck = bura_deck()
    # Seat 0 draws the eight of spades and the seven of clubs, which seat 1 never sees: other cards instead.
    for card, other in (("8S", "QD"), ("7C", "KD")):
        i, j = deck.index(card), deck.index(other)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_the_review_names_the_thrown_away_winning_trick_first() -> None:
    match, actions = thrown_away_hand()
    game = match.game
    assert finished_hands(game, 1, [bura_deck()], actions) == 1
    decisions = hand_decisions(game, 1, [bura_deck()], actions, 1, 1)
    assert decisions is not None and BURA_WRONG in [d.played for d in decisions]
    assert all(d.seat == 1 and len([a for a in d.legal if a != "claim"]) > 1 for d in decisions)
    assert hand_decisions(game, 1, [bura_deck()], actions, 2, 1) is None  # no second hand was finished
    advices = [advise(game, 1, d.view, d.events, d.legal, seed=d.move, budget=BUDGET) for d in decisions]
    items = mistakes(decisions, advices)
    first = items[0]
    assert (first["played"], first["better"], first["context"]) == (BURA_WRONG, BURA_RIGHT,
                                                                     {"phase": "play", "trick": 3})
    assert first["loss"] > 0.3 and first["unit"] == WIN
    assert [item["loss"] for item in items] == sorted((item["loss"] for item in items), reverse=True)
    assert review_item_text(first, "en").startswith(
        "Trick 3: you chose to play the seven of spades; better to play the ace of hearts, about ")
    assert review_item_text(first, "ru").startswith(
        "Взятка 3: вы выбрали «сыграть семёрку пик»; лучше было «сыграть туза червей»")
    assert review_item_text(first, "el").startswith(
        "Μπάζα 3: επιλέξατε «παίζω το εφτάρι μπαστούνι»· καλύτερα «παίζω τον άσο κούπα»")
    assert review_summary(1, items, "en").startswith(f"Review of hand 1: {len(items)} decision")
    assert review_summary(1, [], "en") == "Review of hand 1: the hard bot agrees with every choice you made."


@pytest.mark.parametrize("lang", ["en", "ru", "el"])
def test_every_hint_reason_has_its_sentence(lang: str) -> None:
    """Each reason the advice gives is said in each language, with its outlook where the search decides."""
    cases = [("bura", Advice("play 7S", WIN, reason="lead", facts={"cards": ["7S"], "value": 0.62})),
             ("bura", Advice("play 7S", WIN, reason="throw", facts={"cards": ["7S"], "points": 0, "value": 0.4})),
             ("bura", Advice("play KS", WIN, reason="beat", facts={"cards": ["KS"], "points": 14, "total": 20,
                                                                    "value": 0.5})),
             ("bura", Advice("announce bura", WIN, reason="announce_wins", facts={"kind": "bura"})),
             ("bura", Advice("announce aces", WIN, reason="announce", facts={"kind": "aces"})),
             ("bura", Advice("pass", WIN, reason="estimate", facts={"action": "pass", "value": 0.3})),
             ("mpourloto", Advice("accept", "points", reason="bid_accept", facts={"suit": "H", "value": 30.4})),
             ("mpourloto", Advice("pass", "points", reason="bid_pass", facts={"suit": "H", "value": -12.0})),
             ("mpourloto", Advice("name S", "points", reason="bid_name", facts={"suit": "S", "value": 0.2})),
             ("mpourloto", Advice("play 9S", "points", reason="trump", facts={"card": "9S", "led": "H"})),
             ("mpourloto", Advice("play 9S", "points", reason="follow", facts={"card": "9S", "led": "S"})),
             ("mpourloto", Advice("play TS", "points", reason="win_trick", facts={"card": "TS", "points": 25})),
             ("mpourloto", Advice("meld KH QH JH", "points", reason="meld", facts={"cards": ["KH", "QH", "JH"]})),
             ("mpourloto", Advice("exchange", "points", reason="exchange", facts={"suit": "H"})),
             ("bura", Advice("play 7S", WIN, reason="lead", facts={"cards": ["7S"]}))]  # no estimate: the fallback
    for game, advice in cases:
        text = hint_text(game, advice, lang)
        assert text and "{" not in text and not text.startswith("hint."), (game, advice.reason, text)
    assert hint_text("bura", cases[-1][1], "en") == "The hard bot would play the seven of spades."
    assert hint_text("mpourloto", cases[6][1], "en") == ("Accept hearts as trumps: your team should end this hand "
                                                         "about 30 points ahead.")
