"""Speech economy, measured (issue 21, /work/shared/accessibility.md): whole hands through the real server, and
what one person hears per trick at full verbosity.

The person sits at seat 0 against random bots and plays a random legal move (never a claim) whenever it is their
turn, so the only sentences are the room's own. A message counts if it carries a text the web client would say
(events, ``your_turn``, timers; not the table's own news, nor the hand's and match's end, a summary counted
apart); its sentences are counted by their full stops. A message belongs
to the trick the person's last ``update`` showed, so a trick's end (the last play, who takes it, the draws) counts
for that trick and the pause or lead that follows for the next. "Keys" are the person's own answers in Bura's
announcement pause (pass or announce), pressed before the trick's lead.

``cd tests && python test_hearing.py`` prints the figures (docs/web.md quotes them).
"""

from __future__ import annotations

import random
import re
import shutil
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from server_helpers import TIMEOUT, Client, ThreadServer, choose

from trickroom.games import load_game

SPOKEN = ("event", "your_turn", "timer")
SENTENCE_END = re.compile(r"[.!?…](?:\s|$)")  # a clause after ";" is part of its sentence


@dataclass
class Hearing:
    """What the person heard, per trick number."""

    sentences: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    messages: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    keys: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    texts: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    quiet_tricks: set[int] = field(default_factory=set)  # Bura: tricks whose pause found no combination anywhere


def _summary(message: dict[str, Any]) -> bool:
    """A hand's or match's end: its summary is counted apart from the tricks."""
    return message["type"] == "table_event" or message.get("event", {}).get("type") in ("hand_end", "match_end")


def sentences(text: str) -> int:
    return max(1, len(SENTENCE_END.findall(text.strip() + " ")))


def play_and_listen(game: str, options: dict[str, Any], seed: int, lang: str = "en") -> Hearing:
    """One person against random bots for one whole match on a fresh room; what they heard, per trick."""
    folder = tempfile.mkdtemp(prefix="hearing")
    room = ThreadServer(db=f"sqlite:///{folder}/room.sqlite3", bot_workers=0, allow_test_decks=True).start()
    heard = Hearing()
    try:
        client = Client(room.url)
        client.login_guest("Listener", lang=lang, auto_pass=None)  # the room's defaults
        table = client.request(type="create", game=game, options=options, seed=seed)["table"]
        client.request(type="sit", table=table, seat=0)
        for other in range(1, load_game(game, **options).players):
            client.request(type="bot_add", table=table, level="random", seat=other)
        client.request(type="start", table=table)
        rng = random.Random(seed)
        trick, acted, latest = 0, -1, None
        while True:
            message = client.next(TIMEOUT)
            kind = message["type"]
            if kind == "error":  # refused (the state moved on meanwhile): act again on the latest state
                acted = -1
                message = latest or message
                kind = message["type"]
            elif message.get("table") != table:
                continue
            if kind == "table_event" and message.get("kind") == "finished":
                break
            if kind in SPOKEN and message.get("text") and not _summary(message):
                heard.sentences[trick] += sentences(message["text"])
                heard.messages[trick] += 1
                heard.texts[trick].append(message["text"])
            if kind == "update" and message.get("view"):
                latest, view = message, message["view"]
                phase = view.get("phase")
                if "trick_number" in view:
                    trick = view["trick_number"]
                else:  # Mpourloto: the trick being played (0 while trumps and melds are chosen)
                    trick = sum(view.get("tricks_won") or []) + 1 if phase == "play" else 0
                if 0 in message["to_act"] and message["legal"] and message["move"] != acted:
                    acted = message["move"]
                    action = choose(message["legal"], rng)
                    if game == "bura" and phase == "announce":
                        if heard.keys[trick]:
                            continue  # answered already (this update was sent before the answer arrived)
                        action = "pass"
                        heard.keys[trick] += 1
                    client.send(type="act", table=table, action=action)
        if game == "bura":
            heard.quiet_tricks = _quiet_bura_tricks(room, table, options)
        client.leave()
    finally:
        room.stop()
        shutil.rmtree(folder, ignore_errors=True)
    return heard


def _quiet_bura_tricks(room: ThreadServer, table: str, options: dict[str, Any]) -> set[int]:
    """The trick numbers (of the match's only hand) whose announcement pause found no combination in any hand:
    the finished match's actions replayed on the same seed."""
    state = room.app.state.room.tables[table].state
    match = load_game("bura", **options).new_match(seed=state.seed)
    quiet: set[int] = set()
    for seat, action in state.match.actions:
        if match.phase == "announce" and match.pending and not any(match.combos.values()):
            quiet.add(match.trick_number)
        match.apply(seat, action)
    return quiet


def bura_figures(seed: int = 7) -> tuple[list[int], list[int], list[int], Hearing]:
    """Per quiet trick of a one-hand 2-player Bura match: sentences, messages and keys."""
    heard = play_and_listen("bura", {"players": 2, "hand_limit": 1}, seed)
    tricks = sorted(t for t in heard.quiet_tricks if t in heard.sentences)
    return ([heard.sentences[t] for t in tricks], [heard.messages[t] for t in tricks],
            [heard.keys[t] for t in tricks], heard)


def mpourloto_figures(seed: int = 7) -> tuple[list[int], list[int], Hearing]:
    """Per trick of the first Mpourloto hand played out (tricks 1-8): sentences and messages."""
    heard = play_and_listen("mpourloto", {"target": 100}, seed)
    tricks = [t for t in sorted(heard.sentences) if 1 <= t <= 8]
    return [heard.sentences[t] for t in tricks], [heard.messages[t] for t in tricks], heard


def test_a_quiet_bura_trick_costs_at_most_four_sentences_and_no_key() -> None:
    counted, _, keys, heard = bura_figures()
    assert counted, f"no trick without a combination: {heard.quiet_tricks}"
    assert max(counted) <= 4, dict(heard.texts)
    assert sum(keys) == 0, dict(heard.keys)


def test_a_mpourloto_trick_costs_at_most_six_sentences() -> None:
    counted, _, heard = mpourloto_figures()
    assert len(counted) >= 4, dict(heard.texts)
    assert max(counted) <= 6, dict(heard.texts)


if __name__ == "__main__":
    bura, bura_messages, bura_keys, bura_heard = bura_figures()
    print(f"Bura, 2 players, quiet tricks {sorted(bura_heard.quiet_tricks)}: sentences {bura}, messages "
          f"{bura_messages}, keys before the lead {bura_keys}; max {max(bura)} sentences, mean "
          f"{sum(bura) / len(bura):.1f}")
    mp, mp_messages, mp_heard = mpourloto_figures()
    print(f"Mpourloto, tricks 1-8: sentences {mp}, messages {mp_messages}; max {max(mp)}, mean "
          f"{sum(mp) / len(mp):.1f}")
    if "-v" in sys.argv:
        for name, heard in (("bura", bura_heard), ("mpourloto", mp_heard)):
            for trick in sorted(heard.texts):
                print(name, trick, heard.texts[trick])
