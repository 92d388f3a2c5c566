"""Helpers for the browser tests: a real room in a subprocess, Debian's chromium under Playwright, and a recorder of
everything the page says in its live regions, in order.

The tests drive the page with the keyboard only. To decide what to press they read the page as a player would
(the focused control's name, the spoken sentences) and the client's state object (what a sighted player sees).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

CHROMIUM = "/usr/bin/chromium"
BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "artifacts"
AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
WAIT_MS = 20_000

# Installed before the page's own scripts: a MutationObserver on both live regions that keeps every added
# sentence, with the region it went to, in window.__spoken.
RECORDER = """
window.__spoken = [];
document.addEventListener('DOMContentLoaded', () => {
  // One observer for both regions: its records come in the order the nodes were added, across the regions (an
  // observer per region heard every polite node of a batch before the assertive one said first).
  const observer = new MutationObserver((records) => {
    for (const record of records) for (const node of record.addedNodes) {
      window.__spoken.push({region: record.target.id, text: node.textContent});
    }
  });
  for (const id of ['live-polite', 'live-assertive']) {
    observer.observe(document.getElementById(id), {childList: true});
  }
});
"""

# The focused element's accessible name, close enough for the controls of this page.
FOCUSED_NAME = """() => {
  const el = document.activeElement;
  if (!el) return '';
  if (el.getAttribute('aria-label')) return el.getAttribute('aria-label');
  if (el.labels && el.labels.length) return el.labels[0].textContent.trim();
  const copy = el.cloneNode(true);
  for (const hidden of copy.querySelectorAll('[aria-hidden=true]')) hidden.remove();
  return (copy.textContent || '').trim();
}"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def room_process(db_path: Path, **settings: str) -> Iterator[str]:
    """`trickroom serve` on a free port with a fresh SQLite file (``settings``: more ``TRICKROOM_*`` variables);
    yields its http base URL."""
    port = free_port()
    # A 3-second timer minimum lets a test hear a turn's warning and its timeout in a few seconds.
    env = {**os.environ, "TRICKROOM_REPLACEMENT_BOT": "random", "TRICKROOM_LOG_LEVEL": "warning",
           "TRICKROOM_TIMER_MINIMUM": "3", **settings}
    log = open(db_path.with_suffix(".log"), "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([sys.executable, "-m", "trickroom", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--db", f"sqlite:///{db_path}"], cwd=ROOT, env=env, stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60  # (a cold start of the room can take tens of seconds on a busy machine)
        while True:
            try:
                with urllib.request.urlopen(f"{base}/health", timeout=1) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the room did not start: {db_path.with_suffix('.log').read_text()[-2000:]}")
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def spoken(page: Page) -> list[str]:
    texts: list[str] = page.evaluate("window.__spoken.map(s => s.text)")
    return texts


def spoken_with_regions(page: Page) -> list[dict[str, str]]:
    items: list[dict[str, str]] = page.evaluate("window.__spoken")
    return items


def sentences(text: str) -> list[str]:
    """A live-region node's sentences: an urgent sentence is said with the polite ones just before it, in one
    node ("Bot 2 plays the seven of spades. Your turn.")."""
    return re.split(r"(?<=[.!?»])\s+(?=\S)", text)


def spans(text: str) -> list[str]:
    """Every run of whole sentences of a node, so that ``^`` and ``$`` match at the sentences' edges."""
    parts = sentences(text)
    return [" ".join(parts[i:j]) for i in range(len(parts)) for j in range(i + 1, len(parts) + 1)]


def wait_spoken(page: Page, pattern: str, after: int = 0, timeout: int = WAIT_MS) -> int:
    """Wait until a sentence matching ``pattern`` (a regex) is spoken at index >= after; return its index."""
    regex = re.compile(pattern)
    deadline = time.monotonic() + timeout / 1000
    while True:
        texts = spoken(page)
        for index in range(after, len(texts)):
            if regex.search(texts[index]) or any(regex.search(span) for span in spans(texts[index])):
                return index
        if time.monotonic() > deadline:
            raise AssertionError(f"never spoken: {pattern!r}; last said: {texts[-15:]}")
        page.wait_for_timeout(50)


def focused_name(page: Page) -> str:
    name: str = page.evaluate(FOCUSED_NAME)
    return name


def tab_to(page: Page, pattern: str, limit: int = 40, key: str = "Tab") -> str:
    """Press Tab until the focused control's name matches ``pattern``; return the name."""
    regex = re.compile(pattern)
    for _ in range(limit):
        page.keyboard.press(key)
        name = focused_name(page)
        if regex.search(name):
            return name
    raise AssertionError(f"no control named {pattern!r} within {limit} presses of {key}")


def table_state(page: Page) -> dict[str, Any] | None:
    table: dict[str, Any] | None = page.evaluate("window.trickroom.state.table")
    return table


def wait_until(page: Page, predicate: Callable[[], bool], what: str | Callable[[], str],
               timeout: int = WAIT_MS) -> None:
    """Poll ``predicate``; ``what`` names it in the failure (a callable: read at the failure, to say what was seen)."""
    deadline = time.monotonic() + timeout / 1000
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what() if callable(what) else what}")
        page.wait_for_timeout(30)


def my_turn(table: dict[str, Any] | None) -> bool:
    """The player must act now (Bura's claim alone is always legal and does not make a turn)."""
    if not table or table["info"]["status"] != "playing":
        return False
    seat = table["you"]["seat"]
    return seat in (table.get("to_act") or []) and any(a != "claim" for a in table.get("legal") or [])


def hand_cards_of(page: Page) -> list[str]:
    """The card codes of the hand listbox, in the order the arrow keys go through them."""
    cards: list[str] = page.evaluate("[...document.querySelectorAll('#hand-list [role=option]')]"
                                     ".map(o => o.dataset.card)")
    return cards


def csp_listener(errors: list[str]) -> Callable[[Any], None]:
    """A console listener that files every Content-Security-Policy violation the page reports among ``errors``:
    the page's own scripts, styles and sockets must all pass its CSP."""

    def on_console(message: Any) -> None:
        if "Content Security Policy" in message.text:
            errors.append(message.text)

    return on_console


def run_axe(page: Page) -> list[dict[str, Any]]:
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        # Evaluated through the DevTools protocol: an inline <script> tag would be refused by the page's CSP.
        page.evaluate(AXE.read_text(encoding="utf-8"))
    violations: list[dict[str, Any]] = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(' '))}))")
    return violations


def screenshot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def sign_in(page: Page, base: str, nickname: str) -> None:
    page.goto(base + "/")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'guest-nickname'")
    page.keyboard.type(nickname)
    page.keyboard.press("Enter")
    wait_spoken(page, nickname)
    page.wait_for_function("() => !document.getElementById('screen-lobby').hidden")


# Installed before the page's scripts in the browser-voice test: a speechSynthesis that records what it is asked
# to say (and each cancel) in window.__voice, in order, instead of speaking.
FAKE_VOICE = """
window.__voice = [];
class FakeUtterance { constructor(text) { this.text = text; this.lang = ''; } }
Object.defineProperty(window, 'SpeechSynthesisUtterance', {value: FakeUtterance, configurable: true, writable: true});
Object.defineProperty(window, 'speechSynthesis', {configurable: true, value: {
  speaking: false, pending: false, paused: false,
  speak(u) { window.__voice.push({text: u.text, lang: u.lang}); },
  cancel() { window.__voice.push({text: '<cancel>', lang: ''}); },
  getVoices() { return []; }, pause() {}, resume() {},
}});
"""


def voiced(page: Page) -> list[dict[str, str]]:
    items: list[dict[str, str]] = page.evaluate("window.__voice")
    return items


# Wraps the page's sound player so a test can see which sounds were asked for (Web Audio plays nothing headless).
SOUND_SPY = """() => {
  const sounds = window.trickroom.sounds;
  sounds.played = [];
  const play = sounds.play.bind(sounds);
  sounds.play = (name) => { sounds.played.push(name); play(name); };
}"""


def dialog_open(page: Page, dialog_id: str) -> None:
    page.wait_for_function(f"() => document.getElementById('{dialog_id}').open")


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's chromium under Playwright, headless (a module's browser fixture)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        yield browser
        browser.close()


@contextmanager
def recorded_page(browser: Any, **context: Any) -> Iterator[Page]:
    """A page in a new context (``context``: its options) that records what it says (RECORDER), and fails the test
    on a JavaScript error or a Content-Security-Policy violation."""
    made = browser.new_context(**context)
    page = made.new_page()
    page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", csp_listener(errors))
    page.add_init_script(RECORDER)
    yield page
    made.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"
