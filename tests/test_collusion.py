"""The collusion measure (trickroom.bots.collusion), the feeder bot it is measured with, the arena's trial, and the
flags the server stores from a finished table (trickroom.server.flags)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from trickroom.bots import Bot, make_bot
from trickroom.bots.arena import RoleTally, play_one_hand
from trickroom.bots.bura.memory import card_points
from trickroom.bots.bura.policy import play_beats
from trickroom.bots.collusion import applies, feeding, suspects
from trickroom.bots.collusion_trial import choose_threshold, rates
from trickroom.bots.feeder import FeederBot, winning_play
from trickroom.cli import main
from trickroom.games import Match, events_for, load_game
from trickroom.narration import translate
from trickroom.server.flags import flag_collusion
from trickroom.server.moderation import Moderation
from trickroom.server.rows import TableRow
from trickroom.server.store import LoggedAction, Store


def whole_match(bots: list[Bot], seed: int, hands: int = 20) -> Match:
    game = load_game("bura", players=len(bots), hand_limit=hands)
    match = game.new_match(seed=seed)
    play_one_hand(game, match, bots, [RoleTally() for _ in bots], list(range(len(bots))), whole_match=True)
    assert match.is_over and len(match.hand_results) == hands
    return match


def test_players_who_play_like_the_normal_bot_leave_nothing_beyond_it() -> None:
    match = whole_match([make_bot("normal", seed=s) for s in range(3)], seed=5)
    measured = feeding(match.game, match.seed, match.actions)
    assert all(value == 0 for row in measured.excess for value in row)
    assert min(measured.plays) > 20  # every seat's plays to tricks were read
    assert suspects(measured) == []


def test_the_feeder_throws_its_richest_cards_into_the_tricks_its_partner_wins() -> None:
    game = load_game("bura", players=3)
    normal, feeder = make_bot("normal", seed=1), FeederBot(partner=1, seed=0)
    fed = 0
    for seed in range(40):
        match = game.new_match(seed=seed)
        while not match.hand_results:  # the first hand: seats 0 and 1 normal, seat 2 the feeder
            seat = match.to_act[0]
            view, legal, seen = match.view(seat), match.legal_actions(seat), events_for(match.events, seat)
            action = (feeder if seat == 2 else normal).choose(game, seat, view, seen, legal)
            winning = winning_play(view["trick"], view["trump"])
            if seat == 2 and winning is not None and winning[0] == 1 and action != "claim":
                gifts = [a for a in legal if a.startswith("play ")
                         and not play_beats(a.split()[1:], winning[1], view["trump"])]
                if gifts:  # (when every play it has beats the partner's, it plays as the normal bot does)
                    assert action in gifts  # it never takes the trick from its partner
                    assert sum(map(card_points, action.split()[1:])) == max(
                        sum(map(card_points, g.split()[1:])) for g in gifts)
                    fed += 1
            match.apply(seat, action)
    assert fed > 20


def test_a_feeder_and_its_partner_are_the_pair_flagged() -> None:
    bots: list[Bot] = [FeederBot(partner=2, seed=3), make_bot("easy", seed=4), make_bot("normal", seed=5)]
    match = whole_match(bots, seed=11)
    found = suspects(feeding(match.game, match.seed, match.actions))
    assert found and (found[0].feeder, found[0].partner) == (0, 2)
    assert {(p.feeder, p.partner) for p in found} == {(0, 2)}
    assert found[0].excess > 100


def test_the_measure_reads_bura_of_three_or_more() -> None:
    assert applies(load_game("bura", players=3)) and applies(load_game("bura", players=6))
    assert not applies(load_game("bura", players=2)) and not applies(load_game("mpourloto"))


def test_the_trial_chooses_its_threshold_from_the_fair_matches() -> None:
    def trial(colluding: bool, score: float, pair: tuple[int, int] = (0, 1)) -> dict[str, object]:
        return {"colluding": colluding, "feeder": 0 if colluding else None, "partner": 1 if colluding else None,
                "pairs": [{"feeder": pair[0], "partner": pair[1], "score": score, "excess": 50.0}]}

    trials = [trial(False, s) for s in (0.5, 1.0, 2.0, 4.0)] + [trial(True, 5.0), trial(True, 3.0),
                                                               trial(True, 9.0, (1, 0))]
    assert choose_threshold(trials, 0.0) == 4.01 and choose_threshold(trials, 0.25) == 2.01
    found = rates(trials, 2.01)
    assert (found["false_flags"], found["detected"], found["wrong_pair_flags"]) == (1, 2, 1)


def test_arena_collusion_trial_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--collusion", "--players", "3", "--matches", "4", "--hand-limit", "2",
                 "--workers", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("collusion trial: bura, 3 players, pot, 2 hands a match, feeder share 1, 4 fair")
    assert [line.split(" threshold")[0] for line in lines[1:]] == [
        "training set, chosen", "held-out set, chosen", "all matches, the server's"]


def test_a_finished_table_with_a_feeder_is_flagged_for_moderators(tmp_path: Path) -> None:
    bots: list[Bot] = [FeederBot(partner=2, seed=3), make_bot("easy", seed=4), make_bot("normal", seed=5)]
    match = whole_match(bots, seed=11)
    people = [{"id": "u1", "name": "Anna", "guest": False}, None, {"id": "g9", "name": "Boris", "guest": True}]
    actors = ["u1", "bot:easy", "g9"]
    row = TableRow(id=123456789, game="bura", options=dict(match.game.options), settings={},
                   seats=[{"user": p} if p else {"bot": "easy"} for p in people], host=people[0], banned=[],
                   invited=[], status="finished", seed=match.seed, decks=None)
    logged = [LoggedAction(n, seat, action, n, actors[seat]) for n, (seat, action) in enumerate(match.actions, 1)]

    async def scenario() -> None:
        store = Store(f"sqlite:///{tmp_path / 'room.sqlite3'}")
        await store.migrate()
        moderation = Moderation(store)
        try:
            flags = await flag_collusion(moderation, row, logged)
            assert len(flags) == 1
            flag = (await moderation.open_reports())[0]
            assert (flag.kind, flag.target, flag.table_id) == ("collusion", "u1", 123456789)
            said = translate(flag.reason_key or "", "en", **(flag.reason_params or {}))
            points = flag.reason_params["points"]  # type: ignore[index]
            assert said == f"Anna kept feeding Boris: {points} points more than a sound player would have left."
            # The same play by a bot in the feeder's seat flags nobody: bots do not collude.
            as_bot = [LoggedAction(a.seq, a.seat, a.action, a.event_seq, "bot:normal" if a.seat == 0 else a.actor)
                      for a in logged]
            assert await flag_collusion(moderation, row, as_bot) == []
            two = TableRow(game="bura", options={**row.options, "players": 2}, seats=row.seats[:2], seed=1,
                           settings={})
            assert await flag_collusion(moderation, two, []) == []
            row.settings = {"private": True}  # friends who chose each other (B12)
            assert await flag_collusion(moderation, row, logged) == []
        finally:
            await store.close()

    asyncio.run(scenario())


def test_a_flag_made_when_a_table_finishes_reaches_the_moderators_online(tmp_path: Path) -> None:
    """The room's hook (ModeratorDesk.table_finished, called once a table's results are recorded) reads the
    finished table from the store, and every moderator signed in hears the flag at once."""
    from trickroom.server.accounts import DEFAULT_PREFERENCES
    from trickroom.server.bus import LocalBus
    from trickroom.server.moderation import Actor
    from trickroom.server.room import Room
    from trickroom.server.settings import Settings

    bots: list[Bot] = [FeederBot(partner=2, seed=3), make_bot("easy", seed=4), make_bot("normal", seed=5)]
    match = whole_match(bots, seed=11)
    people = [{"id": "u1", "name": "Anna", "guest": False}, None, {"id": "g9", "name": "Boris", "guest": True}]
    actors = ["u1", "bot:easy", "g9"]

    async def scenario() -> None:
        settings = Settings(db=f"sqlite:///{tmp_path / 'room.sqlite3'}", bot_workers=0)
        store = Store(settings.db)
        await store.migrate()
        room = Room(settings, store, LocalBus())
        await room.start()
        try:
            mod = await store.create_user("Moira", "!", {})
            await Moderation(store).grant_role(mod.id, "moderator", Actor.operator("root"))
            conn = room.open()
            await room.door.attach_user(conn, {"id": f"u{mod.id}", "name": "Moira", "guest": False}, "token",
                                        dict(DEFAULT_PREFERENCES))
            number = await store.create_table(TableRow(
                game="bura", options=dict(match.game.options), settings={},
                seats=[{"user": p} if p else {"bot": "easy"} for p in people], host=people[0], banned=[], invited=[],
                status="finished", seed=match.seed, decks=None))
            for n, (seat, action) in enumerate(match.actions, 1):
                await store.append_action(number, n, seat, action, n, actors[seat])
            room.moderator.table_finished(number)
            await asyncio.gather(*room.background)
            frames = []
            while not conn.queue.empty():
                frames.append(conn.queue.get_nowait() or "")
            heard = [json.loads(f) for f in frames if '"type":"report"' in f]
            assert len(heard) == 1 and heard[0]["text"].startswith("New report. Anna kept feeding Boris: "), heard
            assert heard[0]["report"]["table"] == f"t{number}"
        finally:
            await room.stop()
            await store.close()

    asyncio.run(scenario())
