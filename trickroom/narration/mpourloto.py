"""Mpourloto events as sentences: message ids (templates in locale/<lang>/mpourloto.po) and their parameters.

"You" for the listener's own actions, names for others; teams are "your team" / "the other team" for a seated
listener and "the team of Anna and Clara" for a spectator. Scores are explained, not only stated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from trickroom.cards import card_name, cards_name, suit_name
from trickroom.narration import player_name, russian_count, translate

Message = tuple[str, dict[str, Any]]
DOMAIN = "mpourloto"


def points_text(points: int, lang: str) -> str:
    """``"14 points"`` / ``"14 очков"``, with Russian plural forms."""
    if lang != "ru":
        return f"{points} point" if points == 1 else f"{points} points"
    return russian_count(points, "очко", "очка", "очков")


def team_text(team: int, seat: int | None, names: Sequence[str], lang: str) -> str:
    if seat is not None and 0 <= seat < 4:
        key = "team.yours" if seat % 2 == team else "team.other"
        return translate(key, lang, DOMAIN)
    return translate("team.of", lang, DOMAIN, first=player_name(team, names, lang),
                     second=player_name(team + 2, names, lang))


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _who(event_seat: int, seat: int | None, names: Sequence[str], lang: str) -> tuple[bool, str]:
    return event_seat == seat, player_name(event_seat, names, lang)


def message(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message | None:
    kind = event["type"]
    handler = _HANDLERS.get(kind)
    return handler(event, seat, names, lang) if handler else None


def _deal(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    you, name = _who(event["dealer"], seat, names, lang)
    return ("deal.you" if you else "deal"), {"hand": event["hand"], "name": name,
                                             "card": card_name(event["face_up"], lang, "acc")}


def _cards(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    cards = cards_name(event["cards"], lang, "acc")
    return ("cards.deal" if event["stage"] == "deal" else "cards.complete"), {"cards": cards}


def _bid(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    you, name = _who(event["seat"], seat, names, lang)
    bid = event["bid"]
    params: dict[str, Any] = {"name": name}
    if bid != "pass":
        params["suit"] = suit_name(event["suit"], lang)
    return f"bid.{bid}{'.you' if you else ''}", params


def _exchange(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    you, name = _who(event["seat"], seat, names, lang)
    return ("exchange.you" if you else "exchange"), {"name": name, "card": card_name(event["card"], lang, "acc"),
                                                     "took": card_name(event["took"], lang, "acc")}


def _keep(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    return "keep.you", {"card": card_name(event["card"], lang, "acc")}


def _deal_complete(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    you, name = _who(event["dealer"], seat, names, lang)
    return ("deal_complete.you" if you else "deal_complete"), {"name": name,
                                                               "card": card_name(event["card"], lang, "acc")}


def _meld(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    you, name = _who(event["seat"], seat, names, lang)
    params = {"name": name, "cards": cards_name(event["cards"], lang, "acc"),
              "points": points_text(event["points"], lang), "length": len(event["cards"])}
    return f"meld.{event['kind']}{'.you' if you else ''}", params


def _meld_done(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message | None:
    if event["declared"]:
        return None  # the melds themselves were announced
    you, name = _who(event["seat"], seat, names, lang)
    return ("meld_done.none.you" if you else "meld_done.none"), {"name": name}


def _play(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    you, name = _who(event["seat"], seat, names, lang)
    return ("play.you" if you else "play"), {"name": name, "card": card_name(event["card"], lang, "acc")}


def _trick(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    you, name = _who(event["winner"], seat, names, lang)
    params: dict[str, Any] = {"name": name, "points": points_text(event["points"], lang)}
    key = "trick"
    if event.get("last"):
        key = "trick.capo" if event["capo"] else "trick.last"
        team = team_text(event["team"], seat, names, lang)
        params["team"], params["team_cap"] = team, _capital(team)
        params["bonus"] = points_text(event["bonus"], lang)
    return key + (".you" if you else ""), params


def _ordered_teams(seat: int | None) -> tuple[int, int]:
    return (seat % 2, 1 - seat % 2) if seat is not None and 0 <= seat < 4 else (0, 1)


def _hand_end(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    first, second = _ordered_teams(seat)
    makers = event["trump_team"]
    totals, scores = event["totals"], event["scores"]
    params = {
        "hand": event["hand"],
        "first": team_text(first, seat, names, lang), "first_cap": _capital(team_text(first, seat, names, lang)),
        "second": team_text(second, seat, names, lang),
        "first_total": points_text(totals[first], lang), "second_total": points_text(totals[second], lang),
        "makers": team_text(makers, seat, names, lang), "opponents": team_text(1 - makers, seat, names, lang),
        "sum": points_text(totals[0] + totals[1], lang),
        "first_score": scores[first], "second_score": scores[second],
    }
    return ("hand_end.mesa" if event["mesa"] else "hand_end"), params


def _throw_in(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    you, name = _who(event["next_dealer"], seat, names, lang)
    return ("throw_in.you" if you else "throw_in"), {"name": name}


def _extra_hands(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    return "extra_hands", {"score": event["scores"][0]}


def _match_end(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    winner = event["winner"]
    scores = event["scores"]
    return "match_end", {"team": _capital(team_text(winner, seat, names, lang)), "won": scores[winner],
                         "lost": scores[1 - winner]}


_HANDLERS = {
    "deal": _deal, "cards": _cards, "bid": _bid, "exchange": _exchange, "keep": _keep,
    "deal_complete": _deal_complete, "meld": _meld, "meld_done": _meld_done, "play": _play, "trick": _trick,
    "hand_end": _hand_end, "throw_in": _throw_in, "extra_hands": _extra_hands, "match_end": _match_end,
}
EVENT_TYPES = frozenset(_HANDLERS)
