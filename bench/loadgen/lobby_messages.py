"""How the load generator reads the room's lobby messages: loosely, so that it follows the protocol's versions and
shapes without decoding each one exactly. The per-change messages of protocol 1 (``table_listed``,
``table_unlisted``, ``presence``) and any batch that carries table entries (``lobby_batch`` or another ``lobby*``
type) are read alike."""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]
LOBBY_TYPES = frozenset({"lobby", "presence", "table_listed", "table_unlisted", "private", "invited"})


def is_lobby_type(kind: str) -> bool:
    return kind in LOBBY_TYPES or kind.startswith("lobby")


def lobby_changes(message: Any) -> tuple[list[Message], list[str]]:
    """Table entries listed and table ids unlisted anywhere in a lobby message, whatever its shape: a
    ``table_listed`` (``entry``), a ``table_unlisted`` (``id``), a full ``lobby`` (``tables``) or a batch of
    such changes (a list of them under any key, or ``removed``/``unlisted`` lists of ids)."""
    listed: list[Message] = []
    removed: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            if "seats" in node and "game" in node and isinstance(node.get("id"), str):
                listed.append(node)
                return
            kind = str(node.get("type") or node.get("kind") or "")
            if "unlisted" in kind or kind in ("removed", "remove", "closed"):
                ident = node.get("id", node.get("table"))
                if isinstance(ident, str):
                    removed.append(ident)
            for key, value in node.items():
                if key in ("removed", "unlisted") and isinstance(value, list):
                    removed.extend(item for item in value if isinstance(item, str))
                elif isinstance(value, list | dict):
                    walk(value)

    walk(message)
    return listed, removed
