"""What the browser tests of the web client (tests/test_web_*.py) do at a table, by keyboard as a player would:
open the create dialog, add bots and start, press an action, wait for one's turn, play the first legal cards; the
patterns of the sentences they listen for; a second player's page; axe-core on a screen."""

from __future__ import annotations

import re
from typing import Any

from web_helpers import (
    RECORDER,
    csp_listener,
    focused_name,
    my_turn,
    run_axe,
    spans,
    spoken,
    tab_to,
    table_state,
    wait_spoken,
    wait_until,
)

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
HAND_OVER = r"wins? the hand|[Nn]o one wins the hand"
PLAY = re.compile(r"^(You play|.+ plays) the ")
MINE = r"^(You play the |You take the trick with the )"  # the last play of a trick is said in the trick's sentence
TAKEN = re.compile(r"takes? the trick")
HAND_LIMIT = 40  # more arrow presses than any hand has cards: a card never reached fails instead of hanging


def assert_no_violations(page: Any, screen: str) -> None:
    violations = run_axe(page)
    assert violations == [], f"axe-core on the {screen} screen: {violations}"


def open_create_dialog(page: Any) -> None:
    page.keyboard.press("n")
    page.wait_for_function("() => document.getElementById('table-dialog').open")
    assert focused_name(page) == "Game"


def add_bots_and_start(page: Any, bots: int) -> None:
    start = len(spoken(page))
    for _ in range(bots):
        page.keyboard.press("b")
        start = wait_spoken(page, r"bot sits in seat", start) + 1
    page.keyboard.press("g")
    wait_spoken(page, r"The game begins", start)


def show_the_tables_in_play(page: Any, table: str) -> None:
    """Tick "Show the tables in play" in the lobby by keyboard (one Tab after the lobby's buttons), then wait for
    ``table`` (an id: a table in play, which the lobby leaves out by default) to be listed."""
    page.locator("#lobby-title").focus()
    tab_to(page, r"^Show the tables in play$")
    page.keyboard.press("Space")
    page.wait_for_function(f"() => document.querySelector('#tables [id$=\"-{table}\"]')")


def leave_for_the_lobby(page: Any) -> None:
    """Leave the table from the menu (Shift+F10), back to the lobby."""
    page.keyboard.press("Shift+F10")
    tab_to(page, r"^Leave the table$", key="ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_function("() => !document.getElementById('screen-lobby').hidden")


def press_action(page: Any, pattern: str) -> None:
    """Go to the actions (A) and Tab to the button named like ``pattern``, then press Enter."""
    page.keyboard.press("a")
    if not re.search(pattern, focused_name(page)):
        tab_to(page, pattern, limit=8)
    page.keyboard.press("Enter")


def wait_for_turn_or(page: Any, pattern: str, after: int, hand: int | None = None) -> bool:
    """Wait until it is this player's turn (True) or ``pattern`` is spoken after ``after`` (False).
    The hand is also over when the table's state already shows a later hand than ``hand`` (by default the one
    it shows now): the state of the next deal can be drawn before the sentence that ends this hand is recorded,
    and its turn is not a turn of this hand."""
    regex = re.compile(pattern)
    outcome: dict[str, bool] = {}
    if hand is None:
        hand = ((table_state(page) or {}).get("view") or {}).get("hand_number")

    def ready() -> bool:
        if any(regex.search(span) for text in spoken(page)[after:] for span in spans(text)):
            outcome["over"] = True
            return True
        table = table_state(page)
        later = ((table or {}).get("view") or {}).get("hand_number")
        if hand is not None and later is not None and later > hand:
            outcome["over"] = True
            return True
        return my_turn(table)

    wait_until(page, ready, f"my turn or {pattern!r}", timeout=30_000)
    return not outcome.get("over", False)


def wait_for_move_after(page: Any, move: int) -> None:
    """Wait until the match has moved on from ``move`` (its action count): the action just sent was applied.
    Not "pass is no longer legal": a bot's Bura can end the hand at once and open the next hand's pause."""
    wait_until(page, lambda: (table_state(page) or {}).get("move", move) > move, "the action taken")


def play_first_legal(page: Any, pass_button: str) -> None:
    """Pass (the button named ``pass_button``) when the pause waits for a held combination, else play the first
    legal cards with the hand's keys: the room passes by itself for a player who holds nothing (auto_pass)."""
    table = table_state(page)
    assert table is not None
    if "pass" in table["legal"]:
        press_action(page, pass_button)
        return
    play_cards(page, next(a.split()[1:] for a in table["legal"] if a.startswith("play ")))


def play_cards(page: Any, cards: list[str]) -> None:
    """Play ``cards`` (codes) with the hand's keys: K to the hand, arrows to each card, Space to choose each of
    several, Enter."""
    page.keyboard.press("k")
    for card in cards:
        page.keyboard.press("Home")
        for _ in range(HAND_LIMIT):
            if page.evaluate("document.activeElement.dataset.card") == card:
                break
            page.keyboard.press("ArrowRight")
        else:
            raise AssertionError(f"the hand's keys never reached {card} (focus: {focused_name(page)!r})")
        if len(cards) > 1:
            page.keyboard.press("Space")
    page.keyboard.press("Enter")


def second_page(browser: Any, errors: list[str]) -> Any:
    """Another player's page, in its own browser context (its own session), recording what it says."""
    other = browser.new_context(viewport=DESKTOP).new_page()
    other.set_default_timeout(20_000)
    other.on("pageerror", lambda error: errors.append(str(error)))
    other.on("console", csp_listener(errors))
    other.add_init_script(RECORDER)
    return other
