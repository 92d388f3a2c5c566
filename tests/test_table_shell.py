"""The table's shell (trickroom.server.table.Table) with a store and bots made for the test, a LocalBus and a
clock that moves only when the shell sleeps: writes before messages, a failed write throws the step away, a
finished match's row is written again until it lands, a bot move whose write failed is tried again, and every
refusal is counted and answers the request's id."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import Coroutine
from typing import Any

from table_helpers import CONFIG, person

from trickroom.games import load_game
from trickroom.server import metrics
from trickroom.server.bus import LocalBus
from trickroom.server.protocol import ProtocolError
from trickroom.server.settings import Settings
from trickroom.server.table import Table
from trickroom.server.table_parts import FINISHED, Seat, TableSettings
from trickroom.server.table_state import TableState

Message = dict[str, Any]


class Store:
    """Keeps what it is given; ``failing`` names the methods whose next calls raise (one per entry)."""

    def __init__(self, calls: list[tuple[str, Any]]) -> None:
        self.calls = calls
        self.failing: list[str] = []
        self.failure: Exception = RuntimeError("database is locked")  # what a failing call raises
        self.rows: list[dict[str, Any]] = []
        self.actions: list[tuple[Any, ...]] = []

    def _call(self, name: str, value: Any) -> None:
        if name in self.failing:
            self.failing.remove(name)
            self.calls.append((f"{name} failed", value))
            raise self.failure
        self.calls.append((name, value))

    async def append_action(self, table_id: int, seq: int, seat: int, action: str, event_seq: int, actor: str) -> None:
        self._call("append_action", (seq, seat, action))
        self.actions.append((seq, seat, action, event_seq, actor))

    async def save_table(self, table_id: int, **values: Any) -> None:
        self._call("save_table", values)
        self.rows.append(values)

    async def add_chat(self, table_id: int, seq: int, sender: Message, message: str) -> None:
        self._call("add_chat", (seq, message))


class Bots:
    def __init__(self) -> None:
        self.asked: list[int] = []

    async def choose(self, level: str, seed: int, game: str, options: dict[str, Any], seat: int,
                     view: Message, events: Any, legal: Any) -> str:
        self.asked.append(seat)
        return str(legal[0])

    async def off_turn(self, *args: Any) -> str | None:
        return None


class Room:
    """The services a table asks of its node."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.settings = Settings()
        self.store = Store(self.calls)
        self.bus = LocalBus()
        self.bots = Bots()
        self.table_config = CONFIG
        self.heard: defaultdict[str, list[Message]] = defaultdict(list)
        self.results: list[Any] = []
        self.background: list[asyncio.Task[None]] = []

    async def listen(self, *people: Message) -> None:
        for someone in people:
            async def deliver(payload: Message, uid: str = someone["id"]) -> None:
                for item in payload.get("batch", (payload,)):  # a step's messages to one person come together
                    message = item["message"]
                    self.calls.append(("send", (uid, message.get("type"), message.get("kind"))))
                    self.heard[uid].append(message)
            await self.bus.subscribe(f"user:{someone['id']}", deliver)

    async def publish_listing(self, table: Table) -> None: ...

    def people_changed(self, table: Table) -> None: ...

    async def close_table(self, table: Table) -> None: ...

    async def record_results(self, table: TableState) -> None:
        self.store._call("record_results", table.standings)
        self.results.append(table.standings)

    async def forward(self, intent: Message) -> None: ...

    async def give_up(self, table: Table) -> None:
        self.calls.append(("give_up", table.id))
        table.dropped = True

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        self.background.append(asyncio.get_running_loop().create_task(coro))


class Clock:
    """The shell's clock: it moves when the shell sleeps, by as long as the shell sleeps."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


def new_table(room: Room, clock: Clock, players: int = 2, **options: Any) -> Table:
    game = load_game("bura", players=players, **options)
    host = person("Host")
    state = TableState(number=1, game_name="bura", options=dict(game.options), settings=TableSettings(name="T"),
                       seats=[Seat() for _ in range(players)], host=host, config=CONFIG, seed=5)
    return Table(room, state, clock=clock, sleep=clock.sleep)


async def say(table: Table, user: Message, msg: Message, lang: str = "en") -> None:
    # auto_pass off: these tests answer Bura's announcement pause themselves
    await table.handle({"kind": "intent", "user": user, "lang": lang, "conn": "c1", "msg": {"table": "t1", **msg},
                        "auto_pass": False})


async def settle() -> None:
    for _ in range(50):
        await asyncio.sleep(0)


def errors_sent(code: str) -> float:
    value: float = metrics.ERRORS.labels(code)._value.get()
    return value


def test_an_action_is_in_the_store_before_anyone_hears_of_it() -> None:
    async def scenario() -> None:
        room, clock = Room(), Clock()
        table = new_table(room, clock)
        anna = person("Anna")
        host = table.state.host
        await room.listen(host, anna)
        await say(table, host, {"type": "sit", "seat": 0})
        await say(table, anna, {"type": "sit", "seat": 1})
        await say(table, host, {"type": "start"})
        room.calls.clear()
        await say(table, anna, {"type": "act", "action": "pass"})
        names = [name for name, _ in room.calls]
        assert names[0] == "append_action" and names.count("append_action") == 1
        assert ("send", (host["id"], "event", None)) in room.calls[1:]
        assert table.state.match is not None and table.state.match.actions == [(1, "pass")]

    asyncio.run(scenario())


def test_a_failed_save_throws_the_step_away_and_answers_internal() -> None:
    async def scenario() -> None:
        room, clock = Room(), Clock()
        table = new_table(room, clock)
        ann, bob = person("Ann"), person("Bob")
        await room.listen(ann, bob)
        await say(table, bob, {"type": "watch"})
        before = table.state
        room.store.failing.append("save_table")
        internal = errors_sent("internal")
        await say(table, ann, {"type": "sit", "seat": 0, "id": 4})
        assert room.heard[ann["id"]] == [{"type": "error", "code": "internal", "table": "t1", "re": 4,
                                          "text": "Something went wrong on the server; nothing was changed."}]
        assert errors_sent("internal") == internal + 1
        assert table.state.seats == before.seats and ann["id"] not in table.state.members
        assert not [m for m in room.heard[bob["id"]] if m.get("kind") == "sat"]
        # The journal number the failed step took is not given again (its write may have reached the database).
        assert table.state.next_seq == before.next_seq + 1
        await say(table, ann, {"type": "sit", "seat": 0})
        sat = next(m for m in room.heard[bob["id"]] if m.get("kind") == "sat")
        assert sat["seq"] == before.next_seq + 1 and table.state.seats[0].user == ann

    asyncio.run(scenario())


def test_a_failed_append_refuses_a_persons_act_and_tries_a_bots_move_again() -> None:
    async def scenario() -> None:
        room, clock = Room(), Clock()
        table = new_table(room, clock)
        host = table.state.host
        await room.listen(host)
        await say(table, host, {"type": "sit", "seat": 0})
        await say(table, host, {"type": "bot_add", "level": "random"})
        room.store.failing.append("append_action")  # the bot's answer to the announcement
        await say(table, host, {"type": "start"})
        await settle()
        assert ("append_action failed", (1, 1, "pass")) in room.calls
        assert 0.5 in clock.slept  # tried again half a second later
        assert room.store.actions[0][:3] == (1, 1, "pass")
        room.store.failing.append("append_action")
        room.heard[host["id"]].clear()
        await say(table, host, {"type": "act", "action": "pass", "id": 9})
        assert [m["code"] for m in room.heard[host["id"]]] == ["internal"]
        assert table.state.match is not None and len(table.state.match.actions) == 1
        await say(table, host, {"type": "act", "action": "pass", "id": 10})
        assert room.heard[host["id"]][-1] == {"type": "ok", "re": 10, "table": "t1"}
        assert len(table.state.match.actions) == 2
        table.cancel_all()

    asyncio.run(scenario())


def test_an_act_another_node_wrote_first_is_handed_on_and_the_table_given_up() -> None:
    """The append is fenced off (StaleOwner: another node took the table over and wrote that move): the player
    hears no error from this node, the act goes to the new owner, this node gives the table up, and what reaches
    the table afterwards is handed on too."""
    from trickroom.server.store import StaleOwner

    async def scenario() -> None:
        room, clock = Room(), Clock()
        forwarded: list[Message] = []

        async def forward(intent: Message) -> None:
            forwarded.append(intent)

        room.forward = forward
        table = new_table(room, clock)
        host = table.state.host
        await room.listen(host)
        await say(table, host, {"type": "sit", "seat": 0})
        await say(table, host, {"type": "bot_add", "level": "random"})
        await say(table, host, {"type": "start"})
        await settle()
        room.heard[host["id"]].clear()
        room.store.failure = StaleOwner("table 1 already has action 2")
        room.store.failing.append("append_action")
        act = {"kind": "intent", "user": host, "lang": "en", "conn": "c1", "auto_pass": False,
               "msg": {"table": "t1", "type": "act", "action": "pass", "id": 9}}
        await table.handle(act)
        await settle()
        assert room.heard[host["id"]] == []  # no error, no event: the new owner answers
        assert [call for call in room.calls if call[0] == "give_up"] == [("give_up", "t1")]
        assert forwarded == [act] and table.dropped
        assert table.state.match is not None and len(table.state.match.actions) == 1  # the step was undone
        later = {**act, "msg": {**act["msg"], "id": 10}}
        await table.handle(later)
        await settle()
        assert forwarded == [act, later]

    asyncio.run(scenario())


async def bots_play_one_hand(room: Room, clock: Clock) -> tuple[Table, Message]:
    """A one-hand match of two random bots, started, with its host watching."""
    table = new_table(room, clock, scoring="points", hand_limit=1)
    host = table.state.host
    await room.listen(host)
    await say(table, host, {"type": "watch"})
    await say(table, host, {"type": "bot_add", "level": "random"})
    await say(table, host, {"type": "bot_add", "level": "random"})
    await say(table, host, {"type": "start"})
    return table, host


def test_the_row_of_a_finished_match_is_written_again_until_it_lands() -> None:
    async def scenario() -> None:
        room, clock = Room(), Clock()
        table, host = await bots_play_one_hand(room, clock)
        room.store.failing += ["save_table", "save_table"]  # the bots play the hand; its end's first two writes fail
        for _ in range(200):
            await settle()
            if table.state.status == FINISHED and table.unsaved is None:
                break
        assert table.state.status == FINISHED
        assert [m for m in room.heard[host["id"]] if m.get("kind") == "finished"]
        assert not [m for m in room.heard[host["id"]] if m["type"] == "error"]
        finished = [row for row in room.store.rows if row.get("status") == FINISHED]
        assert len(finished) == 1 and "finished_at" in finished[0] and finished[0]["standings"]
        assert [name for name, _ in room.calls].count("save_table failed") == 2
        assert clock.slept[-2:] == [0.5, 1.0]
        assert room.results == [table.state.standings]

    asyncio.run(scenario())


def test_results_that_could_not_be_recorded_are_recorded_again_until_they_land() -> None:
    async def scenario() -> None:
        room, clock = Room(), Clock()
        table, host = await bots_play_one_hand(room, clock)
        room.store.failing += ["record_results"] * 3  # the bots play the hand; its results fail three times
        for _ in range(200):
            await settle()
            if room.results:
                break
        assert table.state.status == FINISHED
        assert room.results == [table.state.standings]  # recorded once, at the fourth try
        assert [name for name, _ in room.calls].count("record_results failed") == 3
        assert clock.slept[-3:] == [0.5, 1.0, 2.0]
        assert [m for m in room.heard[host["id"]] if m.get("kind") == "finished"]

    asyncio.run(scenario())


def test_every_table_refusal_is_counted_and_answers_its_id() -> None:
    async def scenario() -> None:
        room, clock = Room(), Clock()
        table = new_table(room, clock)
        anna = person("Anna")
        await room.listen(anna)
        counted = {code: errors_sent(code) for code in ("not_member", "not_host", "bad_message")}
        await say(table, anna, {"type": "chat", "message": "hi", "id": "a"})
        await say(table, anna, {"type": "watch"})
        await say(table, anna, {"type": "start", "id": "b"})
        await say(table, anna, {"type": "sit", "seat": "x", "id": "c"})  # refused before it reaches the state
        refusals = [(m["code"], m["re"]) for m in room.heard[anna["id"]] if m["type"] == "error"]
        assert refusals == [("not_member", "a"), ("not_host", "b"), ("bad_message", "c")]
        assert {code: errors_sent(code) - counted[code] for code in counted} == {
            "not_member": 1, "not_host": 1, "bad_message": 1}

    asyncio.run(scenario())


def test_the_action_latency_is_observed_once_per_action() -> None:
    def observed() -> float:
        return float(sum(sample.value for sample in metrics.ACTION_LATENCY.collect()[0].samples
                         if sample.name.endswith("_count")))

    async def scenario() -> None:
        room, clock = Room(), Clock()
        table = new_table(room, clock)
        anna, host = person("Anna"), table.state.host
        await room.listen(anna, host)
        await say(table, host, {"type": "sit", "seat": 0})
        await say(table, anna, {"type": "sit", "seat": 1})
        await say(table, host, {"type": "start"})
        before, actions = observed(), metrics.ACTIONS._value.get()
        await say(table, anna, {"type": "act", "action": "pass"})
        await say(table, anna, {"type": "act", "action": "pass"})  # refused: not an action
        await say(table, host, {"type": "act", "action": "pass"})
        assert observed() - before == 2 and metrics.ACTIONS._value.get() - actions == 2

    asyncio.run(scenario())


def test_a_dropped_table_forwards_what_reaches_it() -> None:
    async def scenario() -> None:
        room, clock = Room(), Clock()
        forwarded: list[Message] = []

        async def forward(intent: Message) -> None:
            forwarded.append(intent)

        room.forward = forward
        table = new_table(room, clock)
        table.dropped = True
        intent = {"kind": "intent", "user": person("Late"), "lang": "en", "conn": "c", "msg": {"type": "watch",
                                                                                               "table": "t1"}}
        await table.handle(intent)
        await settle()
        assert forwarded == [intent] and table.state.members == {}

    asyncio.run(scenario())


def test_protocol_errors_keep_their_sentence_parameters() -> None:
    from trickroom.server.errors import error_message

    err = ProtocolError("seat_taken", number=2)
    assert error_message(err, "en", re=1, table="t1")["text"] == "Seat 2 is taken."
    assert error_message(err, "en")["text"] == "Seat 2 is taken."  # the error itself is not changed by saying it


def test_an_event_is_encoded_once_for_everyone_who_hears_the_same() -> None:
    async def scenario() -> None:
        room, clock = Room(), Clock()
        table = new_table(room, clock)
        anna, vera, gleb, dora = person("Anna"), person("Vera"), person("Gleb"), person("Dora")
        frames: defaultdict[str, list[str]] = defaultdict(list)
        for someone in (table.state.host, anna, vera, gleb, dora):
            async def keep(payload: Message, uid: str = someone["id"]) -> None:
                for item in payload.get("batch", (payload,)):  # a step's messages to one person come together
                    if "frame" in item:  # the journal's entries (a reply to one person is made for them alone)
                        frames[uid].append(item["frame"])
            await room.bus.subscribe(f"user:{someone['id']}", keep)
        host = table.state.host
        await say(table, host, {"type": "sit", "seat": 0})
        await say(table, anna, {"type": "sit", "seat": 1})
        for watcher, lang in ((vera, "en"), (gleb, "en"), (dora, "ru")):
            await say(table, watcher, {"type": "watch"}, lang=lang)
        for uid in frames:
            frames[uid].clear()
        await say(table, host, {"type": "start"})
        vera_heard, gleb_heard, dora_heard = frames[vera["id"]], frames[gleb["id"]], frames[dora["id"]]
        assert vera_heard and len(vera_heard) == len(gleb_heard) == len(dora_heard)
        # The two English spectators get the very same frames (one encoding each), the Russian one its own.
        assert all(one is other for one, other in zip(vera_heard, gleb_heard, strict=True))
        texts = [(json.loads(one)["text"], json.loads(other)["text"])
                 for one, other in zip(vera_heard, dora_heard, strict=True)]
        assert any(en for en, _ in texts) and all(en != ru for en, ru in texts if en)
        # A seat hears its own view (its cards) in frames of its own; what reads the same for all is shared.
        assert set(frames[anna["id"]]) - set(vera_heard)
        game_events = {id(f) for f in frames[anna["id"]] if json.loads(f)["type"] == "event"}
        assert game_events and not game_events & {id(f) for f in vera_heard}  # rendered for her seat alone
        # A trick's end is said as one sentence (its other events say nothing alone): still one encoding for both.
        for uid in frames:
            frames[uid].clear()
        while True:
            match = table.state.match
            assert match is not None
            seat = match.to_act[0]
            player = host if seat == 0 else anna
            play = next(action for action in match.legal_actions(seat) if action != "claim")  # a pass, or a lead
            await say(table, player, {"type": "act", "action": play})
            if any(json.loads(f)["event"]["type"] == "trick" for f in frames[vera["id"]]
                   if json.loads(f)["type"] == "event"):
                break
            for uid in frames:
                frames[uid].clear()
        vera_heard, gleb_heard = frames[vera["id"]], frames[gleb["id"]]
        assert [json.loads(f)["text"] for f in vera_heard].count("") >= 1  # said inside the trick's sentence
        assert all(one is other for one, other in zip(vera_heard, gleb_heard, strict=True))

    asyncio.run(scenario())


def test_a_write_the_busy_database_could_not_take_is_answered_busy() -> None:
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    async def scenario() -> None:
        room, clock = Room(), Clock()
        table = new_table(room, clock)
        ann = person("Ann")
        await room.listen(ann)
        before = table.state
        room.store.failing.append("save_table")
        room.store.failure = PoolTimeout("QueuePool limit of size 1 overflow 0 reached, connection timed out")
        await say(table, ann, {"type": "sit", "seat": 0, "id": 4})
        assert room.heard[ann["id"]] == [{"type": "error", "code": "busy", "table": "t1", "re": 4, "retry_after": 2,
                                          "text": "The room is busy just now; ask again in a moment."}]
        assert table.state.seats == before.seats  # nothing changed: asking again seats her
        await say(table, ann, {"type": "sit", "seat": 0})
        assert table.state.seats[0].user == ann

    asyncio.run(scenario())
