"""Loading a script of bench/ in a test: what the script patches at import is put back after the test."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from trickroom.bots import arena

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load_bench(script: str, monkeypatch: pytest.MonkeyPatch, *patched: tuple[object, str]) -> ModuleType:
    """``bench/<script>``, imported under another name than ``__main__`` (so it does not run). Each (owner,
    attribute) in ``patched``, and the arena's outside seats (a bench adds its own), are restored by
    ``monkeypatch`` after the test."""
    for owner, attribute in patched:
        monkeypatch.setattr(owner, attribute, getattr(owner, attribute))
    monkeypatch.setattr(arena, "OUTSIDE_SEATS", dict(arena.OUTSIDE_SEATS))
    spec = importlib.util.spec_from_file_location(f"bench_{Path(script).stem}", BENCH / script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
