"""The room server: lobby, tables, bots, chat, accounts and persistence (``trickroom serve``).

Modules, bottom up: ``settings`` (configuration), ``protocol`` (the message schema, see docs/protocol.md),
``errors`` (every refusal's message, counted), ``store`` (database models and queries; ``migrations/`` holds the
Alembic scripts), ``bus`` (publish/subscribe between connections and table owners), ``accounts`` (passwords,
sessions), the table as a pure state machine (``table_parts``: its vocabulary; ``table_state``: ``TableState``;
``table_requests``: the requests it answers; ``table_restore``: rebuilt from the log; ``table_render``: entries
said per listener) and its shell ``table`` (the lock, the effects, the tasks), ``room`` (the node: owned tables,
lobby, connections), ``app`` (Starlette routes), ``main`` (the command).
"""
