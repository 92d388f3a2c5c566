"""Prometheus metrics for operators, served at ``/metrics``."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

PLAYERS_ONLINE = Gauge("trickroom_players_online", "Users with at least one open connection")
CONNECTIONS = Gauge("trickroom_connections", "Open websocket connections")
LINE = Gauge("trickroom_waiting_line", "Newcomers waiting in line to sign in (the node is full for now)")
TABLES = Gauge("trickroom_tables", "Tables owned by this node, by status", ["status"])
ACTIONS = Counter("trickroom_actions", "Game actions applied (rate() gives actions per second)")
ACTION_LATENCY = Histogram("trickroom_action_latency_seconds",
                           "From applying an action to the end of its broadcast, its database write included "
                           "(not the time it waited for the table)",
                           buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5))
BOT_THINKING = Histogram("trickroom_bot_thinking_seconds", "Time a bot takes to choose a move",
                         buckets=(0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0))
MESSAGES = Counter("trickroom_messages_received", "Client messages received")
ERRORS = Counter("trickroom_errors_sent", "Error messages sent, by code", ["code"])
