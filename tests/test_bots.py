"""Bot behaviour: exact claims, the easy level's slips, what the memories infer, and the search's controls."""

from __future__ import annotations

import random

from trickroom.bots import DEFAULT_BUDGETS, LEVELS, make_bot, off_turn_action
from trickroom.bots.bura import memory as bura_memory
from trickroom.bots.hard import HardBot
from trickroom.bots.mpourloto import memory as mp_memory
from trickroom.bots.sampling import deal_hidden
from trickroom.bots.search import Budget, flat_search
from trickroom.games import events_for, load_game


def public_points(events: list[dict[str, object]], players: int) -> list[int]:
    """Card points per seat in the current hand, counted independently of the bots' code."""
    values = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
    points = [0] * players
    for event in events:
        if event["type"] in ("deal", "hand_end"):
            points = [0] * players
        elif event["type"] == "trick":
            points[int(event["winner"])] += sum(values.get(c[0], 0) for c in event["cards"])  # type: ignore[attr-defined]
    return points


def test_normal_bura_bot_claims_exactly_when_its_count_reaches_31() -> None:
    game = load_game("bura", players=3)
    match = game.new_match(seed=11)
    bots = [make_bot("normal", seed=s) for s in range(3)]
    claims = 0
    while len(match.hand_results) < 25:
        points = public_points(match.events, 3)
        for seat in range(3):
            legal = match.legal_actions(seat)
            if "claim" not in legal:
                continue
            answer = off_turn_action(bots[seat], game, seat, match.view(seat), events_for(match.events, seat), legal)
            assert answer == ("claim" if points[seat] >= 31 else None), (seat, points)
        claimant = next((s for s in range(3) if points[s] >= 31), None)
        if claimant is not None:
            match.apply(claimant, "claim")
            claims += 1
            assert match.hand_results[-1]["reason"] == "claim"
            continue
        seat = match.to_act[0]
        legal = match.legal_actions(seat)
        match.apply(seat, bots[seat].choose(game, seat, match.view(seat), events_for(match.events, seat), legal))
    assert claims >= 15


def test_easy_bura_bot_sometimes_claims_too_early_but_mostly_right() -> None:
    game = load_game("bura", players=2)
    right = wrong = 0
    for seed in range(120):
        match = game.new_match(seed=seed)
        bots = [make_bot("easy", seed=seed), make_bot("random", seed=seed)]
        while not match.hand_results:
            acted = False
            legal0 = match.legal_actions(0)
            if match.to_act[0] != 0 and legal0:
                answer = off_turn_action(bots[0], game, 0, match.view(0), events_for(match.events, 0), legal0)
                if answer:
                    match.apply(0, answer)
                    acted = True
            if not acted and not match.hand_results:
                seat = match.to_act[0]
                legal = match.legal_actions(seat)
                match.apply(seat, bots[seat].choose(game, seat, match.view(seat), events_for(match.events, seat),
                                                    legal))
        reason = match.hand_results[0]["reason"]
        right += reason == "claim" and match.hand_results[0]["claimant"] == 0
        wrong += reason == "false-claim"
    assert 3 <= wrong <= right // 5, (right, wrong)


def test_bura_memory_matches_the_table() -> None:
    """The remembered points and the known face-up trump card agree with the engine's hidden state."""
    game = load_game("bura", players=4, show_points=True)
    match = game.new_match(seed=5)
    rng = random.Random(1)
    for _ in range(300):
        if match.is_over:
            break
        seat = match.to_act[0]
        view = match.view(seat)
        memory = bura_memory.remember(view, events_for(match.events, seat))
        assert memory.points[seat] == view["my_points"]
        for other, cards in memory.known.items():
            assert set(cards) <= set(match.view(other)["hand"])
        assert len(memory.unseen) == sum(memory.sizes.values()) + memory.stock - (1 if memory.trump_card else 0)
        legal = [a for a in match.legal_actions(seat) if a != "claim"] or ["claim"]
        match.apply(seat, rng.choice(legal))


def test_mpourloto_memory_never_rules_out_a_card_that_is_there() -> None:
    game = load_game("mpourloto")
    for relief in (False, True):
        game = load_game("mpourloto", partner_relief=relief)
        match = game.new_match(seed=3)
        rng = random.Random(2)
        inferred = 0
        while len(match.hand_results) < 6:
            seat = match.to_act[0]
            view = match.view(seat)
            memory = mp_memory.remember(view, events_for(match.events, seat))
            for other in memory.sizes:
                actual = set(match.view(other)["hand"])
                assert not memory.forbidden[other] & actual
                assert memory.known[other] <= actual
                inferred += len(memory.forbidden[other])
            hidden = mp_memory.sample_hidden(memory, rng)
            assert hidden is not None
            game.determinized_match(view, hidden)  # consistent enough for the engine to accept
            match.apply(seat, rng.choice(match.legal_actions(seat)))
        assert inferred > 0


def test_deal_hidden_respects_sizes_known_and_impossible_cards() -> None:
    unseen = ["AS", "KS", "QS", "AH", "KH", "QH", "AD"]
    for seed in range(50):
        dealt = deal_hidden(unseen, {1: 2, 2: 3}, random.Random(seed), fixed={1: ["AD"]},
                            forbidden={2: {"AS", "KS", "QS"}})
        assert dealt is not None
        assert "AD" in dealt[1] and len(dealt[1]) == 2 and len(dealt[2]) == 3 and len(dealt[-1]) == 2
        assert not {"AS", "KS", "QS"} & set(dealt[2])
        assert sorted(dealt[1] + dealt[2] + dealt[-1]) == sorted(unseen)
    assert deal_hidden(["AS", "KS"], {1: 1}, random.Random(0), forbidden={1: {"AS", "KS"}}) is None


def _first_real_choice(game_name: str, options: dict[str, object], seed: int) -> tuple[object, ...]:
    game = load_game(game_name, **options)
    match = game.new_match(seed=seed)
    rng = random.Random(seed)
    while True:
        seat = match.to_act[0]
        legal = match.legal_actions(seat)
        if len([a for a in legal if a != "claim"]) > 2 and match.view(seat)["phase"] == "play":
            return game, seat, match.view(seat), events_for(match.events, seat), legal
        match.apply(seat, rng.choice([a for a in legal if a != "claim"]))


def test_hard_search_is_reproducible_with_a_world_cap() -> None:
    for game_name, options in (("bura", {"players": 2}), ("mpourloto", {})):
        game, seat, view, events, legal = _first_real_choice(game_name, options, 4)
        answers = set()
        for _ in range(2):
            bot = HardBot(seed=9, budget=30.0, max_worlds=15)
            answers.add(bot.choose(game, seat, view, events, legal))  # type: ignore[arg-type]
            assert bot.last_search is not None and bot.last_search.worlds == 15
        assert len(answers) == 1 and answers <= set(legal)  # type: ignore[arg-type]


def test_hard_search_with_no_world_answers_as_the_normal_level() -> None:
    game, seat, view, events, legal = _first_real_choice("bura", {"players": 2}, 6)
    bot = HardBot(seed=1, budget=30.0, max_worlds=0)
    action = bot.choose(game, seat, view, events, legal)  # type: ignore[arg-type]
    assert bot.last_search is not None and bot.last_search.worlds == 0
    assert action == make_bot("normal").choose(game, seat, view, events, legal)  # type: ignore[arg-type]


def test_hard_answers_a_single_choice_without_searching() -> None:
    game = load_game("mpourloto")
    match = game.new_match(seed=1)
    bot = HardBot(seed=1, budget=30.0)
    rng = random.Random(0)
    while True:
        seat = match.to_act[0]
        legal = match.legal_actions(seat)
        if len(legal) == 1:
            assert bot.choose(game, seat, match.view(seat), events_for(match.events, seat), legal) == legal[0]
            assert bot.last_search is None
            return
        match.apply(seat, rng.choice(legal))


def test_every_level_gets_the_servers_thinking_time_unless_given_its_own() -> None:
    from trickroom.bots.arena import SeatSpec, make_seat_bot

    game = load_game("bura", players=2)
    for level in LEVELS:
        assert getattr(make_bot(level, seed=1), "budget", None) == DEFAULT_BUDGETS[level]
        assert getattr(make_seat_bot(SeatSpec(level, None), game, 1), "budget", None) == DEFAULT_BUDGETS[level]
    assert getattr(make_seat_bot(SeatSpec("hard", 0.25), game, 1), "budget", None) == 0.25


def test_flat_search_keeps_the_heuristics_move_unless_the_search_is_sure() -> None:
    # Five worlds; "b" beats the fallback "a" on average, by 1 point with a spread of 4 (noise), or by 1 in every
    # world (sure).
    noisy = {"a": [0.0] * 5, "b": [5.0, -3.0, 5.0, -3.0, 1.0]}
    steady = {"a": [0.0] * 5, "b": [1.0] * 5}

    def search(values: dict[str, list[float]], confidence: float) -> str:
        worlds = iter(range(5))

        def evaluate(world: int, action: str, _rng: random.Random) -> float:
            return values[action][world]

        result = flat_search(["a", "b"], lambda _rng: next(worlds), evaluate, Budget(60.0, max_worlds=5),
                             random.Random(1), fallback="a", confidence=confidence)
        assert result.worlds == 5 and result.stats["b"].mean == 1.0
        return result.action

    assert search(noisy, 0.0) == "b"  # the best mean, however slim
    assert search(noisy, 1.0) == "a"  # a lead of 1 with a standard error of 1.79: not sure
    assert search(steady, 1.0) == "b"
