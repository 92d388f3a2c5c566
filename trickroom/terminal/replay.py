"""Replays in the terminal: a finished game, step by step, with commands (docs/replays.md).

The replay comes one hand at a time in the room's ``replay`` message shape (online from the room, offline from an
exported game read with narration/replay.py): each step's sentences (the table's own), the public view and every
seat's cards. :class:`ReplayMode` keeps the hands it has, says the steps it is moved to, and asks its source for
another hand when a command goes past the ones it holds (``fetch``; the answer comes back through ``load``).

Commands (the terminal catalog's ``words.*``, in the player's language too): ``next [N]``, ``back [N]``, ``next
trick``, ``back trick``, ``next hand``, ``back hand``, ``go N`` (hand N), ``last`` (this hand's last trick),
``first``, ``end``, ``where``, ``hand`` (every seat's cards), ``table``, ``score``, ``trump``, ``review``,
``export json FILE``, ``export text FILE``, ``close``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trickroom.bots import HARD_BUDGET
from trickroom.bots.advice import advise, finished_hands, hand_decisions, mistakes
from trickroom.bots.search import Budget
from trickroom.games import load_game
from trickroom.narration import title, translate
from trickroom.narration.advice import review_item_text, review_summary
from trickroom.narration.names import cards_name, grouped
from trickroom.narration.replay import History, replay, transcript
from trickroom.terminal.console import Console
from trickroom.terminal.text import commands_by_word, folded, say

Message = dict[str, Any]
REPLAY_WORDS = ("next", "back", "go", "last", "first", "end", "where", "export", "close")
UNITS = ("trick_unit", "hand_unit")  # next trick, back hand...
KINDS = ("json_kind", "text_kind")  # export json FILE, export text FILE


@dataclass
class Target:
    """Where to go once a hand arrives: its first step, its last, or a global step index."""

    hand: int
    where: str  # "first", "last" or "index"
    index: int = 0


class ReplayMode:
    def __init__(self, opening: Message, lang: str, say_line: Callable[[str], None],
                 fetch: Callable[[int], None], export: Callable[[str, str], None],
                 review: Callable[[int], None]) -> None:
        self.lang = lang
        self.say = say_line
        self.fetch, self.export, self.ask_review = fetch, export, review
        self.info = {k: v for k, v in opening.items() if k != "steps"}
        self.hands: list[Message] = list(opening["hands"])
        self.names: list[str] = [s["name"] for s in opening["seats"]]
        self.steps: dict[int, Message] = {}
        self.position = 0
        self.pending: Target | None = None
        self.closed = False
        self.load(opening, announce=False)
        self.say(say("replay_open", lang, plural=len(self.hands), name=opening.get("name") or opening["table"],
                     title=opening.get("title", ""), hands=len(self.hands)))
        self.show()

    # What the source sends

    def load(self, message: Message, announce: bool = True) -> None:
        for step in message["steps"]:
            self.steps[int(step["index"])] = step
        target, self.pending = self.pending, None
        if target is not None and target.hand == message.get("hand") and announce:
            outline = self.hands[target.hand - 1]
            self.go({"first": outline["first"], "last": outline["last"]}.get(target.where, target.index))

    # Commands

    def command(self, words: Sequence[str]) -> bool:
        """Run a replay command; False if ``words`` are not one (the caller reads them as it would otherwise)."""
        word = commands_by_word(REPLAY_WORDS, self.lang).get(folded(words[0]))
        if word is None:
            return False
        rest = list(words[1:])
        unit = commands_by_word(UNITS, self.lang).get(folded(rest[0])) if rest else None
        count = int(rest[0]) if rest and rest[0].isdigit() else 1
        if word in ("next", "back"):
            forward = word == "next"
            if unit == "trick_unit":
                self.by_trick(forward)
            elif unit == "hand_unit":
                self.by_hand(forward)
            else:
                self.go(self.position + (count if forward else -count))
        elif word == "go":
            self.to_hand(count if rest else 1, "first")
        elif word == "last":
            tricks = self.outline()["tricks"]
            self.go(tricks[-1] if tricks else self.outline()["last"])
        elif word == "first":
            self.go(0)
        elif word == "end":
            self.go(int(self.info["total"]) - 1)
        elif word == "where":
            self.say(self.where())
        elif word == "export":
            kind = commands_by_word(KINDS, self.lang).get(folded(rest[0])) if rest else None
            self.export("text" if kind == "text_kind" else "json", " ".join(rest[1:] if kind else rest))
        elif word == "close":
            self.closed = True
            self.say(say("replay_closed", self.lang))
        return True

    def review(self) -> None:
        self.ask_review(int(self.current().get("hand", 1)))

    # Moving

    def outline(self) -> Message:
        return self.hands[int(self.current().get("hand", 1)) - 1]

    def current(self) -> Message:
        return self.steps.get(self.position, {"hand": self.hand_of(self.position)})

    def hand_of(self, index: int) -> int:
        return next((h["hand"] for h in self.hands if h["first"] <= index <= h["last"]), 1)

    def go(self, index: int) -> None:
        total = int(self.info["total"])
        if index < 0 or index >= total:
            self.say(say("replay_at_start" if index < 0 else "replay_at_end", self.lang))
            index = max(0, min(index, total - 1))
            if index == self.position:
                return
        if index not in self.steps:
            self.pending = Target(self.hand_of(index), "index", index)
            self.fetch(self.pending.hand)
            return
        self.position = index
        self.show()

    def to_hand(self, number: int, where: str) -> None:
        if not 1 <= number <= len(self.hands):
            self.say(say("replay_no_hand", self.lang, plural=len(self.hands), hand=number, hands=len(self.hands)))
            return
        outline = self.hands[number - 1]
        index = outline["first"] if where == "first" else outline["last"]
        if index in self.steps:
            self.go(index)
            return
        self.pending = Target(number, where)
        self.fetch(number)

    def by_trick(self, forward: bool) -> None:
        ends = [i for h in self.hands for i in h["tricks"]]
        if forward:
            later = [i for i in ends if i > self.position]
            self.go(later[0] if later else int(self.info["total"]))
        else:
            earlier = [i for i in ends if i < self.position]
            self.go(earlier[-1] if earlier else -1)

    def by_hand(self, forward: bool) -> None:
        hand = int(self.current().get("hand", 1)) + (1 if forward else -1)
        if 1 <= hand <= len(self.hands):
            self.to_hand(hand, "first")
        else:
            self.say(say("replay_at_end" if forward else "replay_at_start", self.lang))

    # Saying

    def show(self) -> None:
        step = self.steps[self.position]
        lines = list(step["text"])
        for line in lines or [self.where()]:
            self.say(line)

    def where(self) -> str:
        step = self.current()
        params = {"hand": step.get("hand", 1), "hands": len(self.hands), "step": self.position + 1,
                  "steps": self.info["total"]}
        if step.get("trick"):
            return say("replay_where", self.lang, trick=step["trick"], **params)
        return say("replay_where_notrick", self.lang, **params)

    def cards_line(self) -> str:
        step = self.steps.get(self.position) or {"hands": []}
        entries = [say("replay_seat_cards", self.lang, name=self.names[s],
                       cards=cards_name(list(held), self.lang) if held else say("replay_no_cards", self.lang))
                   for s, held in enumerate(step["hands"])]
        return say("replay_cards", self.lang, list=grouped(entries, self.lang))

    def view(self) -> Message | None:
        step = self.steps.get(self.position)
        return step["view"] if step else None


def save(path: str, text: str) -> Path:
    """Write an export; the caller says where it went or why it could not."""
    target = Path(path).expanduser()
    target.write_text(text, encoding="utf-8")
    return target


# An exported game, offline: trickroom play --replay FILE


def local_review(history: History, hand: int | None, seat: int, lang: str, budget: float) -> list[str]:
    """The hard bot's review of ``seat``'s decisions in a finished hand, searched here; its sentences."""
    game = load_game(history.game, **history.options)
    number = hand or finished_hands(game, history.seed, history.decks, history.actions)
    decisions = hand_decisions(game, history.seed, history.decks, history.actions, number, seat) if number else None
    if decisions is None:
        return [translate("error.no_hand", lang, hand=number or 1)]
    advices = [advise(game, seat, d.view, d.events, d.legal, seed=d.move, budget=Budget(budget)) for d in decisions]
    items = mistakes(decisions, advices)
    return [review_summary(number, items, lang), *(review_item_text(item, lang) for item in items)]


def run_file(path: str, name: str | None, console: Console, lang: str) -> int:
    """Watch an exported game again (its ``history`` JSON), as the seat called ``name`` heard it if there is one."""
    try:
        exported = json.loads(Path(path).expanduser().read_text(encoding="utf-8"))
        history = History.from_message(exported)
        load_game(history.game, **history.options)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        console.say(say("replay_file_error", lang, path=path, reason=exc))
        return 2
    seat = history.names.index(name) if name and name in history.names else None

    def hand_message(hand: int) -> Message:
        told = replay(history, seat, lang, hand)
        return {"type": "replay", "table": path, "name": history.name, "title": title(history.game, lang),
                "hand": hand, **told.to_json()}

    def fetch(hand: int) -> None:
        mode.load(hand_message(hand))

    def export(kind: str, target: str) -> None:
        text = transcript(history, seat, lang) if kind == "text" else json.dumps(exported, ensure_ascii=False, indent=1)
        try:
            console.say(say("exported", lang, path=save(target, text)))
        except OSError as exc:
            console.say(say("export_failed", lang, path=target, reason=exc))

    def review(hand: int) -> None:
        if seat is None:
            console.say(say("replay_review_seat", lang))
            return
        console.say(translate("review.computing", lang, hand=hand))
        for line in local_review(history, hand, seat, lang, HARD_BUDGET):
            console.say(line)

    mode = ReplayMode(hand_message(1), lang, console.say, fetch=fetch, export=export, review=review)
    console.say(say("replay_help", lang))
    while not mode.closed:
        line = console.read()
        if line is None:
            return 0
        words = line.split()
        if not words or mode.command(words):
            continue
        first = folded(words[0])
        if first in commands_by_word(("hand",), lang):
            console.say(mode.cards_line())
        elif first in commands_by_word(("review",), lang):
            mode.review()
        elif first in commands_by_word(("quit",), lang):
            return 0
        else:
            console.say(say("replay_unknown", lang, word=" ".join(words)))
    return 0
