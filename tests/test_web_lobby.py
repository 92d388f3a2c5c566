"""Browser tests of the sign-in and lobby screens: axe-core on the sign-in, lobby, create-table and help
screens, the menu and F1, lobby chat and a private message, chat verbosity and the history by channel; the
quick game (Q) in four keys; a finished table's replay from the lobby; a spectator refused on coming back;
the tables in play left out of the lobby until "Show the tables in play" is ticked; a busy room's people counted
and listed on request; the page's own Content-Security-Policy in force.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from server_helpers import Client
from web_helpers import (
    RECORDER,
    SOUND_SPY,
    csp_listener,
    focused_name,
    my_turn,
    room_process,
    screenshot,
    sign_in,
    spoken,
    tab_to,
    table_state,
    wait_spoken,
    wait_until,
)
from web_play import (
    DESKTOP,
    PHONE,
    assert_no_violations,
    leave_for_the_lobby,
    play_first_legal,
    second_page,
    show_the_tables_in_play,
    wait_for_move_after,
)

pytestmark = pytest.mark.browser



def test_sign_in_lobby_and_options_screens_have_no_axe_violations(page: Any, room: str, browser: Any) -> None:
    # Another player's table, so the lobby shows a row.
    other = browser.new_context(viewport=DESKTOP).new_page()
    other.add_init_script(RECORDER)
    sign_in(other, room, "Boris")
    other.keyboard.press("n")
    other.wait_for_function("() => document.getElementById('table-dialog').open")
    other.keyboard.press("Enter")  # Enter on the game select submits the dialog with the defaults
    other.wait_for_function("() => !document.getElementById('screen-table').hidden")

    page.goto(room + "/")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'guest-nickname'")
    assert_no_violations(page, "sign-in")
    page.keyboard.type("Vera")
    page.keyboard.press("Enter")
    wait_spoken(page, "Vera")
    page.wait_for_function("() => document.querySelector('#tables table')")
    assert_no_violations(page, "lobby")
    row = page.locator("#tables tbody tr").first
    assert "Bura" in row.inner_text()
    screenshot(page, "lobby-desktop")
    page.set_viewport_size(PHONE)
    screenshot(page, "lobby-phone")
    page.set_viewport_size(DESKTOP)

    # The create dialog: focus inside, every option described, Tab wraps, Escape returns focus.
    page.keyboard.press("n")
    page.wait_for_function("() => document.getElementById('table-dialog').open")
    assert_no_violations(page, "create-table options")
    described = page.evaluate("[...document.querySelectorAll('#table-form-fields [data-option]')]"
                              ".map(c => [c.dataset.option, document.getElementById("
                              "c.getAttribute('aria-describedby')).textContent])")
    assert {name for name, _ in described} == {"players", "preset", "scoring", "stack", "target", "hand_limit",
                                               "show_points"}
    assert all(text for _, text in described)
    page.keyboard.press("Shift+Tab")
    assert focused_name(page) == "Cancel"
    page.keyboard.press("Tab")
    assert focused_name(page) == "Game"
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.getElementById('table-dialog').open")
    assert page.evaluate("document.activeElement.id") == "lobby-title"

    # Help (F1) and the menu (Shift+F10) list the lobby's keys.
    page.keyboard.press("F1")
    page.wait_for_function("() => document.getElementById('help-dialog').open")
    assert "Create a table" in page.locator("#help-body").inner_text()
    assert "Q: Quick game: the last game again" in page.locator("#help-body").inner_text()
    assert "Alt+PageDown: History by channel: everything, the game, the chat" in page.locator("#help-body").inner_text()
    assert "focus mode yourself (NVDA+Space" in page.locator("#help-body").inner_text()
    assert_no_violations(page, "help")
    page.keyboard.press("Escape")
    page.keyboard.press("Shift+F10")
    page.wait_for_function("() => !document.getElementById('menu').hidden")
    items = page.locator("#menu [role=menuitem]").all_inner_texts()
    assert "Create a table (N)" in items
    assert any(item.startswith("Quick game") and item.endswith("(Q)") for item in items)
    assert focused_name(page) == items[0]
    page.keyboard.press("Escape")
    assert page.locator("#menu").is_hidden()

    # A dialog's close event comes after the browser has given focus back, and under load after keys pressed
    # since: it leaves focus where the player has gone (E and typing in the chat lost a letter to it once).
    page.keyboard.press("F1")
    page.wait_for_function("() => document.getElementById('help-dialog').open")
    page.evaluate("""() => new Promise((resolve) => {
      const help = document.getElementById('help-dialog');
      help.addEventListener('close', () => setTimeout(resolve), {once: true});
      help.close();
      document.getElementById('lobby-chat-input').focus();
    })""")
    assert page.evaluate("document.activeElement.id") == "lobby-chat-input"
    page.keyboard.press("Escape")
    assert page.evaluate("document.activeElement.id") == "lobby-title"

    # Lobby chat and a private message reach the other player; letters typed in the chat are not shortcuts.
    page.keyboard.press("e")
    assert page.evaluate("document.activeElement.id") == "lobby-chat-input"
    before = len(spoken(page))
    page.keyboard.type("anyone here")
    page.keyboard.press("Enter")
    wait_spoken(page, r"^Vera: anyone here$", before)
    # Boris, at his table, hears the lobby's chat only once he turns on "Hear the lobby chat at a table" (F2);
    # his table chat's echo says the room has his choice (his messages are handled in order).
    other.keyboard.press("F2")
    other.wait_for_function("() => document.getElementById('settings-dialog').open")
    tab_to(other, "^Hear the lobby chat at a table$")
    other.keyboard.press("Space")
    other.keyboard.press("Escape")
    other.locator("#table-chat-input").focus()
    other.keyboard.type("ready")
    other.keyboard.press("Enter")
    wait_spoken(other, r"^Boris: ready$")
    page.keyboard.type("hello all")
    page.keyboard.press("Enter")
    wait_spoken(page, r"^Vera: hello all$", before)
    wait_spoken(other, r"^Vera: hello all$")
    assert not any("anyone here" in text for text in spoken(other))  # said before he asked: not to him
    assert page.evaluate("document.getElementById('table-dialog').open") is False  # "n" typed, no dialog

    # Chat verbosity off: a private message to the other player is shown in the log but not spoken; Page Up
    # finds it in the history.
    page.keyboard.press("Escape")
    page.keyboard.press("F2")
    page.wait_for_function("() => document.getElementById('settings-dialog').open")
    tab_to(page, "^Chat messages$")
    page.keyboard.press("End")  # full, brief, off
    page.keyboard.press("Escape")
    before = len(spoken(page))
    tab_to(page, "^Private message text$")
    assert page.locator("#private-to").input_value().startswith("g")  # Boris, the only other player online
    page.keyboard.type("psst")
    page.keyboard.press("Enter")
    wait_spoken(other, r"psst")
    page.wait_for_function("() => document.querySelector('#lobby-chat-log').textContent.includes('psst')")
    assert not any("psst" in text for text in spoken(page)[before:])
    page.keyboard.press("Escape")
    page.keyboard.press("l")  # L repeats the last message, Page Up steps back through the history
    repeated = wait_spoken(page, r"^Vera whispers: psst$", before)
    page.keyboard.press("PageUp")
    again = wait_spoken(page, r"^Vera whispers: psst$", repeated + 1)
    page.keyboard.press("PageUp")
    page.keyboard.press("PageUp")
    wait_spoken(page, r"^Vera: hello all$", again + 1)
    # The history by channel (issue 21): Alt+Page Down goes everything -> the game -> the chat; in the chat,
    # Page Up steps from chat line to chat line only.
    mark = len(spoken(page))
    page.keyboard.press("Alt+PageDown")
    wait_spoken(page, r"^History: the game, \d+ messages?\.$", mark)
    page.keyboard.press("Alt+PageDown")
    chat = wait_spoken(page, r"^History: the chat, 3 messages\.$", mark)
    page.keyboard.press("PageUp")
    chat = wait_spoken(page, r"^Vera whispers: psst$", chat + 1)
    page.keyboard.press("PageUp")
    chat = wait_spoken(page, r"^Vera: hello all$", chat + 1)
    page.keyboard.press("PageUp")
    chat = wait_spoken(page, r"^Vera: anyone here$", chat + 1)
    page.keyboard.press("PageUp")
    chat = wait_spoken(page, r"^Start of history\. Vera: anyone here$", chat + 1)
    page.keyboard.press("Alt+PageDown")
    wait_spoken(page, r"^History: everything, \d+ messages\.$", chat + 1)
    other.context.close()


def test_a_quick_game_from_the_page_to_the_first_card_in_four_keys(page: Any, room: str) -> None:
    """Issue 21: Enter (sign in), Q (quick game: Bura against one bot of the last level the first time, the
    player seated and the game started), K (the hand), Enter (its first card): the automatic pass answers the
    announcement pause. Every key pressed is counted, the nickname's letters aside."""
    keys = 0

    def press(key: str) -> None:
        nonlocal keys
        keys += 1
        page.keyboard.press(key)

    page.goto(room + "/")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'guest-nickname'")
    page.keyboard.type("Quincy")
    press("Enter")
    page.wait_for_function("() => !document.getElementById('screen-lobby').hidden")
    assert page.locator("#quick-button").get_attribute("aria-keyshortcuts") == "Q"
    press("q")
    wait_until(page, lambda: my_turn(table_state(page)), "the first turn of the quick game")
    table = table_state(page)
    assert table is not None
    assert table["info"]["game"] == "bura" and len(table["info"]["seats"]) == 2
    assert table["info"]["seats"][1]["bot"] is not None
    legal, view = table["legal"], table["view"]
    press("k")
    first = page.evaluate("document.activeElement.dataset.card")
    if f"play {first}" in legal:  # a lead, or one card led: the focused card goes
        press("Enter")
    else:  # the bot led several cards (or a combination is held): more keys are needed, and not counted
        keys = 4
        assert view["trick"] or "pass" in legal
        play_first_legal(page, "^Pass$")
    wait_until(page, lambda: (table_state(page) or {}).get("move", 0) > table["move"], "the first card played")
    assert keys == 4


def test_a_finished_table_in_the_lobby_offers_its_replay_not_join_or_watch(page: Any, room: str,
                                                                           browser: Any) -> None:
    """Issue 21: a new user met finished tables in the lobby with Join and Watch; now the row offers the replay."""
    errors: list[str] = []
    sign_in(page, room, "Fin")
    page.evaluate("""() => { const p = window.trickroom.state.prefs;
        p.quickGame = { game: "bura", options: { players: 2, scoring: "points", hand_limit: 1 } };
        p.botLevel = "random"; }""")
    page.keyboard.press("q")  # one hand against a random bot, then the match is over
    for _ in range(60):
        if any(re.search(r"The match is over", text) for text in spoken(page)):
            break
        wait_until(page, lambda: my_turn(table_state(page)) or any(
            "The match is over" in text for text in spoken(page)), "a turn or the end")
        table = table_state(page)
        if my_turn(table):
            assert table is not None
            play_first_legal(page, "^Pass$")
            wait_for_move_after(page, table["move"])
    wait_spoken(page, r"The match is over")
    table_id = (table_state(page) or {})["id"]
    other = second_page(browser, errors)
    sign_in(other, room, "Lobbyist")
    # A finished table waits for nobody: it is listed with the tables in play.
    show_the_tables_in_play(other, table_id)
    other.wait_for_function(f"() => document.getElementById('replay-{table_id}')")
    assert other.locator(f"#join-{table_id}").count() == 0 and other.locator(f"#watch-{table_id}").count() == 0
    other.locator(f"#replay-{table_id}").focus()
    other.keyboard.press("Enter")
    other.wait_for_function("() => !document.getElementById('screen-replay').hidden")
    assert_no_violations(other, "the replay opened from the lobby")
    other.context.close()
    assert errors == []


def test_a_spectator_refused_on_coming_back_is_taken_to_the_lobby(page: Any, room: str) -> None:
    host = Client(room.replace("http://", "ws://") + "/ws")
    try:
        host.login_guest("Gatekeeper")
        table = host.request(type="create", game="bura", name="Closing soon")["table"]
        sign_in(page, room, "Visitor")
        page.locator("#tables tr", has_text="Closing soon").get_by_role("button", name="Watch").click()
        page.wait_for_function("() => !document.getElementById('screen-table').hidden")
        # The table gets a password while Visitor watches; then Visitor's connection drops. Coming back, the
        # room refuses the resume (a password is asked of newcomers): the page says so and leaves the table.
        assert host.request(type="settings", table=table, password="secret-door")["type"] == "ok"
        mark = len(spoken(page))
        page.evaluate("window.trickroom.net.drop()")
        wait_spoken(page, r"password", mark)
        page.wait_for_function("() => !document.getElementById('screen-lobby').hidden")
        assert page.evaluate("window.trickroom.state.table") is None
    finally:
        host.close()


def test_coming_back_from_a_drop_the_missed_sentences_are_counted_not_read(page: Any, room: str) -> None:
    """After a drop, more missed sentences than one trick's are not read one by one (nor sounded): they go to the
    history, and one sentence says how many and that Page Up reads them. None is lost though the seat's return
    (a table event at the login) overtakes them; the person's own going and coming back are not said to them."""
    host = Client(room.replace("http://", "ws://") + "/ws")
    try:
        host.login_guest("Keeper")
        table = host.request(type="create", game="bura", name="Filling up", options={"players": 6})["table"]
        sign_in(page, room, "Returner")
        page.locator(f"#join-{table}").click()
        wait_spoken(page, r"^You sit in seat 1\.$")
        mark = len(spoken(page))
        page.evaluate(SOUND_SPY)
        page.evaluate("window.trickroom.net.drop()")
        page.wait_for_function("() => document.getElementById('conn-status').textContent === 'Reconnecting'")
        for seat in range(1, 6):  # while the page waits a second before trying again
            assert host.request(type="bot_add", table=table, level="random", seat=seat)["type"] == "ok"
        counted = wait_spoken(page, r"^You missed 5 messages; Page Up reads them\.$", mark)
        assert spoken(page)[mark:] == ["Connection lost. Reconnecting.", "Reconnected.",
                                       "You missed 5 messages; Page Up reads them."]
        # No sound either: not for each missed message, nor for one's own return (no sentence is said for it).
        assert page.evaluate("window.trickroom.sounds.played") == []
        bots = [f"A random bot sits in seat {seat}." for seat in range(2, 7)]
        history = page.evaluate("window.trickroom.speech.history.map((item) => item.text)")
        assert history[history.index("Reconnected."):] == [
            "Reconnected.", *bots, "You missed 5 messages; Page Up reads them."]
        page.keyboard.press("PageUp")  # the history, from its end
        wait_spoken(page, r"^You missed 5 messages", counted + 1)
        page.keyboard.press("PageUp")
        wait_spoken(page, r"^A random bot sits in seat 6\.$", counted + 2)

        # After a page load, the table's journal goes to the history unspoken, and the table is named.
        page.reload()
        back = wait_spoken(page, r"^You are back at Filling up\.$")
        history = page.evaluate("window.trickroom.speech.history.map((item) => item.text)")
        assert [text for text in history if text.startswith("A random bot")] == bots
        assert not any("seat" in text for text in spoken(page)[:back])
    finally:
        host.close()


def test_the_tables_in_play_are_left_out_until_the_checkbox_shows_them(page: Any, tmp_path: Path) -> None:
    """The lobby lists the tables waiting for players (and the player's own); a line under the list counts the
    tables in play, and "Show the tables in play" (a checkbox one Tab after the lobby's buttons, remembered in the
    browser) lists them too. The count follows the room and is read, never spoken. A room of its own, so that the
    count is this test's tables alone."""
    with room_process(tmp_path / "room.sqlite3") as base:
        url = base.replace("http://", "ws://") + "/ws"
        dealer, waiter = Client(url), Client(url)
        try:
            # Dealer's table plays (his seat waits for him, so it stays in play); Waiter's waits for players.
            dealer.login_guest("Dealer")
            busy = dealer.request(type="create", game="bura", name="Busy table")["table"]
            dealer.request(type="sit", table=busy, seat=0)
            dealer.request(type="bot_add", table=busy, level="random", seat=1)
            assert dealer.request(type="start", table=busy)["type"] == "ok"
            waiter.login_guest("Waiter")
            waiting = waiter.request(type="create", game="bura", name="Open table")["table"]

            sign_in(page, base, "Lena")
            page.wait_for_function(f"() => document.getElementById('join-{waiting}')")
            assert page.locator(f"#watch-{busy}").count() == 0
            assert "Busy table" not in page.locator("#tables").inner_text()
            assert page.locator("#in-play").inner_text() == "1 more table is in play."
            assert page.evaluate("window.trickroom.state.lobby.inPlay") == 1
            assert not page.locator("#show-in-play").is_checked()
            assert page.evaluate("window.trickroom.state.prefs.lobbyTables") == "open"
            assert_no_violations(page, "lobby with the tables in play left out")

            # By keyboard: one Tab after Log out, Space ticks it; focus stays on it and the list shows every table.
            page.locator("#lobby-title").focus()
            assert tab_to(page, r"^Show the tables in play$", limit=7) == "Show the tables in play"
            assert page.evaluate("document.activeElement.id") == "show-in-play"
            assert page.evaluate("document.activeElement.getAttribute('aria-describedby')") == "show-in-play-desc"
            page.keyboard.press("Space")
            page.wait_for_function(f"() => document.getElementById('watch-{busy}')")
            assert page.locator(f"#join-{waiting}").count() == 1
            assert page.locator("#in-play").is_hidden()
            assert page.evaluate("document.activeElement.id") == "show-in-play"
            assert page.evaluate("window.trickroom.state.prefs.lobbyTables") == "all"
            assert not any(re.search("in play|Busy table|Open table", text) for text in spoken(page))

            # Remembered: after a reload, the token's login asks for every table again.
            page.reload()
            page.wait_for_function("() => !document.getElementById('screen-lobby').hidden")
            page.wait_for_function(f"() => document.getElementById('watch-{busy}')")
            assert page.locator("#show-in-play").is_checked()

            # Unticked again: the table in play leaves the list and the line comes back.
            page.locator("#lobby-title").focus()
            tab_to(page, r"^Show the tables in play$", limit=7)
            page.keyboard.press("Space")
            page.wait_for_function(f"() => !document.getElementById('watch-{busy}')")
            page.wait_for_function("() => document.getElementById('in-play').textContent === "
                                   "'1 more table is in play.'")
            assert page.locator(f"#join-{waiting}").count() == 1
            assert page.evaluate("window.trickroom.state.prefs.lobbyTables") == "open"

            # Waiter's game starts: his table leaves the open list, the count follows, and nothing is said.
            waiter.request(type="sit", table=waiting, seat=0)
            waiter.request(type="bot_add", table=waiting, level="random", seat=1)
            assert waiter.request(type="start", table=waiting)["type"] == "ok"
            page.wait_for_function("() => document.getElementById('in-play').textContent === "
                                   "'2 more tables are in play.'")
            assert page.evaluate("window.trickroom.state.lobby.inPlay") == 2
            assert page.locator("#tables").inner_text() == "No table is waiting for players. Press N to create one."
            assert page.locator("#in-play").is_visible()
            assert not any(re.search("in play|Busy table|Open table", text) for text in spoken(page))
            assert_no_violations(page, "lobby with no table waiting")
        finally:
            dealer.close()
            waiter.close()


def test_a_busy_room_counts_its_people_and_lists_them_on_request(page: Any, tmp_path: Path) -> None:
    """Past the room's lobby_people_limit (2 here) the lobby counts the people online instead of listing them: the
    count line and "List everyone online" replace the list, nobody's coming or going is said, and the change is
    said once each way. The button, by keyboard, fills the list once; a private message, the host's invitation and
    an F4 report go to a typed name. A room of its own, so that the count is this test's people alone."""
    with room_process(tmp_path / "room.sqlite3", TRICKROOM_LOBBY_PEOPLE_LIMIT="2") as base:
        url = base.replace("http://", "ws://") + "/ws"
        anna, boris, clara, dora = Client(url), Client(url), Client(url), Client(url)
        try:
            anna.login_guest("Anna")
            sign_in(page, base, "Lena")
            # Two people, at the limit: listed with their comings and goings, as before; no count, no button.
            page.wait_for_function("() => document.querySelectorAll('#online li').length === 2")
            assert page.locator("#online li").all_inner_texts() == ["Anna", "Lena (you)"]
            assert page.evaluate("window.trickroom.state.lobby.people") == "listed"
            assert page.evaluate("window.trickroom.state.lobby.online") == 2
            assert page.locator("#people-counted").is_hidden() and page.locator("#private-name").is_hidden()
            assert page.locator("#private-to").is_visible()
            assert not any(re.search("busy|announced", text) for text in spoken(page))  # nothing changed

            # Boris makes three: the room is busy. Said once; his arrival is not; the list is empty, the count shown.
            mark = len(spoken(page))
            boris.login_guest("Boris")
            busy = wait_spoken(page, r"^The room is busy: arrivals and departures are no longer announced\.$", mark)
            page.wait_for_function("() => document.getElementById('online-count').textContent === "
                                   "'3 people are online.'")
            assert page.locator("#online li").count() == 0
            assert page.locator("#list-people").is_visible()
            # Clara comes in too: the count follows, unspoken, and still nobody's arrival is said.
            clara.login_guest("Clara")
            page.wait_for_function("() => document.getElementById('online-count').textContent === "
                                   "'4 people are online.'")
            assert page.locator("#online li").count() == 0
            page.wait_for_timeout(300)  # an arrival would come in the count's own batch, and be said within 60 ms
            assert not any(re.search("comes in|people are online|busy", text) for text in spoken(page)[busy + 1:])
            assert_no_violations(page, "lobby of a busy room")

            # Nobody to choose from: the private message goes to a name typed.
            assert page.locator("#private-to").is_hidden()
            page.locator("#private-name").focus()
            assert focused_name(page) == "To (type a name)"
            page.keyboard.type("clara")
            page.keyboard.press("Tab")
            assert page.evaluate("document.activeElement.id") == "private-input"
            page.keyboard.type("psst")
            page.keyboard.press("Enter")
            assert clara.wait(type="private")["message"] == "psst"
            wait_spoken(page, r"^Lena whispers: psst$", busy + 1)
            # So does the host's invitation (V): a name field instead of a button per person online.
            page.keyboard.press("Escape")
            page.keyboard.press("n")
            page.wait_for_function("() => document.getElementById('table-dialog').open")
            page.keyboard.press("Enter")
            page.wait_for_function("() => !document.getElementById('screen-table').hidden")
            page.keyboard.press("v")
            page.wait_for_function("() => document.getElementById('list-dialog').open")
            assert page.evaluate("document.activeElement.id") == "invite-name"
            assert focused_name(page) == "Name of the player"
            assert_no_violations(page, "invite dialog of a busy room")
            page.keyboard.type("boris")
            page.keyboard.press("Enter")
            assert boris.wait(type="invited")["from"]["name"] == "Lena"
            page.wait_for_function("() => !document.getElementById('list-dialog').open")
            leave_for_the_lobby(page)
            page.wait_for_function("() => window.trickroom.state.lobby.online === 4")
            assert page.locator("#online li").count() == 0 and page.locator("#list-people").is_visible()
            # And F4's report: the player's name typed, in a text field.
            page.keyboard.press("F4")
            page.wait_for_function("() => document.getElementById('moderation-dialog').open")
            assert focused_name(page) == "Report a player"
            page.keyboard.press("Enter")
            page.wait_for_function("() => document.activeElement && document.activeElement.type === 'text'")
            assert focused_name(page) == "Player"
            page.keyboard.type("anna")
            page.keyboard.press("Tab")
            page.keyboard.type("selling chips")
            page.keyboard.press("Enter")
            wait_spoken(page, r"^Your report on Anna went to the moderators\.$", busy + 1)

            # U says the count; the button, by keyboard, lists everyone once, in name order, and says so.
            page.keyboard.press("Escape")
            page.locator("#lobby-title").focus()
            mark = len(spoken(page))
            page.keyboard.press("u")
            wait_spoken(page, r"^4 people are online\.$", mark)
            page.locator("#lobby-title").focus()
            assert tab_to(page, r"^List everyone online$", limit=12) == "List everyone online"
            described = page.evaluate("document.getElementById(document.activeElement.getAttribute("
                                      "'aria-describedby')).textContent")
            assert described == "The list as it is now: in a busy room it is not kept up to date."
            mark = len(spoken(page))
            page.keyboard.press("Enter")
            wait_spoken(page, r"^4 people online, listed\.$", mark)
            assert page.locator("#online li").all_inner_texts() == ["Anna", "Boris", "Clara", "Lena (you)"]
            assert page.evaluate("document.activeElement.id") == "list-people"  # focus stays on the button
            assert_no_violations(page, "lobby of a busy room, everyone listed")

            # They leave: no departure is said; one person left (under nine tenths of the limit), the room lists its
            # people again, says so once, and Dora's arrival is heard as before.
            mark = len(spoken(page))
            for client in (anna, boris, clara):
                client.leave()
            quiet = wait_spoken(page, r"^Arrivals and departures are announced again\.$", mark)
            page.wait_for_function("() => document.querySelectorAll('#online li').length === 1")
            assert page.locator("#online li").all_inner_texts() == ["Lena (you)"]
            assert page.locator("#people-counted").is_hidden()
            assert not any(re.search("leaves the room", text) for text in spoken(page)[mark:])
            dora.login_guest("Dora")
            wait_spoken(page, r"^Dora comes in\.$", quiet + 1)
            page.wait_for_function("() => document.querySelectorAll('#online li').length === 2")
            assert page.evaluate("window.trickroom.state.lobby.people") == "listed"
            assert len([text for text in spoken(page) if "busy" in text or "announced again" in text]) == 2
        finally:
            for client in (anna, boris, clara, dora):
                client.close()


def test_the_page_passes_its_own_content_security_policy(browser: Any, room: str) -> None:
    """Every other test here fails on a CSP violation the page reports (see csp_listener); this one shows that the
    policy is really in force, so that those checks mean something."""
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        response = page.goto(room + "/")
        assert response is not None and "frame-ancestors 'none'" in response.headers["content-security-policy"]
        reported: list[str] = []
        page.on("console", csp_listener(reported))
        page.wait_for_function("() => document.activeElement && document.activeElement.id === 'guest-nickname'")
        directive = page.evaluate("""() => new Promise((resolve) => {
          document.addEventListener('securitypolicyviolation', (e) => resolve(e.effectiveDirective), {once: true});
          const script = document.createElement('script');
          script.textContent = 'window.__inline = true';
          document.head.append(script);
        })""")
        assert directive == "script-src-elem" and page.evaluate("() => window.__inline === undefined")
        page.wait_for_function("() => true")
        assert reported and "Content Security Policy" in reported[0]
    finally:
        context.close()
