"""The front door through real websockets (docs/security.md): tokens kept only as hashes, login limits that slow a
guesser and never lock the owner out, one answer and one password check for a wrong name or password, look-alike
and held names, logout everywhere, private tables that look missing, random table ids, and table passwords.

The limiters run on a fake clock (``room.door.logins.clock``): no test waits for a back-off to pass.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_helpers import Client, ThreadServer

import trickroom.server.sessions as sessions
from trickroom.server.accounts import token_digest
from trickroom.server.limits import FakeClock
from trickroom.server.names import name_key


@pytest.fixture
def room(tmp_path: Path) -> Iterator[ThreadServer]:
    """A fresh room for each test (the limits' counts start from nothing), its limiters on a fake clock."""
    server = ThreadServer(db=f"sqlite:///{tmp_path / 'door.sqlite3'}", bot_workers=0).start()
    clock = FakeClock()
    server.app.state.room.door.logins.clock = clock
    server.app.state.room.password_guesses.clock = clock
    server.clock = clock  # type: ignore[attr-defined]
    yield server
    server.stop()


def clock_of(room: ThreadServer) -> FakeClock:
    clock: FakeClock = room.clock  # type: ignore[attr-defined]
    return clock


def from_address(room: ThreadServer, address: str) -> Client:
    return Client(room.url, headers={"X-Forwarded-For": address})


@pytest.fixture
def made() -> Iterator[list[Client]]:
    clients: list[Client] = []
    yield clients
    for client in clients:
        client.close()


def keep(made: list[Client], client: Client) -> Client:
    made.append(client)
    return client


def registered(room: ThreadServer, made: list[Client], name: str, password: str, address: str = "198.51.100.7",
               ) -> Client:
    client = keep(made, from_address(room, address))
    welcome = client.request(type="register", username=name, password=password)
    assert welcome["type"] == "welcome", welcome
    client.user, client.token = welcome["user"], welcome["token"]
    return client


# Tokens


def test_a_stolen_database_copy_holds_no_usable_token(room: ThreadServer, tmp_path: Path, made: list[Client]) -> None:
    account = registered(room, made, "Tatiana", "secret-tt")
    guest = keep(made, Client(room.url))
    guest.login_guest("Gleb")
    tokens = [account.token, guest.token]
    assert all(tokens)
    database = b"".join(path.read_bytes() for path in tmp_path.glob("door.sqlite3*"))  # the file and its WAL
    for token in tokens:
        assert token is not None and token.encode() not in database
    with sqlite3.connect(tmp_path / "door.sqlite3") as copy:
        stored = [row[0] for row in copy.execute("SELECT token_hash FROM sessions")]
    assert sorted(stored) == sorted(token_digest(t) for t in tokens if t)
    thief = keep(made, Client(room.url))
    for value in stored:  # what the thief has does not open a session
        assert thief.request(type="login", token=value)["code"] == "bad_token"
    assert keep(made, Client(room.url)).request(type="login", token=account.token)["type"] == "welcome"


def test_sessions_made_before_hashing_still_work_and_are_kept_hashed(tmp_path: Path) -> None:
    import asyncio

    from alembic import command
    from alembic.config import Config

    from trickroom.server.store import MIGRATIONS_DIR, Store

    path = tmp_path / "old.sqlite3"

    async def old_schema() -> None:
        store = Store(f"sqlite:///{path}")

        def upgrade(connection: Any) -> None:
            config = Config()
            config.set_main_option("script_location", str(MIGRATIONS_DIR))
            config.attributes["connection"] = connection
            command.upgrade(config, "0004")

        async with store.engine.begin() as conn:
            await conn.run_sync(upgrade)
        await store.close()

    asyncio.run(old_schema())
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO users (username, name, password_hash, preferences, created_at) VALUES "
                   "('olga', 'Olga', 'x', '{}', '2026-01-01 00:00:00')")
        db.execute("INSERT INTO sessions VALUES ('old-account-token', 'u1', 'Olga', 0, '{}', '2099-01-01 00:00:00')")
        db.execute("INSERT INTO sessions VALUES ('old-guest-token', 'g1', 'Pavel', 1, '{}', '2099-01-01 00:00:00')")
    server = ThreadServer(db=f"sqlite:///{path}", bot_workers=0).start()
    try:
        for token, name in (("old-account-token", "Olga"), ("old-guest-token", "Pavel")):
            client = Client(server.url)
            welcome = client.request(type="login", token=token)
            assert (welcome["type"], welcome["user"]["name"]) == ("welcome", name)
            client.close()
        with sqlite3.connect(path) as db:
            stored = {row[0] for row in db.execute("SELECT token_hash FROM sessions")}
            keys = db.execute("SELECT name_key, name_shape FROM users").fetchall()
        assert stored == {token_digest("old-account-token"), token_digest("old-guest-token")}
        assert keys == [("olga", "Olga")]
    finally:
        server.stop()


def test_a_token_opens_no_door_that_a_ban_has_closed(room: ThreadServer, tmp_path: Path, made: list[Client]) -> None:
    """A token login reads the session, its account and the bans in one trip: each of them still decides."""
    account = registered(room, made, "Tatiana", "secret-tt")
    gleb, vera = keep(made, Client(room.url)), keep(made, Client(room.url))
    gleb.login_guest("Gleb")
    vera.login_guest("Vera")
    with sqlite3.connect(tmp_path / "door.sqlite3") as db:
        for kind, value in (("account", account.user["id"]), ("name", name_key("Gleb"))):
            db.execute("INSERT INTO room_bans (kind, value, label, created_by, created_at) "
                       "VALUES (?, ?, ?, 'operator:test', '2026-01-01 00:00:00')", (kind, value, value))
    for banned in (account, gleb):
        assert keep(made, Client(room.url)).request(type="login", token=banned.token)["code"] == "room_banned"
    assert keep(made, Client(room.url)).request(type="login", token=vera.token)["user"]["name"] == "Vera"
    assert keep(made, Client(room.url)).request(type="login", token="not-a-token")["code"] == "bad_token"


def test_a_guests_token_login_holds_the_session_only_when_its_last_hold_is_old(room: ThreadServer, tmp_path: Path,
                                                                               made: list[Client]) -> None:
    """A client moving to its table's node logs in again seconds after the last hold: no write then. A guest back
    after a long while has their session held anew, as every minute while they are online."""
    hanna = keep(made, Client(room.url))
    hanna.login_guest("Hanna")
    path = tmp_path / "door.sqlite3"

    def expires() -> dt.datetime:
        with sqlite3.connect(path) as db:
            (value,) = db.execute("SELECT expires_at FROM sessions WHERE name = 'Hanna'").fetchone()
        return dt.datetime.fromisoformat(value)

    held = expires()
    assert keep(made, Client(room.url)).request(type="login", token=hanna.token)["type"] == "welcome"
    assert expires() == held  # held within the last beat: left as it was
    soon = dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(minutes=5)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE sessions SET expires_at = ? WHERE name = 'Hanna'", (soon.isoformat(sep=" "),))
    assert keep(made, Client(room.url)).request(type="login", token=hanna.token)["type"] == "welcome"
    assert expires() > soon + dt.timedelta(minutes=20)  # held again: guest_hold_minutes from now


# Login limits


def test_fifty_connections_guessing_do_not_lock_the_owner_out(room: ThreadServer, made: list[Client]) -> None:
    registered(room, made, "Vasilisa", "the-real-one").close()
    attackers = [keep(made, from_address(room, f"203.0.113.{i}")) for i in range(1, 51)]

    def guess(client: Client, rounds: int, answers: list[dict[str, Any]]) -> None:
        for n in range(rounds):  # up to 70 password checks queue behind each other: a patient wait on a busy machine
            answers.append(client.request(type="login", username="vasilisa", password=f"guess-{n}", timeout=180))

    answers: list[dict[str, Any]] = []
    threads = [threading.Thread(target=guess, args=(a, 3, answers)) for a in attackers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    codes = [a["code"] for a in answers]
    assert len(codes) == 150 and set(codes) == {"login_failed", "too_many_attempts"}
    # Under attack every address gets one free failure, then waits: well under 150 passwords were checked.
    assert codes.count("login_failed") <= 50 + 20, codes.count("login_failed")
    # The owner, from her own address, gets in at once while the attack goes on.
    owner = keep(made, from_address(room, "198.51.100.7"))
    assert owner.request(type="login", username="Vasilisa", password="the-real-one")["type"] == "welcome"
    # A typo of hers costs her a second, not a lockout.
    phone = keep(made, from_address(room, "192.0.2.99"))
    assert phone.request(type="login", username="vasilisa", password="typo")["code"] == "login_failed"
    refused = phone.request(type="login", username="vasilisa", password="the-real-one")
    assert refused["code"] == "too_many_attempts" and 1 <= refused["retry_after"] <= 3, refused
    assert refused["text"] == "Too many attempts; wait a little and try again."
    clock_of(room).advance(refused["retry_after"])
    assert phone.request(type="login", username="vasilisa", password="the-real-one")["type"] == "welcome"
    # An attacker's waits keep doubling with each failure it is let through to.
    attacker, waits = attackers[0], []
    for _ in range(4):
        answer = attacker.request(type="login", username="vasilisa", password="again")
        while answer["code"] == "too_many_attempts":
            clock_of(room).advance(answer["retry_after"])
            answer = attacker.request(type="login", username="vasilisa", password="again")
        assert answer["code"] == "login_failed"
        waits.append(attacker.request(type="login", username="vasilisa", password="again")["retry_after"])
    assert all(later == 2 * earlier for earlier, later in itertools.pairwise(waits)), waits


def test_one_address_spraying_many_accounts_backs_off(room: ThreadServer, made: list[Client]) -> None:
    sprayer = keep(made, from_address(room, "203.0.113.200"))
    codes = [sprayer.request(type="login", username=f"someone{i}", password="123456")["code"] for i in range(35)]
    assert codes[:30] == ["login_failed"] * 30 and codes[30:] == ["too_many_attempts"] * 5
    elsewhere = keep(made, from_address(room, "203.0.113.201"))
    assert elsewhere.request(type="login", username="someone99", password="123456")["code"] == "login_failed"


def test_a_wrong_name_and_a_wrong_password_answer_alike_after_one_check(room: ThreadServer, made: list[Client],
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    registered(room, made, "Zinaida", "right-pass")
    checks: list[str] = []
    real = sessions.check_password

    def counted(password_hash: str, password: str) -> bool:
        checks.append(password)
        return real(password_hash, password)

    monkeypatch.setattr(sessions, "check_password", counted)
    client = keep(made, from_address(room, "198.51.100.20"))
    wrong_name = client.request(type="login", username="nobody-at-all", password="right-pass")
    assert checks == ["right-pass"]
    wrong_password = client.request(type="login", username="Zinaida", password="wrong-pass")
    assert checks == ["right-pass", "wrong-pass"]
    drop = ("re",)
    assert {k: v for k, v in wrong_name.items() if k not in drop} == \
        {k: v for k, v in wrong_password.items() if k not in drop} == \
        {"type": "error", "code": "login_failed", "text": "Wrong user name or password."}


def test_guest_name_checks_are_limited_like_logins(room: ThreadServer, made: list[Client]) -> None:
    keep(made, Client(room.url)).login_guest("Popular")
    prober = keep(made, from_address(room, "203.0.113.77"))
    codes = [prober.request(type="login", nickname="Popular")["code"] for _ in range(7)]
    assert codes == ["name_taken"] * 5 + ["too_many_attempts"] * 2


# Names


def test_a_look_alike_of_an_online_name_is_refused(room: ThreadServer, made: list[Client]) -> None:
    keep(made, Client(room.url)).login_guest("Anna")
    registered(room, made, "Boris", "secret-bb")
    for clash in ("\u0410nna", "ANNA", "anna"):  # Cyrillic А first
        taken = keep(made, Client(room.url)).request(type="login", nickname=clash)
        assert taken["code"] == "name_taken", clash
    assert keep(made, Client(room.url)).request(type="register", username="\u0410NNA",
                                                password="secret-aa")["code"] == "name_taken"
    assert keep(made, Client(room.url)).request(type="login", nickname="\u0412oris")["code"] == "name_taken"
    assert keep(made, Client(room.url)).request(type="login", nickname="AIice")["type"] == "welcome"
    assert keep(made, Client(room.url)).request(type="login", nickname="Alice")["code"] == "name_taken"
    assert keep(made, Client(room.url)).request(type="login", nickname="Anne")["type"] == "welcome"


def test_an_away_guests_name_waits_for_them(room: ThreadServer, made: list[Client]) -> None:
    hanna = Client(room.url)
    hanna.login_guest("Hanna")
    token = hanna.token
    hanna.close()  # a dropped connection: she is away, not gone
    assert keep(made, Client(room.url)).request(type="login", nickname="Hanna")["code"] == "name_taken"
    assert keep(made, Client(room.url)).request(type="register", username="hanna",
                                                password="secret-hh")["code"] == "name_taken"
    back = keep(made, Client(room.url))
    assert back.request(type="login", token=token)["user"]["name"] == "Hanna"
    assert back.request(type="logout")["type"] == "ok"
    # Logged out, the name is free at once.
    assert keep(made, Client(room.url)).request(type="login", nickname="Hanna")["type"] == "welcome"


# Logout


def test_logout_closes_the_other_connections_of_that_session(room: ThreadServer, made: list[Client]) -> None:
    laptop = registered(room, made, "Lidia", "secret-ll")
    phone = keep(made, Client(room.url))
    assert phone.request(type="login", token=laptop.token)["type"] == "welcome"
    tablet = keep(made, Client(room.url))  # another session of the same account stays
    assert tablet.request(type="login", username="lidia", password="secret-ll")["type"] == "welcome"
    assert laptop.request(type="logout")["type"] == "ok"
    ended = phone.wait(type="error")
    assert (ended["code"], ended["text"]) == ("bad_token", "That session has ended; log in again.")
    phone.reader.join(timeout=10)
    assert phone.closed and phone.ws.close_code == sessions.CLOSE_SESSION_ENDED
    tablet.send(type="ping")
    assert tablet.wait(type="pong") and not tablet.closed
    assert keep(made, Client(room.url)).request(type="login", token=laptop.token)["code"] == "bad_token"
    assert laptop.request(type="login", username="lidia", password="secret-ll")["type"] == "welcome"


# Tables


def test_table_ids_are_random_numbers(room: ThreadServer, made: list[Client]) -> None:
    host = keep(made, Client(room.url))
    host.login_guest("Ida")
    ids = [host.request(type="create", game="bura", options={"players": 2})["table"] for _ in range(5)]
    assert all(re.fullmatch(r"t[1-9]\d{8}", table) for table in ids), ids
    numbers = [int(table[1:]) for table in ids]
    assert len(set(numbers)) == 5 and max(numbers) - min(numbers) > 5  # not one after another
    assert host.request(type="watch", table=f"t{numbers[0] + 1}")["code"] == "no_table"


def test_table_password_guesses_are_limited_per_person_and_table(room: ThreadServer, made: list[Client]) -> None:
    host = keep(made, Client(room.url))
    host.login_guest("Keeper")
    table = host.request(type="create", game="bura", options={"players": 2}, password="open sesame")["table"]
    guesser = keep(made, from_address(room, "203.0.113.5"))
    guesser.login_guest("Guesser")
    codes = [guesser.request(type="watch", table=table, password=f"no{i}")["code"] for i in range(7)]
    assert codes == ["wrong_password"] * 5 + ["too_many_attempts"] * 2
    # Even the right password waits its turn (else the limit would tell nothing) ...
    held = guesser.request(type="sit", table=table, seat=1, password="open sesame")
    assert held["code"] == "too_many_attempts" and held["table"] == table and held["retry_after"] >= 1
    # ... but someone else (another person, another address) is not held back.
    friend = keep(made, from_address(room, "198.51.100.9"))
    friend.login_guest("Friend")
    assert friend.request(type="watch", table=table, password="open sesame")["type"] == "snapshot"
    clock_of(room).advance(held["retry_after"])
    assert guesser.request(type="sit", table=table, seat=1, password="open sesame")["type"] == "snapshot"


def test_the_same_guesser_under_a_new_guest_name_is_still_held_back(room: ThreadServer, made: list[Client]) -> None:
    host = keep(made, Client(room.url))
    host.login_guest("Warden")
    table = host.request(type="create", game="bura", options={"players": 2}, password="pa55")["table"]
    guesses: list[str] = []
    for round_ in range(3):  # a new guest each time, from one address
        guesser = keep(made, from_address(room, "203.0.113.66"))
        guesser.login_guest(f"Mask{round_}")
        guesses += [guesser.request(type="watch", table=table, password=f"x{round_}{i}")["code"] for i in range(3)]
        guesser.leave()
    assert guesses.count("wrong_password") == 5 and guesses.count("too_many_attempts") == 4
