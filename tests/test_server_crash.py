"""Crash recovery: the real ``trickroom serve`` process is killed with SIGKILL mid-game and restarted; every
table, seat and card is as before, and the game then finishes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server_helpers import AutoPlayer, Client, ProcessServer


def finished(message: dict[str, Any]) -> bool:
    return message["type"] == "table_event" and message["kind"] == "finished"


def waiting_for(seat: int) -> Any:
    return lambda m: m["type"] == "update" and m["to_act"] == [seat]


def wait_until_bot_has_moved(client: Client, table: str, bot_seat: int) -> None:
    """When the players stop, a bot's move may still be on its way; the crash must come after it has landed, or
    the restarted room rightly plays a move that the state taken before the crash did not have yet."""
    client.send(type="resume", table=table, after=10**9)
    snapshot = client.wait(type="snapshot", table=table)
    if bot_seat in snapshot["to_act"]:
        seq = snapshot["seq"]
        client.wait(lambda m: m["seq"] > seq and bot_seat not in m["to_act"], type="update", table=table)
    client.drain()


def state_of(client: Client, table: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A fresh snapshot and the game events of the journal, as this client's seat sees them."""
    client.send(type="resume", table=table, after=0)
    snapshot = client.wait(type="snapshot", table=table)
    events = [m for m in client.drain() if m.get("missed") and m["type"] == "event"]
    return snapshot, events


def test_sigkill_mid_game_then_restart_restores_everything(tmp_path: Path) -> None:
    db = tmp_path / "crash.sqlite3"
    server = ProcessServer(db).start()
    try:
        anna, boris = Client(server.url), Client(server.url)
        anna.login_guest("Anna")
        boris.login_guest("Boris")
        table = anna.request(type="create", game="bura",
                             options={"players": 3, "scoring": "points", "hand_limit": 4})["table"]
        anna.request(type="sit", table=table, seat=0)
        boris.request(type="sit", table=table, seat=1)
        anna.request(type="bot_add", table=table, level="random", seat=2)
        waiting = anna.request(type="create", game="mpourloto", options={"target": 300}, name="Later")["table"]
        anna.request(type="bot_add", table=waiting, level="random", seat=3)
        anna.request(type="start", table=table)
        # Play a good part of the match, and stop when the game waits for Boris. The deal is random: a hand can
        # end at once (a Bura shown on the first trick), so the limit of four hands leaves room to reach seq 40.
        pause_point = lambda m: waiting_for(1)(m) and m["seq"] > 40  # noqa: E731
        players = [AutoPlayer(anna, table, 0, 11, pause_point).start(),
                   AutoPlayer(boris, table, 1, 12, pause_point).start()]
        for player in players:
            player.join()
        wait_until_bot_has_moved(anna, table, bot_seat=2)
        before = {name: state_of(c, table) for name, c in (("anna", anna), ("boris", boris))}
        tokens = {"anna": anna.token, "boris": boris.token}
        server.kill()
        anna.close()
        boris.close()

        server = ProcessServer(db, port=server.port).start()
        anna, boris = Client(server.url), Client(server.url)
        for name, client in (("anna", anna), ("boris", boris)):
            welcome = client.request(type="login", token=tokens[name])
            assert table in welcome["tables"]
        after = {name: state_of(c, table) for name, c in (("anna", anna), ("boris", boris))}
        for name in ("anna", "boris"):
            snap_before, events_before = before[name]
            snap_after, events_after = after[name]
            assert [(m["seq"], m["event"], m["text"]) for m in events_after] == [
                (m["seq"], m["event"], m["text"]) for m in events_before]
            for key in ("view", "to_act", "legal", "standings", "hand_results"):
                assert snap_after[key] == snap_before[key], (name, key)
            # Numbering goes on past anything said before the crash (it never goes back), here with both
            # players' return.
            assert snap_after["seq"] > snap_before["seq"] + 2
            seats = [{k: v for k, v in s.items() if k != "connected"} for s in snap_after["info"]["seats"]]
            assert seats == [{k: v for k, v in s.items() if k != "connected"} for s in snap_before["info"]["seats"]]
            assert snap_after["info"]["options"] == snap_before["info"]["options"]
        anna.send(type="lobby")
        lobby = anna.wait(type="lobby")
        later = next(entry for entry in lobby["tables"] if entry["id"] == waiting)
        assert later["name"] == "Later" and later["bots"] == 1 and later["status"] == "waiting"
        # The game goes on to its end.
        players = [AutoPlayer(anna, table, 0, 13, finished).start(), AutoPlayer(boris, table, 1, 14, finished).start()]
        legal = before["boris"][0]["legal"]
        boris.send(type="act", table=table, action=([a for a in legal if a != "claim"] or legal)[0])
        for player in players:
            player.join()
        anna.close()
        boris.close()
    finally:
        server.stop()
