"""The one way a refusal leaves the server: an ``error`` message in the asker's language, answering the request's
id (``re``), counted by code in ``trickroom_errors_sent_total``. The connection (bad JSON, limits), the room
(logins, the lobby) and the tables all answer through :func:`error_message`."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from typing import Any, cast

from trickroom.narration import translate
from trickroom.server import metrics
from trickroom.server.messages import ErrorMessage
from trickroom.server.protocol import Message, ProtocolError

BUSY_RETRY_SECONDS = 2  # what a ``busy`` answer asks the client to wait before trying again


def busy() -> ProtocolError:
    """The database could not take the request now: ``busy``, with ``retry_after``; nothing changed."""
    err = ProtocolError("busy")
    err.extra["retry_after"] = BUSY_RETRY_SECONDS
    return err


class FailureLog:
    """Logs failed requests without feeding the failure: the first of a kind (what failed and the exception's
    type) in each ``interval`` seconds is logged (a busy database without a traceback, anything else with one),
    the others of that interval are counted and the count is logged with the next one."""

    def __init__(self, logger: logging.Logger, interval: float = 10.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.logger, self.interval, self.clock = logger, interval, clock
        self.seen: dict[tuple[str, str], tuple[float, int]] = {}  # kind -> (last logged, not logged since)

    def failed(self, what: str, exc: BaseException, is_busy: bool = False) -> None:
        key, now = (what, type(exc).__name__), self.clock()
        last, quiet = self.seen.get(key, (-math.inf, 0))
        if now - last < self.interval:
            self.seen[key] = (last, quiet + 1)
            return
        self.seen[key] = (now, 0)
        more = f" ({quiet} more like it in the last {now - last:.0f} s)" if quiet else ""
        if is_busy:
            self.logger.warning("%s: the database is busy, answered busy%s: %s", what, more, exc)
        else:
            self.logger.error("%s%s", what, more, exc_info=exc)


def error_message(err: ProtocolError, lang: str, re: Any = None, table: str | None = None) -> ErrorMessage:
    params = {name: value for name, value in err.params.items() if name != "_text"}
    text = err.params.get("_text") or translate(err.key, lang, **params)
    message = ErrorMessage(type="error", code=err.code, text=text)
    cast(Message, message).update(err.extra)  # retry_after, until
    if table is not None:
        message["table"] = table
    if re is not None:
        message["re"] = re
    metrics.ERRORS.labels(err.code).inc()
    return message
