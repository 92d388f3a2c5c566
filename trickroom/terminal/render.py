"""Plain lines about the game state, from a seat's view: hand, table, score, trump, choices, standings.

Everything here reads the JSON-safe ``view`` (``Match.view(seat)`` offline, the server's ``view`` online), so
the offline and online clients print the same lines. One line per answer, no cursor movement; colours and suit
symbols only when the player asked for them (:class:`Style`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trickroom.cards import SUITS, card_label, card_name, suit_name
from trickroom.terminal.text import say

RED = "\x1b[31m"
RESET = "\x1b[0m"

# High to low, for grouping a hand by suit in the order a player sorts it.
RANK_ORDER = {"bura": "ATKQJ9876", "mpourloto": "ATKQJ987"}
MPOURLOTO_TRUMP_ORDER = "J9ATKQ87"


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

    def action(self, action: str) -> str:
        """An action string with its card codes printed in this style (``play TS`` -> ``play 10S``)."""
        words = action.split()
        return " ".join([words[0], *(self.card(w) if _is_code(w) else w for w in words[1:])])


def _is_code(word: str) -> bool:
    return len(word) == 2 and word[0] in "6789TJQKA" and word[1] in SUITS


def joined(items: Sequence[str], lang: str) -> str:
    """``a, b and c`` in the language."""
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + say("and", lang) + items[-1]


def capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def name_of(seat: int, names: Sequence[str]) -> str:
    return names[seat] if 0 <= seat < len(names) else f"{seat + 1}"


def actions_line(legal: Sequence[str], style: Style, lang: str) -> str:
    """``Actions: 1 play QS, 2 claim.``: the numbered choices, the numbers the player may type."""
    if not legal:
        return say("no_actions", lang)
    numbered = ", ".join(f"{i} {style.action(a)}" for i, a in enumerate(legal, start=1))
    return say("actions", lang, actions=numbered)


def trump_suit(view: dict[str, Any]) -> str | None:
    value = view.get("trump") if view.get("game") == "bura" else view.get("trumps")
    return value if isinstance(value, str) else None


def hand_line(view: dict[str, Any], style: Style, lang: str) -> str:
    """The hand grouped by suit, trumps first, high to low: ``Your hand: clubs, trumps: A 9; spades: Q 7.``"""
    hand: list[str] = list(view.get("hand") or [])
    if not hand:
        return say("hand_empty", lang)
    game = str(view.get("game"))
    trump = trump_suit(view)
    suits = sorted({c[1] for c in hand}, key=lambda s: (s != trump, SUITS.index(s)))
    groups = []
    for suit in suits:
        order = MPOURLOTO_TRUMP_ORDER if game == "mpourloto" and suit == trump else RANK_ORDER.get(game, "ATKQJ9876")
        cards = sorted((c for c in hand if c[1] == suit), key=lambda c: order.index(c[0]))
        label = say("trumps_mark", lang, suit=suit_name(suit, lang)) if suit == trump else suit_name(suit, lang)
        groups.append(f"{label}: {style.cards(cards)}")
    return say("hand", lang, groups="; ".join(groups))


def trump_line(view: dict[str, Any], names: Sequence[str], lang: str) -> str:
    if view.get("game") == "bura":
        parts = []
        if view.get("trump"):
            parts.append(say("trump_bura", lang, suit=suit_name(view["trump"], lang)))
        if view.get("trump_card"):
            parts.append(say("face_up_stock", lang, card=card_name(view["trump_card"], lang),
                             count=view.get("stock", 0)))
        elif view.get("stock") is not None:
            parts.append(say("stock_left", lang, count=view.get("stock", 0)))
        return " ".join(parts) or say("trump_none", lang)
    if view.get("trumps"):
        maker = view.get("maker")
        return say("trump_mp", lang, suit=suit_name(view["trumps"], lang),
                   maker=name_of(maker, names) if isinstance(maker, int) else "?")
    if view.get("face_up"):
        return say("trump_mp_open", lang, card=card_name(view["face_up"], lang))
    return say("trump_none", lang)


def table_line(view: dict[str, Any], names: Sequence[str], style: Style, lang: str) -> str:
    """The cards on the table, then the last trick, then whom the game waits for."""
    parts = []
    if view.get("game") == "bura":
        plays = [f"{name_of(p['seat'], names)}: {style.cards(p['cards'])}" for p in view.get("trick") or []]
        number = view.get("trick_number", 1)
        parts.append(say("table_cards", lang, number=number, plays="; ".join(plays)) if plays
                     else say("table_empty", lang, number=number))
        last = view.get("last_trick")
        if last:
            last_plays = [f"{name_of(p['seat'], names)}: {style.cards(p['cards'])}" for p in last["plays"]]
            parts.append(say("last_trick", lang, plays="; ".join(last_plays), winner=name_of(last["winner"], names)))
    else:
        trick = view.get("trick") or []
        plays = [f"{name_of(seat, names)}: {style.card(card)}" for seat, card in trick]
        parts.append(say("table_mp", lang, plays="; ".join(plays)) if plays else say("table_mp_empty", lang))
        last = view.get("last_trick") or []
        if last:
            # The winner of a trick leads the next one, so during play the leader took the last trick.
            winner = view.get("leader")
            last_plays = [f"{name_of(seat, names)}: {style.card(card)}" for seat, card in last]
            parts.append(say("last_trick", lang, plays="; ".join(last_plays),
                             winner=name_of(winner, names) if isinstance(winner, int) else "?"))
    waiting = [name_of(s, names) for s in view.get("to_act") or []]
    if waiting:
        parts.append(say("to_act", lang, names=joined(waiting, lang)))
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
    seat = view.get("seat")
    mine = seat % 2 if isinstance(seat, int) else 0
    entries = [f"{team_label(mine, names, lang, mine)} {scores[mine] if scores else 0}",
               f"{team_label(1 - mine, names, lang, mine)} {scores[1 - mine] if scores else 0}"]
    return say("score_teams", lang, scores=", ".join(entries), target=view.get("target", options.get("target")))


def team_label(team: int, names: Sequence[str], lang: str, my_team: int | None = 0) -> str:
    """``your team (You and Boris)`` or ``the other team (Anna and Vera)``; seats 0 and 2 are team 0."""
    key = "your_team" if team == my_team else "other_team"
    return say(key, lang, first=name_of(team, names), second=name_of(team + 2, names))


def standings_line(standings: dict[str, Any], names: Sequence[str], lang: str, final: bool = True,
                   my_seat: int | None = 0) -> str:
    """The ranking, best first, and who won: one line for Bura seats or Mpourloto teams."""
    scores: list[int] = list(standings.get("scores") or [])
    order: list[int] = list(standings.get("order") or range(len(scores)))
    unit = standings.get("unit", "points")
    key = "chips" if unit == "chips" else "points"
    my_team = my_seat % 2 if isinstance(my_seat, int) else None
    entries = []
    for rank, who in enumerate(order, start=1):
        label = (capitalized(team_label(who, names, lang, my_team)) if standings.get("kind") == "teams"
                 else name_of(who, names))
        entries.append(say("standing_entry", lang, rank=rank, name=label, score=say(key, lang, count=scores[who])))
    line = say("standings" if final else "standings_so_far", lang, list="; ".join(entries))
    if not final:
        return line
    winner = standings.get("winner")
    if winner is None:
        return line + " " + say("no_winner", lang)
    if standings.get("kind") == "teams":
        return line + " " + say("winner", lang, name=capitalized(team_label(winner, names, lang, my_team)))
    if winner == my_seat:
        return line + " " + say("winner_you", lang)
    return line + " " + say("winner", lang, name=name_of(winner, names))
