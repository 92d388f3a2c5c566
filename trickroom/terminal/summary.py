"""Hand summaries built from the event stream one seat sees (the same offline and online).

The tracker counts tricks and claims between a ``deal`` and a ``hand_end``; at the ``hand_end`` it returns the
summary line (tricks, card points, claims, who won, and the scores after the hand). Everything in it was public
at the table: Bura's card points per player are published by the ``hand_end`` event itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trickroom.games import game_class, load_game
from trickroom.narration.names import grouped
from trickroom.terminal.render import capitalized, name_of, score_line, team_label, team_of
from trickroom.terminal.text import say


class HandTracker:
    def __init__(self, game: str, options: dict[str, Any], names: Sequence[str], lang: str,
                 seat: int | None = 0) -> None:
        self.game = game
        self.options = dict(options)
        self.names = list(names)
        self.lang = lang
        self.seat = seat
        self.hands_played = 0  # hands that ended with a hand_end (not thrown in, not a Bura redeal)
        self.tricks: dict[int, int] = {}
        self.claims: list[tuple[int, int, bool]] = []
        self.last_bonus = 0  # Mpourloto: what the last trick brought its team

    def feed(self, event: dict[str, Any]) -> list[str]:
        """Take one event; return the lines to print after its own sentence (a summary at a hand's end)."""
        kind = event.get("type")
        if kind == "deal":
            self.tricks = {}
            self.claims = []
        elif kind == "trick":
            key = event["team"] if self.game == "mpourloto" else event["winner"]
            self.tricks[key] = self.tricks.get(key, 0) + 1
            self.last_bonus = int(event.get("bonus", 0))
        elif kind == "claim":
            self.claims.append((event["seat"], event["points"], bool(event["right"])))
        elif kind == "hand_end":
            self.hands_played += 1
            return [self.bura_summary(event) if self.game == "bura" else self.mpourloto_summary(event)]
        return []

    def bura_summary(self, event: dict[str, Any]) -> str:
        lang, names = self.lang, self.names
        seats = [s for s in range(len(event["points"]))]
        parts = [say("summary_head", lang, hand=event["hand"])]
        parts.append(say("summary_tricks", lang, list=", ".join(
            f"{name_of(s, names)} {self.tricks.get(s, 0)}" for s in seats)))
        parts.append(say("summary_points", lang, list=", ".join(
            f"{name_of(s, names)} {event['points'][s]}" for s in seats)))
        if self.claims:
            parts.append(say("summary_claims", lang, list=grouped([
                say("claim_entry", lang, name=name_of(seat, names), points=points,
                    verdict=say("claim_true" if right else "claim_false", lang))
                for seat, points, right in self.claims], lang)))
        elif not self.won_by_announcement(event):
            parts.append(say("summary_no_claims", lang))
        winner = event.get("winner")
        parts.append(say("summary_winner", lang, name=name_of(winner, names)) if isinstance(winner, int)
                     else say("summary_no_winner", lang))
        unit = "points" if self.options.get("scoring") == "points" else "chips"
        after = {"game": "bura", "scores": event["scores"], "unit": unit, "pot": event.get("pot_after", 0),
                 "options": {**self.options, "hand_limit": 0}}
        parts.append(score_line(after, names, lang))
        return " ".join(parts)

    def won_by_announcement(self, event: dict[str, Any]) -> bool:
        announcement = load_game(self.game, **self.options).announcements().get(event.get("reason", ""))
        return announcement is not None and announcement.wins_hand

    def mpourloto_summary(self, event: dict[str, Any]) -> str:
        lang, names = self.lang, self.names
        teams = game_class(self.game).teams
        mine = team_of(teams, self.seat) or 0
        parts = [say("summary_head", lang, hand=event["hand"])]
        for team in (mine, 1 - mine):
            last = ""
            if event.get("last_trick") == team:
                last = say("last_bonus", lang, bonus=self.last_bonus)
            parts.append(say("summary_mp", lang, team=capitalized(team_label(teams[team], names, lang, team == mine)),
                             tricks=self.tricks.get(team, 0), cards=event["card_points"][team],
                             melds=event["meld_points"][team], last=last, added=event["added"][team]))
        if event.get("capo"):
            parts.append(say("capo", lang))
        if event.get("mesa"):
            parts.append(say("mesa", lang))
        added = event["added"]
        if added[0] == added[1]:
            parts.append(say("summary_mp_level", lang))
        else:
            winner = 0 if added[0] > added[1] else 1
            parts.append(say("summary_mp_winner", lang,
                             team=capitalized(team_label(teams[winner], names, lang, winner == mine))))
        after = {"game": "mpourloto", "seat": self.seat, "scores": event["scores"],
                 "target": self.options.get("target"), "options": self.options}
        parts.append(score_line(after, names, lang))
        return " ".join(parts)
