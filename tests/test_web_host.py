"""Browser tests of the host's controls and the turn timer: a password table, the bots and people dialogs,
removing, inviting, handing over and banning (two players' pages); the timer refused below the room's
minimum, its warning, its timeout, and the table settings during play.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from web_helpers import (
    SOUND_SPY,
    dialog_open,
    focused_name,
    my_turn,
    screenshot,
    sign_in,
    spoken,
    spoken_with_regions,
    tab_to,
    table_state,
    wait_spoken,
    wait_until,
)
from web_play import (
    DESKTOP,
    PHONE,
    add_bots_and_start,
    assert_no_violations,
    open_create_dialog,
    second_page,
)

pytestmark = pytest.mark.browser



def dialog_screenshots(page: Any, name: str) -> None:
    screenshot(page, f"{name}-desktop")
    page.set_viewport_size(PHONE)
    screenshot(page, f"{name}-phone")
    page.set_viewport_size(DESKTOP)


def test_host_password_bots_kick_invite_and_hand_over(page: Any, room: str, browser: Any) -> None:
    errors: list[str] = []
    guest = second_page(browser, errors)
    sign_in(page, room, "Hana")
    sign_in(guest, room, "Ivan")
    open_create_dialog(page)
    tab_to(page, "^Table name$")
    page.keyboard.type("Hana's den")
    tab_to(page, "^Players$")
    page.keyboard.press("ArrowUp")  # 3 players
    tab_to(page, r"^Password \(empty: none\)$")
    page.keyboard.type("secret1")
    page.keyboard.press("Enter")
    wait_spoken(page, r"^You sit in seat 1\.$")
    # The host's keys are in the menu and in F1 help.
    page.keyboard.press("Shift+F10")
    page.wait_for_function("() => !document.getElementById('menu').hidden")
    items = page.locator("#menu [role=menuitem]").all_inner_texts()
    host_items = ["Time left (I)", "People at the table (remove, ban, make host) (W)",
                  "Bots: choose the level, remove by seat (Alt+B)", "Invite a player (V)"]
    assert all(item in items for item in host_items), items
    page.keyboard.press("Escape")
    page.keyboard.press("F1")
    dialog_open(page, "help-dialog")
    help_text = page.locator("#help-body").inner_text()
    assert "W: People at the table" in help_text and "Alt+B: Bots" in help_text and "I: Time left" in help_text
    page.keyboard.press("Escape")

    # Ivan joins: the table has a password, so it is asked first; a wrong one is said and asked again.
    guest.wait_for_function("() => document.querySelector('#tables').textContent.includes(\"Hana's den\")")
    tab_to(guest, r"^Join Hana's den$")
    guest.keyboard.press("Enter")
    dialog_open(guest, "password-dialog")
    assert focused_name(guest) == "Table password"
    assert guest.locator("#password-dialog-title").inner_text() == "Password for Hana's den"
    assert_no_violations(guest, "password dialog")
    dialog_screenshots(guest, "dialog-password")
    guest.keyboard.type("wrong12")
    guest.keyboard.press("Enter")
    wrong = wait_spoken(guest, r"^Wrong table password\.$")
    assert spoken_with_regions(guest)[wrong]["region"] == "live-assertive"
    dialog_open(guest, "password-dialog")
    assert guest.locator("#password-dialog-error").inner_text() == "Wrong table password."
    assert focused_name(guest) == "Table password"
    guest.keyboard.type("secret1")
    guest.keyboard.press("Enter")
    wait_spoken(guest, r"^You sit in seat 2\.$")
    mark = wait_spoken(page, r"^Ivan sits in seat 2\.$")

    # Bots: a chosen level (remembered for B), removal by seat.
    page.keyboard.press("Alt+b")
    dialog_open(page, "list-dialog")
    assert focused_name(page) == "Level of the bot to add"
    assert_no_violations(page, "bots dialog")
    page.keyboard.press("Home")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")  # random, easy, normal
    page.keyboard.press("Enter")
    mark = wait_spoken(page, r"^A normal bot sits in seat 3\.$", mark)
    page.keyboard.press("Alt+b")
    dialog_open(page, "list-dialog")
    dialog_screenshots(page, "dialog-bots")
    tab_to(page, r"^Remove Bot 3 \(normal\)$")
    page.keyboard.press("Enter")
    mark = wait_spoken(page, r"^The bot leaves seat 3\.$", mark)
    page.keyboard.press("b")  # B adds the level chosen last
    mark = wait_spoken(page, r"^A normal bot sits in seat 3\.$", mark)

    # People: the host removes Ivan, who hears it and is back in the lobby.
    page.keyboard.press("w")
    dialog_open(page, "list-dialog")
    assert page.locator("#list-dialog-title").inner_text() == "People at the table (2)"
    people = page.locator("#list-dialog-body .person").all_inner_texts()
    assert people == ["Hana (you), seat 1, host", "Ivan, seat 2"]
    assert focused_name(page) == "Make Ivan the host"
    assert_no_violations(page, "people dialog")
    dialog_screenshots(page, "dialog-people")
    guest_mark = len(spoken(guest))
    tab_to(page, "^Remove Ivan$")
    page.keyboard.press("Enter")
    wait_spoken(guest, r"^The host removed you from the table\.$", guest_mark)
    guest.wait_for_function("() => !document.getElementById('screen-lobby').hidden")
    mark = wait_spoken(page, r"^Ivan is removed from the table\.$", mark)
    assert page.evaluate("document.getElementById('list-dialog').open") is False

    # An invitation (from who is online) lets Ivan back in without the password.
    page.keyboard.press("v")
    dialog_open(page, "list-dialog")
    assert focused_name(page) == "Invite Ivan"
    page.keyboard.press("Enter")
    wait_spoken(guest, r"^Hana invites you to a Bura table\.$", guest_mark)
    tab_to(guest, r"^Join Hana's den$")
    guest.keyboard.press("Enter")
    wait_spoken(guest, r"^You sit in seat 2\.$", guest_mark)
    assert guest.evaluate("document.getElementById('password-dialog').open") is False
    mark = wait_spoken(page, r"^Ivan sits in seat 2\.$", mark)

    # Handing over the host role: both hear it, and Hana's host keys now say she is not the host.
    page.keyboard.press("w")
    dialog_open(page, "list-dialog")
    page.keyboard.press("Enter")  # the first button: Make Ivan the host
    wait_spoken(guest, r"^You are now the host\.$", guest_mark)
    mark = wait_spoken(page, r"^Ivan is now the host\.$", mark)
    page.keyboard.press("g")
    wait_spoken(page, r"^Only the host can do that\.$", mark)
    # The new host bans Hana: the first press asks again, the second bans.
    guest.keyboard.press("w")
    dialog_open(guest, "list-dialog")
    assert focused_name(guest) == "Make Hana the host"
    guest_mark = len(spoken(guest))
    tab_to(guest, "^Ban Hana$")
    guest.keyboard.press("Enter")
    wait_spoken(guest, r"^Press again to ban Hana for good$", guest_mark)
    assert focused_name(guest) == "Press again to ban Hana for good"
    guest.keyboard.press("Enter")
    wait_spoken(page, r"^The host banned you from the table\.$", mark)
    page.wait_for_function("() => !document.getElementById('screen-lobby').hidden")
    wait_spoken(guest, r"^Hana is banned from the table\.$", guest_mark)
    guest.context.close()
    assert errors == []


def test_turn_timer_warning_time_left_and_settings(page: Any, room: str) -> None:
    sign_in(page, room, "Tim")
    open_create_dialog(page)
    tab_to(page, r"^Turn timer in seconds")
    page.keyboard.press("Control+a")
    page.keyboard.type("2")  # below the room's minimum (3 s in these tests)
    page.keyboard.press("Enter")
    wait_spoken(page, r"^The turn timer is 0 \(none\) or from 3 to 600 seconds\.$")
    assert page.evaluate("document.getElementById('table-dialog').open")
    assert page.evaluate("document.activeElement.id") == "opt-timer"
    assert page.locator("#opt-timer").get_attribute("aria-invalid") == "true"
    page.keyboard.press("Control+a")
    page.keyboard.type("6")
    tab_to(page, "^Level of the bots you add$")
    page.keyboard.press("Home")
    page.keyboard.press("Enter")
    wait_spoken(page, r"^You sit in seat 1\.$")
    page.evaluate(SOUND_SPY)
    mark = len(spoken(page))
    page.keyboard.press("i")
    wait_spoken(page, r"^Turn timer: 6 seconds a turn; you are not to act now\.$", mark)
    add_bots_and_start(page, 1)

    wait_until(page, lambda: my_turn(table_state(page)), "my first turn")
    turn = wait_spoken(page, r"^You have [56] seconds\.$", mark)
    page.keyboard.press("i")
    wait_spoken(page, r"^[1-6] seconds? left for your turn\.$", turn)
    assert re.search(r"^\d s$", page.locator("#time-left").inner_text())
    warning = wait_spoken(page, r"^2 seconds left\.$", turn)
    assert spoken_with_regions(page)[warning]["region"] == "live-assertive"
    assert "timer" in page.evaluate("window.trickroom.sounds.played")
    wait_spoken(page, r"^Time is up for you; a bot plays this turn\.$", warning)

    # During play the host's Alt+O is the table settings: the timer goes off.
    page.keyboard.press("Alt+o")
    dialog_open(page, "table-dialog")
    assert page.locator("#table-dialog-title").inner_text() == "Table settings"
    assert page.locator("#table-form-fields [data-option]").count() == 0
    assert_no_violations(page, "table settings")
    dialog_screenshots(page, "dialog-table-settings")
    tab_to(page, r"^Turn timer in seconds")
    page.keyboard.press("Control+a")
    page.keyboard.type("0")
    page.keyboard.press("Enter")
    wait_spoken(page, r"^You change the table settings\.$", warning)
    wait_until(page, lambda: (table_state(page) or {})["info"]["timer"] == 0, "the timer to be off")
