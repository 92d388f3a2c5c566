"""Alembic migrations for the room's database, applied programmatically at start (see store.Store.migrate)."""
