"""Saying the table: a journal entry as one listener may see it, in their language.

Pure functions of plain data (an :class:`~trickroom.server.table_parts.Entry`, a
:class:`~trickroom.server.table_parts.Scene` and who listens). The shell uses :func:`deliveries` for each
``Announce`` effect: an entry reads the same to every listener with the same seat (game events only) and
language, so it is said once for each such group, not once per listener (a table with many spectators would
narrate it again and again).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trickroom.games import Game, events_for
from trickroom.narration import (
    LANGUAGES,
    catalog,
    describe,
    narrate,
    narrate_step,
    said_in,
    seat_names,
    title,
    titles,
    translate,
    urgency,
)
from trickroom.server.messages import ChatMessage, Event, TableEvent
from trickroom.server.protocol import Message
from trickroom.server.table_parts import Announce, Effect, Entry, Listener, Scene

log = logging.getLogger("trickroom.table")


def info_in(facts: Message, game: Game, lang: str) -> Message:
    """The table's info (``facts``: its language-neutral part) with the texts of ``lang``."""
    return {**facts, "title": title(game.name, lang), "options_text": describe(game, lang)}


def listing_in(entry: Message, game: Game, visible_to: list[str] | None, people: list[str]) -> Message:
    """A table's lobby listing: its entry (language-neutral), the game's titles and option texts in every
    language, who may see it (a private table: None for everyone) and ``people``, who sits or watches there (not
    shown to clients: for welcome.tables and presence on any node)."""
    return {"entry": entry, "titles": titles(game.name),
            "texts": {lang: describe(game, lang) for lang in LANGUAGES}, "visible_to": visible_to, "people": people}


Said = Event | ChatMessage | TableEvent  # what a journal entry becomes
# Table events not said to the person they are about: their client says "Connection lost." and "Reconnected."
UNSAID_TO_THEM = frozenset({"disconnected", "reconnected"})
# ... nor, among what they missed, these: a spectator who drops leaves the table and watches again on their return
# ("You leave the table.", "You are watching."); back at the table, neither is news, and the first is no longer true.
UNSAID_WHEN_MISSED = frozenset({"left", "joined"})


def render(entry: Entry, listener: Listener, scene: Scene, missed: bool = False,
           said_as: str | None = None) -> Said | None:
    """The journal entry as ``listener`` may see it, or None if it is not for them; ``missed``: sent to them on
    their return after a drop; ``said_as``: a game event's text, already said with the rest of its step
    (:func:`merged_texts`)."""
    lang = listener.lang
    if entry.kind == "event":
        visible = events_for([entry.data], listener.seat)
        if not visible:
            return None
        text = said_as
        if text is None:
            try:
                text = narrate(scene.game.name, visible[0], listener.seat, lang, seat_names(scene.names, lang)) or ""
            except Exception:  # a missing or broken sentence must never stop the game
                log.exception("narration failed for %s", visible[0].get("type"))
                text = ""
        return {"type": "event", "table": scene.table, "seq": entry.seq, "event": visible[0], "text": text,
                "urgency": urgency(scene.game.name, visible[0], listener.seat)}
    if entry.kind == "chat":
        sender = entry.data["from"]
        return {"type": "chat", "table": scene.table, "seq": entry.seq, "from": sender,
                "message": entry.data["message"], "urgency": "polite",
                "text": translate("chat.table", lang, name=sender["name"], message=entry.data["message"])}
    return _table_event(entry, lang, scene, about_you(entry, listener), missed)


def about_you(entry: Entry, listener: Listener) -> bool:
    """Whether ``entry`` is a table event about ``listener`` themselves ("You sit in seat 1.")."""
    user = entry.data.get("user") if entry.kind == "table_event" else None
    return isinstance(user, dict) and user.get("id") == listener.user


def _table_event(entry: Entry, lang: str, scene: Scene, you: bool, missed: bool = False) -> TableEvent:
    data = entry.data
    params: dict[str, Any] = said_in(data.get("params", {}), lang)
    params.setdefault("table", scene.name)
    key = f"table.{data['kind']}"
    if you and f"{key}.you" in catalog(lang, "room"):  # the person's own doing, said to them: "you"
        key = f"{key}.you"
    if "level" in params:  # a sentence per level where there is one ("An easy bot..."), else the level named
        level = str(params["level"])
        if f"bot.level.{level}" in catalog("en", "room"):
            params["level"] = translate(f"bot.level.{level}", lang)
        if f"{key}.{level}" in catalog(lang, "room"):
            key = f"{key}.{level}"
    unsaid = data["kind"] in UNSAID_TO_THEM or (missed and data["kind"] in UNSAID_WHEN_MISSED)
    text = "" if you and unsaid else translate(key, lang, **params)
    message: TableEvent = {"type": "table_event", "table": scene.table, "seq": entry.seq, "kind": data["kind"],
                           "urgency": "polite", "info": info_in(scene.info or {}, scene.game, lang),
                           "text": text}
    if "user" in data:
        message["user"] = data["user"]
    if "seat" in data:
        message["seat"] = data["seat"]
    if "standings" in data:
        message["standings"] = data["standings"]
    return message


# A step's game events said together: by the index of each Announce in the step's effects, its text for each
# (seat, language) whose sentence changes
MergedTexts = dict[int, dict[tuple[int | None, str], str]]


def merged_texts(effects: Sequence[Effect]) -> MergedTexts:
    """The texts that change when a step's game events are said together (narrate_step: "You take the trick with
    the eight of clubs and draw the king of diamonds."), by the index of the Announce in ``effects``, then by the
    listener's (seat, language); an event said inside another's sentence gets the empty text. Events sent again
    (``missed``) are said alone."""
    announces = [(i, e) for i, e in enumerate(effects)
                 if isinstance(e, Announce) and e.entry.kind == "event" and not e.missed]
    if len(announces) < 2:
        return {}
    scene = announces[0][1].scene
    groups = dict.fromkeys((listener.seat, listener.lang) for listener in announces[0][1].to)
    changed: MergedTexts = {}
    for seat, lang in groups:
        seen = [(i, visible[0]) for i, e in announces if (visible := events_for([e.entry.data], seat))]
        try:
            texts = narrate_step(scene.game.name, [event for _, event in seen], seat, lang,
                                 seat_names(scene.names, lang))
        except Exception:  # a missing or broken sentence must never stop the game: each is said alone
            log.exception("merged narration failed")
            continue
        if texts is None:
            continue
        for (index, _), text in zip(seen, texts, strict=True):
            changed.setdefault(index, {})[seat, lang] = text or ""
    return changed


def deliveries(announce: Announce, said_with_step: Mapping[tuple[int | None, str], str] | None = None,
               ) -> Iterator[tuple[str, Said]]:
    """(user id, message) for each listener of ``announce`` who may see its entry; ``said_with_step``: its texts
    said with the rest of its step, by (seat, language) (:func:`merged_texts`), used instead of its own."""
    said: dict[tuple[int | bool | None, str], Said | None] = {}
    by_seat = announce.entry.kind == "event"
    for listener in announce.to:
        # A game event reads the same to each seat; a table event to everyone but the person it is about.
        key = (listener.seat if by_seat else about_you(announce.entry, listener), listener.lang)
        if key not in said:
            text = said_with_step.get((listener.seat, listener.lang)) if said_with_step and by_seat else None
            message = render(announce.entry, listener, announce.scene, announce.missed, text)
            if message is not None and announce.missed:
                message["missed"] = True
            said[key] = message
        found = said[key]
        if found is not None:
            yield listener.user, found
