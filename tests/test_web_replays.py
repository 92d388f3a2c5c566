"""Browser tests of replays, hints and the review, keyboard only: a finished Bura game and a Mpourloto game stepped
through to their end with the spoken sentences checked against what the table said; the shared link; a private
game's link refused to a stranger; the export downloaded and replayed; the review listbox; a hint at a table;
axe-core on the replay and review screens."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import need_service
from server_helpers import AutoPlayer, Client, finished_against_bots, match_finished
from teaching_helpers import BURA_OPTIONS, BURA_RIGHT, BURA_WRONG, bura_at_the_beat, bura_deck
from web_helpers import (
    CHROMIUM,
    chromium,
    dialog_open,
    focused_name,
    recorded_page,
    room_process,
    run_axe,
    sign_in,
    spoken,
    wait_spoken,
    wait_until,
)

from trickroom.games import load_game

pytestmark = pytest.mark.browser
DESKTOP = {"width": 1280, "height": 800}
Message = dict[str, Any]


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    need_service(os.path.exists(CHROMIUM), "Debian's chromium is not installed (make browser-deps)")
    with room_process(tmp_path_factory.mktemp("web-replays") / "room.sqlite3", TRICKROOM_ALLOW_TEST_DECKS="1",
                      TRICKROOM_ADVICE_WORLDS="120", TRICKROOM_BOT_WORKERS="0",
                      # The worlds, not the clock, end a review's search: the same numbers on a busy machine.
                      TRICKROOM_REVIEW_BUDGET="120",
                      TRICKROOM_MESSAGES_PER_SECOND="1000", TRICKROOM_MESSAGE_BURST="1000") as base:
        yield base


@pytest.fixture(scope="module")
def browser(room: str) -> Iterator[Any]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    with recorded_page(browser, viewport=DESKTOP, accept_downloads=True) as recorded:
        yield recorded


def ws(base: str) -> str:
    return base.replace("http://", "ws://") + "/ws"


def account_game(base: str, name: str, game: str, options: dict[str, Any], seat: int, leave: bool = True,
                 **create: Any) -> tuple[str, list[str], Message]:
    """The account ``name`` plays ``seat`` against random bots to the end (then leaves the table, unless not
    ``leave``: the finished table is then theirs to come back to); the table, the sentences it heard, and the
    table's history."""
    client = Client(ws(base))
    try:
        assert client.request(type="register", username=name, password="secret-pw")["type"] == "welcome"
        table = finished_against_bots(client, game, options, seat, **create)
        heard = [m["text"] for m in client.history if m.get("type") == "event" and m.get("table") == table
                 and m["text"]]
        history = client.request(type="history", table=table)
        if leave:
            client.request(type="leave", table=table)
        return table, heard, history
    finally:
        client.leave()


def first_hand_has_a_trick(game: str, options: dict[str, Any], history: Message) -> bool:
    """Whether the finished match's first hand had a trick (a hand can end at the deal, by a winning combination)."""
    match = load_game(game, **options).replay(history["seed"], [(a["seat"], a["action"]) for a in history["actions"]],
                                              decks=history["decks"])
    for event in match.events:
        if event["type"] == "trick":
            return True
        if event["type"] in ("hand_end", "redeal"):
            return False
    return False


def sign_in_account(page: Any, base: str, name: str, path: str = "/") -> None:
    page.goto(base + path)
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'guest-nickname'")
    page.fill("#account-username", name)
    page.fill("#account-password", "secret-pw")
    page.focus("#account-password")
    page.keyboard.press("Enter")
    wait_spoken(page, f"Welcome, {name}")


def replay_state(page: Any) -> Message:
    found: Message = page.evaluate("""() => { const r = window.trickroom.state.replay;
        return r && {table: r.table, position: r.position, info: r.info,
                     steps: Object.fromEntries([...r.steps.entries()])}; }""")
    return found


def position(page: Any) -> int:
    at: int = page.evaluate("window.trickroom.state.replay.position")
    return at


def step_at(page: Any, index: int) -> Message:
    found: Message = page.evaluate("(i) => window.trickroom.state.replay.steps.get(i)", index)
    return found


def said_for(step: Message) -> str:
    return " ".join(step["text"])


def assert_no_violations(page: Any, screen: str) -> None:
    violations = run_axe(page)
    assert violations == [], f"axe-core on the {screen}: {violations}"


def test_a_bura_game_replayed_by_keyboard_says_what_the_table_said(page: Any, room: str) -> None:
    options = {"players": 2, "scoring": "points", "hand_limit": 2}
    for name in ("rita", "rita2", "rita3", "rita4"):  # a random deal: until the first hand has a trick to go to
        table, heard, history = account_game(room, name, "bura", options, 0, leave=False)
        if first_hand_has_a_trick("bura", options, history):
            break
    else:
        pytest.fail("four matches whose first hand had no trick")
    sign_in_account(page, room, name)  # back at her finished table
    page.wait_for_function("() => !document.getElementById('screen-table').hidden")
    wait_until(page, lambda: page.evaluate("window.trickroom.state.table?.info?.status") == "finished", "the end")
    start = len(spoken(page))
    page.keyboard.press("Alt+R")  # this table's replay
    wait_spoken(page, rf"^Replay of {name}'s table, Bura\.", start)
    page.wait_for_function("() => document.activeElement.id === 'replay-board'")
    first = replay_state(page)
    steps = {int(k): v for k, v in first["steps"].items()}
    wait_spoken(page, "^" + re.escape(said_for(steps[0])), start)
    assert_no_violations(page, "replay screen")
    total = first["info"]["total"]
    told = [said_for(steps[0])]
    for index in range(1, total):
        before = len(spoken(page))
        page.keyboard.press("ArrowRight")
        wait_until(page, lambda index=index: position(page) == index, f"step {index}")
        step = step_at(page, index)
        text = wait_spoken_text(page, before)
        assert text == (said_for(step) or page.evaluate("document.getElementById('replay-position').textContent"))
        told.append(said_for(step))
    # Step by step, everything the table said to Rita, in order; the last step holds the match's end.
    assert " ".join(t for t in told if t) == " ".join(heard)
    end = replay_state(page)
    last = end["steps"][str(total - 1)]
    assert last["ends_hand"] and end["info"]["standings"] == history["standings"]
    assert hear(page, "ArrowRight") == "This is the end of the game."
    hands = end["info"]["hands"]
    assert hear(page, "Home") == said_for(step_at(page, 0))
    first_trick = hands[0]["tricks"][0]
    assert hear(page, "ArrowDown") == said_for(step_at(page, first_trick)) and position(page) == first_trick
    assert hear(page, "Shift+ArrowDown") == said_for(step_at(page, hands[1]["first"]))  # the next hand's deal
    assert hear(page, "w") == f"Hand 2 of 2, trick 1; step {hands[1]['first'] + 1} of {total}."
    assert hear(page, "h").startswith(f"{name}: ")
    # Export: the game as JSON (the history: it replays to the same standings) and as text.
    with page.expect_download() as download:
        page.keyboard.press("x")
    exported = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert exported == {k: v for k, v in history.items() if k not in ("re", "seed_text")}
    again = load_game("bura", **exported["options"]).replay(
        exported["seed"], [(a["seat"], a["action"]) for a in exported["actions"]], decks=exported["decks"])
    assert again.standings == history["standings"]
    with page.expect_download() as download:
        page.keyboard.press("Shift+X")
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert text.startswith(f"{name}'s table: Bura, 2 players") and heard[0] in text
    page.keyboard.press("u")
    assert page.input_value("#replay-link").endswith(f"/#replay={table}")
    page.keyboard.press("Escape")  # back to the table it came from
    page.wait_for_function("() => !document.getElementById('screen-table').hidden")


def hear(page: Any, key: str) -> str:
    """Press ``key`` and return the first sentence said after it."""
    before = len(spoken(page))
    page.keyboard.press(key)
    return wait_spoken_text(page, before)


def wait_spoken_text(page: Any, after: int) -> str:
    index = wait_spoken(page, r".", after)
    return spoken(page)[index]


def test_a_mpourloto_game_from_my_games_trick_by_trick(page: Any, room: str) -> None:
    table, heard, history = account_game(room, "mira", "mpourloto", {"target": 100}, 1)
    sign_in_account(page, room, "mira")
    page.wait_for_function("() => !document.getElementById('screen-lobby').hidden")
    page.keyboard.press("g")  # my games
    dialog_open(page, "games-dialog")
    assert focused_name(page).startswith("Mpourloto: Bot 1, you, Bot 3 and Bot 4.")
    assert_no_violations(page, "games dialog")
    page.keyboard.press("Escape")
    page.keyboard.press("s")  # the statistics lead there too
    dialog_open(page, "stats-dialog")
    page.keyboard.press("Tab")
    assert focused_name(page) == "My games"
    page.keyboard.press("Enter")
    dialog_open(page, "games-dialog")
    assert focused_name(page).startswith("Mpourloto: Bot 1, you, Bot 3 and Bot 4.")
    start = len(spoken(page))
    page.keyboard.press("Enter")
    wait_spoken(page, r"^Replay of mira's table, Mpourloto\.", start)
    info = replay_state(page)["info"]
    assert info["you"] == 1 and replay_state(page)["table"] == table
    ends = [i for outline in info["hands"] for i in outline["tricks"]]
    for end in ends:
        before = len(spoken(page))
        page.keyboard.press("ArrowDown")
        wait_until(page, lambda end=end: position(page) == end, f"trick ending at {end}")
        step = step_at(page, end)
        assert wait_spoken_text(page, before) == said_for(step)
        assert any(text.endswith(" points.") or "trick" in text for text in step["text"])
    page.keyboard.press("End")
    wait_until(page, lambda: position(page) == info["total"] - 1, "the end")
    final = replay_state(page)
    final_text = said_for(final["steps"][str(info["total"] - 1)])
    assert "wins the match" in final_text and final_text.split(". ")[-1] in " ".join(heard)
    assert info["standings"] == history["standings"]


def test_a_shared_link_opens_a_public_replay_and_a_private_one_is_refused(page: Any, room: str) -> None:
    options = {"players": 2, "scoring": "points", "hand_limit": 1}
    secret, _, _ = account_game(room, "pia", "bura", options, 0, private=True)
    public, _, _ = account_game(room, "pam", "bura", options, 0)
    sign_in(page, room, "Eve")  # a guest: a public game's link opens for anyone
    start = len(spoken(page))
    page.goto(f"{room}/#replay={public}")
    wait_spoken(page, r"^Replay of pam's table, Bura\.", start)
    assert replay_state(page)["info"]["you"] is None
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.getElementById('screen-lobby').hidden")
    start = len(spoken(page))
    page.goto(f"{room}/#replay={secret}")
    wait_spoken(page, r"^There is no such table\.", start)
    page.wait_for_function("() => !document.getElementById('screen-lobby').hidden")
    assert page.evaluate("window.trickroom.state.replay") is None


def test_the_review_screen_names_the_thrown_away_trick_and_goes_to_it(page: Any, room: str) -> None:
    rosa, fred = Client(ws(room)), Client(ws(room))
    try:
        rosa.request(type="register", username="rosa", password="secret-pw")
        rosa.request(type="preferences", auto_pass=False)  # the logged opening answers every pause itself
        fred.login_guest("Fred")
        table = rosa.request(type="create", game="bura", options=BURA_OPTIONS, seed=1, decks=[bura_deck()])["table"]
        rosa.request(type="sit", table=table, seat=1)
        fred.request(type="sit", table=table, seat=0)
        rosa.request(type="start", table=table)
        players = {0: fred, 1: rosa}
        for seat, action in bura_at_the_beat().actions:
            players[seat].request(type="act", table=table, action=action)
        rosa.request(type="act", table=table, action=BURA_WRONG)
        for runner in [AutoPlayer(rosa, table, 1, 3, match_finished).start(),
                       AutoPlayer(fred, table, 0, 4, match_finished).start()]:
            runner.join()
    finally:
        rosa.leave()
        fred.leave()
    sign_in_account(page, room, "rosa", f"/#replay={table}")  # the link opens the replay once she is in
    start = wait_spoken(page, r"^Replay of rosa's table")
    page.keyboard.press("Shift+R")
    wait_spoken(page, r"^Reviewing hand 1; you will hear it when it is ready\.", start)
    dialog_open(page, "review-dialog")
    wait_spoken(page, r"^Review of hand 1: ", start)
    assert page.get_attribute("#review-list [role=option]", "aria-selected") == "true"
    assert_no_violations(page, "review dialog")
    # The worst mistakes first: the thrown-away trick, or a worse blunder of the random play after it.
    thrown_away = "Trick 3: you chose to play the seven of spades; better to play the ace of hearts, about "
    names = page.locator("#review-list [role=option]").all_inner_texts()
    at = next((i for i, name in enumerate(names) if name.startswith(thrown_away)), None)
    assert at is not None, names
    for index in range(at):
        page.keyboard.press("ArrowDown")
        assert page.get_attribute(f"#review-item-{index + 1}", "aria-selected") == "true"
    assert focused_name(page).startswith(thrown_away)
    before = len(spoken(page))
    page.keyboard.press("Enter")  # go to that decision in the replay
    assert wait_spoken_text(page, before).startswith("You play the seven of spades")  # (the trick's sentence)
    state = replay_state(page)
    assert state["steps"][str(state["position"])]["action"] == BURA_WRONG
    assert BURA_RIGHT != BURA_WRONG


def test_a_hint_at_a_table_with_hints_by_its_key(page: Any, room: str) -> None:
    sign_in(page, room, "Hugo")
    page.keyboard.press("n")
    dialog_open(page, "table-dialog")
    page.select_option("#opt-hints", "true")
    page.focus("#opt-name")
    page.keyboard.press("Enter")
    wait_spoken(page, r"^You sit in seat 1\.$")
    page.keyboard.press("b")
    wait_spoken(page, r"bot sits in seat 2")
    page.keyboard.press("g")
    wait_spoken(page, r"(Your turn|or pass)\.$")  # (the first turn names a combination held: a random deal)
    before = len(spoken(page))
    page.keyboard.press("Shift+H")
    hint = wait_spoken(page, r"^(The hard bot would |Announce |Lead |Play |Beat |Throw |Claim )", before)
    assert spoken(page)[hint].endswith(".")
