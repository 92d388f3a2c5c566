"""The terminal client, ``trickroom play``: Bura and Mpourloto in plain lines, offline against bots or on a room.

Modules: ``main`` (the command line), ``offline`` (a local match against bots), ``online`` (a room through the
websocket protocol), ``session`` (what both share), ``commands`` (reading what was typed), ``render`` and
``summary`` (lines about the game), ``console`` (stdin/stdout, readline), ``text`` (the client's own sentences in
English and Russian). See docs/terminal.md.
"""
