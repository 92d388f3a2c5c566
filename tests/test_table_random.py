"""Random evenings at a table, without a server: people sit, stand, come and go, act (legally or not, on time or
late, sometimes twice), chat and pause, bots play, the clock jumps. Every step either answers or refuses (never
another exception), and the table never waits for nobody: a bot to act is asked, a timed person has a timer, and
the jobs the shell would run are the ones the state knows of."""

from __future__ import annotations

import random

from table_helpers import Desk, person

from trickroom.server.table_parts import PLAYING, Intent, Job, Wait


def waiting_for_nobody(desk: Desk) -> str | None:
    state = desk.state
    if set(desk.timers) != set(state.timers) or not set(desk.asks) <= set(state.asks):
        return "the shell's jobs and the state's differ"
    if state.status != PLAYING or state.match is None:
        return None
    for seat in state.match.to_act:
        s = state.seats[seat]
        if (s.bot is not None or s.replaced) and Job(Wait.BOT, seat) not in desk.asks:
            return f"nobody asks the bot at seat {seat}"
        timed = s.user is not None and not s.replaced and state.settings.timer
        if timed and Job(Wait.TIMEOUT, seat) not in desk.timers and Job(Wait.BOT, seat) not in desk.asks:
            return f"seat {seat} has no timer"
    return None


class CheckedDesk(Desk):
    def step(self, intent: Intent) -> tuple[object, ...]:
        effects = super().step(intent)
        problem = waiting_for_nobody(self)
        assert problem is None, f"{problem} after {intent}"
        return effects


def an_evening(seed: int) -> None:
    rng = random.Random(seed)
    if rng.random() < 0.7:
        desk = CheckedDesk(options={"players": rng.choice([2, 3]), "scoring": "points", "hand_limit": 2},
                           timer=rng.choice([0, 30]), bot_delay=rng.choice([0, 0.5]))
    else:
        desk = CheckedDesk("mpourloto", options={"target": 100}, timer=rng.choice([0, 30]))
    host = desk.host
    people = [host, *(person(f"P{i}") for i in range(3))]
    seats = len(desk.state.seats)
    desk.send(host, "watch")
    for _ in range(300):
        who, roll, state = rng.choice(people), rng.random(), desk.state
        match, seat = state.match, state.seat_of(who["id"])
        if roll < 0.1:
            desk.send(who, "sit", seat=rng.randrange(seats + 1))
        elif roll < 0.13:
            desk.send(host, "bot_add", level=rng.choice(["random", "easy", "normal"]))
        elif roll < 0.16:
            desk.send(host, "start")
        elif roll < 0.18:
            desk.send(who, "stand")
        elif roll < 0.19 and who is not host:
            desk.send(who, "leave")
        elif roll < 0.22:
            desk.presence(who, rng.random() < 0.5)
        elif roll < 0.24:
            desk.send(who, "resume", after=rng.randrange(60))
        elif roll < 0.26:
            desk.send(host, "pause", paused=rng.random() < 0.6)
        elif roll < 0.27:
            desk.send(host, "kick", user=rng.choice(people[1:])["name"])
        elif roll < 0.28:
            desk.send(who, "chat", message="hi")
        elif roll < 0.31:
            desk.advance(rng.choice([0, 1, 10, 61]))
        elif roll < 0.65 and match is not None and seat is not None:
            legal = match.legal_actions(seat) if seat in match.to_act else []
            action = rng.choice(legal) if legal and rng.random() < 0.9 else rng.choice(["pass", "play ZZ", "claim"])
            desk.send(who, "act", action=action, move=len(match.actions) if rng.random() < 0.2 else None)
        elif not desk.next(desk.now + 5):
            desk.advance(1)


def test_random_evenings_never_leave_a_seat_waiting_for_nobody() -> None:
    for seed in range(60):
        an_evening(seed)
