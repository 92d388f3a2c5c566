"""Bad input answers with its own code and sentence, never ``internal`` (issue 19's fuzz list, then the handlers
fuzzed through a real websocket): each error changes nothing and names what is wrong."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_helpers import Client, ThreadServer

from trickroom.server.protocol import CLIENT_TYPES

Message = dict[str, Any]
BURA_OPTIONS = "hand_limit, players, preset, scoring, show_points, stack, target"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    db = Path(tmp_path_factory.mktemp("input")) / "room.sqlite3"
    room = ThreadServer(db=f"sqlite:///{db}", bot_workers=0, messages_per_second=1e6, message_burst=10**6).start()
    yield room
    room.stop()


@pytest.fixture(scope="module")
def player(server: ThreadServer) -> Iterator[Client]:
    client = Client(server.url)
    client.login_guest("Prober")
    yield client
    client.close()


def answer(client: Client, raw: str) -> Message:
    """Send ``raw`` (JSON text with an ``"id"`` of 77) and return the reply that carries it back."""
    client.send_raw(raw)
    return client.wait(re=77)


@pytest.mark.parametrize(("options", "text"), [
    ('{"name": "x"}', f"There is no option name; the options are: {BURA_OPTIONS}."),
    ('{"self": 1}', f"There is no option self; the options are: {BURA_OPTIONS}."),
    ('{"players": Infinity}', "Option players must be a whole number."),
    ('{"players": NaN}', "Option players must be a whole number."),
    ('{"players": 2.5}', "Option players must be a whole number."),
    ('{"players": 1e400}', "Option players must be a whole number."),
])
def test_create_with_options_the_game_refuses(player: Client, options: str, text: str) -> None:
    refused = answer(player, f'{{"type": "create", "game": "bura", "options": {options}, "id": 77}}')
    assert (refused["type"], refused["code"], refused["text"]) == ("error", "bad_options", text)


def test_options_the_game_refuses_at_a_table_change_nothing(player: Client) -> None:
    table = player.request(type="create", game="bura", options={"players": 3})["table"]
    for options in ('{"players": Infinity}', '{"name": "x"}', '{"self": 2}'):
        refused = answer(player, f'{{"type": "options", "table": "{table}", "options": {options}, "id": 77}}')
        assert refused["code"] == "bad_options", refused
    assert player.request(type="resume", table=table)["info"]["options"]["players"] == 3


def test_an_act_of_whitespace_with_an_old_move(server: ThreadServer, player: Client) -> None:
    other = Client(server.url)
    try:
        other.login_guest("Second")
        table = player.request(type="create", game="bura", options={"players": 2})["table"]
        player.request(type="sit", table=table, seat=0)
        other.request(type="sit", table=table, seat=1)
        player.request(type="start", table=table)
        player.wait(type="your_turn", table=table)
        assert player.request(type="act", table=table, action="  pass ", move=0)["type"] == "ok"
        # The seat has acted since move 0: an act quoting that move is compared with the logged one.
        for action in (" ", "\t \n", ""):
            refused = player.request(type="act", table=table, action=action, move=0)
            assert (refused["code"], refused["text"]) == (
                "bad_message", "That message has a wrong or missing field: action."), action
        assert player.request(type="act", table=table, action="pass", move=0)["type"] == "ok"  # sent again
    finally:
        other.close()


@pytest.mark.parametrize(("field", "value", "text"), [
    ("bot_delay", "NaN", "The bot delay is from 0 to 5.0 seconds."),
    ("bot_delay", "Infinity", "The bot delay is from 0 to 5.0 seconds."),
    ("timer", "1e400", "That message has a wrong or missing field: timer."),
    ("seed", "1", "Fixed deals are only for tests, and this server does not allow them."),
])
def test_create_with_table_settings_out_of_range(player: Client, field: str, value: str, text: str) -> None:
    refused = answer(player, f'{{"type": "create", "game": "bura", "{field}": {value}, "id": 77}}')
    assert refused["type"] == "error" and refused["text"] == text, refused


# The handlers, fuzzed: any client message type with any JSON values in its fields (and the non-finite numbers
# Python's JSON reader accepts) gets an answer carrying its id, and that answer is never ``internal``.

ODD_TEXT = st.sampled_from(["", " ", "\t", "x" * 70, "t1", "t0", "t99999999999999999999", "u1", "g1", "bura",
                            "mpourloto", "random", "claim", "play", "play 6S", "pass", "\x00", "\x1b[2J", "\u202e",
                            "é", "Prober", "Second"])
SCALARS = (st.none() | st.booleans() | st.integers(-3, 10) | st.integers() | ODD_TEXT | st.text(max_size=6)
           | st.sampled_from([math.inf, -math.inf, math.nan, 0.5, 1e300, -0.0]))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from(["players", "name", "self", "x", "target"]), inner,
                                        max_size=3), max_leaves=5)
FIELDS = ["table", "message", "to", "game", "options", "name", "private", "password", "timer", "bot_delay", "seat",
          "level", "user", "action", "move", "after", "paused", "lang", "verbosity", "sounds", "seed", "decks"]
FUZZED_TYPES = sorted(CLIENT_TYPES - {"login", "register", "logout"})  # stay logged in


class ProbeTables:
    """The player's own tables for the fuzzer: one waiting (the player hosts it), one playing (the player in
    seat 0 against a random bot), made again when a fuzzed message closed one or took the player away."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.ids: dict[str, str] = {}

    def get(self, state: str) -> str:
        if state not in self.ids:
            table = self.client.request(type="create", game="bura", options={"players": 2})["table"]
            if state == "playing":
                self.client.request(type="sit", table=table, seat=0)
                self.client.request(type="bot_add", table=table, level="random", seat=1)
                self.client.request(type="start", table=table)
            self.ids[state] = table
        return self.ids[state]

    def check(self, state: str, reply: Message) -> None:
        if reply.get("code") in ("no_table", "not_member", "not_host", "finished") or reply.get("type") == "left":
            self.ids.pop(state, None)


@pytest.fixture(scope="module")
def probe_tables(player: Client) -> ProbeTables:
    return ProbeTables(player)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(FUZZED_TYPES), fields=st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=5),
       table=st.sampled_from(["fuzzed", "waiting", "playing", "playing"]))
def test_fuzzed_messages_are_answered_and_never_internal(player: Client, probe_tables: ProbeTables, kind: str,
                                                         fields: dict[str, Any], table: str) -> None:
    if table != "fuzzed":  # mostly a real table of the player's, so that the table's own handlers run
        fields["table"] = probe_tables.get(table)
    raw = json.dumps({**fields, "type": kind, "id": 77})  # NaN and Infinity as Python's reader takes them
    reply = answer(player, raw)
    assert not (reply["type"] == "error" and reply["code"] == "internal"), (raw, reply)
    if table != "fuzzed":
        probe_tables.check(table, reply)
    if random.Random(raw).random() < 0.02:  # now and then: the connection is still fine
        assert player.request(type="ping")["type"] == "pong"
