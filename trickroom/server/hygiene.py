"""Text from people, checked and cleaned in one place before the room keeps it or says it to anyone else.

Two steps (docs/server.md, "Text hygiene"):

- At the door, :func:`invalid_text_at` finds a string that is not valid text anywhere in a decoded message: a
  lone surrogate, which JSON can spell (``"\\ud800"``) but UTF-8 cannot hold, so it could be neither stored nor
  sent to anyone. The whole message is refused (``error bad_text``) and nothing of it goes further.
- Then one function per kind of text that other people see: :func:`clean_chat` (lobby and table chat,
  private messages; :func:`clean_reason`, a reason given to the moderators or by them, is chat cut short),
  :func:`clean_name` (guest nicknames and account names, checked afterwards by ``accounts.valid_name``) and
  :func:`clean_table_name`. Each turns line breaks and tabs into a space (a chat
  line is one line: another client must never print a second line, a fake "Anna plays the ace of spades.",
  from one message), removes the other control characters (C0, DEL, C1: ESC, NUL, BEL...) and the
  bidirectional embedding, override and isolate characters (which can make a name or a line read in another
  order than it is written), normalises to NFC (the same name typed on two keyboards is the same string) and
  strips the ends. Ordinary spaces inside stay as they are, except in a name, where a run of spaces (no-break
  spaces too) becomes one.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

SURROGATE = re.compile("[\ud800-\udfff]")
REASON_LENGTH = 500  # a reason (a report's, a moderator's, the message of the day) as the store keeps it
# Line breaks (LF, CR, VT, FF, the file/group/record separators, NEL, the Unicode line and paragraph
# separators) and tabs: a run of them becomes one space.
_BREAKS = re.compile("[\t\n\v\f\r\x1c-\x1e\x85\u2028\u2029]+")
# Removed: the remaining C0 controls, DEL and C1; LRE RLE PDF LRO RLO and LRI RLI FSI PDI; lone surrogates.
# The bidi marks (LRM, RLM, ALM) stay: they change no order by themselves, and right-to-left writers use them.
_REMOVED = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def invalid_text_at(value: Any) -> str | None:
    """Where a decoded JSON value holds a lone surrogate (in a string or a key): the field's path, such as
    ``message`` or ``options.name`` (only the valid parts of it); None if all of its text is valid."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            if SURROGATE.search(item):
                return path or "message"
        elif isinstance(item, dict):
            for key, inner in item.items():
                if SURROGATE.search(key):
                    return path or "message"
                stack.append((f"{path}.{key}" if path else key, inner))
        elif isinstance(item, list):
            stack.extend((path, inner) for inner in item)
    return None


def _cleaned(text: str) -> str:
    # Removal first, then NFC: removing a character between a letter and its accent must not leave them apart.
    return unicodedata.normalize("NFC", _REMOVED.sub("", _BREAKS.sub(" ", text))).strip()


def clean_chat(text: str) -> str:
    """A chat line or a private message as others will see it: one line, no control or bidi characters, NFC.
    A line break inside becomes a space ("see you\\ntomorrow" -> "see you tomorrow")."""
    return _cleaned(text)


def clean_reason(reason: str | None) -> str | None:
    """A reason as the store keeps it: cleaned like chat, at most REASON_LENGTH characters, None when empty."""
    if reason is None:
        return None
    text = clean_chat(reason)[:REASON_LENGTH]
    return text or None


def clean_name(name: str) -> str:
    """A nickname or account name as typed, cleaned, and every run of spaces inside one ordinary space (two
    names that sound and look the same are the same name): then ``accounts.valid_name`` decides."""
    return " ".join(_cleaned(name).split())


def clean_table_name(name: str) -> str:
    """A table's name as the host typed it, cleaned ("" if nothing is left: the table keeps or gets its
    default name)."""
    return _cleaned(name)
