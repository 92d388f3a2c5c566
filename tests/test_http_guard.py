"""The HTTP side of the front door on a real server: Host names (DNS rebinding), security headers, /metrics,
and the deadlines for request headers and for logging in."""

from __future__ import annotations

import gc
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_helpers import Client, ThreadServer
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from trickroom.server.sessions import CLOSE_LOGIN_TIMEOUT


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    db = tmp_path_factory.mktemp("guard") / "guard.sqlite3"
    # login_timeout: long enough for a guest's first login on a cold, busy machine (in a fresh clone, under two
    # test workers, one took longer than the 0.5 s this once was, and the socket that was to stay was closed).
    server = ThreadServer(db=f"sqlite:///{db}", bot_workers=0, allowed_hosts=["cards.example.org"],
                          metrics_token="metrics-secret", header_timeout=0.5, login_timeout=3.0).start()
    yield server
    server.stop()


def get(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def test_a_dns_rebinding_request_is_refused(room: ThreadServer) -> None:
    status, _, body = get(room.http + "/", Host="evil.example")
    assert status == 400 and body == b"This server does not answer to that host name.\n"
    assert get(room.http + "/", Host="evil.example", **{"Accept-Language": "ru-RU,ru;q=0.9"})[2].decode() == \
        "Этот сервер не отвечает на такое имя.\n"
    with pytest.raises(InvalidStatus) as refused:
        connect(room.url, additional_headers={"Host": "evil.example"}, open_timeout=10)
    assert refused.value.response.status_code == 403
    for host in (f"127.0.0.1:{room.port}", f"localhost:{room.port}", "cards.example.org", "[::1]:8000"):
        assert get(room.http + "/health", Host=host)[0] == 200, host
    with connect(room.url, additional_headers={"Host": "cards.example.org"}, open_timeout=10) as ws:
        assert '"hello"' in str(ws.recv(timeout=10))


def test_the_page_has_security_headers(room: ThreadServer) -> None:
    status, headers, _ = get(room.http + "/")
    assert status == 200
    policy = headers["content-security-policy"]
    for part in ("default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'",
                 "object-src 'none'", f"connect-src 'self' ws://127.0.0.1:{room.port}/ws"):
        assert part in policy, policy
    assert "unsafe" not in policy
    assert headers["x-content-type-options"] == "nosniff" and headers["referrer-policy"] == "no-referrer"
    assert headers["x-frame-options"] == "DENY"


def test_metrics_only_for_allowed_addresses_or_the_token(room: ThreadServer) -> None:
    assert get(room.http + "/metrics")[0] == 200  # 127.0.0.1 is allowed by default
    outside = {"X-Forwarded-For": "203.0.113.9"}
    assert get(room.http + "/metrics", **outside)[0] == 403
    assert get(room.http + "/metrics", **outside, Authorization="Bearer wrong")[0] == 403
    status, _, body = get(room.http + "/metrics", **outside, Authorization="Bearer metrics-secret")
    assert status == 200 and b"trickroom_connections" in body


def test_a_request_whose_headers_never_end_is_dropped(room: ThreadServer) -> None:
    with socket.create_connection(("127.0.0.1", room.port), timeout=10) as slow:
        slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the blank line
        started = time.monotonic()
        assert slow.recv(1024) == b""  # the server closes the connection
        assert time.monotonic() - started < 5
    with socket.create_connection(("127.0.0.1", room.port), timeout=10) as idle:
        assert idle.recv(1024) == b""  # a connection that sends nothing at all goes the same way
    assert get(room.http + "/health")[0] == 200


def test_a_websocket_that_does_not_log_in_is_closed(room: ThreadServer) -> None:
    idle, staying = Client(room.url), Client(room.url)
    try:
        staying.login_guest("Stays")
        idle.send(type="ping")  # pings do not keep a socket that is not logged in
        idle.reader.join(timeout=10)
        assert idle.closed and idle.ws.close_code == CLOSE_LOGIN_TIMEOUT
        staying.send(type="ping")  # opened at the same moment, but logged in: it stays
        assert staying.wait(type="pong") and not staying.closed
        assert staying.request(type="logout")["type"] == "ok"
        staying.reader.join(timeout=10)  # logged out, the socket has login_timeout to log in again
        assert staying.closed and staying.ws.close_code == CLOSE_LOGIN_TIMEOUT
    finally:
        idle.close()
        staying.close()


def test_default_hosts_accept_ip_addresses_and_localhost(tmp_path: Path) -> None:
    from trickroom.server.guard import allowed_host_names, host_allowed
    from trickroom.server.settings import Settings

    allowed = allowed_host_names(Settings(host="0.0.0.0", public_url="wss://play.example.net/ws"))
    assert host_allowed("203.0.113.4:8000", allowed) and host_allowed("[2001:db8::1]:443", allowed)
    assert host_allowed("localhost", allowed) and host_allowed("PLAY.example.net", allowed)
    assert not host_allowed("rebind.attacker.example", allowed) and not host_allowed(None, allowed)
    assert host_allowed("anything", {"*"})


def test_a_websocket_leaves_no_http_protocol_for_the_collector(room: ThreadServer) -> None:
    """After the upgrade the HTTP side of a connection is freed at once, not left in a cycle (guard.py)."""

    def http_protocols() -> int:
        return sum(type(o).__name__ == "HeadersDeadlineProtocol" for o in gc.get_objects())

    gc.collect()
    gc.disable()
    try:
        before = http_protocols()
        clients = [Client(room.url) for _ in range(5)]
        try:
            assert http_protocols() == before
        finally:
            for client in clients:
                client.close()
    finally:
        gc.enable()
