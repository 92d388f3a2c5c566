"""Online backups of the room's database, taken while the server runs (``trickroom admin backup FILE``).

SQLite: the SQLite backup API (``sqlite3.Connection.backup``) copies the database page by page into a new file,
consistent as of one moment even while the server writes (WAL mode: readers never wait for the writer, and the
copy restarts pages that change under it); the copy is checked with ``PRAGMA integrity_check``. PostgreSQL:
``pg_dump --format=custom`` (one consistent snapshot, without stopping anyone), restored with ``pg_restore``
(docs/server.md).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

from trickroom.server.db_urls import async_url


class BackupError(Exception):
    """The backup could not be made; the message says why (the target file is not left half written)."""


def sqlite_file(url: str) -> Path | None:
    """The file of a ``sqlite:///path`` URL (None for another database)."""
    plain = async_url(url)
    if not plain.startswith("sqlite+aiosqlite:///"):
        return None
    return Path(plain.removeprefix("sqlite+aiosqlite:///"))


def postgres_url(url: str) -> str | None:
    """The libpq URL of a PostgreSQL database URL (None for another database)."""
    plain = async_url(url)
    if not plain.startswith("postgresql+asyncpg://"):
        return None
    return "postgresql://" + plain.removeprefix("postgresql+asyncpg://")


def backup_sqlite(source: Path, target: Path) -> dict[str, int]:
    """Copy the live database ``source`` into the new file ``target``; how many accounts and tables it holds."""
    if not source.exists():
        raise BackupError(f"no database at {source}")
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    origin = sqlite3.connect(source, timeout=30)
    copy = sqlite3.connect(partial)
    try:
        origin.backup(copy, pages=1024)
        check = copy.execute("PRAGMA integrity_check").fetchone()
        if check is None or check[0] != "ok":
            raise BackupError(f"the copy failed its integrity check: {check}")
        counts = {"users": copy.execute("SELECT count(*) FROM users WHERE deleted_at IS NULL").fetchone()[0],
                  "tables": copy.execute("SELECT count(*) FROM tables").fetchone()[0]}
    except sqlite3.Error as exc:
        copy.close()
        partial.unlink(missing_ok=True)
        raise BackupError(str(exc)) from None
    finally:
        origin.close()
    copy.close()
    partial.rename(target)
    return counts


def backup_postgres(url: str, schema: str | None, target: Path) -> None:
    """``pg_dump`` the database (only ``schema`` when given) into ``target``, custom format."""
    pg_dump = shutil.which("pg_dump")
    if pg_dump is None:
        raise BackupError("pg_dump is not installed")
    partial = target.with_name(target.name + ".partial")
    command = [pg_dump, "--format=custom", "--no-owner", f"--file={partial}"]
    if schema:
        command.append(f"--schema={schema}")
    # A password goes to pg_dump in its environment, not on its command line (which every local user can read).
    parts = urlsplit(url)
    env = dict(os.environ)
    if parts.password is not None:
        env["PGPASSWORD"] = unquote(parts.password)
        host = parts.netloc.rsplit("@", 1)[1]
        url = urlunsplit(parts._replace(netloc=f"{parts.username or ''}@{host}"))
    done = subprocess.run([*command, url], capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        partial.unlink(missing_ok=True)
        raise BackupError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "pg_dump failed")
    partial.rename(target)
