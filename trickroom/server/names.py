"""When two names look alike: the confusable skeleton of Unicode TR39 (UTS #39, section 4), with case folding.

"Аnna" with a Cyrillic А and "Anna" have the same skeleton, so the room lets only one of them in at a time. A name
has two keys, and two names clash when either key is the same:

- ``name_key``: the skeleton of the case-folded name (so "ANNA" and "anna" and "Аnna" clash);
- ``name_shape``: the skeleton of the name as typed (so "AIice", with a capital I, clashes with "Alice": a capital
  I and a small l are confusables, but case folding would first turn the I into an i).

One key cannot do both: that would make "i" and "l" the same letter and "mail" the same name as "mall".

The table of confusables is ``confusables.json`` beside this module, made from Unicode's ``confusables.txt`` by
``tools/make_confusables.py``; nothing is fetched at run time.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from functools import cache, lru_cache
from pathlib import Path

TABLE = Path(__file__).with_name("confusables.json")
KEY_LENGTH = 200  # the database column; a skeleton of a 24-character name is far shorter


@cache
def prototypes() -> dict[str, str]:
    """Each confusable character -> its prototype (one or more characters)."""
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    return {chr(int(source, 16)): "".join(chr(int(p, 16)) for p in target.split())
            for source, target in table["map"].items()}


def unicode_version() -> str:
    return str(json.loads(TABLE.read_text(encoding="utf-8"))["version"])


def skeleton(text: str) -> str:
    """TR39's skeleton: NFD, each character replaced by its prototype, NFD again."""
    table = prototypes()
    mapped = "".join(table.get(char, char) for char in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def name_key(name: str) -> str:
    """The case-insensitive key: case-fold and take the skeleton until nothing changes (a prototype may be a
    capital, as "O" for the digit 0)."""
    key = name
    for _ in range(4):
        folded = skeleton(key.casefold()).casefold()
        if folded == key:
            break
        key = folded
    return key[:KEY_LENGTH]


def name_shape(name: str) -> str:
    """The case-sensitive key: the plain skeleton."""
    return skeleton(name)[:KEY_LENGTH]


@lru_cache(maxsize=20_000)  # a login compares its name with everyone's online
def name_keys(name: str) -> tuple[str, str]:
    return name_key(name), name_shape(name)


def names_clash(one: str, other: str) -> bool:
    return any(a == b for a, b in zip(name_keys(one), name_keys(other), strict=True))


class NameIndex:
    """The keys of a set of names (the people online), so that a new name is checked against all of them in one
    look-up each (:func:`names_clash` against every name would cost a sign-in the whole room). A name may be held
    more than once (two nodes' copies of one person): each key counts its holders."""

    def __init__(self) -> None:
        self.keys: Counter[str] = Counter()
        self.shapes: Counter[str] = Counter()

    def add(self, name: str) -> None:
        key, shape = name_keys(name)
        self.keys[key] += 1
        self.shapes[shape] += 1

    def remove(self, name: str) -> None:
        key, shape = name_keys(name)
        for counts, value in ((self.keys, key), (self.shapes, shape)):
            counts[value] -= 1
            if counts[value] <= 0:
                del counts[value]

    def clashes(self, name: str) -> bool:
        """Whether ``name`` clashes (:func:`names_clash`) with a name held here."""
        key, shape = name_keys(name)
        return key in self.keys or shape in self.shapes
