"""Cross-check of both engines against plain reference implementations written from the rulings alone.

tests/reference/ holds a Bura and a Mpourloto written straight from /work/shared/rulings.md (and, where the
rulings leave room, the choices documented in docs/rules/), without looking at the engines. Here many random
matches with prearranged decks are played through both at once, the same choices fed to each, and at every
step the two must agree on who is to act, every seat's legal actions, every hand, the trick's outcome, the
hand results, scores, dealer rotation and the match's end and winner.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from reference.bura_ref import BuraRef
from reference.mpourloto_ref import MpourlotoRef

from trickroom import cards
from trickroom.games import Match, load_game

BURA_MATCHES_PER_SIZE = 150  # for each player count 2-6
MPOURLOTO_MATCHES = 300


# --- Bura -------------------------------------------------------------------------------------------------

def bura_deck(players: int, rng: random.Random) -> list[str]:
    """A deck for a deal by seat 0 where some seats get a combination (three trumps, aces, sixes, one suit)."""
    pool = list(cards.DECK_36)
    rng.shuffle(pool)
    trump_card = next(c for c in pool if c[0] != "A" and c[0] != "6")
    trump = trump_card[1]
    pool.remove(trump_card)
    hands: dict[int, list[str]] = {}
    for seat in range(players):
        kind = rng.choice(["bura", "bura", "aces", "sixes", "suit", None, None, None])
        want: list[str] = []
        if kind == "bura":
            want = [c for c in pool if c[1] == trump][:3]
        elif kind == "aces":
            want = [c for c in pool if c[0] == "A"][:3]
        elif kind == "sixes":
            want = [c for c in pool if c[0] == "6"][:3]
        elif kind == "suit":
            suit = rng.choice([s for s in cards.SUITS if s != trump])
            want = [c for c in pool if c[1] == suit][:3]
        if len(want) < 3:
            want = []
        for c in want:
            pool.remove(c)
        hands[seat] = want
    for seat in range(players):
        while len(hands[seat]) < 3:
            hands[seat].append(pool.pop())
    order = [(1 + i) % players for i in range(players)]
    deck = [hands[s][r] for r in range(3) for s in order] + [trump_card] + pool
    assert sorted(deck) == sorted(cards.DECK_36)
    return deck


def bura_near_deck(players: int, rng: random.Random) -> list[str]:
    """A deck (deal by seat 0) where seats hold two thirds of a combination and the stock's top completes them.

    The moscow preset redeals dealt combinations, so its combinations must come from the draws.
    """
    pool = list(cards.DECK_36)
    rng.shuffle(pool)
    trump_card = next(c for c in pool if c[0] not in "A6")
    trump = trump_card[1]
    pool.remove(trump_card)
    groups = {"aces": [c for c in pool if c[0] == "A"], "sixes": [c for c in pool if c[0] == "6"],
              "trumps": [c for c in pool if c[1] == trump]}
    groups.update({s: [c for c in pool if c[1] == s] for s in cards.SUITS if s != trump})
    hands: dict[int, list[str]] = {}
    completing: list[str] = []
    used: set[str] = set()
    for seat in range(players):
        group = [c for c in groups[rng.choice(list(groups))] if c not in used]
        hands[seat] = group[:2] if len(group) >= 3 else []
        if len(group) >= 3:
            completing.append(group[2])
            used.update(group[:3])
    rest = [c for c in pool if c not in used]
    for seat in range(players):
        while len(hands[seat]) < 3:
            hands[seat].append(rest.pop())
    rng.shuffle(completing)
    order = [(1 + i) % players for i in range(players)]
    deck = [hands[s][r] for r in range(3) for s in order] + [trump_card] + completing + rest
    assert sorted(deck) == sorted(cards.DECK_36)
    return deck


def bura_options(players: int, rng: random.Random) -> dict[str, Any]:
    scoring = rng.choice(["pot", "points"])
    stack = rng.choice([1, 2, 3, 5, 20])
    hand_limit = rng.choice([0, 0, 1, 2, 5, 9])
    if scoring == "pot" and stack > 5 and not hand_limit:
        hand_limit = rng.randint(3, 12)
    return {"players": players, "preset": rng.choice(["classic", "moscow"]), "scoring": scoring, "stack": stack,
            "target": rng.choice([11, 21]), "hand_limit": hand_limit, "show_points": rng.random() < 0.3}


def check_shared(match: Match, ref: BuraRef | MpourlotoRef, players: int, scores: list[int], where: str) -> None:
    """What both games are checked on: legal actions of every seat, scores, the winner and the hand results."""
    for seat in range(players):
        assert set(match.legal_actions(seat)) == ref.legal(seat), f"{where} seat {seat}"
    standings = match.standings
    assert standings["scores"] == scores, where
    assert standings["winner"] == ref.winner, where
    results = match.hand_results
    assert len(results) == len(ref.results), where
    for got, want in zip(results, ref.results, strict=True):
        assert {k: got[k] for k in want} == want, where


def check_bura(match: Match, ref: BuraRef, where: str) -> None:
    n = ref.n
    assert match.is_over == ref.over, where
    assert sorted(match.to_act) == sorted(ref.to_act()), where
    if not ref.over and ref.phase == "play":
        assert match.to_act == ref.to_act(), where
    check_shared(match, ref, n, ref.scores(), where)
    if ref.scoring == "pot":
        assert match.standings["pot"] == ref.pot, where
        assert match.standings["active"] == ref.active, where
    if ref.over:
        return
    public = match.view(None)
    assert public["dealer"] == ref.dealer, where
    assert public["trump"] == ref.trump, where
    assert public["stock"] == len(ref.stock), where
    assert [(p["seat"], sorted(p["cards"])) for p in public["trick"]] == [(s, sorted(cs)) for s, cs in ref.trick], where
    assert public["leader"] == ref.leader, where
    assert public["tricks_won"] == ref.tricks_won, where
    assert (public["last_trick"] or {}).get("winner") == ref.last_trick_winner, where
    for seat in range(n):
        if ref.in_hand[seat]:
            view = match.view(seat)
            assert sorted(view["hand"]) == sorted(ref.hands[seat]), f"{where} seat {seat}"
            if match.game.options["show_points"]:
                assert view["my_points"] == ref.won_points[seat], f"{where} seat {seat}"


def bura_choice(match: Match, ref: BuraRef, rng: random.Random) -> tuple[int, str]:
    seats = [s for s in range(ref.n) if ref.in_hand[s]]
    rich = [s for s in seats if ref.won_points[s] >= 31]
    if rich and rng.random() < 0.2:
        return rng.choice(rich), "claim"
    if rng.random() < 0.015:
        return rng.choice(seats), "claim"
    seat = rng.choice(match.to_act)
    legal = [a for a in match.legal_actions(seat) if a != "claim"]
    announce = [a for a in legal if a.startswith("announce")]
    if announce and rng.random() < 0.8:
        return seat, announce[0]
    return seat, rng.choice(legal)


def shuffled_deck(players: int, rng: random.Random) -> list[str]:
    return cards.shuffled(cards.DECK_36, rng)


def bura_setup(index: int, players: int) -> tuple[random.Random, dict[str, Any], int, list[list[str]]]:
    rng = random.Random(f"bura-crosscheck/{players}/{index}")
    options = bura_options(players, rng)
    seed = rng.getrandbits(32)
    makers = [bura_deck, bura_near_deck, bura_near_deck, shuffled_deck]
    decks = [rng.choice(makers)(players, rng) for _ in range(rng.randint(0, 6))]
    return rng, options, seed, decks


def play_bura(index: int, players: int) -> int:
    rng, options, seed, decks = bura_setup(index, players)
    match = load_game("bura", **options).new_match(seed=seed, decks=decks)
    ref = BuraRef(seed=seed, decks=decks, **{k: v for k, v in options.items() if k != "show_points"})
    actions: list[tuple[int, str]] = []
    check_bura(match, ref, f"{options} start")
    while not ref.over:
        seat, action = bura_choice(match, ref, rng)
        actions.append((seat, action))
        match.apply(seat, action)
        ref.apply(seat, action)
        check_bura(match, ref, f"{options} seed={seed} after {actions[-8:]} (step {len(actions)})")
    return len(actions)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_bura_engine_agrees_with_reference(players: int) -> None:
    steps = sum(play_bura(i, players) for i in range(BURA_MATCHES_PER_SIZE))
    assert steps > BURA_MATCHES_PER_SIZE * 5


# --- Mpourloto --------------------------------------------------------------------------------------------

def mpourloto_deck(rng: random.Random) -> list[str]:
    """A deck (deal by seat 0) where the face-up card's seven sits in a first-five hand, with runs and fours."""
    deck = list(cards.DECK_32)
    rng.shuffle(deck)
    if rng.random() < 0.5:  # group some suits and ranks together so that runs and fours come up
        deck.sort(key=lambda c: (rng.random() < 0.5, c[1] if rng.random() < 0.5 else c[0]))
        deck = deck[::-1] if rng.random() < 0.5 else deck
    face_up = deck[20]
    seven = "7" + face_up[1]
    if seven != face_up and rng.random() < 0.7:
        where = deck.index(seven)
        swap = rng.randrange(20)
        deck[where], deck[swap] = deck[swap], deck[where]
    return deck


def check_mpourloto(match: Match, ref: MpourlotoRef, where: str) -> None:
    assert match.is_over == ref.over, where
    assert match.to_act == ref.to_act(), where
    check_shared(match, ref, 4, ref.scores, where)
    if ref.over:
        return
    public = match.view(None)
    assert public["dealer"] == ref.dealer, where
    assert public["phase"] == ref.phase, where
    assert public["trumps"] == ref.trumps, where
    if ref.phase in ("bidding1", "bidding2", "exchange"):
        assert public["face_up"] == ref.face_up, where
    else:
        assert sorted(m["cards"] for m in public["melds"]) == sorted(a.split()[1:] for a in ref.declared), where
        assert (public["tricks_won"], public["card_points"]) == (ref.tricks_won, ref.card_points), where
    for seat in range(4):
        assert sorted(match.view(seat)["hand"]) == sorted(ref.hands[seat]), f"{where} seat {seat}"


def mpourloto_choice(match: Match, rng: random.Random) -> tuple[int, str]:
    seat = match.to_act[0]
    legal = match.legal_actions(seat)
    if "accept" in legal or "name S" in legal:
        if rng.random() < 0.65:
            return seat, "pass"
        return seat, rng.choice([a for a in legal if a != "pass"])
    melds = [a for a in legal if a.startswith("meld")]
    if melds and rng.random() < 0.75:
        return seat, rng.choice(melds)
    if "done" in legal:
        return seat, "done"
    return seat, rng.choice(legal)


def play_mpourloto(index: int, target: int | None = None, hands: int = 0) -> Match:
    """Play match ``index`` (its target may be overridden; ``hands``: stop after so many results)."""
    rng = random.Random(f"mpourloto-crosscheck/{index}")
    relief = rng.random() < 0.5
    options: dict[str, Any] = {"partner_relief": relief, "target": rng.choice([100, 200, 300, 500])}
    if target is not None:
        options["target"] = target
    seed = rng.getrandbits(32)
    decks = [mpourloto_deck(rng) for _ in range(rng.randint(0, 8))]
    match = load_game("mpourloto", **options).new_match(seed=seed, decks=decks)
    ref = MpourlotoRef(seed=seed, decks=decks, **options)
    actions: list[tuple[int, str]] = []
    check_mpourloto(match, ref, f"{options} start")
    while not ref.over and not (hands and len(ref.results) >= hands):
        seat, action = mpourloto_choice(match, rng)
        actions.append((seat, action))
        match.apply(seat, action)
        ref.apply(seat, action)
        check_mpourloto(match, ref, f"{options} seed={seed} after {actions[-8:]} (step {len(actions)})")
    return match


def test_mpourloto_engine_agrees_with_reference() -> None:
    steps = sum(len(play_mpourloto(i).actions) for i in range(MPOURLOTO_MATCHES))
    assert steps > MPOURLOTO_MATCHES * 30



@pytest.mark.parametrize(("index", "target", "scores"), [(1046, 323, [323, 707]), (1054, 1096, [1138, 1518])])
def test_mpourloto_equal_at_target_plays_two_more_hands(index: int, target: int, scores: list[int]) -> None:
    # Found by search: with this target both teams reach it in the same hand with equal scores (323-323,
    # 1096-1096), so two more hands are played; the reference and the engine agree on every step of them.
    match = play_mpourloto(index, target=target)
    assert match.is_over and match.standings["scores"] == scores
    played = [r for r in match.hand_results if r["trump_team"] is not None]
    tied_after = next(i for i in range(len(played)) if sum(r["added"][0] for r in played[:i + 1]) == target)
    assert sum(r["added"][1] for r in played[:tied_after + 1]) == target
    assert len(played) == tied_after + 3


# --- Bura scenarios the random decks rarely reach -----------------------------------------------------------

def run_bura_script(options: dict[str, Any], deck: list[str], script: list[tuple[int, str]]) -> BuraRef:
    """Play ``script`` through the engine and the reference, checking agreement after every step."""
    assert sorted(deck) == sorted(cards.DECK_36)
    match = load_game("bura", **options).new_match(seed=1, decks=[deck])
    ref = BuraRef(seed=1, decks=[deck], **{k: v for k, v in options.items() if k != "show_points"})
    check_bura(match, ref, "start")
    for step, (seat, action) in enumerate(script):
        match.apply(seat, action)
        ref.apply(seat, action)
        check_bura(match, ref, f"{options} after {script[:step + 1]}")
    return ref


def rest_of(*used: str) -> list[str]:
    return [c for c in cards.DECK_36 if c not in used]


# Moscow preset, 3 players, diamonds trumps, no combination dealt. Trick 1: 7C, 8C (wins), 9S; then seat 2
# draws 6S (Little Moscow with the trump six), seat 0 JD (Bura), seat 1 AD (Moscow).
MOSCOW_DECK = ["AS", "6D", "KD", "AH", "6H", "QD", "7C", "8C", "9S", "9D", "6S", "JD", "AD"]
MOSCOW_DECK += rest_of(*MOSCOW_DECK)
MOSCOW_TRICK_1 = [(1, "play 7C"), (2, "play 8C"), (0, "play 9S")]


@pytest.mark.parametrize(("answers", "result"), [
    ({0: "announce bura", 1: "announce moscow", 2: "announce little-moscow"}, (1, "moscow")),
    ({0: "announce bura", 1: "pass", 2: "announce little-moscow"}, (0, "bura")),
])
def test_bura_moscow_outranks_bura_outranks_little_moscow(answers: dict[int, str],
                                                          result: tuple[int, str]) -> None:
    script = MOSCOW_TRICK_1 + [(s, answers[s]) for s in (2, 0, 1)]
    ref = run_bura_script({"players": 3, "preset": "moscow"}, MOSCOW_DECK, script)
    assert (ref.results[-1]["winner"], ref.results[-1]["reason"]) == result


def test_bura_little_moscow_leads_three_sixes_then_trick_as_usual() -> None:
    script = [*MOSCOW_TRICK_1, (2, "announce little-moscow"), (0, "pass"), (1, "pass"),
              (0, "play KD QD JD"), (1, "play AS AH AD")]
    ref = run_bura_script({"players": 3, "preset": "moscow"}, MOSCOW_DECK, script)
    # KD QD JD beat 6S 6H 6D one to one (trumps over plain sixes, higher trumps over the six of trumps).
    assert ref.won_points[0] == (4 + 3 + 2) + 3 * 11 and ref.leader == 0


# Classic, 4 players, diamonds trumps: seats 1 and 2 hold Buras, seat 3 a Molodka, seat 0 Three Aces.
CLASSIC_HANDS = {1: ["AD", "KD", "6D"], 2: ["TD", "QD", "7D"], 3: ["JS", "9S", "8S"], 0: ["AS", "AH", "AC"]}
CLASSIC_DECK = [CLASSIC_HANDS[s][r] for r in range(3) for s in (1, 2, 3, 0)] + ["JD"]
CLASSIC_DECK += rest_of(*CLASSIC_DECK)


@pytest.mark.parametrize(("answers", "winner"), [
    ({1: "announce bura", 2: "announce bura", 3: "announce molodka", 0: "announce aces"}, 1),
    ({1: "pass", 2: "announce bura", 3: "pass", 0: "pass"}, 2),  # the holder who passed still plays theirs
])
def test_bura_two_buras_play_one_trick_between_them(answers: dict[int, str], winner: int) -> None:
    ref = run_bura_script({"players": 4}, CLASSIC_DECK, [(s, answers[s]) for s in (1, 2, 3, 0)])
    assert ref.results[-1] == {"winner": winner, "reason": "bura", "claimant": None,
                               "points": [0, 11 + 4 + 10 + 3 if winner == 1 else 0, 28 if winner == 2 else 0, 0]}


def test_bura_three_aces_outrank_molodka_and_lead() -> None:
    answers = {1: "pass", 2: "pass", 3: "announce molodka", 0: "announce aces"}
    script = [(s, answers[s]) for s in (1, 2, 3, 0)] + [(1, "play AD KD 6D"), (2, "play TD QD 7D"),
                                                         (3, "play JS 9S 8S")]
    ref = run_bura_script({"players": 4}, CLASSIC_DECK, script)
    # AD KD 6D beat the aces (trumps); TD QD 7D cannot beat AD KD 6D; the spades beat nothing.
    assert ref.leader == 1 and ref.won_points == [0, 33 + 15 + 13 + 2, 0, 0]
