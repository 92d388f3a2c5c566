"""``trickroom serve``: run the room (see docs/server.md for every setting)."""

from __future__ import annotations

import argparse

from trickroom.server.settings import load_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port to listen on (default 8000)")
    parser.add_argument("--db", help="database URL: sqlite:///path.sqlite3 (default: ./trickroom.sqlite3) "
                                     "or postgresql://user@host/dbname")
    parser.add_argument("--config", help="settings file (KEY=value lines, TRICKROOM_ prefix optional)")
    parser.add_argument("--allowed-origin", action="append", dest="allowed_origins",
                        help="a web origin allowed to open the websocket besides this host (repeatable)")
    parser.add_argument("--log-level", help="debug, info, warning, error (default info)")
    parser.add_argument("--allow-test-decks", action="store_const", const=True, default=None,
                        help="test-only: let `create` fix the deal with \"seed\" and \"decks\"")


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from trickroom.server.app import create_app
    from trickroom.server.logs import setup_logging

    settings = load_settings(args.config, host=args.host, port=args.port, db=args.db,
                             allowed_origins=args.allowed_origins, log_level=args.log_level,
                             allow_test_decks=args.allow_test_decks)
    setup_logging(settings.log_level)
    app = create_app(settings)
    print(f"trickroom: the room is at http://{settings.host}:{settings.port}/ "
          f"(websocket ws://{settings.host}:{settings.port}/ws, database {settings.db})", flush=True)
    config = uvicorn.Config(app, host=settings.host, port=settings.port, log_config=None,
                            ws_max_size=max(65536, settings.max_message_bytes * 4), lifespan="on")
    uvicorn.Server(config).run()
    return 0
