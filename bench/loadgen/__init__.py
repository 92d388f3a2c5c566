"""The parts of ``bench/load.py`` (docs/performance.md, sections 2 and 4).

``deployment``: the room under test (one node on SQLite, or nodes on PostgreSQL and Redis); ``fullspeed``: the
clients of the ``play`` and ``bots`` scenarios, which act the moment they may; ``bots``: the ``bots`` scenario;
``report``: what the full-speed runs print. The evening scenario, people at human speed: ``wsconn``, a cheap
websocket client connection; ``person``: one person's behaviour; ``world``: one generator process; ``evening``:
the run, its measurements and its report.
"""
