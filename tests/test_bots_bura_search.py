"""The Bura hard level's own machinery: the light playout simulator against the engine, and its heuristic."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from trickroom.bots.bura import normal_action, playout_tables
from trickroom.bots.bura.inference import MISMATCH, read_moves
from trickroom.bots.bura.memory import remember, sample_hidden
from trickroom.bots.bura.policy import choose_play
from trickroom.bots.bura.rollout import (
    NOBODY,
    NORMAL,
    Playout,
    Tables,
    card_mask,
    dealt_playout,
    heuristic_choice,
    self_play_share,
)
from trickroom.bots.bura.tree import tree_search
from trickroom.bots.search import Budget
from trickroom.cards import deal_rng, shuffled
from trickroom.games import Game, Match, events_for, load_game
from trickroom.games.bura.tables import CODES


def _true_hidden(match: Match, seat: int, view: dict[str, Any], events: list[Any]) -> tuple[dict[str, Any], set[str]]:
    """The real hidden cards, in the form the hard level's sampler deals them."""
    memory = remember(view, events)
    stock = [CODES[c] for c in match.stock[match.stock_pos:]]  # type: ignore[attr-defined]
    hands = {s: match.view(s)["hand"] for s in memory.sizes}
    return {"hands": hands, "stock": stock, "points": list(memory.points)}, set(memory.played)


def _engine_winner(game: Game, match: Match, seat: int, action: str) -> int:
    """The real match played on from ``action`` by normal bots with their full memory; whoever reaches 31
    claims at once (as the arena and the server make them do)."""
    match = match.clone()
    match.apply(seat, action)
    hands_before = len(match.hand_results)
    rng = random.Random(0)
    while len(match.hand_results) == hands_before:
        claimant = next((s for s in range(game.players) if "claim" in match.legal_actions(s)
                         and remember(match.view(s), events_for(match.events, s)).points[s] >= 31), None)
        if claimant is not None:
            match.apply(claimant, "claim")
            continue
        actor = match.to_act[0]
        legal = match.legal_actions(actor)
        match.apply(actor, normal_action(game, actor, match.view(actor), events_for(match.events, actor), legal, rng))
    winner = match.hand_results[hands_before]["winner"]
    return NOBODY if winner is None else int(winner)


@pytest.mark.parametrize(("players", "preset"), [(2, "classic"), (3, "moscow"), (4, "classic")])
def test_playout_ends_every_hand_as_the_engine_with_normal_bots_does(players: int, preset: str) -> None:
    game = load_game("bura", players=players, preset=preset)
    compared = 0
    for hand in range(4):
        match = game.new_match(seed=50 * players + hand)
        rng = random.Random(hand)
        while not match.is_over and all(r.get("reason") == "redeal" for r in match.hand_results):
            seat = match.to_act[0]
            legal = match.legal_actions(seat)
            view, events = match.view(seat), events_for(match.events, seat)
            if remember(view, events).points[seat] >= 31:
                match.apply(seat, "claim")
                continue
            actions = [a for a in legal if a != "claim"]
            # (In an announcement pause with earlier answers the real table knows them and the sampled world
            # does not: those positions are not comparable.)
            if len(actions) > 1 and not [s for s in view["answered"] if s != seat]:
                hidden, played = _true_hidden(match, seat, view, events)
                playout = Playout(view, hidden, played)
                for action in actions:
                    assert playout.run(action)[0] == _engine_winner(game, match, seat, action), (hand, action)
                    compared += 1
            match.apply(seat, rng.choice(actions))  # random play reaches varied positions
    assert compared > 20


def test_playout_gives_no_win_for_31_reached_in_the_last_trick() -> None:
    # Two players, stock empty, one card each: whoever takes the last trick reaches 31 but cannot claim (B8).
    game = load_game("bura", players=2)
    view = {"seat": 0, "players": 2, "options": dict(game.options), "trump": "S", "trump_card": None,
            "in_hand": [True, True], "hand": ["AH"], "stock_dead": False, "trick": [], "leader": 0,
            "trick_number": 12, "phase": "play"}
    playout = Playout(view, {"hands": {1: ["6H"]}, "stock": [], "points": [25, 0]}, set())
    assert playout.run("play AH") == (NOBODY, [36, 0])


def test_heuristic_choice_is_the_normal_levels_choice() -> None:
    rng = random.Random(3)
    deck = list(CODES)
    for _ in range(400):
        rng.shuffle(deck)
        trump = rng.choice("SHDC")
        later = rng.randint(0, 2)
        led = rng.randint(0, 2)
        count = rng.randint(1, 3)
        hand = sorted(deck[:3], key=CODES.index)
        trick = [(s + 1, deck[3 + 3 * s:3 + 3 * s + count]) for s in range(led)]
        plays = [hand[:count], hand[-count:]] if trick else [[c] for c in hand]
        unseen = deck[12:12 + rng.randint(0, 24)]
        points = [rng.randint(0, 30) for _ in range(4)]
        expected = choose_play(hand, plays, trick, 0, points, set(unseen), trump, later)
        assert heuristic_choice(plays, trick, 0, points, card_mask(unseen), trump, later) == expected


def test_the_normal_heuristic_knows_that_the_ten_beats_the_king() -> None:
    # King of hearts led, nobody after us: the ten takes 14 points (B1: the ten ranks above the king).
    plays = [["TH"], ["6C"]]
    trick = [(1, ["KH"])]
    assert heuristic_choice(plays, trick, 0, [0, 0], card_mask(["AS"]), "S", 0) == 0
    assert choose_play(["TH", "6C", "7D"], plays, trick, 0, [0, 0], {"AS"}, "S", 0) == 0


def test_a_dealt_playout_plays_the_hand_the_engine_plays() -> None:
    """Self-play on the simulator from a fresh deal ends as the engine's hand between normal bots."""
    game = load_game("bura", players=2)
    for index in range(12):
        deck = shuffled(list(CODES), deal_rng(index, 0))
        match = game.new_match(seed=0, decks=[deck])
        if match.to_act == [0, 1]:  # an announcement pause: the simulator has everyone announce, as normal does
            match.apply(0, normal_action(game, 0, match.view(0), events_for(match.events, 0), match.legal_actions(0),
                                         random.Random(0)))
        seat = match.to_act[0]
        action = normal_action(game, seat, match.view(seat), events_for(match.events, seat),
                               match.legal_actions(seat), random.Random(0))
        assert dealt_playout(game, deck).play_all() == _engine_winner(game, match, seat, action), index


def test_the_hard_levels_playout_policy_beats_the_normal_heuristic_in_self_play() -> None:
    """The tuned weights (bench/bura_playouts.py) win more of the same duplicate decks than the normal level's
    weights do; the same weights against themselves win exactly half."""
    game = load_game("bura", players=2)

    def share(mine: Tables, theirs: Tables) -> float:
        decks = [shuffled(list(CODES), deal_rng(index, 0)) for index in range(300)]
        return sum(self_play_share(game, deck, mine, theirs) for deck in decks) / len(decks)

    assert share(NORMAL, NORMAL) == 0.5
    assert share(playout_tables(2, "classic"), NORMAL) > 0.53
    assert playout_tables(3, "classic") is playout_tables(2, "moscow") is NORMAL  # tuned for two, classic


# --- reading the other hands (inference.py) and the tree search (tree.py) ------------------------------------

def _normal_positions(players: int, seeds: range) -> list[tuple[Match, int, dict[str, Any], list[Any]]]:
    """Every play decision of seat 0 in hands where normal bots play every seat."""
    game = load_game("bura", players=players)
    positions = []
    for seed in seeds:
        match = game.new_match(seed=seed)
        rng = random.Random(seed)
        while not match.hand_results:
            seat = match.to_act[0]
            legal = match.legal_actions(seat)
            view, events = match.view(seat), events_for(match.events, seat)
            if seat == 0 and view["phase"] == "play":
                positions.append((match.clone(), seat, view, events))
            match.apply(seat, normal_action(game, seat, view, events, legal, rng))
    return positions


def _always(world: Playout) -> Callable[[random.Random], Playout]:
    """A sampler that knows the hidden cards: every iteration gets a fresh copy of ``world``."""
    return lambda _rng: world.copy()


@pytest.mark.parametrize("players", [2, 3])
def test_the_real_hands_of_normal_players_explain_their_moves(players: int) -> None:
    """With two players the real hand always explains everything. With more, the choices of drawn cards multiply
    across players and the reading stops after BRANCHES of them, so a real hand may go unexplained now and then."""
    told_apart = explained = positions = 0
    rng = random.Random(players)
    for match, seat, view, events in _normal_positions(players, range(12)):
        moves = read_moves(view, events)
        hidden, _played = _true_hidden(match, seat, view, events)
        positions += 1
        explained += moves.weight(hidden["hands"]) == 1.0
        sampled = sample_hidden(remember(view, events), rng)
        assert sampled is not None
        if moves.weight(sampled["hands"]) < 1.0:
            told_apart += 1
    assert explained == positions if players == 2 else explained >= 0.8 * positions, (explained, positions)
    assert told_apart > 0  # some random worlds do not fit what the others did


def test_a_player_who_did_not_announce_holds_no_combination() -> None:
    game = load_game("bura", players=2)
    match = game.new_match(seed=3)  # trump hearts; nobody announces at the first trick, seat 1 leads
    match.apply(1, "pass")
    match.apply(0, "pass")
    assert match.to_act == [1]
    moves = read_moves(match.view(1), events_for(match.events, 1))
    assert moves.weight({0: ["6S", "7H", "8D"]}) == 1.0
    assert moves.weight({0: ["6S", "7S", "8S"]}) == MISMATCH  # a molodka would have been announced
    assert moves.weight({0: ["6H", "AH", "8H"]}) == MISMATCH  # nor a bura


def test_the_trees_model_of_the_others_is_the_normal_level_whatever_the_playouts_play() -> None:
    same_model = differing_playouts = 0
    for match, seat, view, events in _normal_positions(2, range(8)):
        hidden, played = _true_hidden(match, seat, view, events)
        legal = match.legal_actions(seat)
        normal = normal_action(match.game, seat, view, events, legal, random.Random(0))  # type: ignore[attr-defined]
        if normal == "claim":
            continue
        tuned, plain = Playout(view, hidden, played, playout_tables(2, "classic")), Playout(view, hidden, played)
        assert "play " + " ".join(tuned.choose(seat)) == normal
        same_model += 1
        differing_playouts += any(tuned.run(a) != plain.run(a) for a in legal if a != "claim")
    assert same_model > 20
    assert differing_playouts > 0  # the playouts themselves do play differently


def test_tree_search_counts_every_iteration_and_is_reproducible() -> None:
    match, seat, view, events = next(p for p in _normal_positions(2, range(3, 6))
                                     if len(p[0].legal_actions(p[1])) > 3)
    hidden, played = _true_hidden(match, seat, view, events)
    actions = [a for a in match.legal_actions(seat) if a != "claim"]
    world = Playout(view, hidden, played)
    results = [tree_search(actions, lambda _rng: world.copy(), seat, Budget(60.0, 300),
                           random.Random(5), actions[0], search_opponents=search)
               for search in (False, False, True)]
    for result in results:
        assert result.worlds == 300
        assert sum(stats.visits for stats in result.stats.values()) == 300
        assert result.action in actions
    assert results[0].action == results[1].action
    assert results[0].stats == results[1].stats


def test_tree_search_finds_a_winning_line_in_a_known_world() -> None:
    """With the hidden cards known and the opponents playing the heuristic, each world is one deterministic
    line of play: whenever playing on with the heuristic wins after some first move, the tree's choice wins too."""
    checked = 0
    for match, seat, view, events in _normal_positions(2, range(20, 32)):
        hidden, played = _true_hidden(match, seat, view, events)
        world = Playout(view, hidden, played)
        actions = [a for a in match.legal_actions(seat) if a != "claim"]
        if len(actions) < 2 or not any(world.run(a)[0] == seat for a in actions):
            continue
        result = tree_search(actions, _always(world), seat, Budget(60.0, 400),
                             random.Random(1), actions[0], search_opponents=False)
        assert result.stats[result.action].total > 0, (view, result)
        checked += 1
    assert checked >= 5
