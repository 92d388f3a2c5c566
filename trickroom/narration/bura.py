"""Bura events as sentences: message ids (keys of locale/<lang>/bura.po) and their parameters.

Events arrive as one recipient sees them (after ``events_for``): a secret field is simply absent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from trickroom import cards
from trickroom.narration import player_name, translate

Message = tuple[str, dict[str, Any]]


def _kind(kind: str, lang: str, case: str = "nom") -> str:
    return translate(f"bura.kind.{kind}" + (".acc" if case == "acc" else ""), lang, domain="bura")


def _cards(codes: Sequence[str], lang: str) -> str:
    return cards.cards_name(list(codes), lang, case="acc")


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
                 "trumps": cards.suit_name(event["trump"], lang),
                 "card": cards.card_name(event["trump_card"], lang)})
    if kind == "hand":
        return "bura.hand", {"cards": ", ".join(cards.card_name(c, lang) for c in event["cards"])}
    if kind == "ante":
        return "bura.ante", {"pot": event["pot"]}
    if kind == "leave":
        return f"bura.leave.{who}", {"name": name}
    if kind == "redeal":
        holders = ", ".join(f"{player_name(h['seat'], names, lang)}: {_kind(h['kind'], lang)}"
                            for h in event["holders"])
        return "bura.redeal", {"holders": holders}
    if kind == "announce_phase":
        return "bura.announce_phase", {"trick": event["trick"]}
    if kind == "answer":
        answer = event.get("answer")
        if answer is None:
            return "bura.answer.other", {"name": name}
        if answer == "pass":
            return "bura.answer.pass", {}
        return "bura.answer.announce", {"kind": _kind(answer.split()[1], lang, "acc")}
    if kind == "announced":
        leader = event["leader"]
        lead = "you" if leader == seat else "other"
        made = event["announcements"]
        if not made:
            return f"bura.announced.none.{lead}", {"name": player_name(leader, names, lang)}
        listing = ", ".join(f"{player_name(a['seat'], names, lang)}: {_kind(a['kind'], lang)}" for a in made)
        return f"bura.announced.{lead}", {"list": listing, "name": player_name(leader, names, lang)}
    if kind == "play":
        return f"bura.play.{who}", {"name": name, "cards": _cards(event["cards"], lang)}
    if kind == "trick":
        winner = event["winner"]
        return (f"bura.trick.{'you' if winner == seat else 'other'}", {"name": player_name(winner, names, lang)})
    if kind == "draw":
        if "card" not in event:
            return "bura.draw.other", {"name": name}
        face_up = ".face_up" if event.get("face_up") else ""
        return f"bura.draw.{who}{face_up}", {"name": name, "card": cards.card_name(event["card"], lang, case="acc")}
    if kind == "stock_closed":
        return "bura.stock_closed", {"count": event["count"]}
    if kind == "claim":
        verdict = "right" if event["right"] else "wrong"
        return f"bura.claim.{who}.{verdict}", {"name": name, "points": event["points"]}
    if kind == "hand_end":
        return _hand_end(event, seat, names, lang)
    if kind == "match_end":
        winner = event["winner"]
        if winner is None:
            return "bura.match_end.none", {}
        return (f"bura.match_end.{'you' if winner == seat else 'other'}",
                {"name": player_name(winner, names, lang)})
    return None


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
        return f"bura.hand_end.false_claim.{'pot' if pot_mode else 'points'}", params
    return "bura.hand_end.no_claim", params
