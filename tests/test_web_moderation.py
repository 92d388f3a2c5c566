"""Browser tests of F4, keyboard only, with axe-core on each of its screens: a guest reports a player from the
lobby (the person and a reason), a moderator who signs in later hears the report waiting, reads it in the
reports list and mutes the player from the dialog (the player's lobby chat is then refused), and the audit log
is read by an admin."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from conftest import need_service
from server_helpers import Client
from web_helpers import (
    CHROMIUM,
    chromium,
    dialog_open,
    focused_name,
    recorded_page,
    room_process,
    run_axe,
    sign_in,
    wait_spoken,
)

from trickroom.server.moderation import Actor, Moderation
from trickroom.server.store import Store

pytestmark = pytest.mark.browser
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("web-moderation") / "room.sqlite3"


@pytest.fixture(scope="module")
def room(db: Path) -> Iterator[str]:
    need_service(os.path.exists(CHROMIUM), "Debian's chromium is not installed (make browser-deps)")
    with room_process(db, TRICKROOM_BOT_WORKERS="0") as base:
        yield base


@pytest.fixture(scope="module")
def browser(room: str) -> Iterator[Any]:
    with chromium() as launched:
        yield launched


def ws(base: str) -> str:
    return base.replace("http://", "ws://") + "/ws"


def make_account(base: str, db: Path, name: str, role: str) -> None:
    client = Client(ws(base))
    welcome = client.request(type="register", username=name, password="secret-pw")
    client.leave()

    async def grant() -> None:
        store = Store(f"sqlite:///{db}")
        try:
            assert await Moderation(store).grant_role(int(welcome["user"]["id"][1:]), role, Actor.operator("root"))
        finally:
            await store.close()

    with ThreadPoolExecutor(1) as pool:  # Playwright's own event loop runs in this thread
        pool.submit(asyncio.run, grant()).result()


def sign_in_account(page: Any, base: str, name: str) -> None:
    page.goto(base + "/")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'guest-nickname'")
    page.fill("#account-username", name)
    page.fill("#account-password", "secret-pw")
    page.focus("#account-password")
    page.keyboard.press("Enter")
    wait_spoken(page, f"Welcome, {name}")


def no_violations(page: Any, where: str) -> None:
    violations = run_axe(page)
    assert violations == [], f"{where}: {violations}"


def press_until(page: Any, key: str, pattern: str, limit: int = 30) -> None:
    import re

    for _ in range(limit):
        if re.search(pattern, focused_name(page)):
            return
        page.keyboard.press(key)
    raise AssertionError(f"no {pattern!r} within {limit} presses of {key}; at {focused_name(page)!r}")


def test_f4_reports_a_player_and_a_moderator_mutes_them(room: str, db: Path, browser: Any) -> None:
    make_account(room, db, "Moira", "admin")
    spammer = Client(ws(room))
    spammer.login_guest("Spammer")
    with recorded_page(browser, viewport=DESKTOP) as page:
        sign_in(page, room, "Anna")
        page.wait_for_function("() => window.trickroom.state.lobby.users.some(u => u.name === 'Spammer')")
        page.keyboard.press("F4")
        dialog_open(page, "moderation-dialog")
        assert focused_name(page) == "Report a player"
        no_violations(page, "F4 for a player")
        page.keyboard.press("Enter")
        dialog_open(page, "moderation-dialog")
        assert focused_name(page) == "Player"  # the select, Spammer chosen (the only other person online)
        page.keyboard.press("Tab")
        assert focused_name(page) == "Reason"
        page.keyboard.type("selling chips")
        no_violations(page, "the report form")
        page.keyboard.press("Enter")
        wait_spoken(page, "^Your report on Spammer went to the moderators.$")

    with recorded_page(browser, viewport=DESKTOP) as page:
        sign_in_account(page, room, "Moira")
        wait_spoken(page, r"^Moderator tools: F4\. 1 report waits\.$")
        page.keyboard.press("F4")
        dialog_open(page, "moderation-dialog")
        assert page.text_content("#moderation-title") == "Moderation"
        no_violations(page, "F4 for an admin")
        press_until(page, "ArrowDown", "^Reports waiting$")
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.getElementById('moderation-title').textContent === 'Reports waiting'")
        dialog_open(page, "moderation-dialog")
        assert focused_name(page) == "Anna reported Spammer: selling chips"
        no_violations(page, "the reports list")
        page.keyboard.press("Escape")

        page.keyboard.press("F4")
        dialog_open(page, "moderation-dialog")
        press_until(page, "ArrowDown", "^Mute in the lobby chat$")
        page.keyboard.press("Enter")
        dialog_open(page, "moderation-dialog")
        assert focused_name(page) == "Player"
        page.keyboard.press("S")  # the select's own letter search: Spammer (Anna has left)
        page.keyboard.press("Tab")
        assert focused_name(page) == "For how long"
        page.keyboard.press("Tab")
        page.keyboard.type("caps")
        no_violations(page, "the mute form")
        page.keyboard.press("Enter")
        wait_spoken(page, "^Spammer is muted in the lobby until ")
        refused = spammer.request(type="chat", message="buy now")
        assert refused["code"] == "muted", refused

        page.keyboard.press("F4")
        dialog_open(page, "moderation-dialog")
        press_until(page, "ArrowDown", "^Audit log$")
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.getElementById('moderation-title').textContent === 'Audit log'")
        dialog_open(page, "moderation-dialog")
        assert "Moira muted Spammer in the lobby, until " in focused_name(page), focused_name(page)
        no_violations(page, "the audit log")
    spammer.leave()
