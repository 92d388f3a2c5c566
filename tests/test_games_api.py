"""The rules that trickroom.games exports for bots, integrations, the server and the clients.

Each export is checked against what the engines do in random matches, so an export that drifts from its
engine fails here: the canonical spelling against what ``apply`` logs, the claim target against the claims'
verdicts, card points against the points of tricks and claims, teams against the teams that take tricks, the
rank order against who takes a trick, who may act off turn against ``legal_actions``, the announcements
against how announced hands end, the action space against every action offered, and the stock that clients
are sent against the cards in the match.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from trickroom.games import Event, Game, Match, load_game

CASES = [("bura", {"players": 2}), ("bura", {"players": 3, "preset": "moscow"}),
         ("bura", {"players": 4, "scoring": "points"}), ("bura", {"players": 6, "preset": "moscow"}),
         ("mpourloto", {}), ("mpourloto", {"partner_relief": True})]
SEEDS = range(3)
MAX_ACTIONS = 300


def respellings(action: str, rng: random.Random) -> list[str]:
    """``action`` as a player might type it: other letter case, tens as 10, commas, cards in another order."""
    verb, *rest = action.split()
    found = [action.upper(), " " + action.lower() + " "]
    if rest:
        shuffled = rest[:]
        rng.shuffle(shuffled)
        spelled = [("10" + w[1:]) if w[0] == "T" and len(w) == 2 else w.lower() for w in shuffled]
        found.append(f"{verb.capitalize()} " + ", ".join(spelled))
    return found


def random_action(match: Match, seat: int, rng: random.Random) -> str:
    legal = match.legal_actions(seat)
    plays = [a for a in legal if a != "claim"]
    return "claim" if "claim" in legal and (not plays or rng.random() < 0.02) else rng.choice(plays)


@pytest.mark.parametrize(("name", "options"), CASES)
def test_the_exports_agree_with_the_engine(name: str, options: dict[str, Any]) -> None:
    game = load_game(name, **options)
    space = game.action_space()
    assert len(set(space)) == len(space)
    announce_actions = {a.action for a in game.announcements().values()}
    rng = random.Random(7)
    tricks = hands = 0
    for seed in SEEDS:
        match = game.new_match(seed=seed)
        for _ in range(MAX_ACTIONS):
            if match.is_over:
                break
            for seat in range(game.players):
                legal = match.legal_actions(seat)
                assert set(legal) <= set(space)
                if seat not in match.to_act:
                    assert set(legal) <= set(game.off_turn_actions)
                assert {a for a in legal if a.startswith("announce ")} <= announce_actions
                for action in legal:
                    assert game.canonical_action(action) == action
                    assert all(game.canonical_action(typed) == action for typed in respellings(action, rng))
            check_stock(game, match)
            before = match.view(None)
            trumps = before["trumps"] if game.teams else before["trump"]
            seat = rng.choice(match.to_act)
            action = random_action(match, seat, rng)
            events = match.apply(seat, rng.choice(respellings(action, rng)))
            assert match.actions[-1] == (seat, action)  # typed any way, logged as canonical_action spells it
            tricks += check_events(game, match, events, trumps)
            assert match.hands_done == len(match.hand_results)
            hands = max(hands, match.hands_done)
    assert tricks > 10 and hands > 1


def check_stock(game: Game, match: Match) -> None:
    view, sent = match.view(None), match.client_view(None)
    if "stock" in view:  # Bura's view has it already
        assert sent == view
        return
    assert {k: v for k, v in sent.items() if k != "stock"} == view
    face_up = 1 if view["face_up"] else 0  # Mpourloto: the cards neither held, face up nor played
    assert sent["stock"] == len(game.deck) - sum(view["hand_sizes"]) - face_up - len(view["played"])


def check_events(game: Game, match: Match, events: list[Event], trumps: str | None) -> int:
    """The claim target, card points, teams, rank order and announcements against one action's events
    (``trumps``: the trump suit when the action was taken)."""
    tricks = 0
    view = match.view(None)
    for event in events:
        kind = event["type"]
        if kind == "claim":
            assert event["right"] == (event["points"] >= (game.claim_target or 0))
            assert event["points"] == sum(game.card_points(card) for card in event["cards"])
        elif kind == "trick":
            tricks += 1
            plays = [(seat, [card]) for seat, card in event["cards"]] if game.teams else None
            if game.teams:
                assert event["points"] == sum(game.card_points(card, trumps) for _, card in event["cards"])
                assert event["winner"] in game.teams[event["team"]]
                assert game.team_of(event["winner"]) == event["team"]
            elif not any(e["type"] == "deal" for e in events):  # (a new deal forgets the last trick)
                last = view["last_trick"]
                plays = [(p["seat"], p["cards"]) for p in last["plays"]]
            if trumps and plays and all(len(cards) == 1 for _, cards in plays):
                assert event["winner"] == single_card_winner(game, plays, trumps)
        elif kind == "announced" and event["announcements"]:
            leading = next(a for a in event["announcements"] if a["seat"] == event["leader"])
            wins = game.announcements()[leading["kind"]].wins_hand
            assert any(e["type"] == "hand_end" and e["reason"] == leading["kind"] for e in events) == wins
    if game.teams:
        assert match.standings["teams"] == [list(team) for team in game.teams]
    return tricks


def single_card_winner(game: Game, plays: list[tuple[int, list[str]]], trumps: str) -> int:
    """Who takes a trick of single cards by the exported rank order: the highest trump, else the highest card
    of the suit led (in Bura a play that does not beat the winning one, even an equal one, never takes it)."""
    winner, best = plays[0][0], plays[0][1][0]
    for seat, (card,) in plays[1:]:
        if card[1] == best[1]:
            order = game.rank_order(card[1], trumps)
            beats = order.index(card[0]) < order.index(best[0])
        else:
            beats = card[1] == trumps
        if beats:
            winner, best = seat, card
    return winner


@pytest.mark.parametrize(("name", "options"), [("bura", {"players": 6}), ("mpourloto", {})])
def test_a_deal_uses_the_games_deck_each_card_once(name: str, options: dict[str, Any]) -> None:
    game = load_game(name, **options)
    for seed in range(5):
        match = game.new_match(seed=seed)
        hands = [card for seat in range(game.players) for card in match.view(seat)["hand"]]
        sent = match.client_view(None)
        face_up = [sent["face_up"]] if sent.get("face_up") else []  # Mpourloto's; Bura's lies under the stock
        assert len(set(hands + face_up)) == len(hands + face_up) and set(hands + face_up) <= set(game.deck)
        assert len(hands) + len(face_up) + sent["stock"] == len(game.deck) == len(set(game.deck))
