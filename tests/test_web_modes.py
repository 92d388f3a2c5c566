"""Browser tests of the player's modes: the browser's own voice instead of the live regions, high contrast and
large text (remembered, axe clean), the automatic pass kept by the room, and a phone played by touch.
"""

from __future__ import annotations

from typing import Any

import pytest
from web_helpers import (
    FAKE_VOICE,
    RECORDER,
    csp_listener,
    dialog_open,
    my_turn,
    screenshot,
    sign_in,
    spoken,
    tab_to,
    table_state,
    voiced,
    wait_spoken,
    wait_until,
)
from web_play import (
    DESKTOP,
    MINE,
    PHONE,
    PLAY,
    add_bots_and_start,
    assert_no_violations,
    wait_for_move_after,
)

pytestmark = pytest.mark.browser



def test_browser_voice_speaks_in_order(page: Any, room: str) -> None:
    page.add_init_script(FAKE_VOICE)
    sign_in(page, room, "Vox")
    page.keyboard.press("F2")
    dialog_open(page, "settings-dialog")
    tab_to(page, "^Speech$")
    page.keyboard.press("ArrowDown")  # screen reader -> the browser's own voice
    page.keyboard.press("Escape")
    live_before = len(spoken(page))
    page.keyboard.press("n")
    dialog_open(page, "table-dialog")
    tab_to(page, "^Level of the bots you add$")
    page.keyboard.press("Home")
    page.keyboard.press("Enter")
    wait_until(page, lambda: any(v["text"] == "You sit in seat 1." for v in voiced(page)), "the seat spoken")
    page.keyboard.press("b")
    wait_until(page, lambda: any(v["text"].endswith("bot sits in seat 2.") for v in voiced(page)), "the bot spoken")
    page.keyboard.press("l")  # repeat: interrupts, then says it again
    wait_until(page, lambda: voiced(page)[-1]["text"] == "A random bot sits in seat 2.", "the repeat")
    texts = [v["text"] for v in voiced(page)]
    assert texts == ["You sit in seat 1.", "A random bot sits in seat 2.", "<cancel>", "A random bot sits in seat 2."]
    assert all(v["lang"] == "en-US" for v in voiced(page) if v["text"] != "<cancel>")
    assert spoken(page)[live_before:] == []  # the live regions stay quiet in this mode


def test_high_contrast_and_large_text_modes(page: Any, room: str) -> None:
    sign_in(page, room, "Cleo")
    page.keyboard.press("F2")
    dialog_open(page, "settings-dialog")
    # The automatic pass (issue 21): a labelled checkbox, on by default, kept by the room for the user.
    tab_to(page, "^Pass for me when I have nothing to announce$")
    assert page.evaluate("document.activeElement.checked") is True
    assert "passes for you" in page.evaluate(
        "document.getElementById(document.activeElement.getAttribute('aria-describedby')).textContent")
    page.keyboard.press("Space")
    page.wait_for_function("() => window.trickroom.state.roomPrefs.auto_pass === false")
    tab_to(page, "^High contrast$")
    page.keyboard.press("Space")
    tab_to(page, "^Large text$")
    page.keyboard.press("Space")
    classes = page.evaluate("[...document.documentElement.classList]")
    assert "high-contrast" in classes and "large-text" in classes
    assert_no_violations(page, "settings in high contrast")
    page.keyboard.press("Escape")
    page.reload()  # the room kept it: the welcome after the reload says it is off
    page.wait_for_function("() => window.trickroom && window.trickroom.state.roomPrefs && window.trickroom.state.user")
    assert page.evaluate("window.trickroom.state.roomPrefs.auto_pass") is False
    page.wait_for_function("() => !document.getElementById('screen-lobby').hidden")
    assert_no_violations(page, "lobby in high contrast")
    page.keyboard.press("n")
    dialog_open(page, "table-dialog")
    tab_to(page, "^Level of the bots you add$")
    page.keyboard.press("Home")
    page.keyboard.press("Enter")
    wait_spoken(page, r"^You sit in seat 1\.$")
    add_bots_and_start(page, 1)
    wait_until(page, lambda: bool((table_state(page) or {}).get("view")), "the deal")
    assert_no_violations(page, "table in high contrast")
    page.keyboard.press("w")
    dialog_open(page, "list-dialog")
    assert_no_violations(page, "people dialog in high contrast")
    page.keyboard.press("Escape")
    screenshot(page, "table-contrast-desktop")
    page.set_viewport_size(PHONE)
    screenshot(page, "table-contrast-phone")
    page.set_viewport_size(DESKTOP)
    # Remembered: after a reload the page comes back in the same modes.
    page.reload()
    page.wait_for_function("() => document.documentElement.classList.contains('high-contrast')")
    assert page.evaluate("document.documentElement.classList.contains('large-text')")


def test_a_phone_plays_by_touch(browser: Any, room: str) -> None:
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    phone = context.new_page()
    phone.set_default_timeout(20_000)
    errors: list[str] = []
    phone.on("pageerror", lambda error: errors.append(str(error)))
    phone.on("console", csp_listener(errors))
    phone.add_init_script(RECORDER)
    phone.goto(room + "/")

    def account_form(password: str, button: str) -> None:
        phone.locator("#account-username").tap()
        phone.locator("#account-username").fill("Tapper")
        phone.locator("#account-password").tap()
        phone.locator("#account-password").fill(password)
        phone.get_by_role("button", name=button).tap()

    # An account: created, logged out from the menu, refused with a wrong password, let in with the right one.
    account_form("felt-and-cards", "Create the account")
    phone.wait_for_function("() => !document.getElementById('screen-lobby').hidden")
    phone.get_by_role("button", name="Menu").tap()
    phone.get_by_role("menuitem", name="Log out").tap()
    phone.wait_for_function("() => !document.getElementById('screen-signin').hidden")
    mark = len(spoken(phone))
    account_form("felt-and-chips", "Log in")
    wait_spoken(phone, r"^Wrong user name or password\.$", mark)
    assert not phone.locator("#screen-signin").is_hidden()
    account_form("felt-and-cards", "Log in")
    phone.wait_for_function("() => !document.getElementById('screen-lobby').hidden")
    phone.get_by_role("button", name="Create a table").tap()
    dialog_open(phone, "table-dialog")
    phone.locator("#opt-bot-level").select_option("random")
    phone.get_by_role("button", name="Create", exact=True).tap()
    wait_spoken(phone, r"^You sit in seat 1\.$")
    phone.locator("#ctl-add-bot").tap()
    wait_spoken(phone, r"bot sits in seat 2\.$")
    phone.locator("#ctl-start").tap()
    mark = wait_spoken(phone, r"^The game begins\.$")
    for _ in range(10):
        wait_until(phone, lambda: my_turn(table_state(phone)), "my turn")
        table = table_state(phone)
        assert table is not None
        before = len(spoken(phone))
        if "pass" in table["legal"]:
            phone.locator("#act-pass").tap()
            wait_for_move_after(phone, table["move"])
            continue
        cards = next(a.split()[1:] for a in table["legal"] if a.startswith("play "))
        for card in cards:  # a tap selects a card, the Play button plays the selection
            phone.locator(f"#card-{card}").tap()
        phone.locator("#act-play").tap()
        wait_spoken(phone, MINE, before)
        break
    else:
        raise AssertionError("no play by touch")
    assert any(PLAY.search(text) for text in spoken(phone)[mark:])
    context.close()
    assert errors == []
