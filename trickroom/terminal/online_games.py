"""The online client's finished games: the ``games`` list, a replay of one of them (``replay N``) and its export
to a file (docs/replays.md). A part of :class:`~trickroom.terminal.online.OnlineClient`, kept apart because it
stands apart from playing at a table."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from trickroom.terminal.replay import ReplayMode, save
from trickroom.terminal.text import say

Message = dict[str, Any]


class FinishedGames:
    """Mixed into the online client, which has the connection, the voice and the state named below."""

    lang: str
    user_id: str | None
    replay: ReplayMode | None
    listed_games: list[str]  # the table ids of the last "games" list, for "replay N"
    exports: dict[str, str]  # "history" or "transcript" -> the file it is to be saved in

    if TYPE_CHECKING:
        def send(self, message: Message) -> int: ...

        def say(self, line: str, remember: bool = True) -> None: ...

        def review(self, hand: int | None) -> None: ...

    def on_games(self, msg: Message) -> None:
        games = msg.get("games") or []
        self.listed_games = [str(g["table"]) for g in games]
        if not games:
            self.say(say("games_none", self.lang), remember=False)
            return
        mine = (msg.get("user") or {}).get("id") == self.user_id
        self.say(say("games_you" if mine else "games_of", self.lang, name=(msg.get("user") or {}).get("name", "")),
                 remember=False)
        for number, game in enumerate(games, start=1):
            date = str(game.get("finished_at") or "")[:10]
            self.say(say("games_entry", self.lang, number=number, id=game["table"], date=date, text=game["text"]),
                     remember=False)
        self.say(say("games_hint", self.lang), remember=False)

    def open_replay(self, ref: str) -> None:
        table = self.listed_games[int(ref) - 1] if ref.isdigit() and 0 < int(ref) <= len(self.listed_games) else ref
        self.send({"type": "replay", "table": table})

    def on_replay(self, msg: Message) -> None:
        if self.replay is not None and self.replay.info["table"] == msg["table"]:
            self.replay.load(msg)
            return
        table = str(msg["table"])

        def fetch(hand: int) -> None:
            self.send({"type": "replay", "table": table, "hand": hand})

        self.replay = ReplayMode(msg, self.lang, lambda line: self.say(line, remember=False), fetch=fetch,
                                 export=self.export, review=self.review)
        self.say(say("replay_help", self.lang), remember=False)

    def export(self, kind: str, path: str) -> None:
        if self.replay is None:
            return
        if not path:
            self.say(say("export_where", self.lang), remember=False)
            return
        wanted = "transcript" if kind == "text" else "history"
        self.exports[wanted] = path
        self.send({"type": wanted, "table": self.replay.info["table"]})

    def on_history(self, msg: Message) -> None:
        self.saved("history", json.dumps({k: v for k, v in msg.items() if k != "re"}, ensure_ascii=False, indent=1))

    def on_transcript(self, msg: Message) -> None:
        self.saved("transcript", str(msg.get("text", "")))

    def saved(self, kind: str, text: str) -> None:
        path = self.exports.pop(kind, None)
        if path is None:
            return
        try:
            where = save(path, text)
        except OSError as exc:
            self.say(say("export_failed", self.lang, path=path, reason=exc), remember=False)
            return
        self.say(say("exported", self.lang, path=where), remember=False)
