"""Bura's cards as small ints, and the tables the engine looks things up in instead of parsing codes.

A card id is ``(8 - rank) * 4 + suit`` with rank 0..8 for ``6 7 8 9 J Q K T A`` (Bura's order: the ten ranks
above the king) and suit 0..3 for ``S H D C``.
Sorting ids ascending therefore gives the canonical card order used in action strings: high rank first,
and within a rank spades, hearts, diamonds, clubs (``play AS QS 7S``, ``play JS 9D``).

Legal moves depend only on the hand (and, when following, the number of cards led), so they are computed
once per distinct hand and kept in module-level caches: a pure function memoised, no game state in it.
"""

from __future__ import annotations

from itertools import combinations

from trickroom.cards import DECK_36, SUITS

BURA_RANKS = "6789JQKTA"  # low to high: the ten ranks just below the ace (B1)
N_CARDS = 36
CODES: tuple[str, ...] = tuple(BURA_RANKS[8 - i // 4] + SUITS[i % 4] for i in range(N_CARDS))
ID_OF: dict[str, int] = {code: i for i, code in enumerate(CODES)}
# The standard deck's order (cards.DECK_36) as ids: shuffling these deals exactly what shuffling the codes would.
DECK_IDS: tuple[int, ...] = tuple(ID_OF[code] for code in DECK_36)
SUIT: tuple[int, ...] = tuple(i % 4 for i in range(N_CARDS))
RANK: tuple[int, ...] = tuple(8 - i // 4 for i in range(N_CARDS))  # 0 = six ... 7 = ten, 8 = ace
_POINTS_BY_RANK = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
POINTS: tuple[int, ...] = tuple(_POINTS_BY_RANK.get(code[0], 0) for code in CODES)
ACE, SIX = 8, 0

CLAIM = "claim"
PASS = "pass"
CLAIM_TARGET = 31  # B7: a claim of 31 card points or more is true

# Combination kinds per preset, mapped to their priority (higher leads; B9, B10), and the kinds that win the hand
# at once instead of only taking the lead (a single Bura; Moscow).
KINDS_CLASSIC: dict[str, int] = {"bura": 3, "aces": 2, "molodka": 1}
KINDS_MOSCOW: dict[str, int] = {"moscow": 4, "bura": 3, "little-moscow": 2, "molodka": 1}
WINS_AT_ONCE = frozenset({"bura", "moscow"})


def announce_action(kind: str) -> str:
    return f"announce {kind}"


# The answers in an announcement phase, by the combination the seat holds (None: none).
ANSWERS: dict[str | None, tuple[str, ...]] = {
    None: (PASS, CLAIM),
    **{kind: (PASS, announce_action(kind), CLAIM) for kind in {**KINDS_CLASSIC, **KINDS_MOSCOW}},
}


def _beats_table(trump: int) -> tuple[bool, ...]:
    """Flat table: ``table[a * 36 + b]`` is True when card ``a`` beats card ``b`` (B5)."""
    table = []
    for a in range(N_CARDS):
        for b in range(N_CARDS):
            if SUIT[a] == SUIT[b]:
                table.append(a < b)  # same suit: the lower id is the higher rank
            else:
                table.append(SUIT[a] == trump)
    return tuple(table)


BEATS: tuple[tuple[bool, ...], ...] = tuple(_beats_table(t) for t in range(4))


def play_beats(play: tuple[int, ...], winning: tuple[int, ...], beats: tuple[bool, ...]) -> bool:
    """True when ``play``'s cards pair one to one with ``winning``'s so that each beats its partner (B5)."""
    if len(play) == 1:
        return beats[play[0] * 36 + winning[0]]
    if len(play) == 2:
        a, b = play
        x, y = winning
        return (beats[a * 36 + x] and beats[b * 36 + y]) or (beats[a * 36 + y] and beats[b * 36 + x])
    a, b, c = play
    x, y, z = winning
    ax, ay, az = beats[a * 36 + x], beats[a * 36 + y], beats[a * 36 + z]
    bx, by, bz = beats[b * 36 + x], beats[b * 36 + y], beats[b * 36 + z]
    cx, cy, cz = beats[c * 36 + x], beats[c * 36 + y], beats[c * 36 + z]
    return ((ax and ((by and cz) or (bz and cy)))
            or (ay and ((bx and cz) or (bz and cx)))
            or (az and ((bx and cy) or (by and cx))))


def play_string(cards: tuple[int, ...]) -> str:
    return "play " + " ".join(CODES[c] for c in cards)


Moves = tuple[list[str], dict[str, tuple[int, ...]]]  # legal action strings (claim last), string -> cards
_LEAD_CACHE: dict[tuple[int, ...], Moves] = {}
_FOLLOW_CACHE: dict[tuple[tuple[int, ...], int], Moves] = {}


def _moves(plays: list[tuple[int, ...]]) -> Moves:
    strings = [play_string(p) for p in plays]
    return [*strings, CLAIM], dict(zip(strings, plays, strict=True))


def lead_moves(hand: tuple[int, ...]) -> Moves:
    """Leads from a sorted hand: any 1, 2 or 3 cards of one suit (B4), plus claim."""
    found = _LEAD_CACHE.get(hand)
    if found is None:
        plays = [combo for size in (1, 2, 3) for combo in combinations(hand, size)
                 if len({SUIT[c] for c in combo}) == 1]
        found = _LEAD_CACHE[hand] = _moves(plays)
    return found


def follow_moves(hand: tuple[int, ...], count: int) -> Moves:
    """Follows from a sorted hand: any ``count`` cards at all (B4), plus claim."""
    key = (hand, count)
    found = _FOLLOW_CACHE.get(key)
    if found is None:
        found = _FOLLOW_CACHE[key] = _moves(list(combinations(hand, count)))
    return found


def combination(hand: list[int], trump: int, moscow: bool) -> str | None:
    """The combination a three-card hand makes under the preset, or None (B9, B10). A hand makes at most one."""
    if len(hand) != 3:
        return None
    a, b, c = hand
    if SUIT[a] == SUIT[b] == SUIT[c]:
        return "bura" if SUIT[a] == trump else "molodka"
    if RANK[a] == RANK[b] == RANK[c] == ACE:
        return "moscow" if moscow else "aces"
    if moscow and RANK[a] == RANK[b] == RANK[c] == SIX and any(SUIT[x] == trump for x in hand):
        return "little-moscow"
    return None
