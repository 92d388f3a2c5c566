"""Browser tests of the web client against a room that stops and comes back, and of the statistics view.

The move: a real single-node room (SQLite) stopped with SIGTERM closes every socket with code 1012 (service
restart), as a node of several does after its ``reconnect`` message; started again on the same port, it restores
the table with its sequence numbers 1000 ahead. The page must say it is moving, find the room again, log in with
its token, resume the table, say "Back at the table." and go on playing, with no error spoken.
"""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from conftest import need_service
from server_helpers import Client, ProcessServer, play_rated_bura_match
from web_helpers import (
    BROWSER_ARGS,
    CHROMIUM,
    SOUND_SPY,
    dialog_open,
    focused_name,
    my_turn,
    run_axe,
    sentences,
    sign_in,
    spoken,
    tab_to,
    table_state,
    wait_spoken,
    wait_until,
)
from web_play import MINE, play_cards, second_page

pytestmark = pytest.mark.browser



@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProcessServer]:
    need_service(os.path.exists(CHROMIUM), "Debian's chromium is not installed (make browser-deps)")
    folder = tmp_path_factory.mktemp("web-nodes")
    server = ProcessServer(folder / "room.sqlite3", TRICKROOM_TIMER_MINIMUM="3")
    server.log_path = folder / "room.log"
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser(room: ProcessServer) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def errors() -> list[str]:
    return []


@pytest.fixture
def page(browser: Any, errors: list[str]) -> Iterator[Any]:
    page = second_page(browser, errors)
    yield page
    page.context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"



def base_of(server: ProcessServer) -> str:
    return f"http://127.0.0.1:{server.port}"


def play_one_turn(page: Any) -> None:
    """On this player's turn: Pass if it may, else the first legal play, chosen in the hand by keyboard."""
    table = table_state(page)
    assert table is not None
    before = len(spoken(page))
    if "pass" in table["legal"]:
        page.keyboard.press("a")
        if focused_name(page) != "Pass":
            tab_to(page, "^Pass$", limit=8)
        page.keyboard.press("Enter")
        wait_until(page, lambda: (table_state(page) or {}).get("move", 0) > table["move"], "the pass taken")
        return
    play = next(action for action in table["legal"] if action.startswith("play "))
    play_cards(page, play.split()[1:])
    wait_spoken(page, MINE, before)


def start_bura_against_a_random_bot(page: Any, room: ProcessServer, name: str) -> None:
    """Sign in, create a Bura table by keyboard, add a random bot (the fastest) and start."""
    sign_in(page, base_of(room), name)
    page.evaluate(SOUND_SPY)
    page.keyboard.press("n")
    dialog_open(page, "table-dialog")
    tab_to(page, "^Level of the bots you add$")
    page.keyboard.press("Home")  # random: the fastest bots
    tab_to(page, "^Create$")
    page.keyboard.press("Enter")
    wait_spoken(page, r"^You sit in seat 1\.$")
    page.keyboard.press("b")
    wait_spoken(page, r"bot sits in seat 2")
    page.keyboard.press("g")
    wait_spoken(page, r"The game begins")


def test_moving_to_a_restarted_room_resumes_the_table(page: Any, room: ProcessServer) -> None:
    start_bura_against_a_random_bot(page, room, "Rita")
    wait_until(page, lambda: my_turn(table_state(page)), "the first turn")
    play_one_turn(page)
    table = table_state(page)
    assert table is not None
    table_id = table["id"]

    # The room stops (SIGTERM: close code 1012) and comes back on the same port.
    before = len(spoken(page))
    last_seq = page.evaluate(f"window.trickroom.state.lastSeq['{table_id}']")
    room.stop()
    moving = wait_spoken(page, r"^Moving to another server…$", before)
    assert page.locator("#conn-status").inner_text() == "Reconnecting"
    room.start()
    back = wait_spoken(page, r"^Back at the table\.$", moving, timeout=30_000)
    page.wait_for_function("() => document.getElementById('conn-status').textContent === 'Connected'")
    assert not page.locator("#screen-table").is_hidden()
    # The restored table numbers on 1000 past its last logged event: the jump is taken, not read as old news.
    wait_until(page, lambda: page.evaluate(f"window.trickroom.state.lastSeq['{table_id}']") >= last_seq + 1000,
               "a table message numbered after the jump")

    # The game goes on: the next turn is heard and played.
    wait_until(page, lambda: my_turn(table_state(page)), "my turn after the move")
    play_one_turn(page)
    said = [part for text in spoken(page)[before:] for part in sentences(text)]
    assert said.count("Moving to another server…") == 1
    assert said.count("Back at the table.") == 1
    assert "Connection lost. Reconnecting." not in said and "Reconnected." not in said
    assert back > moving
    assert "error" not in page.evaluate("window.trickroom.sounds.played")  # no error was said


def test_told_its_table_s_node_the_page_moves_there_without_a_word(page: Any, room: ProcessServer) -> None:
    """A node of several tells a player who sat down from another node where the table lives ("table_node"). The
    message is handed to the page's handler as if it came from the room, naming this same room by another address
    (a query string): the page opens a socket there beside the first one, logs in on it without the lobby, closes
    the first and resumes the table. Nothing is said, and the game goes on."""
    start_bura_against_a_random_bot(page, room, "Petra")
    wait_until(page, lambda: my_turn(table_state(page)), "the first turn")
    table = table_state(page)
    assert table is not None
    before = len(spoken(page))
    there = f"ws://127.0.0.1:{room.port}/ws?node=n2"
    page.evaluate("""([table, url]) => {
      window.trickroom.net.onMessage({type: 'table_node', table, node: 'n2', url});
    }""", [table["id"], there])
    wait_until(page, lambda: page.evaluate("[window.trickroom.net.address, window.trickroom.net.leaving]") == [
        there, None] and not page.evaluate("window.trickroom.state.switching"), "the move to the table's node")
    wait_until(page, lambda: page.evaluate("window.trickroom.net.ws.readyState") == 1, "the new socket open")
    assert not page.evaluate("window.trickroom.state.followingLobby")  # logged in without the lobby
    # The game goes on: the turn (asked again after the resume) is played on the new socket.
    wait_until(page, lambda: my_turn(table_state(page)), "my turn after the move")
    play_one_turn(page)
    said = [part for text in spoken(page)[before:] for part in sentences(text)]
    assert not [line for line in said if re.search(r"server|Reconnect|Connection|Back at|Welcome", line)], said
    assert page.locator("#conn-status").inner_text() == "Connected"
    # The same table's message again within a minute, naming a reachable address (the room's own, which the page
    # left), is not followed: a wrong address cannot bounce the page around.
    followed = page.evaluate("""([table, url]) => {
      const net = window.trickroom.net, tries = [], move = net.moveQuietly;
      net.moveQuietly = (address) => tries.push(address);
      net.onMessage({type: 'table_node', table, node: 'n1', url});
      net.moveQuietly = move;
      return tries;
    }""", [table["id"], f"ws://127.0.0.1:{room.port}/ws"])
    assert followed == [] and page.evaluate("window.trickroom.net.address") == there


def test_an_act_the_room_never_answered_is_played_after_reconnecting(page: Any, room: ProcessServer) -> None:
    """The room freezes (SIGSTOP) just as the player plays, then dies (SIGKILL): the act never arrived. Back on
    a restarted room, the page sends it again with its ``move``, and it is played, once, with no error.

    The room is frozen only at a turn where it waits for this player alone (a card to play): at an announcement
    the bot may still be answering, and what the room sent just before the freeze can still reach a busy page and
    change its turn while the keys are pressed."""
    start_bura_against_a_random_bot(page, room, "Vera")
    wait_for_a_card_to_play(page)
    assert room.process is not None
    room.process.send_signal(signal.SIGSTOP)
    try:
        table = table_state(page)
        assert table is not None
        before = len(spoken(page))
        act = next(a for a in table["legal"] if a.startswith("play "))
        play_cards(page, act.split()[1:])
        wait_until(page, lambda: page.evaluate("window.trickroom.state.pendingAct") is not None,
                   lambda: f"the act {act} sent; the page has move {table_state(page)!r:.300} and heard "
                           f"{spoken(page)[before:]}")
        sent = page.evaluate("window.trickroom.state.pendingAct.action")
        assert sorted(sent.split()) == sorted(act.split()), sent  # several cards go in the hand's order
    except BaseException:
        # The room is left running for the module's next tests.
        room.process.send_signal(signal.SIGCONT)
        room.kill()
        room.start()
        raise
    room.kill()
    room.start()
    wait_until(page, lambda: (table_state(page) or {}).get("move", 0) > table["move"], "the act played",
               timeout=30_000)
    wait_until(page, lambda: page.evaluate("window.trickroom.state.pendingAct") is None, "the act answered")
    wait_spoken(page, MINE, before, timeout=30_000)
    assert len([t for t in spoken(page)[before:] if re.search(MINE, t)]) == 1
    assert "error" not in page.evaluate("window.trickroom.sounds.played")


def wait_for_a_card_to_play(page: Any) -> None:
    """Until it is this player's turn to play a card: an announcement (a combination held) is passed."""
    for _ in range(10):
        wait_until(page, lambda: my_turn(table_state(page)), "this player's turn")
        table = table_state(page)
        assert table is not None
        if any(action.startswith("play ") for action in table["legal"]) and "pass" not in table["legal"]:
            return
        play_one_turn(page)
    raise AssertionError("no turn to play a card in ten turns")


def expected_rating(value: float) -> str:
    """The client's one decimal (Intl.NumberFormat rounds halves away from zero)."""
    return str(Decimal(str(value)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def play_a_rated_match(url: str, username: str, password: str) -> dict[str, Any]:
    """The account and a guest play a one-hand Bura match through the protocol; returns the account's stats."""
    account, guest = Client(url), Client(url)
    try:
        account.request(type="login", username=username, password=password)
        guest.login_guest("Gleb")
        return play_rated_bura_match(account, guest)
    finally:
        account.close()
        guest.close()


def test_statistics_view_for_an_account_and_for_a_guest(page: Any, room: ProcessServer, browser: Any,
                                                          errors: list[str]) -> None:
    # A guest hears that statistics need an account.
    guest = second_page(browser, errors)
    sign_in(guest, base_of(room), "Gus")
    before = len(spoken(guest))
    guest.keyboard.press("s")
    dialog_open(guest, "stats-dialog")
    wait_spoken(guest, r"^Statistics need an account: log out, then create one on the sign-in screen\.$", before)
    guest.keyboard.press("Escape")
    guest.context.close()

    # An account made on the sign-in screen, by keyboard.
    page.goto(base_of(room) + "/")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'guest-nickname'")
    tab_to(page, "^User name$")
    page.keyboard.type("stella")
    tab_to(page, "^Password$")
    page.keyboard.type("secret-42")
    tab_to(page, "^Create the account$")
    page.keyboard.press("Enter")
    page.wait_for_function("() => !document.getElementById('screen-lobby').hidden")

    # No games yet: the view says so. It is in the menu and in F1's list.
    before = len(spoken(page))
    page.keyboard.press("s")
    dialog_open(page, "stats-dialog")
    wait_spoken(page, r"^No games yet: statistics count finished games with at least two people at the table\.$",
                before)
    assert focused_name(page) == "Close"
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.getElementById('stats-dialog').open")
    page.keyboard.press("F1")
    dialog_open(page, "help-dialog")
    assert "S: Your statistics" in page.locator("#help-body").inner_text()
    page.keyboard.press("Escape")
    page.keyboard.press("Shift+F10")
    page.wait_for_function("() => !document.getElementById('menu').hidden")
    assert "Your statistics (S)" in page.locator("#menu [role=menuitem]").all_inner_texts()
    page.keyboard.press("Escape")

    # After a rated match (the account against a guest), one sentence for Bura, from the room's figures.
    stats = play_a_rated_match(room.url, "stella", "secret-42")
    bura = stats["games"]["bura"]
    assert bura["played"] == 1
    sentence = f"Bura: 1 played, {bura['won']} won, rating {expected_rating(bura['rating'])}."
    before = len(spoken(page))
    page.keyboard.press("s")
    dialog_open(page, "stats-dialog")
    wait_spoken(page, "^" + re.escape(sentence) + "$", before)
    assert page.locator("#stats-list").inner_text().strip() == sentence
    violations = run_axe(page)
    assert violations == [], f"axe-core on the statistics view: {violations}"
    page.keyboard.press("Escape")
    assert page.evaluate("document.activeElement.id") == "lobby-title"


def test_statistics_sentence_in_russian(page: Any, room: ProcessServer) -> None:
    """The view's sentence is the client's own, in the player's language (no stats text from the room)."""
    sign_in(page, base_of(room), "Ilya")
    lines = page.evaluate("""async () => {
      const i18n = await import('/js/i18n.js');
      const stats = await import('/js/stats.js');
      await i18n.loadLang('ru');
      i18n.setLang('ru');
      const lines = stats.statsSentences({bura: {played: 12, won: 7, rating: 23.44, mu: 30, sigma: 2.2}});
      i18n.setLang('en');
      return lines.concat(stats.statsSentences({bura: {played: 12, won: 7, rating: 23.44, mu: 30, sigma: 2.2}}));
    }""")
    assert lines == ["Бура: сыграно 12, выиграно 7, рейтинг 23,4.", "Bura: 12 played, 7 won, rating 23.4."]


def test_the_rooms_own_reconnect_message_moves_to_the_listed_node(page: Any, room: ProcessServer) -> None:
    """What a node of several sends before closing: {"type": "reconnect", "nodes": [...]}. The message is handed
    to the page's handler as if it came from the room (this single node cannot send it), then the socket closes
    as the node's would (1012): the page must go to the listed address, here this same room."""
    sign_in(page, base_of(room), "Nina")
    before = len(spoken(page))
    page.evaluate(f"""() => {{
      const net = window.trickroom.net;
      net.onMessage({{type: 'reconnect', nodes: ['ws://127.0.0.1:{room.port}/ws'], text: 'restarting'}});
      net.ws.close(4000);
    }}""")
    moving = wait_spoken(page, r"^Moving to another server…$", before)
    wait_spoken(page, r"^Back in the lobby\.$", moving)
    assert "restarting" not in spoken(page)
    assert page.evaluate("window.trickroom.net.address") == f"ws://127.0.0.1:{room.port}/ws"


def test_candidate_addresses(page: Any, room: ProcessServer) -> None:
    sign_in(page, base_of(room), "Olaf")
    origin = f"ws://127.0.0.1:{room.port}/ws"
    result = page.evaluate("""(origin) => {
      const net = window.trickroom.net;
      net.setNodes(['ws://10.0.0.1:8000/ws', origin]);
      const drop = net.candidateList(false);
      net.moveAway(['ws://10.0.0.2:8000/ws']);
      const move = net.candidateList(true);
      net.moveTo = null;
      return {drop, move};
    }""", origin)
    assert result == {"drop": [origin, "ws://10.0.0.1:8000/ws"],
                      "move": ["ws://10.0.0.2:8000/ws", "ws://10.0.0.1:8000/ws", origin]}

