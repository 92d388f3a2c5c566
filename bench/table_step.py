"""What one action costs the room's own code, with no sockets, no database and no event loop: a table's pure state
(``TableState.handle``) and the shell's rendering of the step (the step's sentences said together, each entry
rendered once per seat and language, each distinct message encoded once), for the tables of the full-speed
scenario of ``bench/load.py`` (two people at Bura to 21 points, four at Mpourloto to 10,000), every person playing a
random legal action (never ``claim``), the room answering Bura's announcement pause for them as by default.

It prints the CPU (``time.process_time``, so the machine's other work does not count) per action of the engine
alone (the same actions replayed on a bare match), of the state's step and of the rendering, in microseconds: the
part of an action's cost that does not depend on the network or the database (docs/performance.md, "What an
action costs the room's own code").

    .venv/bin/python bench/table_step.py [--actions 20000] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass, field
from typing import Any

from trickroom.games import load_game
from trickroom.server.frames import FrameError, encode
from trickroom.server.protocol import parse_client_message
from trickroom.server.table_parts import Announce, Request, Seat, TableConfig, TableSettings, Tell
from trickroom.server.table_render import deliveries, merged_texts
from trickroom.server.table_state import TableState

CONFIG = TableConfig()  # (no bots sit at these tables, and nobody has a turn timer)
TABLES: dict[str, dict[str, Any]] = {"bura": {"players": 2, "scoring": "points", "target": 21},
                                   "mpourloto": {"target": 10000}}


@dataclass
class Costs:
    actions: int = 0
    step: float = 0.0  # TableState.handle, the engine's own work included
    render: float = 0.0  # merged_texts, deliveries, encoding
    played: list[tuple[int, list[tuple[int, str]]]] = field(default_factory=list)  # each match's seed and actions


def request(user: dict[str, Any], state: TableState, **msg: Any) -> Request:
    return Request(user, "en", parse_client_message({"table": state.id, **msg}, CONFIG), "c1")


def render(effects: tuple[Any, ...]) -> int:
    """The shell's rendering of a step's messages (Table.run without the sending); how many frames it made."""
    merged = merged_texts(effects)
    frames: dict[int, str | None] = {}
    for index, effect in enumerate(effects):
        messages: list[Any] = []
        if isinstance(effect, Announce):
            messages = [message for _, message in deliveries(effect, merged.get(index))]
        elif isinstance(effect, Tell):
            messages = [effect.message]
        for message in messages:
            if id(message) not in frames:
                try:
                    frames[id(message)] = encode(message)
                except FrameError:
                    frames[id(message)] = None
    return len(frames)


def play(game_name: str, actions: int, rng: random.Random, costs: Costs) -> None:
    game = load_game(game_name, **TABLES[game_name])
    people = [{"id": f"g{i}", "name": f"Player {i}", "guest": True} for i in range(game.players)]
    while costs.actions < actions:
        seed = rng.randrange(2**31)
        state = TableState(number=100000001, game_name=game.name, options=dict(game.options),
                           settings=TableSettings(name="Bench"), seats=[Seat() for _ in range(game.players)],
                           host=people[0], config=CONFIG, seed=seed)
        for seat, someone in enumerate(people):
            state, _ = state.handle(request(someone, state, type="sit", seat=seat), 0.0)
        state, _ = state.handle(request(people[0], state, type="start"), 0.0)
        now = 0.0
        while state.match is not None and not state.match.is_over and costs.actions < actions:
            match = state.match
            seat = match.to_act[0]
            legal = [a for a in match.legal_actions(seat) if a != "claim"]
            act = request(people[seat], state, type="act", action=rng.choice(legal))
            now += 1.0
            started = time.process_time()
            state, effects = state.handle(act, now)
            stepped = time.process_time()
            render(effects)
            costs.step += stepped - started
            costs.render += time.process_time() - stepped
            costs.actions += 1
        if state.match is not None:
            costs.played.append((seed, list(state.match.actions)))


def engine_alone(game_name: str, played: list[tuple[int, list[tuple[int, str]]]]) -> float:
    """The CPU of applying the same actions to bare matches (no table, no views, no words)."""
    game = load_game(game_name, **TABLES[game_name])
    spent = 0.0
    for seed, actions in played:
        match = game.new_match(seed=seed)
        started = time.process_time()
        for seat, action in actions:
            match.apply(seat, action)
        spent += time.process_time() - started
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=20000, help="actions per game (default 20000)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{args.actions} random actions per game, seed {args.seed}; CPU per action in microseconds")
    print(f"{'game':10} {'engine':>8} {'step':>8} {'render':>8} {'total':>8}   (step includes the engine)")
    for game_name in TABLES:
        rng = random.Random(args.seed)
        costs = Costs()
        play(game_name, args.actions, rng, costs)
        engine = engine_alone(game_name, costs.played)
        per = 1e6 / costs.actions
        print(f"{game_name:10} {engine * per:8.1f} {costs.step * per:8.1f} {costs.render * per:8.1f} "
              f"{(costs.step + costs.render) * per:8.1f}")


if __name__ == "__main__":
    main()
