"""Write trickroom/server/confusables.json, the compact table of Unicode's confusables (UTS #39), from a copy of
``confusables.txt``.

    python tools/make_confusables.py path/to/confusables.txt

Where to find the file: the Unicode site (Public/security/<version>/confusables.txt) or ICU's sources
(icu/source/data/unidata/confusables.txt). The table keeps, for each confusable code point, its prototype (one or
more code points), as hexadecimal: ``{"5AD": "596", "6D": "72 6E", ...}``. The room reads it at start; nothing is
fetched at run time. After a new table, stored name keys may change: add a migration that recomputes
``users.name_key`` and ``users.name_shape`` (see migration 0005).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "trickroom" / "server" / "confusables.json"
LINE = re.compile(r"^([0-9A-F]{4,6})\s*;\s*([0-9A-F ]+?)\s*;\s*MA\b")


def main(source: str) -> None:
    text = Path(source).read_text(encoding="utf-8-sig")
    version = re.search(r"^# Version: (\S+)", text, re.MULTILINE)
    date = re.search(r"^# Date: (.+)$", text, re.MULTILINE)
    mapping: dict[str, str] = {}
    for line in text.splitlines():
        found = LINE.match(line)
        if found:
            mapping[found.group(1).lstrip("0") or "0"] = " ".join(p.lstrip("0") or "0" for p in found.group(2).split())
    table = {"source": "Unicode confusables.txt (UTS #39), terms of use: https://www.unicode.org/terms_of_use.html",
             "version": version.group(1) if version else "?", "date": date.group(1).strip() if date else "?",
             "map": mapping}
    OUT.write_text(json.dumps(table, separators=(",", ":"), sort_keys=False) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(mapping)} confusables, Unicode {table['version']}")


if __name__ == "__main__":
    main(sys.argv[1])
