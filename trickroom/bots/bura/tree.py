"""Information-set Monte Carlo tree search for Bura's hard level, on the light simulator (rollout.Playout).

Each iteration samples a world consistent with what the seat has seen, walks down one tree of public moves
(who played which cards) shared by all worlds, choosing among the moves that are legal in this world by UCB,
adds one new move to the tree, plays the rest of the hand with the playout heuristic for every seat and
counts the result for every seat that moved on the way (1 for the hand's winner, else 0). This is
"single-observer ISMCTS" (Cowling, Powley and Whitehouse, 2012): a move's exploration term counts the
iterations in which it was available, since an opponent's cards differ from world to world.

Against the flat search (search.flat_search) it lets the seat's own later moves, and the opponents' replies,
differ from the heuristic wherever the samples show that another move wins more hands.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from trickroom.bots.bura.rollout import UNDECIDED, Playout
from trickroom.bots.search import ActionStats, Budget, SearchResult, sampled_worlds

EXPLORATION = 0.7  # UCB constant for win rates in [0, 1]


class Node:
    """A public move in the tree: its wins for the seat that made it, its visits and its availability."""

    __slots__ = ("available", "children", "visits", "wins")

    def __init__(self) -> None:
        self.children: dict[tuple[int, tuple[str, ...]], Node] = {}  # (seat, cards or action) -> node
        self.visits = 0
        self.wins = 0.0
        self.available = 0


def _select(node: Node, actor: int, moves: Sequence[tuple[str, ...]]) -> tuple[tuple[str, ...], Node]:
    """The child with the best UCB score among ``moves`` (all already in the tree and counted available)."""
    best_move, best_child, best_score = moves[0], node.children[actor, moves[0]], -1.0
    for move in moves:
        child = node.children[actor, move]
        score = child.wins / child.visits + EXPLORATION * math.sqrt(math.log(child.available) / child.visits)
        if score > best_score:
            best_move, best_child, best_score = move, child, score
    return best_move, best_child


def _step(node: Node, actor: int, moves: Sequence[tuple[str, ...]],
          rng: random.Random) -> tuple[tuple[str, ...], Node, bool]:
    """``actor`` chooses among ``moves`` at ``node``: a move never tried (added to the tree; True), else the UCB
    best."""
    fresh = []
    for move in moves:
        child = node.children.get((actor, move))
        if child is None:
            fresh.append(move)
        else:
            child.available += 1
    if fresh:
        move = rng.choice(fresh)
        child = node.children[actor, move] = Node()
        child.available = 1
        return move, child, True
    move, child = _select(node, actor, moves)
    return move, child, False


def tree_search(actions: Sequence[str], sample: Callable[[random.Random], Playout | None], seat: int,
                budget: Budget, rng: random.Random, fallback: str, search_opponents: bool = True) -> SearchResult:
    """The root action most often chosen after ISMCTS iterations over sampled worlds (``fallback`` when no world
    could be sampled, and on ties)."""
    root = Node()
    moves = [(action,) for action in actions]
    iterations = 0
    for world in sampled_worlds(sample, budget, rng):
        iterations += 1
        _iterate(world, seat, root, moves, rng, search_opponents)
    nodes = {action: root.children.get((seat, (action,)), Node()) for action in actions}
    stats = {action: ActionStats(node.wins, node.visits) for action, node in nodes.items()}
    if iterations == 0:
        return SearchResult(fallback, 0, stats)
    best = max(actions, key=lambda a: (nodes[a].visits, nodes[a].wins, a == fallback))
    return SearchResult(best, iterations, stats)


def _iterate(world: Playout, seat: int, root: Node, moves: Sequence[tuple[str, ...]], rng: random.Random,
             search_opponents: bool) -> None:
    (action,), node, expanded = _step(root, seat, moves, rng)
    path: list[tuple[Node, int]] = [(node, seat)]
    winner = world.start(action)
    while winner == UNDECIDED and not expanded:
        actor = world.actor()
        moves = world.options(actor)
        if actor != seat and not search_opponents:
            # The opponents are modelled as the normal level plays: their move is the heuristic's, and the
            # tree only records it, so that the seat's later moves are told apart by what they answered.
            move = tuple(world.choose(actor))
            node = node.children.setdefault((actor, move), Node())
        else:
            move, node, expanded = _step(node, actor, moves, rng)
        path.append((node, actor))
        winner = world.play(actor, move)
    winner = world.finish(winner)
    for visited, mover in path:
        visited.visits += 1
        if winner == mover:
            visited.wins += 1.0
