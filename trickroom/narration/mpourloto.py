"""Mpourloto events as sentences: message ids (templates in locale/<lang>/mpourloto.po) and their parameters.

"You" for the listener's own actions, names for others; teams are "your team" / "the other team" for a seated
listener and "the team of Anna and Clara" for a spectator. Scores are explained, not only stated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from trickroom.games.mpourloto import Mpourloto
from trickroom.narration import capitalized, player_name, translate
from trickroom.narration.names import card_words, suit_name

Message = tuple[str, dict[str, Any]]
DOMAIN = "mpourloto"


def points_text(points: int, lang: str, case: str = "nom") -> str:
    """``"14 points"``, ``"14 очков"``, ``"14 πόντοι"`` (``case="acc"``: ``"14 πόντους"``): the catalog's plural
    form for the number."""
    return translate("points.acc" if case == "acc" else "points", lang, DOMAIN, points, count=points)


def point_words(name: str, points: int, lang: str) -> dict[str, str]:
    """``{name}`` and ``{name_acc}``: a number of points in both cases."""
    return {name: points_text(points, lang), f"{name}_acc": points_text(points, lang, "acc")}


def team_text(team: int, seat: int | None, names: Sequence[str], lang: str) -> str:
    mine = None if seat is None else Mpourloto.team_of(seat)
    if mine is not None:
        key = "team.yours" if mine == team else "team.other"
        return translate(key, lang, DOMAIN)
    first, second = Mpourloto.teams[team]
    return translate("team.of", lang, DOMAIN, first=player_name(first, names, lang),
                     second=player_name(second, names, lang))


def _who(event_seat: int, seat: int | None, names: Sequence[str], lang: str) -> tuple[bool, str]:
    return event_seat == seat, player_name(event_seat, names, lang)


def message(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message | None:
    kind = event["type"]
    handler = _HANDLERS.get(kind)
    return handler(event, seat, names, lang) if handler else None


def _deal(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    """The deal; at the match's first, a seated listener's partner is named ("Your partner is Anna.")."""
    you, name = _who(event["dealer"], seat, names, lang)
    params: dict[str, Any] = {"hand": event["hand"], "name": name, **card_words("card", event["face_up"], lang)}
    key = "deal.you" if you else "deal"
    team = Mpourloto.team_of(seat) if seat is not None else None
    if event["hand"] == 1 and team is not None:
        key += ".partner"
        params["partner"] = player_name(next(s for s in Mpourloto.teams[team] if s != seat), names, lang)
    return key, params


def _cards(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    return ("cards.deal" if event["stage"] == "deal" else "cards.complete"), card_words("cards", event["cards"], lang)


def _bid(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    you, name = _who(event["seat"], seat, names, lang)
    bid = event["bid"]
    params: dict[str, Any] = {"name": name}
    if bid != "pass":
        params["suit"] = suit_name(event["suit"], lang)
    return f"bid.{bid}{'.you' if you else ''}", params


def _exchange(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    you, name = _who(event["seat"], seat, names, lang)
    return ("exchange.you" if you else "exchange"), {"name": name, **card_words("card", event["card"], lang),
                                                     **card_words("took", event["took"], lang)}


def _keep(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    return "keep.you", card_words("card", event["card"], lang)


def _deal_complete(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    you, name = _who(event["dealer"], seat, names, lang)
    return ("deal_complete.you" if you else "deal_complete"), {"name": name, **card_words("card", event["card"], lang)}


def _meld(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    you, name = _who(event["seat"], seat, names, lang)
    length = len(event["cards"])
    params = {"name": name, **card_words("cards", event["cards"], lang), **point_words("points", event["points"], lang)}
    if event["kind"] == "run":  # a run of three, of four, of five or more: each with its own name in Greek
        params["run"] = translate(f"run.{min(length, 5)}", lang, DOMAIN, length=length)
    return f"meld.{event['kind']}{'.you' if you else ''}", params


def _meld_done(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message | None:
    if event["declared"]:
        return None  # the melds themselves were announced
    you, name = _who(event["seat"], seat, names, lang)
    return ("meld_done.none.you" if you else "meld_done.none"), {"name": name}


def _play(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    you, name = _who(event["seat"], seat, names, lang)
    return ("play.you" if you else "play"), {"name": name, **card_words("card", event["card"], lang)}


def _trick(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    you, name = _who(event["winner"], seat, names, lang)
    params: dict[str, Any] = {"name": name, **point_words("points", event["points"], lang)}
    key = "trick"
    if event.get("last"):
        key = "trick.capo" if event["capo"] else "trick.last"
        team = team_text(event["team"], seat, names, lang)
        params["team"], params["team_cap"] = team, capitalized(team)
        params.update(point_words("bonus", event["bonus"], lang))
    return key + (".you" if you else ""), params


def _ordered_teams(seat: int | None) -> tuple[int, int]:
    mine = None if seat is None else Mpourloto.team_of(seat)
    return (0, 1) if mine is None else (mine, 1 - mine)


def _hand_end(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    first, second = _ordered_teams(seat)
    makers = event["trump_team"]
    totals, scores = event["totals"], event["scores"]
    params = {
        "hand": event["hand"],
        "first": team_text(first, seat, names, lang), "second": team_text(second, seat, names, lang),
        **point_words("first_total", totals[first], lang), **point_words("second_total", totals[second], lang),
        "makers": team_text(makers, seat, names, lang), "makers_cap": capitalized(team_text(makers, seat, names, lang)),
        "opponents": team_text(1 - makers, seat, names, lang), **point_words("sum", totals[0] + totals[1], lang),
        "first_score": scores[first], "second_score": scores[second],
    }
    key = "hand_end.mesa" if event["mesa"] else "hand_end"
    melds = event.get("meld_points") or [0, 0]
    if not any(melds):
        return key, params
    said = translate("melds.tally", lang, DOMAIN, first=params["first"], second=params["second"],
                     first_melds=melds[first], second_melds=melds[second])
    return "summary", {"result": translate(key, lang, DOMAIN, **params), "melds": said}


def _throw_in(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    you, name = _who(event["next_dealer"], seat, names, lang)
    return ("throw_in.you" if you else "throw_in"), {"name": name}


def _extra_hands(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    return "extra_hands", {"score": event["scores"][0]}


def _match_end(event: Mapping[str, Any], seat: int | None, names: Sequence[str], lang: str) -> Message:
    winner = event["winner"]
    scores = event["scores"]
    return "match_end", {"team": capitalized(team_text(winner, seat, names, lang)), "won": scores[winner],
                         "lost": scores[1 - winner]}


_HANDLERS = {
    "deal": _deal, "cards": _cards, "bid": _bid, "exchange": _exchange, "keep": _keep,
    "deal_complete": _deal_complete, "meld": _meld, "meld_done": _meld_done, "play": _play, "trick": _trick,
    "hand_end": _hand_end, "throw_in": _throw_in, "extra_hands": _extra_hands, "match_end": _match_end,
}
EVENT_TYPES = frozenset(_HANDLERS)
