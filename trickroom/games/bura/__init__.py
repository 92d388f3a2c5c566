"""Bura, the Russian trick-taking game of 31, as docs/rules/bura.md and /work/shared/rulings.md B1-B12 rule it.

    from trickroom.games import load_game
    match = load_game("bura", players=3, preset="classic", scoring="pot").new_match(seed=7)
"""

from trickroom.games.bura.game import Bura
from trickroom.games.bura.match import BuraMatch

__all__ = ["Bura", "BuraMatch"]
