"""Fuzzing the protocol: thousands of malformed, mistyped, unauthorised and out-of-turn messages. Each gets an
error, the server stays up, and the table's state does not change."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_helpers import Client, ThreadServer, clients

MESSAGES = 3000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    db = Path(tmp_path_factory.mktemp("fuzz")) / "fuzz.sqlite3"
    # The lobby's changes go out at once: gathered, the setup's last batch (Keeper arriving, the table listed) could
    # reach the fuzzer after its drain on a slow machine, and be taken for the answer to a bad message.
    room = ThreadServer(db=f"sqlite:///{db}", messages_per_second=1e6, message_burst=10**6,
                        lobby_batch_seconds=0).start()
    yield room
    room.stop()


def bad_messages(rng: random.Random, table: str, legal_elsewhere: list[str], own_legal: list[str],
                 other_user: str) -> Iterator[str | bytes]:
    """Messages that must each be refused with one error."""
    junk_values: list[Any] = [None, 1, -1, 2**70, 1.5, "", "x" * 300, [], {}, [1, 2], {"a": 1}, True]
    makers = [
        lambda: rng.choice(["", "{", "}", "[", "nul", "{'a': 1}", '{"type": }', "\x00"]),
        lambda: json.dumps(rng.choice(junk_values)),
        lambda: json.dumps({"type": rng.choice(["", "hack", "ACT", "Act", "admin", "0"])}),
        lambda: json.dumps({"type": "act", "table": table, "action": rng.choice(junk_values)}),
        lambda: json.dumps({"type": "act", "table": rng.choice(junk_values), "action": "claim"}),
        lambda: json.dumps({"type": "act", "table": table,
                            "action": rng.choice(["play", "play ZZ", "play AS AS AS AS", "trump X", "pass pass",
                                                  "play " + " ".join(rng.sample(["6S", "7H", "8D", "9C", "TS"], 2)),
                                                  "claim 31", "claimclaim"])}),
        lambda: json.dumps({"type": "act", "table": table, "action": rng.choice(legal_elsewhere)}),
        lambda: json.dumps({"type": "act", "table": "t9999", "action": "claim"}),
        lambda: json.dumps({"type": "sit", "table": table, "seat": rng.choice([-1, 0, 2, 7, "x", []])}),
        lambda: json.dumps({"type": rng.choice(["options", "bot_add", "bot_remove", "start", "kick", "ban", "host",
                                                "invite"]), "table": table, "options": {"players": 3},
                            "level": "random", "seat": 1, "user": other_user}),
        lambda: json.dumps({"type": "chat", "table": table, "message": rng.choice(["", "   ", "y" * 600, 5])}),
        lambda: json.dumps({"type": "private", "to": "nobody-" + str(rng.random()), "message": "hi"}),
        lambda: json.dumps({"type": "create", "game": rng.choice(["chess", "", 7]), "options": {}}),
        lambda: json.dumps({"type": "create", "game": "bura", "options": {"players": rng.choice([0, 1, 7, "two"])}}),
        lambda: json.dumps({"type": "login", "protocol": 99, "nickname": "x"}),
        lambda: json.dumps({"type": "preferences", "lang": rng.choice(["de", 5, ""])}),
        lambda: json.dumps({"type": "resume", "table": "t9999", "after": 0}),
        lambda: json.dumps({"type": "pause", "table": table, "paused": True}),
        lambda: "z" * 9000,
        lambda: rng.choice([b"\xff\xfe", b"{}", b'{"type": "act"}']),
    ]
    for _ in range(MESSAGES):
        yield rng.choice(makers)()


def test_thousands_of_bad_messages_change_nothing(server: ThreadServer) -> None:
    with clients(server.url, "Fuzzer", "Keeper") as (fuzzer, keeper):
        # Keeper hosts a two-player Bura table and it is Keeper's turn; Fuzzer holds the other seat.
        table = keeper.request(type="create", game="bura", options={"players": 2})["table"]
        keeper.request(type="sit", table=table, seat=0)
        fuzzer.request(type="sit", table=table, seat=1)
        keeper.request(type="start", table=table)
        update = keeper.wait(type="update", table=table)
        to_act = update["to_act"][0]
        # Let the fuzzer's seat make moves until it is the keeper's turn to act alone.
        while to_act != 0:
            fuzzer_update = fuzzer.wait(type="update", table=table, seq=update["seq"])
            legal = [a for a in fuzzer_update["legal"] if a != "claim"]
            fuzzer.send(type="act", table=table, action=legal[0])
            last = update["seq"]
            update = keeper.wait(lambda m, last=last: m["seq"] > last, type="update", table=table)
            to_act = update["to_act"][0]
        keeper_legal = [a for a in update["legal"] if a != "claim"]
        fuzzer.drain()
        fuzzer.send(type="resume", table=table, after=10**9)
        snapshot_before = fuzzer.wait(type="snapshot", table=table)
        fuzzer_legal = snapshot_before["legal"]

        rng = random.Random(5)
        codes: set[str] = set()
        for raw in bad_messages(rng, table, keeper_legal, fuzzer_legal, keeper.user["id"]):
            fuzzer.send_raw(raw)
            reply = fuzzer.next()
            assert reply["type"] == "error" and reply["text"], (raw, reply)
            codes.add(reply["code"])
        assert {"bad_json", "bad_message", "unknown_type", "not_your_turn", "not_host", "too_big", "no_table",
                "bad_options", "chat_too_long"} <= codes
        fuzzer.send(type="ping")
        assert fuzzer.next()["type"] == "pong"  # nothing else was sent to the fuzzer meanwhile

        fuzzer.send(type="resume", table=table, after=10**9)
        snapshot_after = fuzzer.wait(type="snapshot", table=table)
        for key in ("view", "to_act", "legal", "seq", "info"):
            assert snapshot_after[key] == snapshot_before[key], key
        # The room still works for everyone: the keeper plays on.
        wrong = keeper.request(type="act", table=table, action="play ZZ")
        assert wrong["code"] == "illegal"
        keeper.send(type="act", table=table, action=keeper_legal[0])
        keeper.wait(lambda m: m["event"].get("seat") == 0, type="event", table=table)
        health = Client(server.url)
        assert health.login_guest("StillHere")["type"] == "welcome"
        health.close()
