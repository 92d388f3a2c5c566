"""The web client in a busy room: a guest whose login waits in line (docs/protocol.md, *The waiting line*) hears
their number once and sees it under the sign-in forms. The room's line is shut for good here (a lag limit of a
microsecond, which every tick of the loop exceeds), so the login waits for as long as the test looks."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import need_service
from web_helpers import CHROMIUM, room_process, spoken, wait_spoken

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    need_service(os.path.exists(CHROMIUM), "Debian's chromium is not installed (make browser-deps)")
    with room_process(tmp_path_factory.mktemp("line") / "room.sqlite3", TRICKROOM_LINE_LAG_MS="0.001") as base:
        yield base


def test_a_guest_waiting_in_line_hears_and_sees_their_number(page: Any, room: str) -> None:
    page.goto(room + "/")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'guest-nickname'")
    page.keyboard.type("Nadia")
    page.keyboard.press("Enter")
    sentence = "The room is busy: you are number 1 in line."
    said = wait_spoken(page, "^" + sentence.replace(".", r"\.") + "$")
    shown = page.locator("#signin-line")
    assert shown.is_visible() and shown.inner_text() == sentence
    assert page.locator("#screen-lobby").is_hidden()  # not let in: the sign-in screen stays
    page.wait_for_timeout(500)
    assert spoken(page)[said + 1:] == []  # said once, nothing after it while waiting
