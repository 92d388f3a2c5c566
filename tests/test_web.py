"""Browser tests of the web client: keyboard-only play of a Bura hand and a Mpourloto hand against bots, read back
from the live regions; axe-core on every screen; Russian; reconnecting; ARIA snapshots; screenshots in artifacts/.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import need_service
from server_helpers import Client
from web_helpers import (
    BROWSER_ARGS,
    CHROMIUM,
    FAKE_VOICE,
    RECORDER,
    SOUND_SPY,
    dialog_open,
    focused_name,
    my_turn,
    room_process,
    run_axe,
    screenshot,
    sign_in,
    spoken,
    spoken_with_regions,
    tab_to,
    table_state,
    voiced,
    wait_spoken,
    wait_until,
)

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
HAND_OVER = r"wins? the hand|[Nn]o one wins the hand"
PLAY = re.compile(r"^(You play|.+ plays) the ")


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    need_service(os.path.exists(CHROMIUM), "Debian's chromium is not installed (make browser-deps)")
    with room_process(tmp_path_factory.mktemp("web") / "room.sqlite3") as base:
        yield base


@pytest.fixture(scope="module")
def browser(room: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script(RECORDER)
    yield page
    context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


def assert_no_violations(page: Any, screen: str) -> None:
    violations = run_axe(page)
    assert violations == [], f"axe-core on the {screen} screen: {violations}"


def open_create_dialog(page: Any) -> None:
    page.keyboard.press("n")
    page.wait_for_function("document.getElementById('table-dialog').open")
    assert focused_name(page) == "Game"


def add_bots_and_start(page: Any, bots: int) -> None:
    start = len(spoken(page))
    for _ in range(bots):
        page.keyboard.press("b")
        start = wait_spoken(page, r"bot sits in seat", start) + 1
    page.keyboard.press("g")
    wait_spoken(page, r"The game begins", start)


def press_action(page: Any, pattern: str) -> None:
    """Go to the actions (A) and Tab to the button named like ``pattern``, then press Enter."""
    page.keyboard.press("a")
    if not re.search(pattern, focused_name(page)):
        tab_to(page, pattern, limit=8)
    page.keyboard.press("Enter")


def hand_cards(page: Any) -> list[str]:
    cards: list[str] = page.evaluate("[...document.querySelectorAll('#hand-list [role=option]')]"
                                     ".map(o => o.dataset.card)")
    return cards


def wait_for_turn_or(page: Any, pattern: str, after: int) -> bool:
    """Wait until it is this player's turn (True) or ``pattern`` is spoken after ``after`` (False)."""
    regex = re.compile(pattern)
    outcome: dict[str, bool] = {}

    def ready() -> bool:
        if any(regex.search(text) for text in spoken(page)[after:]):
            outcome["over"] = True
            return True
        return my_turn(table_state(page))

    wait_until(page, ready, f"my turn or {pattern!r}", timeout=30_000)
    return not outcome.get("over", False)


# ---------------------------------------------------------------------------------------------------------------


def test_sign_in_lobby_and_options_screens_have_no_axe_violations(page: Any, room: str, browser: Any) -> None:
    # Another player's table, so the lobby shows a row.
    other = browser.new_context(viewport=DESKTOP).new_page()
    other.add_init_script(RECORDER)
    sign_in(other, room, "Boris")
    other.keyboard.press("n")
    other.wait_for_function("document.getElementById('table-dialog').open")
    other.keyboard.press("Enter")  # Enter on the game select submits the dialog with the defaults
    other.wait_for_function("!document.getElementById('screen-table').hidden")

    page.goto(room + "/")
    page.wait_for_function("document.activeElement && document.activeElement.id === 'guest-nickname'")
    assert_no_violations(page, "sign-in")
    page.keyboard.type("Vera")
    page.keyboard.press("Enter")
    wait_spoken(page, "Vera")
    page.wait_for_function("document.querySelector('#tables table')")
    assert_no_violations(page, "lobby")
    row = page.locator("#tables tbody tr").first
    assert "Bura" in row.inner_text()
    screenshot(page, "lobby-desktop")
    page.set_viewport_size(PHONE)
    screenshot(page, "lobby-phone")
    page.set_viewport_size(DESKTOP)

    # The create dialog: focus inside, every option described, Tab wraps, Escape returns focus.
    page.keyboard.press("n")
    page.wait_for_function("document.getElementById('table-dialog').open")
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
    page.wait_for_function("!document.getElementById('table-dialog').open")
    assert page.evaluate("document.activeElement.id") == "lobby-title"

    # Help (F1) and the menu (Shift+F10) list the lobby's keys.
    page.keyboard.press("F1")
    page.wait_for_function("document.getElementById('help-dialog').open")
    assert "Create a table" in page.locator("#help-body").inner_text()
    assert "focus mode yourself (NVDA+Space" in page.locator("#help-body").inner_text()
    assert_no_violations(page, "help")
    page.keyboard.press("Escape")
    page.keyboard.press("Shift+F10")
    page.wait_for_function("!document.getElementById('menu').hidden")
    items = page.locator("#menu [role=menuitem]").all_inner_texts()
    assert "Create a table (N)" in items
    assert focused_name(page) == items[0]
    page.keyboard.press("Escape")
    assert page.locator("#menu").is_hidden()

    # Lobby chat and a private message reach the other player; letters typed in the chat are not shortcuts.
    page.keyboard.press("e")
    assert page.evaluate("document.activeElement.id") == "lobby-chat-input"
    before = len(spoken(page))
    page.keyboard.type("hello all")
    page.keyboard.press("Enter")
    wait_spoken(page, r"^Vera: hello all$", before)
    wait_spoken(other, r"^Vera: hello all$")
    assert page.evaluate("document.getElementById('table-dialog').open") is False  # "n" typed, no dialog

    # Chat verbosity off: a private message to the other player is shown in the log but not spoken; Page Up
    # finds it in the history.
    page.keyboard.press("Escape")
    page.keyboard.press("F2")
    page.wait_for_function("document.getElementById('settings-dialog').open")
    tab_to(page, "^Chat messages$")
    page.keyboard.press("End")  # full, brief, off
    page.keyboard.press("Escape")
    before = len(spoken(page))
    tab_to(page, "^Private message text$")
    assert page.locator("#private-to").input_value().startswith("g")  # Boris, the only other player online
    page.keyboard.type("psst")
    page.keyboard.press("Enter")
    wait_spoken(other, r"psst")
    page.wait_for_function("document.querySelector('#lobby-chat-log').textContent.includes('psst')")
    assert not any("psst" in text for text in spoken(page)[before:])
    page.keyboard.press("Escape")
    page.keyboard.press("l")  # L repeats the last message, Page Up steps back through the history
    repeated = wait_spoken(page, r"^Vera whispers: psst$", before)
    page.keyboard.press("PageUp")
    again = wait_spoken(page, r"^Vera whispers: psst$", repeated + 1)
    page.keyboard.press("PageUp")
    page.keyboard.press("PageUp")
    wait_spoken(page, r"^Vera: hello all$", again + 1)
    other.context.close()


def test_bura_hand_by_keyboard_with_claim(page: Any, room: str) -> None:
    sign_in(page, room, "Anna")
    open_create_dialog(page)
    tab_to(page, "^Players$")
    page.keyboard.press("ArrowUp")  # 2 -> 3 players
    tab_to(page, "^Scoring$")
    page.keyboard.press("ArrowDown")  # pot -> points
    tab_to(page, "^Level of the bots you add$")
    page.keyboard.press("Home")  # random: the fastest bots
    tab_to(page, "^Create$")
    page.keyboard.press("Enter")
    wait_spoken(page, r"Anna sits in seat 1")
    assert page.evaluate("document.activeElement.id") == "table-title"
    assert page.locator("#table-options-text").inner_text() == "Bura, 3 players, classic, points to 11."
    add_bots_and_start(page, 2)

    # Focus stays where the start left it (the host controls): the game never moves it by itself.
    wait_until(page, lambda: my_turn(table_state(page)), "the first turn")
    assert page.evaluate("document.activeElement.closest('[role=option]')") is None

    # Information keys answer in one sentence.
    before = len(spoken(page))
    page.keyboard.press("t")
    wait_spoken(page, r"Trumps: (spades|hearts|diamonds|clubs)\.", before)
    page.keyboard.press("h")
    wait_spoken(page, r"^Your hand, 3 cards: ", before)
    page.keyboard.press("r")
    wait_spoken(page, r"^\d+ cards left in the stock\.$", before)
    page.keyboard.press("s")
    wait_spoken(page, r"^Scores in points: Anna 0, Bot 2 0, Bot 3 0\.$", before)
    assert not any("card points" in text for text in spoken(page))  # show_points is off: no running total

    # The accessibility tree of the hand, the actions and the table.
    hand = page.locator("#hand-region").aria_snapshot()
    assert re.search(r'listbox "Your hand, 3 cards"', hand)
    assert re.search(r'group "(Spades|Hearts|Diamonds|Clubs)( \(trumps\))?, \d"', hand)
    assert re.search(r'option "[a-z]+ of [a-z]+, 1 of 3, not playable now"', hand)
    assert "[selected]" not in hand
    assert page.locator("#hand-list").get_attribute("aria-multiselectable") == "true"
    actions = page.locator("#actions-region").aria_snapshot()
    assert 'group "Actions"' in actions
    assert 'button "Pass"' in actions and 'button "Claim 31"' in actions
    felt = page.locator("#felt-region").aria_snapshot()
    assert 'listitem: "Seat 1: Anna (you), host, dealer, to act, 3 cards"' in felt
    assert re.search(r'listitem: "Seat 2: Bot 2, random bot, 3 cards', felt)
    assert re.search(r'strong: "Trumps:"\n\s+- text: (spades|hearts|diamonds|clubs) \([a-z]+ of [a-z]+\)', felt)
    assert re.search(r'strong: "Stock:"\n\s+- text: "27"', felt)
    assert_no_violations(page, "table")
    screenshot(page, "table-bura-desktop")
    page.set_viewport_size(PHONE)
    screenshot(page, "table-bura-phone")
    page.set_viewport_size(DESKTOP)

    # Pause after this hand, called off, asked for again: one button whose name says what it will do.
    mark = len(spoken(page))
    page.locator("#ctl-pause").focus()
    page.keyboard.press("Enter")
    wait_spoken(page, r"^The game will pause at the end of this hand\.$", mark)
    wait_until(page, lambda: focused_name(page) == "Do not pause after this hand", "the pause button renamed")
    page.keyboard.press("Enter")
    wait_spoken(page, r"^No pause after this hand: the game goes on\.$", mark)
    wait_until(page, lambda: focused_name(page) == "Pause after this hand", "the pause button named again")
    page.keyboard.press("Enter")
    wait_until(page, lambda: (table_state(page) or {})["info"].get("pause_requested") is True, "the pause asked")

    claimed = resumed = False
    led_two = False
    mark = 0
    for _ in range(120):
        if not wait_for_turn_or(page, HAND_OVER, mark):
            mark = len(spoken(page))  # a bot's Bura ended that hand: play the next one
            resumed = resumed or resume_after_the_pause(page, mark - 1)
            continue
        table = table_state(page)
        assert table is not None
        view, legal = table["view"], table["legal"]
        before = len(spoken(page))
        if view["stock"] == 0 and len(view["hand"]) <= 2:
            press_action(page, r"^Claim 31$")
            wait_spoken(page, r"^You claim with", before)
            claimed = True
            break
        if "pass" in legal:
            press_action(page, r"^Pass$")
            wait_spoken(page, r"^You pass\.$", before)
            continue
        cards = hand_cards(page)
        page.keyboard.press("k")
        page.keyboard.press("Home")
        if view["trick"]:
            count = len(view["trick"][0]["cards"])
        else:
            pair = next((i for i in range(len(cards) - 1) if cards[i][1] == cards[i + 1][1]), None)
            count = 1
            if pair is not None and not led_two:  # lead two cards of one suit, chosen with Space
                for _ in range(pair):
                    page.keyboard.press("ArrowRight")
                count, led_two = 2, True
        if count > 1:
            for index in range(count):
                if index:
                    page.keyboard.press("ArrowRight")
                page.keyboard.press("Space")
            assert page.locator("#hand-list [aria-selected=true]").count() == count
            assert page.locator("#hand-list").aria_snapshot().count("[selected]") == count
        assert re.search(r", \d of \d, playable$", focused_name(page))
        page.keyboard.press("Enter")
        wait_spoken(page, r"^You play the ", before)
    assert claimed
    result = wait_spoken(page, HAND_OVER, before)
    if not resumed:
        resumed = resume_after_the_pause(page, result)
    assert resumed

    said = spoken(page)
    hand_start = max(i for i, text in enumerate(said[:result]) if text.startswith("Hand "))
    this_hand = said[hand_start:result + 1]
    tricks = [i for i, text in enumerate(this_hand) if re.search(r"takes? the trick\.$", text)]
    assert tricks, this_hand
    previous = 0
    for index in tricks:  # every trick of the hand: three plays heard, then who takes it
        plays = [text for text in this_hand[previous:index] if PLAY.search(text)]
        assert len(plays) == 3, this_hand[previous:index + 1]
        previous = index + 1
    assert any(text.startswith("You claim with") for text in this_hand)
    assert re.search(r"^(You win the hand|No one wins the hand)", said[result])
    # Your turn is said assertively (with whatever came in the same moment, in order); the rest politely.
    regions = spoken_with_regions(page)
    assert all(item["region"] == "live-assertive" for item in regions if item["text"] == "Your turn.")
    assert {"region": "live-polite", "text": "Anna sits in seat 1."} in regions


def wait_for_move_after(page: Any, move: int) -> None:
    """Wait until the match has moved on from ``move`` (its action count): the action just sent was applied.
    Not "pass is no longer legal": a bot's Bura can end the hand at once and open the next hand's pause."""
    wait_until(page, lambda: (table_state(page) or {}).get("move", move) > move, "the action taken")


def resume_after_the_pause(page: Any, after: int) -> bool:
    """The host asked for a pause: the first hand's end stops the game, and the same control resumes it."""
    wait_spoken(page, r"^The game is paused\.$", after)
    wait_until(page, lambda: page.locator("#ctl-resume").count() == 1, "the Resume button")
    page.locator("#ctl-resume").focus()
    page.keyboard.press("Enter")
    wait_spoken(page, r"^The game goes on\.$", after)
    return True


def choose_meld_table(page: Any) -> None:
    open_create_dialog(page)
    page.keyboard.press("ArrowDown")  # Bura -> Mpourloto
    page.wait_for_function("document.getElementById('opt-partner_relief')")
    assert focused_name(page) == "Game"
    tab_to(page, "^Target score$")
    page.keyboard.press("Control+a")
    page.keyboard.type("100")  # the lowest target: one hand usually finishes the match
    tab_to(page, "^Level of the bots you add$")
    page.keyboard.press("Home")
    tab_to(page, "^Sit down at once$")
    page.keyboard.press("Space")  # sit after the first bot: seat 2 bids first
    tab_to(page, "^Create$")
    page.keyboard.press("Enter")
    page.wait_for_function("!document.getElementById('screen-table').hidden")
    start = len(spoken(page))
    page.keyboard.press("b")
    start = wait_spoken(page, r"bot sits in seat 1\.", start) + 1
    page.keyboard.press("F3")
    start = wait_spoken(page, r"Anna2 sits in seat 2", start) + 1
    add_bots_and_start(page, 2)


def test_mpourloto_hand_by_keyboard_with_bidding_and_meld(page: Any, room: str) -> None:
    sign_in(page, room, "Anna2")
    for _attempt in range(12):
        attempt_start = len(spoken(page))
        choose_meld_table(page)
        hand_start = wait_spoken(page, r"^Hand 1\. ", attempt_start)
        assert wait_for_turn_or(page, r"^Hand 1:", hand_start)
        before = len(spoken(page))
        assert table_state(page)["view"]["phase"] == "bidding1"  # type: ignore[index]
        press_action(page, r"^Accept the trump$")
        wait_spoken(page, r"^You accept (spades|hearts|diamonds|clubs) as trumps\.$", before)
        while True:
            assert wait_for_turn_or(page, r"^Hand 1:", hand_start)
            table = table_state(page)
            assert table is not None
            if table["view"]["phase"] == "exchange":
                before = len(spoken(page))
                press_action(page, r"^Keep the seven$")
                wait_spoken(page, r"^You keep the seven", before)
                continue
            break
        assert table["view"]["phase"] == "melds"
        melds = [a for a in table["legal"] if a.startswith("meld ")]
        if melds:
            break
        page.keyboard.press("Shift+F10")  # no meld in this hand: leave from the menu and deal again
        tab_to(page, r"^Leave the table$", key="ArrowDown")
        page.keyboard.press("Enter")
        page.wait_for_function("!document.getElementById('screen-lobby').hidden")
    else:
        pytest.fail(f"no meld in 12 hands; last said: {spoken(page)[-20:]}")

    before = len(spoken(page))
    press_action(page, r"^Meld ")
    wait_spoken(page, r"^You declare (a run|four of a kind|the Mpourlotto)", before)
    wait_until(page, lambda: not any(a.startswith("meld ") and a == melds[0]
                                     for a in (table_state(page) or {}).get("legal", [])), "the meld to register")
    before = len(spoken(page))
    press_action(page, r"^Done with melds$")
    wait_spoken(page, r"^Bot 3 declares", before)  # after a declared meld "done" is silent; the next seat answers
    snapshot = page.locator("#hand-region").aria_snapshot()
    assert 'listbox "Your hand, 8 cards"' in snapshot

    played = 0
    while wait_for_turn_or(page, r"^Hand 1:", hand_start):
        before = len(spoken(page))
        page.keyboard.press("k")
        page.keyboard.press("Home")
        for _ in range(8):
            if re.search(r", playable$", focused_name(page)):
                break
            page.keyboard.press("ArrowRight")
        assert re.search(r", playable$", focused_name(page)), focused_name(page)
        assert page.locator("#hand-list").get_attribute("aria-multiselectable") is None
        page.keyboard.press("Enter")
        wait_spoken(page, r"^You play the ", before)
        played += 1
        if played == 1:
            table_tree = page.locator("#felt-region").aria_snapshot()
            mine = r'listitem: "Seat 2: Anna2 \(you\), host, team B, (to act, )?\d cards"'
            assert re.search(mine, table_tree), table_tree
            assert re.search(r'listitem: "Seat 1: Bot 1, random bot, team A, dealer', table_tree)
            assert_no_violations(page, "Mpourloto table")
            screenshot(page, "table-mpourloto-desktop")
            page.set_viewport_size(PHONE)
            screenshot(page, "table-mpourloto-phone")
            page.set_viewport_size(DESKTOP)
    assert played == 8
    result = wait_spoken(page, r"^Hand 1:", hand_start)
    this_hand = spoken(page)[hand_start:result + 1]
    assert sum(1 for text in this_hand if PLAY.search(text)) == 32
    assert sum(1 for text in this_hand if re.search(r"wins? the (last )?trick", text)) == 8
    score = re.search(r"Score (\d+) to (\d+)\.$", this_hand[-1])
    assert score is not None, this_hand[-1]
    ours, theirs = int(score[1]), int(score[2])
    if max(ours, theirs) >= 100 and ours != theirs:
        wait_spoken(page, r"The match is over|wins the match", result)
    else:  # a made contract may leave both teams short of 100 (99 to 83, say), or level (M11): the match goes on
        wait_spoken(page, r"^Hand 2\. ", result)


def test_russian_and_reconnect(page: Any, room: str) -> None:
    sign_in(page, room, "Olga")
    page.keyboard.press("F2")
    page.wait_for_function("document.getElementById('settings-dialog').open")
    assert focused_name(page) == "Language"
    assert_no_violations(page, "settings")
    page.keyboard.press("ArrowDown")  # English -> Russian
    wait_spoken(page, r"^Язык: русский\.$")
    assert focused_name(page) == "Язык"
    page.keyboard.press("Escape")
    assert page.evaluate("document.documentElement.lang") == "ru"
    assert page.locator("#lobby-title").inner_text() == "Лобби"
    before = len(spoken(page))
    page.keyboard.press("n")
    page.wait_for_function("document.getElementById('table-dialog').open")
    tab_to(page, "^Уровень добавляемых ботов$")
    page.keyboard.press("Home")
    page.keyboard.press("Enter")
    wait_spoken(page, r"^Olga садится на место 1\.$|Olga.*мест", before)
    add_bots_ru = len(spoken(page))
    page.keyboard.press("b")
    wait_spoken(page, r"[Бб]от", add_bots_ru)
    page.keyboard.press("g")
    wait_spoken(page, r"^Раздача 1\.", add_bots_ru)
    wait_spoken(page, r"^Ваш ход\.$", add_bots_ru)
    wait_until(page, lambda: my_turn(table_state(page)), "the first turn")
    before = len(spoken(page))
    page.keyboard.press("h")
    wait_spoken(page, r"^Ваши карты, 3: ", before)
    assert "Ваши карты, карт: 3" in page.locator("#hand-region").aria_snapshot()

    # A network drop: the client says so, reconnects, resumes the table and says so again.
    page.evaluate("window.trickroom.net.drop()")
    lost = wait_spoken(page, r"^Связь потеряна\. Переподключаюсь\.$", before)
    wait_spoken(page, r"^Связь восстановлена\.$", lost)
    page.wait_for_function("document.getElementById('conn-status').textContent === 'На связи'")
    assert not page.locator("#screen-table").is_hidden()
    # Still playing: a move after the reconnect is heard.
    wait_until(page, lambda: my_turn(table_state(page)), "my turn after reconnecting")
    before = len(spoken(page))
    press_action(page, r"^Пас$")
    wait_spoken(page, r"^Вы пасуете|^Вы ", before)
    assert not any(text == "Your turn." for text in spoken(page))

    # Remembered: after a reload the page signs in again and stays in Russian.
    page.reload()
    page.wait_for_function("document.documentElement.lang === 'ru' && !document.getElementById('screen-table').hidden")
    assert page.locator("#menu-button").inner_text() == "Меню"



# ---------------------------------------------------------------------------------------------------------------
# Host controls, the turn timer, the browser's voice, high contrast and large text.


def second_page(browser: Any, errors: list[str]) -> Any:
    """Another player's page, in its own browser context (its own session), recording what it says."""
    other = browser.new_context(viewport=DESKTOP).new_page()
    other.set_default_timeout(20_000)
    other.on("pageerror", lambda error: errors.append(str(error)))
    other.add_init_script(RECORDER)
    return other


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
    wait_spoken(page, r"^Hana sits in seat 1\.$")
    # The host's keys are in the menu and in F1 help.
    page.keyboard.press("Shift+F10")
    page.wait_for_function("!document.getElementById('menu').hidden")
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
    guest.wait_for_function("document.querySelector('#tables').textContent.includes(\"Hana's den\")")
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
    wait_spoken(guest, r"^Ivan sits in seat 2\.$")
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
    guest.wait_for_function("!document.getElementById('screen-lobby').hidden")
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
    wait_spoken(guest, r"^Ivan sits in seat 2\.$", guest_mark)
    assert guest.evaluate("document.getElementById('password-dialog').open") is False
    mark = wait_spoken(page, r"^Ivan sits in seat 2\.$", mark)

    # Handing over the host role: both hear it, and Hana's host keys now say she is not the host.
    page.keyboard.press("w")
    dialog_open(page, "list-dialog")
    page.keyboard.press("Enter")  # the first button: Make Ivan the host
    wait_spoken(guest, r"^Ivan is now the host\.$", guest_mark)
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
    page.wait_for_function("!document.getElementById('screen-lobby').hidden")
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
    wait_spoken(page, r"^Tim sits in seat 1\.$")
    page.evaluate(SOUND_SPY)
    mark = len(spoken(page))
    page.keyboard.press("i")
    wait_spoken(page, r"^Turn timer: 6 seconds a turn; you are not to act now\.$", mark)
    add_bots_and_start(page, 1)

    wait_until(page, lambda: my_turn(table_state(page)), "my first turn")
    turn = wait_spoken(page, r"^You have [56] seconds\.$", mark)
    page.keyboard.press("i")
    wait_spoken(page, r"^[1-6] seconds left for your turn\.$", turn)
    assert re.search(r"^\d s$", page.locator("#time-left").inner_text())
    warning = wait_spoken(page, r"^2 seconds left\.$", turn)
    assert spoken_with_regions(page)[warning]["region"] == "live-assertive"
    assert "timer" in page.evaluate("window.trickroom.sounds.played")
    wait_spoken(page, r"^Time is up for Tim; a bot plays this turn\.$", warning)

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
    wait_spoken(page, r"^Tim changes the table settings\.$", warning)
    wait_until(page, lambda: (table_state(page) or {})["info"]["timer"] == 0, "the timer to be off")


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
    wait_until(page, lambda: any(v["text"] == "Vox sits in seat 1." for v in voiced(page)), "the seat spoken")
    page.keyboard.press("b")
    wait_until(page, lambda: any(v["text"].endswith("bot sits in seat 2.") for v in voiced(page)), "the bot spoken")
    page.keyboard.press("l")  # repeat: interrupts, then says it again
    wait_until(page, lambda: voiced(page)[-1]["text"] == "A random bot sits in seat 2.", "the repeat")
    texts = [v["text"] for v in voiced(page)]
    assert texts == ["Vox sits in seat 1.", "A random bot sits in seat 2.", "<cancel>", "A random bot sits in seat 2."]
    assert all(v["lang"] == "en-US" for v in voiced(page) if v["text"] != "<cancel>")
    assert spoken(page)[live_before:] == []  # the live regions stay quiet in this mode


def test_high_contrast_and_large_text_modes(page: Any, room: str) -> None:
    sign_in(page, room, "Cleo")
    page.keyboard.press("F2")
    dialog_open(page, "settings-dialog")
    tab_to(page, "^High contrast$")
    page.keyboard.press("Space")
    tab_to(page, "^Large text$")
    page.keyboard.press("Space")
    classes = page.evaluate("[...document.documentElement.classList]")
    assert "high-contrast" in classes and "large-text" in classes
    assert_no_violations(page, "settings in high contrast")
    page.keyboard.press("Escape")
    assert_no_violations(page, "lobby in high contrast")
    page.keyboard.press("n")
    dialog_open(page, "table-dialog")
    tab_to(page, "^Level of the bots you add$")
    page.keyboard.press("Home")
    page.keyboard.press("Enter")
    wait_spoken(page, r"^Cleo sits in seat 1\.$")
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
    page.wait_for_function("document.documentElement.classList.contains('high-contrast')")
    assert page.evaluate("document.documentElement.classList.contains('large-text')")


# ---------------------------------------------------------------------------------------------------------------
# The keys between moves, brief speech, the mute key, watching, and a phone played by touch.


# Counts the oscillators the page's sounds start: the only way to hear whether a sound really plays.
TONE_SPY = """() => {
  const sounds = window.trickroom.sounds;
  sounds.unlock();
  const ctx = sounds.context;
  const create = ctx.createOscillator.bind(ctx);
  sounds.tones = 0;
  ctx.createOscillator = () => { sounds.tones += 1; return create(); };
}"""


def tones(page: Any) -> int:
    count: int = page.evaluate("window.trickroom.sounds.tones")
    return count


def test_information_keys_brief_speech_mute_and_a_spectator(page: Any, room: str, browser: Any) -> None:
    sign_in(page, room, "Una")
    errors: list[str] = []
    other = second_page(browser, errors)
    sign_in(other, room, "Watcher")
    wait_until(page, lambda: "Watcher" in [u["name"] for u in page.evaluate("window.trickroom.state.lobby.users")],
               "Watcher in the lobby list")
    mark = len(spoken(page))
    page.keyboard.press("u")
    index = wait_spoken(page, r"^Online: ", mark)
    online = spoken(page)[index]
    assert "Una" in online and "Watcher" in online

    # Game messages in brief: plays and tricks are spoken, draws and answers are not.
    page.keyboard.press("F2")
    dialog_open(page, "settings-dialog")
    tab_to(page, "^Game messages$")
    page.keyboard.press("ArrowDown")  # full -> brief
    assert page.evaluate("window.trickroom.state.prefs.verbosity.game") == "brief"
    page.keyboard.press("Escape")

    open_create_dialog(page)
    tab_to(page, "^Level of the bots you add$")
    page.keyboard.press("Home")
    page.keyboard.press("Enter")
    wait_spoken(page, r"^Una sits in seat 1\.$")
    mark = len(spoken(page))
    page.keyboard.press("b")
    mark = wait_spoken(page, r"bot sits in seat 2\.$", mark) + 1
    page.keyboard.press("Shift+b")
    wait_spoken(page, r"^The bot leaves seat 2\.$", mark)
    wait_until(page, lambda: (table_state(page) or {})["info"]["seats"][1]["bot"] is None, "seat 2 free again")
    page.evaluate(TONE_SPY)
    add_bots_and_start(page, 1)

    # The spectator watches from the lobby's Watch button: plays are heard, no hand is seen.
    other.locator("#tables tr", has_text="Una's table").get_by_role("button", name="Watch").click()
    other.wait_for_function("!document.getElementById('screen-table').hidden")
    wait_until(other, lambda: bool((table_state(other) or {}).get("view")), "the spectator's view")
    assert not (table_state(other) or {})["view"].get("hand")

    wait_until(page, lambda: my_turn(table_state(page)), "my first turn")
    mark = len(spoken(page))
    page.keyboard.press("p")
    wait_spoken(page, r"^The pot holds 2 chips\.$", mark)
    page.keyboard.press("c")
    wait_spoken(page, r"^On the table: Bot 2: |^No cards on the table", mark)
    # Page Up steps back through the history, Page Down forward again. The spectator arrives meanwhile, so the
    # history may grow: compare the review of Page Down with the first Page Up's, which it must repeat.
    page.wait_for_timeout(500)
    reviews = []
    for key in ("PageUp", "PageUp", "PageDown"):
        count = len(spoken(page))
        page.keyboard.press(key)
        wait_until(page, lambda count=count: len(spoken(page)) > count, f"the review after {key}")
        reviews.append(spoken(page)[-1])
    assert reviews[2] == reviews[0] and reviews[1] != reviews[0], reviews
    assert tones(page) > 0  # the turn's sound played
    page.keyboard.press("m")
    quiet_from = wait_spoken(page, r"^Sounds off\.$", mark) + 1
    silent_from = tones(page)

    # Up and Down in the hand jump between suits.
    page.keyboard.press("k")
    page.keyboard.press("Home")
    cards = hand_cards(page)
    if len({code[1] for code in cards}) > 1:
        page.keyboard.press("ArrowDown")
        assert page.evaluate("document.activeElement.dataset.card") == next(c for c in cards if c[1] != cards[0][1])

    for _ in range(40):  # play on until a trick has been taken
        if not wait_for_turn_or(page, HAND_OVER, quiet_from):
            break
        table = table_state(page)
        assert table is not None
        before = len(spoken(page))
        if "pass" in table["legal"]:  # an answer: a detail, not spoken in brief
            press_action(page, r"^Pass$")
            wait_for_move_after(page, table["move"])
            continue
        # The first legal play, its cards reached with the arrows (and chosen with Space when there are several).
        cards = next(a.split()[1:] for a in table["legal"] if a.startswith("play "))
        page.keyboard.press("k")
        for card in cards:
            page.keyboard.press("Home")
            while page.evaluate("document.activeElement.dataset.card") != card:
                page.keyboard.press("ArrowRight")
            if len(cards) > 1:
                page.keyboard.press("Space")
        page.keyboard.press("Enter")
        wait_spoken(page, r"^You play", before)
        if any(text.endswith("takes the trick.") for text in spoken(page)[quiet_from:]):
            break
    said = spoken(page)[quiet_from:]
    assert any(PLAY.search(text) for text in said)
    assert any(text.endswith("takes the trick.") for text in said)
    assert not any("draws a card" in text or "has answered" in text for text in said), said
    assert tones(page) == silent_from  # muted: no sound since
    wait_spoken(other, r"^(Una|Bot 2) plays the ")
    other.context.close()
    assert errors == []


def test_a_phone_plays_by_touch(browser: Any, room: str) -> None:
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    phone = context.new_page()
    phone.set_default_timeout(20_000)
    errors: list[str] = []
    phone.on("pageerror", lambda error: errors.append(str(error)))
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
    phone.wait_for_function("!document.getElementById('screen-lobby').hidden")
    phone.get_by_role("button", name="Menu").tap()
    phone.get_by_role("menuitem", name="Log out").tap()
    phone.wait_for_function("!document.getElementById('screen-signin').hidden")
    mark = len(spoken(phone))
    account_form("felt-and-chips", "Log in")
    wait_spoken(phone, r"^Wrong user name or password\.$", mark)
    assert not phone.locator("#screen-signin").is_hidden()
    account_form("felt-and-cards", "Log in")
    phone.wait_for_function("!document.getElementById('screen-lobby').hidden")
    phone.get_by_role("button", name="Create a table").tap()
    dialog_open(phone, "table-dialog")
    phone.locator("#opt-bot-level").select_option("random")
    phone.get_by_role("button", name="Create", exact=True).tap()
    wait_spoken(phone, r"^Tapper sits in seat 1\.$")
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
        wait_spoken(phone, r"^You play the ", before)
        break
    else:
        raise AssertionError("no play by touch")
    assert any(PLAY.search(text) for text in spoken(phone)[mark:])
    context.close()
    assert errors == []


def test_a_spectator_refused_on_coming_back_is_taken_to_the_lobby(page: Any, room: str) -> None:
    host = Client(room.replace("http://", "ws://") + "/ws")
    try:
        host.login_guest("Gatekeeper")
        table = host.request(type="create", game="bura", name="Closing soon")["table"]
        sign_in(page, room, "Visitor")
        page.locator("#tables tr", has_text="Closing soon").get_by_role("button", name="Watch").click()
        page.wait_for_function("!document.getElementById('screen-table').hidden")
        # The table gets a password while Visitor watches; then Visitor's connection drops. Coming back, the
        # room refuses the resume (a password is asked of newcomers): the page says so and leaves the table.
        assert host.request(type="settings", table=table, password="secret-door")["type"] == "ok"
        mark = len(spoken(page))
        page.evaluate("window.trickroom.net.drop()")
        wait_spoken(page, r"password", mark)
        page.wait_for_function("!document.getElementById('screen-lobby').hidden")
        assert page.evaluate("window.trickroom.state.table") is None
    finally:
        host.close()
