"""The web client's words: one JSON bundle per language, built from the same catalogs the room speaks with.

The page loads ``/i18n/<lang>.json`` (served by the app, revalidated by its ETag) before it draws anything:

    {"lang": "el", "plural": {"forms": 2, "expr": "(n != 1)"}, "languages": [["en", "English"], ...],
     "messages": {"web": {"menu": "Μενού", "table.cards_count": ["{n} φύλλο", "{n} φύλλα"], ...},
                  "cards": {...}, "room": {...}, "bura": {...}, "mpourloto": {...}}}

A plural message is the list of its forms; ``plural.expr`` is the catalog's own ``Plural-Forms`` rule, which the
client evaluates for a number to pick the form, as ``ngettext`` does. A key the language lacks is sent in English.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import Any

from trickroom.narration import LANGUAGES, parsed, translate

WEB_DOMAINS = ("web", "cards", "room", "bura", "mpourloto")


def _messages(lang: str, domain: str) -> dict[str, str | list[str]]:
    found: dict[str, str | list[str]] = {}
    for tongue in ("en", lang):  # English first, so that the language's own messages replace it
        for message in parsed(tongue, domain) or ():
            if not message.id:
                continue
            if isinstance(message.id, tuple) and isinstance(message.string, tuple):
                found[str(message.id[0])] = [str(form) for form in message.string]
            elif message.string:
                found[str(message.id)] = str(message.string)
    return found


def bundle(lang: str) -> dict[str, Any]:
    """The words of the web client in ``lang`` (one of LANGUAGES)."""
    web = parsed(lang, "web")
    assert web is not None, f"no web catalog for {lang}"
    return {
        "lang": lang,
        "plural": {"forms": web.num_plurals, "expr": web.plural_expr},
        "languages": [[code, translate("language.self", code, "web")] for code in LANGUAGES],
        "messages": {domain: _messages(lang, domain) for domain in WEB_DOMAINS},
    }


@cache
def bundle_json(lang: str) -> tuple[bytes, str]:
    """The bundle as the response body, and its ETag (a hash of the body: it changes when a catalog does)."""
    body = json.dumps(bundle(lang), ensure_ascii=False, separators=(",", ":")).encode()
    return body, '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
