"""The HTTP side of the front door: which Host names are served, the page's security headers, who may read
``/metrics``, and a deadline for a request's headers (docs/security.md).

- **Host**: a request (page or websocket) whose Host header is not an IP address, ``localhost``, this node's
  ``host``, the host of ``public_url`` or one of ``allowed_hosts`` is refused: 400 for a page, 403 for a websocket.
  A DNS-rebinding page always names the attacker's own domain, so IP addresses are safe to accept.
- **Headers** on every response: a Content-Security-Policy that allows only this origin's scripts, styles and
  websockets (and the room's other nodes), no framing (``frame-ancestors 'none'``, X-Frame-Options), no MIME
  sniffing, no Referer.
- **/metrics** answers only clients from ``metrics_allow`` (networks) or with ``Authorization: Bearer
  <metrics_token>``.
- **Headers deadline**: uvicorn keeps a connection open for as long as a client takes to send its headers; the
  protocol class made by :func:`http_protocol` closes it after ``header_timeout`` seconds.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from trickroom.narration import LANGUAGES, translate
from trickroom.server.settings import Settings

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def host_name(host_header: str) -> str:
    """``example.org:8000`` -> ``example.org``; ``[::1]:8000`` -> ``::1``."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def allowed_host_names(settings: Settings) -> set[str]:
    names = {"localhost", settings.host.lower(), *(h.lower() for h in settings.allowed_hosts)}
    if settings.public_url:
        names.add((urlsplit(settings.public_url).hostname or "").lower())
    return names


def host_allowed(host_header: str | None, allowed: set[str]) -> bool:
    if "*" in allowed:
        return True
    if not host_header:
        return False
    name = host_name(host_header)
    return is_ip(name) or name in allowed


def scope_host_allowed(headers: dict[bytes, bytes], allowed: set[str]) -> bool:
    """Whether a request's Host header (from its ASGI scope's headers) names this room."""
    return host_allowed(headers.get(b"host", b"").decode("latin-1"), allowed)


def request_language(headers: dict[bytes, bytes]) -> str:
    """The first language of Accept-Language that the room speaks (else English), for a page's plain answer."""
    for part in headers.get(b"accept-language", b"").decode("latin-1").split(","):
        tag = part.split(";")[0].strip().lower()[:2]
        if tag in LANGUAGES:
            return tag
    return "en"


def security_headers(csp_sources: Callable[[], list[str]]) -> list[tuple[bytes, bytes]]:
    connect = " ".join(["'self'", *csp_sources()])
    policy = (f"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
              f"connect-src {connect}; object-src 'none'; base-uri 'none'; form-action 'self'; "
              f"frame-ancestors 'none'")
    return [(b"content-security-policy", policy.encode()), (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"), (b"x-frame-options", b"DENY")]


class FrontGuard:
    """ASGI middleware: the Host check for pages and websockets, and the security headers on every response."""

    def __init__(self, app: ASGIApp, settings: Settings, node_urls: Callable[[], list[str]]) -> None:
        self.app = app
        self.allowed = allowed_host_names(settings)
        self.node_urls = node_urls

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        if not scope_host_allowed(headers, self.allowed):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})  # before accept: HTTP 403
                return
            body = (translate("http.unknown_host", request_language(headers)) + "\n").encode()
            await send({"type": "http.response.start", "status": 400,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *security_headers(self.node_urls)]
            await send(message)

        await self.app(scope, receive, with_headers)


def metrics_allowed(settings: Settings, client: str | None, authorization: str | None) -> bool:
    if settings.metrics_token and authorization:
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode(), settings.metrics_token.encode()):
            return True
    if client is None:
        return False
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return False
    for network in settings.metrics_allow:
        try:
            if address in ipaddress.ip_network(network, strict=False):
                return True
        except ValueError:
            continue
    return False


def http_protocol(header_timeout: float) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol class (httptools or h11), with a deadline for each request's headers: armed when
    the connection opens and after each response, disarmed when the headers are in (or the connection turns into
    a websocket). A client that has sent no complete request by then is disconnected."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    class HeadersDeadlineProtocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
        deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def handle_websocket_upgrade(self, *args: Any) -> None:
            self._disarm()
            super().handle_websocket_upgrade(*args)
            # The websocket protocol has the socket now. httptools' parser holds this protocol's methods, and this
            # protocol the parser: a cycle only the collector could free, about 20 objects per sign-in.
            if hasattr(self, "parser"):
                self.parser = None

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self.deadline = self.loop.call_later(header_timeout, self._too_late)

        def _disarm(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None

        def _too_late(self) -> None:
            self.deadline = None
            cycle = getattr(self, "cycle", None)
            waiting_for_headers = cycle is None or cycle.response_complete
            if waiting_for_headers and not self.transport.is_closing():
                self.transport.close()

    return HeadersDeadlineProtocol
