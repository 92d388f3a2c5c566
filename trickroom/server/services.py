"""What a table needs from the node that owns it (implemented by :class:`trickroom.server.room.Room`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from trickroom.server.bots import BotRunner
from trickroom.server.bus import Bus
from trickroom.server.settings import Settings
from trickroom.server.store import Store

if TYPE_CHECKING:
    from trickroom.server.table import Table


class Services(Protocol):
    settings: Settings
    store: Store
    bus: Bus
    bots: BotRunner

    def replacement_level(self) -> str:
        """The bot level that plays for dropped players and on timeouts."""
        ...

    def bot_level_available(self, level: str) -> bool: ...

    async def publish_listing(self, table: Table) -> None: ...

    async def close_table(self, table: Table) -> None: ...

    async def record_results(self, table: Table) -> None: ...
