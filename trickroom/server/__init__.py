"""The room server: lobby, tables, bots, chat, accounts and persistence (``trickroom serve``).

Modules, bottom up: ``settings`` (configuration), ``protocol`` (the message schema, see docs/protocol.md),
``store`` (database models and queries; ``migrations/`` holds the Alembic scripts), ``bus`` (publish/subscribe
between connections and table owners), ``accounts`` (passwords, sessions), ``texts`` (room sentences),
``table`` (one table: seats, its match, bots and timers), ``room`` (the node: owned tables, lobby,
connections), ``app`` (Starlette routes), ``main`` (the command).
"""
