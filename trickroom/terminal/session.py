"""What the offline and online clients share: speaking events, answering questions, completing words.

A session knows the game's name, the seat's names for speech, the language and the card style; subclasses say
where the current ``view`` and ``legal`` actions come from (a local match, or the server's messages).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trickroom.narration import narrate, turn_sentence
from trickroom.terminal.commands import Info, completions
from trickroom.terminal.console import Console
from trickroom.terminal.render import (
    Style,
    actions_line,
    hand_line,
    last_trick_line,
    score_line,
    table_line,
    trump_line,
)
from trickroom.terminal.summary import HandTracker
from trickroom.terminal.text import say

HISTORY_DEFAULT = 20


class Session:
    def __init__(self, game: str, options: dict[str, Any], names: Sequence[str], seat: int | None,
                 console: Console, lang: str, style: Style) -> None:
        self.game_name = game
        self.options = dict(options)
        self.names = list(names)
        self.seat = seat
        self.console = console
        self.lang = lang
        self.style = style
        self.tracker = HandTracker(game, options, names, lang, seat)
        console.set_completer(self.complete)

    # Where the state comes from: overridden by the offline and online clients.

    def current_view(self) -> dict[str, Any] | None:
        raise NotImplementedError

    def current_legal(self) -> list[str]:
        raise NotImplementedError

    def current_hand(self) -> list[str] | None:
        view = self.current_view()
        hand = view.get("hand") if view else None
        return list(hand) if isinstance(hand, list) else None

    # Speaking

    def say(self, line: str, remember: bool = True) -> None:
        self.console.say(line, remember)

    def show_event(self, event: dict[str, Any], text: str | None = None) -> None:
        """Speak one event as this seat sees it (``text``: the server's sentence, else our narration), then
        any summary the event closes. A hand's end is said once: its summary (tricks, card points, claims or
        melds, who won, the score) says all the room's sentence says, so that sentence is not printed too."""
        summary = self.tracker.feed(event)
        sentence = text if text is not None else narrate(self.game_name, event, self.seat, self.lang, self.names)
        if sentence and not (summary and event.get("type") == "hand_end"):
            self.say(sentence)
        for line in summary:
            self.say(line)

    def show_turn(self, legal: Sequence[str], text: str | None = None) -> None:
        """The turn's sentence (``text``: the room's; else the game's own, "You may announce a Molodka, or
        pass.", or "Your turn."), then the actions."""
        self.say(text or turn_sentence(self.game_name, legal, self.lang))
        self.say(actions_line(legal, self.style, self.lang), remember=False)

    def answer(self, info: Info) -> None:
        """Answer an information command from the current view; nothing in the game changes."""
        lang, topic = self.lang, info.topic
        if topic == "help":
            for line in say("help", lang).splitlines():
                self.say(line, remember=False)
            return
        if topic == "history":
            self.show_history(info.argument)
            return
        if topic == "legal":
            self.say(actions_line(self.current_legal(), self.style, lang), remember=False)
            return
        if topic == "hint":
            self.hint()
            return
        if topic == "review":
            number = info.argument.strip() if info.argument else ""
            self.review(int(number) if number.isdigit() else None)
            return
        view = self.current_view()
        if view is None:
            self.say(say("waiting", lang), remember=False)
            return
        if topic == "hand":
            line = hand_line(view, self.style, lang)
        elif topic == "table":
            line = table_line(view, self.names, self.style, lang)
        elif topic == "trick":
            line = last_trick_line(view, self.names, self.style, lang)
        elif topic == "score":
            line = score_line(view, self.names, lang)
        else:
            line = trump_line(view, self.names, lang)
        self.say(line, remember=False)

    def hint(self) -> None:
        """What the hard bot would play now (offline: searched here; online: asked of the room)."""
        raise NotImplementedError

    def review(self, hand: int | None) -> None:
        """The hard bot's review of a finished hand (None: the last one)."""
        raise NotImplementedError

    def show_history(self, argument: str | None) -> None:
        count = int(argument) if argument and argument.isdigit() and int(argument) > 0 else HISTORY_DEFAULT
        lines = self.console.history[-count:]
        if not lines:
            self.say(say("history_empty", self.lang), remember=False)
        for line in lines:
            self.say(line, remember=False)

    def complete(self, text: str, first_word: bool) -> list[str]:
        return completions(text, first_word, self.current_legal(), self.current_hand() or [], self.extra_words(),
                           self.lang)

    def extra_words(self) -> list[str]:
        return []
