"""Bura and Mpourloto as OpenSpiel Python games, and OpenSpiel's ISMCTSBot as a trickroom bot.

Needs the optional extra ``openspiel`` (``pip install 'trickroom[openspiel]'``, package ``open-spiel``).
Importing this module registers two games with ``pyspiel.register_game``:

- ``python_trickroom_bura`` (parameter ``players``, 2 to 6, and every other table option of the game, such as
  ``preset`` ``"classic"`` or ``"moscow"``), and
- ``python_trickroom_mpourloto`` (4 players, teams 0+2 and 1+3; its table options as parameters too).

Every game parameter but ``seed`` is a table option (``Game.OPTIONS``) with its default, so that ISMCTS searches
the rules of the table it sits at.

One OpenSpiel episode is one hand. The games are sequential with sampled chance (the deal is drawn when the
initial state is made) and imperfect information. A state offers what ISMCTS needs: legal actions as ints,
``information_state_string(player)`` (the player's hand, their own secret answer, and every public event of the
episode), ``clone``, and ``resample_from_infostate(player, sampler)`` which redeals every card the player cannot
see, consistently with what they saw (trickroom.bots' samplers), through ``Game.determinized_match``.

Two liberties, both documented in docs/bots.md: Bura's simultaneous announcement pause is asked seat by seat in
the engine's order, and claims are not actions: a player who reaches the claim target (31 card points) claims
at once, as every trickroom bot does. Returns: Bura, +1 for the hand's winner and -1/(n-1) for the others (0 for
all when nobody wins); Mpourloto, each team's points added minus the other's, over their sum (0 for a thrown-in
hand).
"""

from __future__ import annotations

import importlib
import json
import random
import time
from collections.abc import Sequence
from typing import Any

import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from trickroom.bots.levels import game_module
from trickroom.games import GAMES, Event, Game, Match, ends_a_hand, events_for, game_class, load_game

# numpy comes with open-spiel; imported by name so that type checking works without the optional extra.
np: Any = importlib.import_module("numpy")

CLAIM = "claim"


# --- action strings <-> ints: each game's action space, claims left out ----------------------------------------

ACTION_IDS = {name: {action: i for i, action in enumerate(game_class(name).action_space()) if action != CLAIM}
              for name in GAMES}
ACTION_NAMES = {name: {i: a for a, i in ids.items()} for name, ids in ACTION_IDS.items()}


# --- the games -------------------------------------------------------------------------------------------

def _game_type(name: str) -> Any:
    game = game_class(name)
    return pyspiel.GameType(
        short_name=f"python_trickroom_{name}",
        long_name=f"trickroom {name.capitalize()} (one hand)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players,
        min_num_players=game.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        parameter_specification={**{option.name: option.default for option in game.OPTIONS}, "seed": 0},
    )


BURA_TYPE = _game_type("bura")
MPOURLOTO_TYPE = _game_type("mpourloto")


class TrickroomSpielGame(pyspiel.Game):  # type: ignore[misc]
    """One trickroom game as an OpenSpiel game whose episodes are single hands."""

    game_name = "bura"
    spiel_type = BURA_TYPE

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        options = {option.name: params[option.name] for option in game_class(self.game_name).OPTIONS
                   if option.name in params}
        self.trickroom_game: Game = load_game(self.game_name, **options)
        players = self.trickroom_game.players
        self.rng = random.Random(int(params.get("seed", 0)))
        info = pyspiel.GameInfo(
            num_distinct_actions=len(ACTION_IDS[self.game_name]),
            max_chance_outcomes=0,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=400,
        )
        super().__init__(self.spiel_type, info, params)

    def new_initial_state(self) -> TrickroomSpielState:
        match = self.trickroom_game.new_match(seed=self.rng.getrandbits(63))
        return TrickroomSpielState(self, match, events_for(match.events, None))

    def state_for_seat(self, view: dict[str, Any], events: Sequence[Event], rng: random.Random) -> TrickroomSpielState:
        """A state at a real table's position as ``view``'s seat knows it (hidden cards sampled)."""
        match = _determinize(self.trickroom_game, view, events, rng)
        return TrickroomSpielState(self, match, list(events))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> StringObserver:
        return StringObserver()


class BuraSpielGame(TrickroomSpielGame):
    game_name = "bura"
    spiel_type = BURA_TYPE


class MpourlotoSpielGame(TrickroomSpielGame):
    game_name = "mpourloto"
    spiel_type = MPOURLOTO_TYPE


SPIEL_GAMES: dict[str, type[TrickroomSpielGame]] = {"bura": BuraSpielGame, "mpourloto": MpourlotoSpielGame}


def _determinize(game: Game, view: dict[str, Any], events: Sequence[Event], rng: random.Random) -> Match:
    """A match consistent with what ``view``'s seat saw: the same samplers the hard bot uses."""
    bots = game_module(game.name)
    hidden = bots.sample_hidden(bots.remember(view, events), rng)
    if hidden is not None and view["phase"] == "announce":
        # Who already answered in Bura's announcement pause is public, what they answered is secret until all
        # have: they passed in the sampled world (always a consistent answer), so that the seat to act is
        # the same as at the real table.
        hidden["answers"] = {s: "pass" for s in view["answered"] if s != view["seat"]}
    if hidden is None:
        raise ValueError("no deal of the hidden cards is consistent with this seat's view")
    return game.determinized_match(view, hidden)


class TrickroomSpielState(pyspiel.State):  # type: ignore[misc]
    """A trickroom match inside OpenSpiel. ``public`` holds the episode's events as a spectator saw them (for
    a state built from a seat's view: as that seat saw them), which is all any player's memory needs."""

    def __init__(self, game: TrickroomSpielGame, match: Match, public: list[Event],
                 public_text: list[str] | None = None) -> None:
        super().__init__(game)
        self.spiel_game = game
        self.name = game.game_name
        self.match = match
        self.public = public
        self.public_text = public_text if public_text is not None else [json.dumps(e, sort_keys=True) for e in public]
        self._joined: tuple[int, str] = (-1, "")
        self.hands_done = match.hands_done
        self.claim_target = match.game.claim_target
        self.points = self._points_from(public) if self.claim_target is not None else []
        self.done = False
        self.result: dict[str, Any] | None = None
        self._auto_claim()

    # --- OpenSpiel API ---

    def current_player(self) -> int:
        if self.done:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self.match.to_act[0])

    def _legal_actions(self, player: int) -> list[int]:
        ids = ACTION_IDS[self.name]
        return sorted(ids[a] for a in self.match.legal_actions(player) if a != CLAIM)

    def _apply_action(self, action: int) -> None:
        seat = self.current_player()
        self._record(self.match.apply(seat, ACTION_NAMES[self.name][int(action)]))
        self._auto_claim()

    def _action_to_string(self, player: int, action: int) -> str:
        return ACTION_NAMES[self.name][int(action)]

    def is_terminal(self) -> bool:
        return self.done

    def returns(self) -> list[float]:
        n = self.spiel_game.num_players()
        if not self.done or self.result is None:
            return [0.0] * n
        game = self.match.game
        if not game.teams:
            winner = self.result.get("winner")
            if winner is None:
                return [0.0] * n
            return [1.0 if s == winner else -1.0 / (n - 1) for s in range(n)]
        added = self.result.get("added") or [0, 0]
        total = max(1, added[0] + added[1])
        team0 = (added[0] - added[1]) / total
        return [team0 if game.team_of(s) == 0 else -team0 for s in range(n)]

    def information_state_string(self, player: int | None = None) -> str:
        seat = self.current_player() if player is None else player
        view = self.match.view(seat)
        own = f"seat {seat} hand {' '.join(sorted(view['hand'] or []))} answer {view.get('my_answer')}"
        if self._joined[0] != len(self.public_text):  # ISMCTS asks often; join the public part once per length
            self._joined = (len(self.public_text), "\n".join(self.public_text))
        return own + "\n" + self._joined[1]

    def observation_string(self, player: int | None = None) -> str:
        return self.information_state_string(player)

    def clone(self) -> TrickroomSpielState:
        twin = TrickroomSpielState.__new__(TrickroomSpielState)
        pyspiel.State.__init__(twin, self.spiel_game)
        twin.spiel_game, twin.name = self.spiel_game, self.name
        twin.match = self.match.clone()
        twin.public, twin.public_text = list(self.public), list(self.public_text)
        twin.hands_done, twin.claim_target, twin.points = self.hands_done, self.claim_target, list(self.points)
        twin.done, twin.result = self.done, self.result
        twin._joined = self._joined
        return twin

    def resample_from_infostate(self, player: int, probability_sampler: Any = None) -> TrickroomSpielState:
        """A state the ``player`` cannot tell from this one: every card they cannot see dealt afresh."""
        match = _determinize(self.match.game, self.match.view(player), self.public, self.spiel_game.rng)
        return TrickroomSpielState(self.spiel_game, match, list(self.public), list(self.public_text))

    def __str__(self) -> str:
        return json.dumps(self.match.view(None), sort_keys=True)

    # --- bookkeeping ---

    def _record(self, events: Sequence[Event]) -> None:
        for event in events_for(events, None):
            self.public.append(event)
            self.public_text.append(json.dumps(event, sort_keys=True))
            if self.claim_target is not None and event["type"] == "trick":
                self.points[int(event["winner"])] += sum(map(self.match.game.card_points, event["cards"]))
        if not ends_a_hand(events):
            return  # hand_results copies every result: read it only when a hand has ended
        results = self.match.hand_results
        if len(results) > self.hands_done and results[-1].get("reason") != "redeal":
            self.done, self.result = True, results[-1]

    def _points_from(self, events: Sequence[Event]) -> list[int]:
        points = [0] * self.spiel_game.num_players()
        for event in events:
            if event["type"] == "deal":
                points = [0] * len(points)
            elif event["type"] == "trick":
                points[int(event["winner"])] += sum(map(self.match.game.card_points, event["cards"]))
        return points

    def _auto_claim(self) -> None:
        """Whoever reaches the claim target claims at once (claims are not OpenSpiel actions, see the module
        doc)."""
        if self.done or self.claim_target is None:
            return
        for seat, points in enumerate(self.points):
            if points >= self.claim_target and CLAIM in self.match.legal_actions(seat):
                self._record(self.match.apply(seat, CLAIM))
                return


class StringObserver:
    """The minimal PyObserver: strings only (no tensors)."""

    def __init__(self) -> None:
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, Any] = {}

    def set_from(self, state: TrickroomSpielState, player: int) -> None:
        return None

    def string_from(self, state: TrickroomSpielState, player: int) -> str:
        return state.information_state_string(player)


pyspiel.register_game(BURA_TYPE, BuraSpielGame)
pyspiel.register_game(MPOURLOTO_TYPE, MpourlotoSpielGame)


# --- ISMCTS as a trickroom bot ---------------------------------------------------------------------------

# Measured seconds per ISMCTS simulation, shared by the bots of one process so that a new bot starts from the
# speed measured by earlier ones. A simulation plays the hand out, so its cost falls as the cards run out: the
# estimate is kept per game, table size and cards still to play (hands and stock), with the game's last
# measurement as the first guess for a position not seen yet. One estimate for every position overshot the
# budget early in a hand (p95 twice the budget) and undershot it late. The phase is part of the key: a
# Mpourloto bidder holds five cards, as a player five tricks from the end does, but its simulations play the
# whole hand (keyed by cards alone, ISMCTS took 1.9 s at p95 in Mpourloto at a 0.9 s budget).
_SECONDS_PER_SIMULATION: dict[tuple[str, int, str, int], float] = {}
_LAST_SPEED: dict[tuple[str, int], float] = {}


def cards_to_play(view: dict[str, Any]) -> int:
    """The cards still to be played in the hand, as this seat sees it: a simulation's length."""
    hand = len(view.get("hand") or [])
    stock = view.get("stock")
    return hand + (stock if isinstance(stock, int) else 0)


class DeadlineISMCTSBot(ismcts.ISMCTSBot):  # type: ignore[misc]
    """OpenSpiel's ISMCTSBot that also stops at a deadline, as the hard level's search does: once ``deadline``
    (a ``time.perf_counter()`` reading) has passed and a move has been tried once, the simulations left of
    ``max_simulations`` are skipped (no world is sampled for them). Everything else is OpenSpiel's."""

    def __init__(self, *args: Any, deadline: float = float("inf"), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deadline = deadline
        self.simulations = 0  # simulations run, over the bot's searches
        self._depth = 0

    def _past_deadline(self) -> bool:
        # The root's first simulation only expands it: the second is the first to give a move a visit.
        root = getattr(self, "_root_node", None)
        return root is not None and root.total_visits > 0 and time.perf_counter() >= self.deadline

    def sample_root_state(self, state: Any) -> Any:
        if self._depth == 0 and self._past_deadline():
            return state  # not searched (run_simulation below): no world needed
        return super().sample_root_state(state)

    def run_simulation(self, state: Any) -> Any:
        # OpenSpiel's run_simulation calls itself down the tree: only the search's own call (depth 0) is skipped.
        if self._depth == 0 and self._past_deadline():
            return [0.0] * state.num_players()  # run_search ignores the root call's returns
        self._depth += 1
        try:
            returns = super().run_simulation(state)
        finally:
            self._depth -= 1
        if self._depth == 0:
            self.simulations += 1
        return returns


# How many simulations the speed estimate may be off by before the count, not the deadline, stops a search.
SIMULATION_CAP = 2.0


class ISMCTSSeatBot:
    """OpenSpiel's ISMCTSBot (random rollouts, UCT) playing a trickroom seat, as an outside yardstick.

    ISMCTSBot counts simulations, not seconds: the bot measures its own speed and sets each decision's
    simulation count to fill ``budget`` seconds twice over (SIMULATION_CAP), and stops at the budget like the
    hard level (DeadlineISMCTSBot; the simulation in progress finishes), so that both think for the same time
    also on a loaded machine, where a speed measured a moment ago is wrong (the count alone gave ISMCTS 2.2 s
    at p95 against the hard level's 1.0 s at load 11). Claims are made by exact counting, like every trickroom
    bot.
    """

    level = "ismcts"

    def __init__(self, game: Game, seed: int | None = None, budget: float = 0.5, uct_c: float = 1.5) -> None:
        self.rng = random.Random(seed)
        self.budget = budget
        self.uct_c = uct_c
        # The table's options (the preset, the number of players...), so that ISMCTS searches the table's rules.
        self.spiel_game = SPIEL_GAMES[game.name]({**game.options, "seed": self.rng.getrandbits(31)})
        self.speed_key = (game.name, game.players)
        self.last_simulations = 0  # in the last search, for tests and the curious

    def _bot(self, simulations: int, deadline: float = float("inf")) -> DeadlineISMCTSBot:
        random_state = np.random.RandomState(self.rng.getrandbits(31))
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
        return DeadlineISMCTSBot(self.spiel_game, evaluator, self.uct_c, max_simulations=simulations,
                                 random_state=random_state,
                                 final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
                                 allow_inconsistent_action_sets=False, deadline=deadline)

    def _claim(self, game: Game, view: dict[str, Any], events: Sequence[Event], legal: Sequence[str]) -> bool:
        if game.claim_target is None or CLAIM not in legal:
            return False
        memory = game_module(game.name).remember(view, events)
        return bool(memory.points[memory.seat] >= game.claim_target)

    def off_turn(self, game: Game, seat: int, view: dict[str, Any], events: Sequence[Event],
                 legal: Sequence[str]) -> str | None:
        return CLAIM if self._claim(game, view, events, legal) else None

    def choose(self, game: Game, seat: int, view: dict[str, Any], events: Sequence[Event],
               legal: Sequence[str]) -> str:
        if self._claim(game, view, events, legal):
            return CLAIM
        choices = [a for a in legal if a != CLAIM]
        if len(choices) == 1:
            return choices[0]
        state = self.spiel_game.state_for_seat(view, events, self.rng)
        if state.current_player() != seat:
            raise ValueError(f"the sampled state waits for seat {state.current_player()}, not {seat}")
        key = (*self.speed_key, str(view.get("phase")), cards_to_play(view))
        per_simulation = _SECONDS_PER_SIMULATION.get(key) or _LAST_SPEED.get(self.speed_key, 0.002)
        started = time.perf_counter()
        bot = self._bot(max(8, int(SIMULATION_CAP * self.budget / per_simulation)), started + self.budget)
        action = int(bot.step(state))
        elapsed = time.perf_counter() - started
        self.last_simulations = bot.simulations
        measured = elapsed / max(1, bot.simulations)
        _SECONDS_PER_SIMULATION[key] = 0.5 * per_simulation + 0.5 * measured
        _LAST_SPEED[self.speed_key] = measured
        chosen = ACTION_NAMES[game.name][action]
        if chosen not in choices:
            raise ValueError(f"ISMCTS chose {chosen!r}, which is not legal for seat {seat}: {choices}")
        return chosen
