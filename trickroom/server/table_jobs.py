"""What a table waits for, besides its people: the bots' questions and their answers, turn timers and their
warnings, the grace period of someone who dropped. Functions of a :class:`~trickroom.server.table_state.TableState`
during its step, as in :mod:`trickroom.server.table_requests`: they change the state and emit its effects (ask a
bot, start or cancel a timer) through the state's own ``ask``, ``start_timer`` and ``cancel``."""

from __future__ import annotations

import logging
import random
from dataclasses import replace
from typing import TYPE_CHECKING

from trickroom.bots.history import hand_events_for
from trickroom.narration import translate
from trickroom.server.protocol import ProtocolError
from trickroom.server.table_parts import PLAYING, BotAnswered, BotQuestion, Job, TimerFired, Wait

if TYPE_CHECKING:
    from trickroom.server.table_state import TableState

log = logging.getLogger("trickroom.table")


def bot_level_at(state: TableState, seat: int) -> str | None:
    """The level of the bot playing ``seat`` now (its own, or the replacement for a person), or None."""
    s = state.seats[seat]
    if s.bot is not None:
        return s.bot
    return state.config.replacement_level if s.replaced else None


def bot_question(state: TableState, seat: int, level: str, timeout: bool = False) -> BotQuestion:
    """What a bot at ``seat`` is asked now: its view, the hand's events it saw, its legal actions."""
    match = state.match
    assert match is not None
    move = len(match.actions)
    return BotQuestion(level, (state.seed or 0) + move * 7 + seat, state.game_name, dict(state.options), seat,
                       match.view(seat), tuple(hand_events_for(match, seat)), tuple(match.legal_actions(seat)),
                       move, timeout)


def schedule(state: TableState) -> None:
    """Ask bots and start turn timers for the seats the game now waits for; drop those it no longer does."""
    match = state.match
    if match is None or state.status != PLAYING:
        for job in [*state.timers, *state.asks]:
            if job.wait in (Wait.WARNING, Wait.TIMEOUT, Wait.BOT, Wait.OFF_TURN):
                state.cancel(job)
        return
    move = len(match.actions)
    for seat in match.to_act:
        s, bot_job = state.seats[seat], Job(Wait.BOT, seat)
        pending = state.asks.get(bot_job)
        if s.bot is not None or s.replaced:
            if pending is None or pending.questions[0].move != move or pending.questions[0].timeout:
                level = s.bot or state.config.replacement_level
                state.ask(bot_job, [bot_question(state, seat, level)], state.now + state.settings.bot_delay)
        elif pending is not None and pending.questions[0].timeout:
            if pending.questions[0].move != move:  # the turn timed out on an older state: play this one
                state.ask(bot_job, [bot_question(state, seat, state.config.replacement_level, timeout=True)], state.now)
        elif state.settings.timer and not (seat in state.deadlines and Job(Wait.TIMEOUT, seat) in state.timers):
            deadline = state.now + state.settings.timer
            state.deadlines[seat] = deadline
            state.start_timer(Job(Wait.WARNING, seat), deadline - warning_seconds(state))
            state.start_timer(Job(Wait.TIMEOUT, seat), deadline)
    for job in [*state.timers, *state.asks]:
        if job.wait in (Wait.WARNING, Wait.TIMEOUT, Wait.BOT) and job.seat not in match.to_act:
            state.cancel(job)
    offer_off_turn(state)


def warning_seconds(state: TableState) -> float:
    """How long before a turn's deadline its person is warned."""
    return min(float(state.config.timer_warning), state.settings.timer / 3)


def offer_off_turn(state: TableState) -> None:
    """Where the game has off-turn actions (Bura's claim, legal at any moment), ask the bot seats the game is
    not waiting for whether they act now (exact counting, cheap), once per state."""
    match, job = state.match, Job(Wait.OFF_TURN)
    if match is None or state.status != PLAYING or not match.game.off_turn_actions:
        return
    pending = state.asks.get(job)
    if pending is not None and pending.questions[0].move == len(match.actions):
        return
    state.cancel(job)
    seats = [seat for seat in range(len(state.seats)) if seat not in match.to_act
             and bot_level_at(state, seat) in state.config.off_turn_levels and match.legal_actions(seat)]
    if seats:
        state.ask(job, [bot_question(state, seat, bot_level_at(state, seat) or "") for seat in seats], state.now)


def timer_fired(state: TableState, fired: TimerFired) -> None:
    job = fired.job
    if state.timers.get(job) != fired.at:
        return  # started again, or cancelled, since
    del state.timers[job]
    seat, s = job.seat, state.seats[job.seat]
    if job.wait == Wait.GRACE:
        if s.user is None or s.connected or s.replaced:
            return
        state.seats[seat] = replace(s, replaced=True)
        state.table_event("bot_took_over", s.user, seat)
        schedule(state)
        return
    if seat not in state.deadlines or state.status != PLAYING or state.match is None:
        return
    if job.wait == Wait.WARNING:
        if s.user is not None:
            seconds = round(warning_seconds(state))
            state.tell(s.user["id"], {"type": "timer", "table": state.id, "seq": state.next_seq - 1,
                                      "seconds_left": seconds, "urgency": "assertive",
                                      "text": translate("turn.warning", state.lang_of(s.user["id"]),
                                                        plural=seconds, seconds=seconds)})
    elif job.wait == Wait.TIMEOUT:
        state.ask(Job(Wait.BOT, seat), [bot_question(state, seat, state.config.replacement_level, timeout=True)],
                  state.now)


def bot_answered(state: TableState, answer: BotAnswered) -> None:
    ask, question = state.asks.get(answer.job), answer.question
    if ask is None or not any(question is asked for asked in ask.questions):
        return  # a question the table no longer asks
    match, seat, level = state.match, question.seat, question.level
    if match is None or len(match.actions) != question.move or state.status != PLAYING:
        return
    actor = f"bot:{level}"
    if answer.job.wait == Wait.OFF_TURN:
        if answer.choice not in match.legal_actions(seat) or bot_level_at(state, seat) != level:
            return
        try:
            state.apply(seat, answer.choice, actor)
        except ProtocolError:
            log.error("bot %s at %s seat %s chose %r off turn, refused", level, state.id, seat, answer.choice)
        return
    del state.asks[answer.job]
    s = state.seats[seat]
    if seat not in match.to_act or (not question.timeout and s.bot is None and not s.replaced):
        return  # the game moved on, or the person took the seat back while the bot was thinking
    if question.timeout:
        state.table_event("timeout", s.user, seat)
    choice = answer.choice
    if choice is None:  # the bot failed: a random legal move instead, never a wild claim
        choice = random.Random(question.seed).choice([a for a in question.legal if a != "claim"]
                                                     or list(question.legal))
    try:
        state.apply(seat, choice, actor)
    except ProtocolError as err:
        # Refused: one more try with the first legal move, so that the table never waits for a bot that gave
        # up.
        log.error("bot %s at %s seat %s chose %r, refused (%s); playing a legal move", level, state.id, seat,
                  choice, err.code)
        state.apply(seat, question.legal[0], actor)
