"""What a table needs from the node that owns it (implemented by :class:`trickroom.server.room.Room`)."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from trickroom.server.bots import BotRunner
from trickroom.server.bus import Bus
from trickroom.server.limits import GuessLimiter
from trickroom.server.settings import Settings
from trickroom.server.store import Store
from trickroom.server.table_parts import TableConfig

if TYPE_CHECKING:
    from trickroom.server.table import Table
    from trickroom.server.table_state import TableState


class Services(Protocol):
    settings: Settings
    store: Store
    bus: Bus
    bots: BotRunner
    password_guesses: GuessLimiter  # wrong table passwords, per person and address at each table

    @property
    def table_config(self) -> TableConfig:
        """What every table of this node is told: limits, grace period, bot levels."""
        ...

    async def publish_listing(self, table: Table) -> None: ...

    def people_changed(self, table: Table) -> None:
        """The people seated or watching at ``table`` may have changed (after each step)."""
        ...

    async def close_table(self, table: Table) -> None: ...

    async def record_results(self, table: TableState) -> None: ...

    async def give_up(self, table: Table) -> None:
        """Another node took ``table`` over (its append was fenced off): stop owning it here."""
        ...

    async def forward(self, intent: dict[str, Any]) -> None:
        """Pass an intent on to the table's current owner (this node no longer owns the table)."""
        ...

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` in the background (kept referenced until done)."""
        ...
