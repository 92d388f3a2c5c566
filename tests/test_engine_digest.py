"""Engine behaviour pinned by digests: any change in events, views, legal actions or results is caught.

Each case plays a few dozen seeded random matches through the public API: random seats among ``to_act``,
random legal actions (claims now and then), non-canonical spellings of legal actions, illegal actions (their
messages count), clones played forward, and matches rebuilt with ``determinized_match`` from the true hidden
cards and played forward. Everything the engine says along the way goes into one SHA-256 per case.

The expected digests were recorded with the engines as they were before the speed work of issue 8. When a
rule change is *intended*, record new ones with ``TRICKROOM_PRINT_DIGESTS=1 pytest -s tests/test_engine_digest.py``
and say in the commit message why they changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections.abc import Callable
from typing import Any

import pytest

from trickroom.games import IllegalAction, Match, load_game
from trickroom.games.bura import BuraMatch
from trickroom.games.bura.tables import CODES
from trickroom.games.mpourloto import MpourlotoMatch

ILLEGAL = ["", "dance", "play", "play XX", "play AS AS", "pass now", "announce", "announce bura", "claim 31",
           "name X", "meld", "meld AS", "accept now", "exchange 7S", "play 6S 7S 8S 9S"]


def respell(action: str, rng: random.Random) -> str:
    """The same action as a player might type it: lower case, tens as 10, commas, extra spaces."""
    words = action.split()
    spelled = [w.lower() if rng.random() < 0.5 else w for w in words]
    spelled = [("10" + w[1:]) if w[:1] in "Tt" and len(w) == 2 else w for w in spelled]
    joiner = rng.choice([" ", "  ", ", "])
    return " " + spelled[0] + " " + joiner.join(spelled[1:]) if len(spelled) > 1 else spelled[0].upper()


def bura_hidden(match: Match, seat: int) -> dict[str, Any]:
    assert isinstance(match, BuraMatch)
    return {
        "hands": {str(s): [CODES[c] for c in match.hands[s]] for s in range(match.n) if s != seat},
        "stock": [CODES[c] for c in match.stock[match.stock_pos:]],
        "points": match.won_points[:],
        "won": {s: [CODES[c] for c in match.won_cards[s]] for s in range(match.n)},
        "answers": {s: a for s, a in match.answers.items() if s != seat},
        "seed": match.seed,
    }


def mpourloto_hidden(match: Match, seat: int) -> dict[str, Any]:
    assert isinstance(match, MpourlotoMatch)
    return {"hands": {s: list(match.hands[s]) for s in range(4) if s != seat}, "stock": list(match.stock),
            "seed": match.seed}


class Recorder:
    def __init__(self) -> None:
        self.hash = hashlib.sha256()

    def add(self, *values: Any) -> None:
        # No sort_keys: the order of keys in events and views is part of what clients receive.
        self.hash.update(json.dumps(values, ensure_ascii=False).encode())
        self.hash.update(b"\n")

    def state(self, match: Match, seats: int, full: bool) -> None:
        self.add(match.to_act, [match.legal_actions(s) for s in range(seats)], match.is_over)
        if full:
            self.add([match.view(s) for s in (*range(seats), None)], match.hand_results, match.standings)


def step(match: Match, seats: int, rng: random.Random, rec: Recorder) -> None:
    """One random thing a player might do, recorded with its outcome."""
    roll = rng.random()
    seat = rng.choice(match.to_act)
    if roll < 0.03:  # a claim from anyone who may claim (Bura), or an action out of turn
        seat = rng.randrange(seats)
        action = "claim" if "claim" in match.legal_actions(seat) else rng.choice(ILLEGAL)
    elif roll < 0.08:
        action = rng.choice(ILLEGAL)
    else:
        legal = [a for a in match.legal_actions(seat) if a != "claim"] or match.legal_actions(seat)
        # Passing more often than at random lets whole Mpourloto deals be thrown in now and then.
        action = "pass" if "pass" in legal and rng.random() < 0.4 else rng.choice(legal)
        if roll < 0.15:
            action = respell(action, rng)
    try:
        events = match.apply(seat, action)
    except IllegalAction as error:
        rec.add("illegal", seat, action, str(error))
        return
    rec.add(seat, action, events)


def play(match: Match, seats: int, rng: random.Random, rec: Recorder, steps: int, full_every: int,
         hidden: Callable[[Match, int], dict[str, Any]]) -> None:
    for number in range(steps):
        if match.is_over:
            break
        step(match, seats, rng, rec)
        rec.state(match, seats, number % full_every == 0)
        if number % 97 == 50 and not match.is_over:  # a clone goes its own way; the original must not notice
            twin = match.clone()
            for _ in range(15):
                if twin.is_over:
                    break
                step(twin, seats, rng, rec)
                rec.state(twin, seats, True)
            rec.state(match, seats, True)
        if number % 89 == 40 and not match.is_over:  # a match rebuilt from one seat's view and the true cards
            seat = match.to_act[0]
            copy = match.game.determinized_match(match.view(seat), hidden(match, seat))
            for _ in range(15):
                if copy.is_over:
                    break
                step(copy, seats, rng, rec)
                rec.state(copy, seats, True)
    rec.add(match.actions, match.events, match.hand_results, match.standings)


CASES: dict[str, tuple[str, dict[str, Any], int]] = {
    "bura 2 classic pot": ("bura", {"players": 2}, 60),
    "bura 2 moscow points": ("bura", {"players": 2, "preset": "moscow", "scoring": "points"}, 40),
    "bura 3 classic pot stack 3": ("bura", {"players": 3, "stack": 3, "show_points": True}, 40),
    "bura 4 moscow pot limit": ("bura", {"players": 4, "preset": "moscow", "stack": 2, "hand_limit": 3}, 40),
    "bura 5 moscow points": ("bura", {"players": 5, "preset": "moscow", "scoring": "points"}, 20),
    "bura 6 classic points 21": ("bura", {"players": 6, "scoring": "points", "target": 21}, 30),
    "mpourloto strict": ("mpourloto", {"target": 300}, 60),
    "mpourloto relief": ("mpourloto", {"partner_relief": True, "target": 100}, 60),
}

EXPECTED: dict[str, str] = {
    "bura 2 classic pot": "822a90a4ee616be87d63ab0ffe1e70e9cd150641fd1bc2c4b682e43151c93f9b",
    "bura 2 moscow points": "bb9b27fb3dfc7c9a934eabf24c7b1531627cccb629a9bc61ac3e212a755f2104",
    "bura 3 classic pot stack 3": "b69c70f1ff0343893dba9d3866b19e4344edb42da4b7aa7b79dea5ed86120a7c",
    "bura 4 moscow pot limit": "5b1f9dec3048c3055efdbc78c1f3125b758c0852cdbdb72854b0d72f9fa4e3a6",
    "bura 5 moscow points": "f3478f66ff540e0a3c0b24d19c1319e683606735358410fd64c45e1b8c387f4e",
    "bura 6 classic points 21": "df093bb68fabf7762bf458e3c611ce2f2ea41ce852e4b1690a2cdfed0a62af9c",
    "mpourloto relief": "ea000fe75f1d5a9ac4949086cfd90637816f4f8ea69697403993a6d550079617",
    "mpourloto strict": "ac7695605e38f3093eaf110f79d43a6cd0d247aa1a586ecb4ef6ee419deda72d",
}


def case_digest(name: str) -> str:
    game_name, options, matches = CASES[name]
    game = load_game(game_name, **options)
    hidden = bura_hidden if game_name == "bura" else mpourloto_hidden
    rec = Recorder()
    for seed in range(matches):
        rng = random.Random(f"digest/{name}/{seed}")
        play(game.new_match(seed=seed), game.players, rng, rec, steps=400, full_every=7, hidden=hidden)
    return rec.hash.hexdigest()


@pytest.mark.parametrize("name", sorted(CASES))
def test_engine_behaviour_matches_the_recorded_digest(name: str) -> None:
    digest = case_digest(name)
    if os.environ.get("TRICKROOM_PRINT_DIGESTS"):
        print(f'    "{name}": "{digest}",')
    assert digest == EXPECTED.get(name)
