"""Shared test helpers.

Tests that need an outside service (PostgreSQL, Redis, chromium) call :func:`need_service`: without the
service they are skipped with a reason, except under ``TRICKROOM_REQUIRE_SERVICES=1`` (CI), where they fail.
"""

from __future__ import annotations

import os

import pytest

REQUIRE_SERVICES = os.environ.get("TRICKROOM_REQUIRE_SERVICES") == "1"


def need_service(available: bool, reason: str) -> None:
    if available:
        return
    if REQUIRE_SERVICES:
        pytest.fail(f"{reason} (TRICKROOM_REQUIRE_SERVICES=1 makes this mandatory)")
    pytest.skip(reason)
