"""The hard level with the other players' hands shown to it: what the cards it cannot see are worth in the arena.

    .venv/bin/python bench/sighted.py --game bura --players 2 --seats sighted:0.1,ismcts:0.1 --hands 1600 --seed 101
    .venv/bin/python bench/sighted.py --game mpourloto --seats sighted:0.3,ismcts:0.3 --hands 200 --seed 41

The arena (``trickroom arena``, every option the same) with one more seat, ``sighted[:budget]``: the hard level's
own search, but every world it samples holds the other players' real hands (the stock, where there is one, is
still dealt at random from the cards left, so the draws stay unknown), and Bura's reading of hands is off (there
is nothing left to read). Not a level anyone can seat: it looks at the match it plays in. What it wins against a
bot, set beside what the hard level wins against the same bot on the same decks, is how much of the gap is what
the hard level does not know rather than how it searches (docs/bots.md, "What the unseen cards are worth").
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from typing import Any

import trickroom.bots.bura as bura_bots
import trickroom.bots.mpourloto as mpourloto_bots
from trickroom.bots import arena
from trickroom.bots.hard import HardBot
from trickroom.cli import main
from trickroom.games import Event, Game, Match

playing: Match | None = None  # the match the arena is playing now (the arena plays one at a time per process)
sighted_now = False  # a sighted seat is deciding: the samplers below show it the real hands


class Everything:
    """Bura's reading of hands when the hands are known: every world explains every move."""

    def weight(self, hands: dict[int, list[str]]) -> float:
        return 1.0


def shown(sample_hidden: Callable[[Any, random.Random], dict[str, Any] | None]
          ) -> Callable[[Any, random.Random], dict[str, Any] | None]:
    """``sample_hidden`` of a game's hard level, with the other seats' real hands fixed while a sighted seat
    decides (both games' samplers deal ``memory.known`` cards to their holders first)."""

    def sample(memory: Any, rng: random.Random) -> dict[str, Any] | None:
        if sighted_now and playing is not None:
            for seat in memory.sizes:
                memory.known[seat] = type(memory.known.get(seat, []))(playing.view(seat)["hand"])
        return sample_hidden(memory, rng)

    return sample


def read_moves(view: dict[str, Any], events: Sequence[Event]) -> Any:
    return Everything() if sighted_now else _read_moves(view, events)


class SightedHardBot(HardBot):
    level = "sighted"

    def __init__(self, game: Game, seed: int | None = None, budget: float | None = None) -> None:
        super().__init__(seed=seed, budget=budget)

    def choose(self, game: Game, seat: int, view: dict[str, Any], events: Sequence[Event],
               legal: Sequence[str]) -> str:
        global sighted_now
        sighted_now = True
        try:
            return super().choose(game, seat, view, events, legal)
        finally:
            sighted_now = False


def play_one_hand(game: Game, match: Match, *args: Any, **kwargs: Any) -> None:
    global playing
    playing = match
    _play_one_hand(game, match, *args, **kwargs)


_read_moves = bura_bots.read_moves
_play_one_hand = arena.play_one_hand
bura_bots.sample_hidden = shown(bura_bots.sample_hidden)
bura_bots.read_moves = read_moves
mpourloto_bots.sample_hidden = shown(mpourloto_bots.sample_hidden)
arena.play_one_hand = play_one_hand
# The arena's worker processes are forked from this one, so they find the seat (and the patches) here.
arena.OUTSIDE_SEATS["sighted"] = ("__main__", "SightedHardBot")

if __name__ == "__main__":
    sys.exit(main(["arena", *sys.argv[1:]]))
