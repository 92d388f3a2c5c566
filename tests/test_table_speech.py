"""What a person hears at the table (issue 21, accessibility.md's speech economy), through the pure table state:
Bura's announcement pause answered for whoever holds nothing (auto_pass, rulings B9a), one sentence naming a
held combination, nobody told who answered, a trick's end in one sentence, and the urgency of each message."""

from __future__ import annotations

from table_helpers import Desk, person

from trickroom import cards

# Seat 0 (the host) deals; seat 1 leads. Clubs are trumps (the face-up 9C).
QUIET = ["AS", "6C", "KS", "8D", "7H", "JH", "9C"]  # seat 1: AS KS 7H, seat 0: 6C 8D JH; no combination
MOLODKA = ["AS", "6C", "KS", "8D", "QS", "JH", "9C"]  # seat 1: AS KS QS, a Molodka in spades


def desk_with(deck: list[str], auto_pass: bool = True) -> tuple[Desk, dict[str, str]]:
    full = deck + [c for c in cards.DECK_36 if c not in deck]
    desk = Desk(options={"players": 2, "scoring": "points"}, seed=5, decks=[full])
    ira = person("Ira")
    desk.auto_pass = {desk.host["id"]: auto_pass, ira["id"]: auto_pass}
    desk.seated(desk.host, ira)
    return desk, ira


def test_nobody_holding_a_combination_the_pause_passes_unheard_and_the_leader_hears_one_turn() -> None:
    desk, ira = desk_with(QUIET)
    host_heard = desk.send(desk.host, "start")
    match = desk.state.match
    assert match is not None and match.phase == "play" and match.to_act == [1]
    assert [a for _, a in match.actions] == ["pass", "pass"]  # answered for both, in the same step
    heard = desk.take(ira)
    turns = [m for m in heard if m["type"] == "your_turn"]
    assert [m["text"] for m in turns] == ["Your turn."] and turns[0]["urgency"] == "assertive"
    texts = [m.get("text") for m in heard if m["type"] == "event"]
    assert not any(t and ("answer" in t or "announce" in t.lower() or "pass" in t) for t in texts), texts
    assert [m for m in host_heard if m["type"] == "your_turn"] == []  # answered for: no "Your turn." for it
    assert any(m["type"] == "update" for m in host_heard)


def test_a_held_combination_is_named_in_one_sentence_and_the_pause_waits_for_its_holder() -> None:
    desk, ira = desk_with(MOLODKA)
    desk.send(desk.host, "start")
    match = desk.state.match
    assert match is not None and match.phase == "announce" and match.to_act == [1]
    heard = desk.take(ira)
    assert [m["text"] for m in heard if m["type"] == "your_turn"] == ["You may announce a Molodka, or pass."]
    # The host, who passed at once, hears nothing of who answered; Ira's announcement is public.
    desk.send(ira, "act", action="announce molodka")
    host_texts = [t for t in desk.texts(desk.host, type="event") if t]
    assert host_texts == ["Announced: Ira: Molodka. Ira leads.", "Ira plays the ace, king and queen of spades."]


def test_with_auto_pass_off_the_person_is_asked_to_pass() -> None:
    desk, ira = desk_with(QUIET, auto_pass=False)
    desk.send(desk.host, "start")
    assert [m["text"] for m in desk.take(ira) if m["type"] == "your_turn"] == [
        "Announcements: you hold no combination; pass."]
    desk.send(ira, "act", action="pass")
    assert not any("answered" in t for t in desk.texts(desk.host))  # nobody is told who answered
    desk.auto_pass[desk.host["id"]] = True  # turned on while the room waits for the host's pass
    from trickroom.server.table_parts import LanguageChanged

    desk.step(LanguageChanged(desk.host, "en", auto_pass=True))
    assert desk.state.match is not None and desk.state.match.phase == "play"


def test_the_end_of_a_trick_is_one_sentence_and_events_are_polite() -> None:
    desk, ira = desk_with(QUIET)
    desk.send(desk.host, "start")
    desk.take(desk.host)
    desk.send(ira, "act", action="play AS")
    desk.take(desk.host)
    desk.take(ira)
    got = desk.send(desk.host, "act", action="play 6C")  # trumps: the host takes the trick
    heard = [m for m in got if m["type"] == "event" and m.get("text")]
    (said,) = heard
    assert said["text"].startswith("You take the trick with the six of clubs and draw the "), said["text"]
    assert said["text"].endswith("; Ira draws a card.") and said["urgency"] == "polite"
    ira_heard = [m["text"] for m in desk.take(ira) if m["type"] == "event" and m.get("text")]
    assert len(ira_heard) == 1, ira_heard
    assert ira_heard[0].startswith("Host takes the trick with the six of clubs and draws a card; you draw the ")
