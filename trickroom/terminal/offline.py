"""``trickroom play bura|mpourloto``: one person at seat 0 against bots, with no server.

The loop: speak the new events (as seat 0 sees them, in the server's sentences); let every bot that may act off
turn (a Bura claim) do so; let the bots the game waits for move, one at a time; when the game waits for the
person, say so, list the choices and read commands until one action is accepted. A refused action changes
nothing (the engine guarantees it) and is answered with a clear sentence.
"""

from __future__ import annotations

import time

from trickroom.bots import DEFAULT_BUDGETS, HARD_BUDGET, Bot, make_bot, off_turn_action
from trickroom.bots.advice import advise, finished_hands
from trickroom.bots.search import Budget
from trickroom.games import Game, IllegalAction, events_for
from trickroom.narration import describe, narrate_step, refusal, translate
from trickroom.narration.advice import hint_text
from trickroom.narration.names import joined
from trickroom.narration.replay import History
from trickroom.terminal.commands import Act, Empty, Info, Other, Problem, Quit, parse, unknown
from trickroom.terminal.console import Console
from trickroom.terminal.render import Style, standings_line
from trickroom.terminal.replay import local_review
from trickroom.terminal.session import Session
from trickroom.terminal.text import say

HUMAN = 0
FALLBACK_LEVEL = "random"


def bot_names(count: int, lang: str) -> list[str]:
    """Names for the bots at an offline table, as the language's players are often called."""
    pool = say("bot_names", lang).split()
    return [pool[i % len(pool)] for i in range(count)]


def level_name(level: str, lang: str) -> str:
    return translate(f"bot.level.{level}", lang)


def make_bots(level: str, players: int, seed: int, console: Console, lang: str) -> tuple[list[Bot | None], str]:
    """One bot per seat but the person's (None there), falling back to random bots if ``level`` is missing."""
    try:
        bots: list[Bot | None] = [None] + [make_bot(level, seed=seed * 8 + seat, budget=DEFAULT_BUDGETS.get(level))
                                           for seat in range(1, players)]
        return bots, level
    except (ValueError, ImportError) as exc:
        console.say(say("bot_fallback", lang, level=level_name(level, lang), fallback=level_name(FALLBACK_LEVEL, lang))
                    + f" ({exc})")
        return [None] + [make_bot(FALLBACK_LEVEL, seed=seed * 8 + seat) for seat in range(1, players)], FALLBACK_LEVEL


class OfflineGame(Session):
    def __init__(self, game: Game, level: str, name: str | None, console: Console, lang: str, style: Style,
                 seed: int | None = None, bot_delay: float = 0.0, hands: int = 0) -> None:
        self.game = game
        self.named = bool(name)
        self.match = game.new_match(seed=seed)
        players = game.players
        names = [name or say("you", lang), *bot_names(players - 1, lang)]
        super().__init__(game.name, game.options, names, HUMAN, console, lang, style)
        self.bots, self.level = make_bots(level, players, self.match.seed, console, lang)
        self.bot_delay = bot_delay
        self.hands = hands  # stop after this many hands (0: play the whole match)
        self.spoken = 0  # how many of match.events have been spoken

    def current_view(self) -> dict[str, object]:
        return self.match.view(HUMAN)

    def current_legal(self) -> list[str]:
        if HUMAN not in self.match.to_act:
            return []
        return self.match.legal_actions(HUMAN)

    def run(self) -> int:
        self.introduce()
        self.speak_new_events()
        while not self.match.is_over:
            if self.hands_done():
                self.say(say("stopped", self.lang, count=self.tracker.hands_played))
                self.say(standings_line(self.match.standings, self.names, self.lang, final=False))
                return 0
            if self.bots_act_off_turn():
                continue
            to_act = self.match.to_act
            bot_seat = next((s for s in to_act if s != HUMAN), None)
            if bot_seat is not None:
                self.bot_moves(bot_seat)
            elif HUMAN in to_act and not self.human_turn():
                return 0
        self.say(standings_line(self.match.standings, self.names, self.lang, final=True))
        return 0

    def introduce(self) -> None:
        lang = self.lang
        self.say(describe(self.game, lang))
        others = [say("seat_entry", lang, name=self.names[s], level=level_name(self.level, lang), number=s + 1)
                  for s in range(1, len(self.names))]
        self.say(say("seating" if self.named else "seating_you", lang, name=self.names[HUMAN],
                     others=joined(others, lang)))
        team = self.game.team_of(HUMAN)
        if team is not None:
            partner = next(seat for seat in self.game.teams[team] if seat != HUMAN)
            self.say(say("partner", lang, name=self.names[partner]))
        self.say(say("hint", lang), remember=False)

    def speak_new_events(self) -> None:
        new = self.match.events[self.spoken:]
        self.spoken = len(self.match.events)
        seen = events_for(new, HUMAN)
        texts = narrate_step(self.game.name, seen, HUMAN, self.lang, self.names)  # a trick's end: one sentence
        for index, event in enumerate(seen):
            self.show_event(event, None if texts is None else texts[index] or "")
            if self.hands_done():
                return  # the next hand's deal is not spoken: the player asked to stop here

    def hands_done(self) -> bool:
        return bool(self.hands) and self.tracker.hands_played >= self.hands

    def bots_act_off_turn(self) -> bool:
        """Let each bot not asked to move make an off-turn move (a Bura claim); True if one did."""
        if not self.game.off_turn_actions:
            return False
        match = self.match
        for seat, bot in enumerate(self.bots):
            if bot is None or seat in match.to_act:
                continue
            legal = match.legal_actions(seat)
            if not legal:
                continue
            action = off_turn_action(bot, self.game, seat, match.view(seat), events_for(match.events, seat), legal)
            if action is not None and action in legal:
                self.apply_bot(seat, action)
                return True
        return False

    def bot_moves(self, seat: int) -> None:
        bot = self.bots[seat]
        assert bot is not None
        match = self.match
        legal = match.legal_actions(seat)
        action = bot.choose(self.game, seat, match.view(seat), events_for(match.events, seat), legal)
        self.apply_bot(seat, action)

    def apply_bot(self, seat: int, action: str) -> None:
        if self.bot_delay > 0:
            time.sleep(self.bot_delay)
        self.match.apply(seat, action)
        self.speak_new_events()

    def human_turn(self) -> bool:
        """Read commands until one action is accepted (True), or the person leaves (False)."""
        legal = self.match.legal_actions(HUMAN)
        if [a for a in legal if a not in self.game.off_turn_actions] == ["pass"]:
            # Nothing to announce: the pass is made for the player, unsaid (as the room's auto_pass, B9a).
            self.match.apply(HUMAN, "pass")
            self.speak_new_events()
            return True
        self.show_turn(legal)
        while True:
            line = self.console.read()
            if line is None:
                self.say(say("eof", self.lang), remember=False)
                return False
            command = parse(line, legal, self.current_hand(), self.lang)
            if isinstance(command, Quit):  # the standings so far, then goodbye
                self.say(standings_line(self.match.standings, self.names, self.lang, final=False))
                self.say(say("bye", self.lang), remember=False)
                return False
            if isinstance(command, Act) and self.try_action(command.action):
                return True
            self.respond(command)

    def respond(self, command: Info | Problem | Other | Empty | Act | Quit) -> None:
        if isinstance(command, Info):
            self.answer(command)
        elif isinstance(command, Problem):
            self.say(command.message, remember=False)
        elif isinstance(command, Other):
            self.say(unknown(command.words, self.lang).message, remember=False)

    def hint(self) -> None:
        """The hard bot's move for the person now, searched here (the bots' budget), said with its reason."""
        match = self.match
        if HUMAN not in match.to_act:
            self.say(say("not_your_turn", self.lang), remember=False)
            return
        advice = advise(self.game, HUMAN, match.view(HUMAN), events_for(match.events, HUMAN),
                        match.legal_actions(HUMAN), seed=len(match.actions), budget=Budget(HARD_BUDGET))
        self.say(hint_text(self.game.name, advice, self.lang), remember=False)

    def review(self, hand: int | None) -> None:
        """The hard bot's review of one of the person's finished hands (default: the last), searched here."""
        match = self.match
        history = History(self.game.name, dict(self.game.options), match.seed, tuple(match.actions),
                          tuple(self.names), decks=match.decks)
        done = finished_hands(self.game, match.seed, match.decks, match.actions)
        number = hand or done
        if 1 <= number <= done:  # the search takes a few seconds: say so first
            self.say(translate("review.computing", self.lang, hand=number), remember=False)
        for line in local_review(history, number, HUMAN, self.lang, HARD_BUDGET):
            self.say(line, remember=False)

    def try_action(self, action: str) -> bool:
        try:
            self.match.apply(HUMAN, action)
        except IllegalAction as exc:
            reason = refusal(exc, self.lang).strip()
            if reason:
                self.say(say("illegal", self.lang, reason=reason if reason.endswith(".") else reason + "."),
                         remember=False)
            else:
                self.say(say("illegal_generic", self.lang), remember=False)
            return False
        self.speak_new_events()
        return True

