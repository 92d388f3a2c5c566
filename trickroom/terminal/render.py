"""Plain lines about the game state, from a seat's view: hand, table, score, trump, choices, standings.

Everything here reads the JSON-safe ``view`` (``Match.view(seat)`` offline, the server's ``view`` online), so
the offline and online clients print the same lines. One line per answer, no cursor movement; colours and suit
symbols only when the player asked for them (:class:`Style`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trickroom.cards import SUITS, card_label
from trickroom.games import game_class
from trickroom.narration.names import card_name, grouped, joined, suit_name
from trickroom.terminal.commands import spoken_action
from trickroom.terminal.text import say

RED = "\x1b[31m"
RESET = "\x1b[0m"


@dataclass(frozen=True)
class Style:
    """How cards are printed: codes (QS, 10H) by default; ``symbols`` (Q♠) and ``color`` (red hearts and
    diamonds, ANSI) only on request, since both can confuse a screen reader."""

    symbols: bool = False
    color: bool = False

    def card(self, card: str) -> str:
        label = card_label(card, self.symbols)
        if self.color and card[1] in "HD":
            return f"{RED}{label}{RESET}"
        return label

    def cards(self, cards: Sequence[str]) -> str:
        return " ".join(self.card(c) for c in cards)

    def action(self, action: str, lang: str = "en") -> str:
        """An action as a choice, its card codes printed in this style (``play TS`` -> ``play 10S``,
        ``сыграть 10S``)."""
        return spoken_action(action, lang, self.card)


def capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def name_of(seat: int, names: Sequence[str]) -> str:
    return names[seat] if 0 <= seat < len(names) else f"{seat + 1}"


def actions_line(legal: Sequence[str], style: Style, lang: str) -> str:
    """``Actions: 1 play QS, 2 claim.``: the numbered choices, the numbers the player may type."""
    if not legal:
        return say("no_actions", lang)
    numbered = ", ".join(f"{i} {style.action(a, lang)}" for i, a in enumerate(legal, start=1))
    return say("actions", lang, actions=numbered)


def trump_suit(view: dict[str, Any]) -> str | None:
    value = view.get("trump") if view.get("game") == "bura" else view.get("trumps")
    return value if isinstance(value, str) else None


def hand_line(view: dict[str, Any], style: Style, lang: str) -> str:
    """The hand grouped by suit, trumps first, high to low: ``Your hand: clubs, trumps: A 9; spades: Q 7.``"""
    hand: list[str] = list(view.get("hand") or [])
    if not hand:
        return say("hand_empty", lang)
    game = game_class(str(view.get("game")))
    trump = trump_suit(view)
    suits = sorted({c[1] for c in hand}, key=lambda s: (s != trump, SUITS.index(s)))
    groups = []
    for suit in suits:
        order = game.rank_order(suit, trump)  # high to low, as a player sorts a hand
        cards = sorted((c for c in hand if c[1] == suit), key=lambda c: order.index(c[0]))
        label = say("trumps_mark", lang, suit=suit_name(suit, lang)) if suit == trump else suit_name(suit, lang)
        groups.append(f"{label}: {style.cards(cards)}")
    return say("hand", lang, groups=grouped(groups, lang))


def trump_line(view: dict[str, Any], names: Sequence[str], lang: str) -> str:
    if view.get("game") == "bura":
        parts = []
        if view.get("trump"):
            parts.append(say("trump_bura", lang, suit=suit_name(view["trump"], lang)))
        if view.get("trump_card"):
            parts.append(say("face_up_stock", lang, card=card_name(view["trump_card"], lang),
                             count=view.get("stock", 0)))
        elif view.get("stock") is not None:
            parts.append(say("stock_left", lang, view.get("stock", 0), count=view.get("stock", 0)))
        return " ".join(parts) or say("trump_none", lang)
    if view.get("trumps"):
        maker = view.get("maker")
        return say("trump_mp", lang, suit=suit_name(view["trumps"], lang),
                   maker=name_of(maker, names) if isinstance(maker, int) else "?")
    if view.get("face_up"):
        return say("trump_mp_open", lang, card=card_name(view["face_up"], lang))
    return say("trump_none", lang)


def last_trick_part(view: dict[str, Any], names: Sequence[str], style: Style, lang: str) -> str | None:
    """The last trick, who played what and who took it (None before the hand's first trick is taken)."""
    if view.get("game") == "bura":
        last = view.get("last_trick")
        if not last:
            return None
        last_plays = [f"{name_of(p['seat'], names)}: {style.cards(p['cards'])}" for p in last["plays"]]
        return say("last_trick", lang, plays=grouped(last_plays, lang), winner=name_of(last["winner"], names))
    trick_cards = view.get("last_trick") or []
    if not trick_cards:
        return None
    # The winner of a trick leads the next one, so during play the leader took the last trick.
    winner = view.get("leader")
    plays = [f"{name_of(seat, names)}: {style.card(card)}" for seat, card in trick_cards]
    return say("last_trick", lang, plays=grouped(plays, lang),
               winner=name_of(winner, names) if isinstance(winner, int) else "?")


def last_trick_line(view: dict[str, Any], names: Sequence[str], style: Style, lang: str) -> str:
    """The ``trick`` command: the last trick alone."""
    return last_trick_part(view, names, style, lang) or say("no_last_trick", lang)


def table_line(view: dict[str, Any], names: Sequence[str], style: Style, lang: str) -> str:
    """The cards on the table, then the last trick, then whom the game waits for (the listener as "you")."""
    parts = []
    if view.get("game") == "bura":
        plays = [f"{name_of(p['seat'], names)}: {style.cards(p['cards'])}" for p in view.get("trick") or []]
        number = view.get("trick_number", 1)
        parts.append(say("table_cards", lang, number=number, plays=grouped(plays, lang)) if plays
                     else say("table_empty", lang, number=number))
    else:
        trick = view.get("trick") or []
        plays = [f"{name_of(seat, names)}: {style.card(card)}" for seat, card in trick]
        parts.append(say("table_mp", lang, plays=grouped(plays, lang)) if plays else say("table_mp_empty", lang))
    last = last_trick_part(view, names, style, lang)
    if last:
        parts.append(last)
    to_act = list(view.get("to_act") or [])
    others = joined([name_of(s, names) for s in to_act if s != view.get("seat")], lang)
    if view.get("seat") in to_act:
        parts.append(say("to_act_you_and", lang, names=others) if others else say("to_act_you", lang))
    elif others:
        parts.append(say("to_act", lang, names=others))
    return " ".join(parts)


def score_line(view: dict[str, Any], names: Sequence[str], lang: str) -> str:
    """Bura: chips and pot, or game points (and the player's own card points only with show_points);
    Mpourloto: the two teams' scores, the player's team first."""
    options = view.get("options") or {}
    scores: list[int] = list(view.get("scores") or [])
    if view.get("game") == "bura":
        entries = [f"{name_of(s, names)} {v}" for s, v in enumerate(scores)]
        if view.get("unit") == "points":
            line = say("score_points", lang, scores=", ".join(entries), target=options.get("target", 11))
        else:
            line = say("score_pot", lang, scores=", ".join(entries), pot=view.get("pot", 0))
        if "my_points" in view:
            line += " " + say("my_points", lang, points=view["my_points"])
        limit = options.get("hand_limit") or 0
        if limit:
            line += " " + say("hand_limit", lang, hand=view.get("hand_number", 1), limit=limit)
        return line
    teams = game_class(str(view.get("game"))).teams
    mine = team_of(teams, view.get("seat")) or 0
    entries = [f"{team_label(teams[team], names, lang, team == mine)} {scores[team] if scores else 0}"
               for team in (mine, 1 - mine)]
    return say("score_teams", lang, scores=", ".join(entries), target=view.get("target", options.get("target")))


def team_of(teams: Sequence[Sequence[int]], seat: Any) -> int | None:
    """The index in ``teams`` of the team ``seat`` plays in (None for a spectator)."""
    return next((i for i, seats in enumerate(teams) if seat in seats), None)


def team_label(seats: Sequence[int], names: Sequence[str], lang: str, yours: bool) -> str:
    """``your team (You and Boris)`` or ``the other team (Anna and Vera)``: a team of two partners."""
    first, second = seats
    return say("your_team" if yours else "other_team", lang, first=name_of(first, names),
               second=name_of(second, names))


def standings_line(standings: dict[str, Any], names: Sequence[str], lang: str, final: bool = True,
                   my_seat: int | None = 0) -> str:
    """The ranking, best first, and who won: one line for Bura seats or Mpourloto teams."""
    scores: list[int] = list(standings.get("scores") or [])
    order: list[int] = list(standings.get("order") or range(len(scores)))
    unit = standings.get("unit", "points")
    key = "chips" if unit == "chips" else "points"
    teams: list[list[int]] = list(standings.get("teams") or [])
    mine = team_of(teams, my_seat)
    entries = []
    for rank, who in enumerate(order, start=1):
        label = (capitalized(team_label(teams[who], names, lang, who == mine)) if standings.get("kind") == "teams"
                 else name_of(who, names))
        entries.append(say("standing_entry", lang, rank=rank, name=label,
                           score=say(key, lang, scores[who], count=scores[who])))
    line = say("standings" if final else "standings_so_far", lang, list=grouped(entries, lang))
    if not final:
        return line
    winner = standings.get("winner")
    if winner is None:
        return line + " " + say("no_winner", lang)
    if standings.get("kind") == "teams":
        return line + " " + say("winner", lang, name=capitalized(team_label(teams[winner], names, lang,
                                                                            winner == mine)))
    if winner == my_seat:
        return line + " " + say("winner_you", lang)
    return line + " " + say("winner", lang, name=name_of(winner, names))
