"""Bura events as sentences: message ids (keys of locale/<lang>/bura.po) and their parameters.

Events arrive as one recipient sees them (after ``events_for``): a secret field is simply absent. A card
parameter comes in the nominative and the accusative (``{card}``, ``{card_acc}``), a combination likewise
(``{kind}``, ``{kind_acc}``); each language's template takes the case its grammar needs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from trickroom.narration import PLURAL, capitalized, player_name, translate
from trickroom.narration.names import card_words, suit_name
from trickroom.narration.refusals import kind_name

Message = tuple[str, dict[str, Any]]
DOMAIN = "bura"


def message(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message | None:
    kind = event.get("type")
    actor = event.get("seat")
    mine = actor is not None and actor == seat
    who = "you" if mine else "other"
    name = player_name(actor, names, lang)
    if kind == "deal":
        dealer = event["dealer"]
        return (f"bura.deal.{'you' if dealer == seat else 'other'}",
                {"hand": event["hand"], "name": player_name(dealer, names, lang),
                 "trumps": suit_name(event["trump"], lang), **card_words("card", event["trump_card"], lang)})
    if kind == "hand":
        return "bura.hand", {"cards": cards_list(event["cards"], lang)}
    if kind == "ante":
        return "bura.ante", {"pot": event["pot"], PLURAL: event["pot"]}
    if kind == "leave":
        return f"bura.leave.{who}", {"name": name}
    if kind == "redeal":
        holders = ", ".join(f"{player_name(h['seat'], names, lang)}: {kind_name(h['kind'], lang)}"
                            for h in event["holders"])
        return "bura.redeal", {"holders": holders}
    if kind == "announce_phase":
        # The pause itself is not said: a person who holds a combination hears it in their turn's sentence
        # (turn.bura.announce), one who holds none is answered for (auto_pass) or asked in theirs (B9, B9a).
        return None
    if kind == "answer":
        answer = event.get("answer")
        if answer is None or answer == "pass":
            return None  # nobody is told who answered, nor that they passed themselves
        announced = answer.split()[1]
        return "bura.answer.announce", {"kind": kind_name(announced, lang),
                                        "kind_acc": kind_name(announced, lang, "acc")}
    if kind == "announced":
        leader = event["leader"]
        lead = "you" if leader == seat else "other"
        made = event["announcements"]
        if not made:
            return None  # nothing happened at the table: the lead (or "Your turn.") follows
        listing = ", ".join(f"{player_name(a['seat'], names, lang)}: {kind_name(a['kind'], lang)}" for a in made)
        return f"bura.announced.{lead}", {"list": listing, "name": player_name(leader, names, lang)}
    if kind == "play":
        return f"bura.play.{who}", {"name": name, **card_words("cards", list(event["cards"]), lang)}
    if kind == "trick":
        winner = event["winner"]
        return (f"bura.trick.{'you' if winner == seat else 'other'}", {"name": player_name(winner, names, lang)})
    if kind == "draw":
        if "card" not in event:
            return "bura.draw.other", {"name": name}
        face_up = ".face_up" if event.get("face_up") else ""
        return f"bura.draw.{who}{face_up}", {"name": name, **card_words("card", event["card"], lang)}
    if kind == "stock_closed":
        return "bura.stock_closed", {"count": event["count"], PLURAL: event["count"]}
    if kind == "claim":
        verdict = "right" if event["right"] else "wrong"
        return f"bura.claim.{who}.{verdict}", {"name": name, "points": event["points"], PLURAL: event["points"]}
    if kind == "hand_end":
        key, params = _hand_end(event, seat, names, lang)
        tally = translate("bura.tally.pot" if "pot" in event else "bura.tally.points", lang, DOMAIN,
                          points=_each(event["points"], range(len(event["points"])), seat, names, lang),
                          scores=_each(event["scores"], range(len(event["scores"])), seat, names, lang))
        return "bura.summary", {"result": translate(key, lang, DOMAIN, **params), "tally": tally}
    if kind == "match_end":
        winner = event["winner"]
        if winner is None:
            key, params = "bura.match_end.none", {}
        else:
            key, params = (f"bura.match_end.{'you' if winner == seat else 'other'}",
                           {"name": player_name(winner, names, lang)})
        scores = event.get("scores")
        if not scores:
            return key, params
        order = event.get("order") or range(len(scores))
        standings = translate("bura.standings", lang, DOMAIN, scores=_each(scores, order, seat, names, lang))
        return "bura.summary", {"result": translate(key, lang, DOMAIN, **params), "tally": standings}
    return None


def _each(values: Sequence[int], seats: Iterable[int], seat: int | None, names: Sequence[str], lang: str) -> str:
    """ "you 45, Anna 31": a number per seat, the listener named "you"."""
    return translate("bura.and.list", lang, DOMAIN).join(
        translate("bura.tally.entry", lang, DOMAIN, value=values[s],
                  name=translate("bura.you", lang, DOMAIN) if s == seat else player_name(s, names, lang))
        for s in seats)


def cards_list(codes: Sequence[str], lang: str) -> str:
    """A hand read out card by card, in the nominative: "ace of spades, seven of hearts, six of clubs"."""
    return ", ".join(card_words("card", code, lang)["card"] for code in codes)


def _hand_end(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    reason = event["reason"]
    winner = event["winner"]
    pot_mode = "pot" in event
    params: dict[str, Any] = {"name": player_name(winner, names, lang), "pot": event.get("pot", 0),
                              "pot_after": event.get("pot_after", 0),
                              "claimant": player_name(event.get("claimant"), names, lang)}
    if winner is not None:
        who = "you" if winner == seat else "other"
        how = reason if reason in ("bura", "moscow") else "claim"
        return f"bura.hand_end.{how}.{who}.{'pot' if pot_mode else 'points'}", params
    if reason == "false-claim":
        who = "you" if event.get("claimant") == seat else "other"
        return f"bura.hand_end.false_claim.{who}.{'pot' if pot_mode else 'points'}", params
    return "bura.hand_end.no_claim", params


def step(events: Sequence[Mapping[str, Any]], seat: int | None, names: Sequence[str],
         lang: str) -> list[str | None] | None:
    """The sentences of one step's events (as ``seat`` sees them) where a person would say them together: the
    end of a trick is one sentence, "You take the trick with the eight of clubs and draw the king of diamonds;
    Bot 2 draws a card." (the play that ended it, who takes it, the draws; "Bot 2 plays the six of clubs; you
    take the trick and draw ..." when the last play does not win). One text per event, None for an
    event said in another's sentence; None altogether when nothing merges (each event is said alone)."""
    at = next((i for i, e in enumerate(events) if e.get("type") == "trick"), None)
    if at is None:
        return None
    trick = events[at]
    winner = trick["winner"]
    texts: list[str | None] = [None] * len(events)
    merged: set[int] = {at}
    played = at - 1 if at > 0 and events[at - 1].get("type") == "play" else None
    with_cards = played is not None and events[played].get("seat") == winner
    parts: list[str] = []
    if played is not None:  # the play that ended the trick: the winner's ("with the ..."), or said first
        merged.add(played)
        if not with_cards:
            parts.append(_played(events[played], seat, names, lang))
    drawn: dict[int, list[Mapping[str, Any]]] = {}
    index = at + 1
    while index < len(events) and events[index].get("type") == "draw" and not events[index].get("face_up"):
        drawn.setdefault(events[index]["seat"], []).append(events[index])
        merged.add(index)
        index += 1
    who = "you" if winner == seat else "other"
    params: dict[str, Any] = {"name": player_name(winner, names, lang)}
    if with_cards:
        assert played is not None
        params.update(card_words("cards", list(events[played]["cards"]), lang))
    took = translate(f"bura.took.{who}{'.with' if with_cards else ''}", lang, DOMAIN, **params)
    if winner in drawn:
        took = translate("bura.and", lang, DOMAIN, first=took, second=_drew(winner, drawn[winner], seat, names,
                                                                               lang, same=True))
    parts.append(took)
    others = [_drew(s, draws, seat, names, lang) for s, draws in drawn.items() if s != winner]
    if others:
        parts.append(translate("bura.and.list", lang, DOMAIN).join(others))
    text = translate("bura.clause", lang, DOMAIN, first=translate("bura.sep", lang, DOMAIN).join(parts))
    for i, event in enumerate(events):
        if i not in merged:
            found = message(event, seat, names, lang)
            if found is not None:
                key, found_params = found
                plural = found_params.pop(PLURAL, None)
                texts[i] = translate(key, lang, DOMAIN, plural=plural, **found_params)
    texts[at] = capitalized(text)
    return texts


def _played(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> str:
    """A play as a clause: "Bot 2 plays the king of clubs"."""
    who = "you" if event.get("seat") == seat else "other"
    params: dict[str, Any] = {"name": player_name(event.get("seat"), names, lang),
                              **card_words("cards", list(event["cards"]), lang)}
    return translate(f"bura.played.{who}", lang, DOMAIN, **params)


def _drew(drawer: int, draws: Sequence[Mapping[str, Any]], seat: int | None, names: Sequence[str], lang: str,
          same: bool = False) -> str:
    """A draw as a clause: "you draw the king of diamonds", "Bot 2 draws a card" (``same``: without its
    subject, after the winner's "takes the trick and")."""
    tail = ".same" if same else ""
    if drawer == seat and all("card" in d for d in draws):
        params: dict[str, Any] = card_words("cards", [str(d["card"]) for d in draws], lang)
        return translate(f"bura.drew.you{tail}", lang, DOMAIN, **params)
    return translate(f"bura.drew.other{tail}", lang, DOMAIN, plural=len(draws), name=player_name(drawer, names, lang),
                     count=len(draws))


def turn(legal: Sequence[str], lang: str) -> Message | None:
    """The turn's sentence where it says more than "Your turn.": Bura's announcement pause, told only to the
    person it asks (B9): "You may announce a Molodka, or pass." (None: the room's "Your turn.")."""
    kinds = [action.split()[1] for action in legal if action.startswith("announce ")]
    if kinds:
        return "bura.turn.announce", {"kind": kind_name(kinds[0], lang), "kind_acc": kind_name(kinds[0], lang, "acc")}
    if "pass" in legal and set(legal) <= {"pass", "claim"}:
        return "bura.turn.pass", {}
    return None


def urgent(event: Mapping[str, Any], seat: int | None) -> bool:
    """An event that calls on the listener now (said assertively): another's claim, which stops the hand
    against you, and an announced Bura or Moscow, which ends it."""
    kind = event.get("type")
    if kind == "claim":
        return event.get("seat") != seat
    if kind == "announced":
        return any(a.get("kind") in ("bura", "moscow") for a in event.get("announcements", ()))
    return False
