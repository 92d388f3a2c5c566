"""A finished game told again, step by step: the pure part of replays (server/replays.py sends it to the clients;
the terminal reads an exported game with it too), and the game as a readable transcript.

A game's history (game, options, seed, prearranged decks, action log, seats: the room's ``history`` message, which
is also the JSON export) is played again with the games API (``new_match`` and ``apply``). Step 0 is the start
(the first deal); then each action is a step, with the events it caused. Where an action ends a hand and the next
hand is dealt at once, the new deal is a step of its own (no action, the next hand's first), so that a hand's
steps hold only that hand. Each step carries:

- ``texts``: the sentences the table said to the viewer's seat for those events (``narrate``, the very call the
  table makes: "You play the queen of spades."; a stranger hears what a spectator heard);
- ``view``: the public view after the step (``client_view(None)``), and ``hands``: every seat's cards, since a
  finished game hides nothing from those who may see it. The step that ends a hand keeps the view from before it
  (the engine deals the next hand in the same action) and the hands less the cards it played.

Hands and tricks are counted from the games' own events: ``hand_end`` or ``throw_in`` ends a hand
(``games.HAND_OVER``), a ``trick`` event ends a trick.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trickroom.games import HAND_OVER, Event, Match, events_for, game_class, load_game
from trickroom.narration import describe, narrate, narrate_step, seat_names, translate
from trickroom.narration.names import cards_name, grouped, joined

JSON = dict[str, Any]
PLAY_PHASES = ("play", "announce")  # phases in which a step belongs to a trick


@dataclass(frozen=True)
class History:
    """What a replay needs of a finished table (``from_message`` reads the room's ``history`` message)."""

    game: str
    options: dict[str, Any]
    seed: int
    actions: tuple[tuple[int, str], ...]
    names: tuple[str | None, ...]  # each seat's person; None: a bot
    decks: list[list[str]] | None = None
    name: str = ""  # the table's name
    finished_at: str | None = None
    users: tuple[str | None, ...] = ()  # each seat's user id (None: a bot)
    event_seqs: tuple[int, ...] = ()  # each action's first journal number (puts the chat in its place)
    chat: tuple[tuple[int, str, str], ...] = ()  # (journal number, sender's name, message)

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> History:
        seats = sorted(message.get("seats") or [], key=lambda s: int(s["seat"]))
        actions = list(message.get("actions") or [])
        return cls(game=str(message["game"]), options=dict(message.get("options") or {}), seed=int(message["seed"]),
                   actions=tuple((int(a["seat"]), str(a["action"])) for a in actions),
                   names=tuple((s.get("user") or {}).get("name") for s in seats),
                   decks=message.get("decks"), name=str(message.get("name") or ""),
                   finished_at=message.get("finished_at"),
                   users=tuple((s.get("user") or {}).get("id") for s in seats),
                   event_seqs=tuple(int(a.get("event_seq") or 0) for a in actions),
                   chat=tuple((int(c["seq"]), str((c.get("from") or {}).get("name", "")), str(c["message"]))
                              for c in message.get("chat") or []))

    def seat_of(self, user_id: str | None) -> int | None:
        return self.users.index(user_id) if user_id is not None and user_id in self.users else None


@dataclass(frozen=True)
class Step:
    index: int  # 0: the start; then in order
    move: int  # actions applied once the step is done
    hand: int  # 1, 2...
    trick: int | None  # the hand's trick the step belongs to; None before the play (bidding, melds)
    seat: int | None  # who acted (None: the start, or a new deal)
    action: str | None
    texts: tuple[str, ...]
    view: JSON
    hands: tuple[tuple[str, ...], ...]  # every seat's cards after the step
    to_act: tuple[int, ...]
    ends_trick: bool = False
    ends_hand: bool = False

    def to_json(self) -> JSON:
        return {"index": self.index, "move": self.move, "hand": self.hand, "trick": self.trick, "seat": self.seat,
                "action": self.action, "text": list(self.texts), "view": self.view,
                "hands": [list(h) for h in self.hands], "to_act": list(self.to_act), "ends_trick": self.ends_trick,
                "ends_hand": self.ends_hand}


@dataclass(frozen=True)
class HandOutline:
    number: int
    first: int  # its first step
    last: int  # its last step
    tricks: tuple[int, ...]  # the steps that end each of its tricks

    def to_json(self) -> JSON:
        return {"hand": self.number, "first": self.first, "last": self.last, "tricks": list(self.tricks)}


@dataclass(frozen=True)
class Replay:
    seat: int | None  # whose sentences these are (None: a spectator's)
    names: tuple[str, ...]  # each seat's name in the replay's language
    hands: tuple[HandOutline, ...]
    steps: tuple[Step, ...]  # the steps asked for (one hand's, or all)
    total: int  # the number of steps in the whole game
    standings: JSON
    hand_results: tuple[JSON, ...] = field(default=())

    def to_json(self) -> JSON:
        """The parts of the room's ``replay`` message that come from the game (the room adds the table's)."""
        return {"you": self.seat, "seats": [{"seat": i, "name": name} for i, name in enumerate(self.names)],
                "hands": [h.to_json() for h in self.hands], "total": self.total,
                "steps": [step.to_json() for step in self.steps], "standings": self.standings}


def _played(event: Event) -> list[str]:
    if event.get("type") != "play":
        return []
    return list(event.get("cards") or ([event["card"]] if event.get("card") else []))


def _parts(events: Sequence[Event]) -> list[list[Event]]:
    """An action's events, cut before the deal that follows the end of a hand (the next hand's first step)."""
    parts: list[list[Event]] = [[]]
    ended = False
    for event in events:
        if ended and event.get("type") == "deal":
            parts.append([])
            ended = False
        parts[-1].append(event)
        ended = ended or event.get("type") in HAND_OVER
    return parts


def replay(history: History, seat: int | None, lang: str, hand: int | None = None) -> Replay:
    """The game step by step as ``seat`` heard it (None: as a spectator), in ``lang``; with ``hand``, only that
    hand's steps are made (sentences and views), though the outline covers every hand."""
    game = load_game(history.game, **history.options)
    match = game.new_match(seed=history.seed, decks=history.decks)
    names = seat_names(list(history.names) + [None] * (game.players - len(history.names)), lang)
    builder = _Builder(match, seat, lang, names, hand)
    builder.add(None, None, list(match.events))
    for acting, action in history.actions:
        before = len(match.events)
        match.apply(acting, action)
        builder.add(acting, action, match.events[before:])
    return Replay(seat, tuple(names), builder.outline(), tuple(builder.steps), builder.index, dict(match.standings),
                  tuple(match.hand_results))


class _Builder:
    """Numbers the steps, hands and tricks as the actions come, and makes the steps of the hand asked for."""

    def __init__(self, match: Match, seat: int | None, lang: str, names: list[str], wanted: int | None) -> None:
        self.match, self.seat, self.lang, self.names, self.wanted = match, seat, lang, names, wanted
        self.players = match.game.players
        self.steps: list[Step] = []
        self.index = 0  # the next step's
        self.hand, self.trick = 1, 1
        self.bounds: list[list[int]] = [[0, 0]]  # per hand: first and last step
        self.tricks: list[list[int]] = [[]]
        self.last_view: JSON = {}
        self.last_hands: tuple[tuple[str, ...], ...] = ()

    def add(self, acting: int | None, action: str | None, events: Sequence[Event]) -> None:
        parts = _parts(events)
        for number, part in enumerate(parts):
            if number:  # the deal after a hand's end: a step without an action
                acting, action = None, None
            self.step(acting, action, part, final=number == len(parts) - 1)

    def step(self, acting: int | None, action: str | None, events: Sequence[Event], final: bool) -> None:
        ends_trick = any(e.get("type") == "trick" for e in events)
        ends_hand = any(e.get("type") in HAND_OVER for e in events)
        match = self.match
        if final and not ends_hand:
            view = match.client_view(None)
            hands = tuple(tuple(match.view(s).get("hand") or ()) for s in range(self.players))
        else:  # this hand's end (the engine has dealt the next one already): the table as it was left
            played = {card for event in events for card in _played(event)}
            view = self.last_view
            hands = tuple(tuple(c for c in held if c not in played) for held in self.last_hands)
        in_trick = ends_trick or view.get("phase") in PLAY_PHASES
        if self.wanted is None or self.wanted == self.hand:
            seen = events_for(events, self.seat)
            merged = narrate_step(match.game.name, seen, self.seat, self.lang, self.names)  # as the table said
            said = merged if merged is not None else [narrate(match.game.name, event, self.seat, self.lang,
                                                              self.names) for event in seen]
            texts = tuple(text for text in said if text)
            self.steps.append(Step(self.index, len(match.actions), self.hand, self.trick if in_trick else None,
                                   acting, action, texts, view, hands, tuple(view.get("to_act") or ()),
                                   ends_trick, ends_hand))
        self.last_view, self.last_hands = view, hands
        self.bounds[-1][1] = self.index
        if ends_trick:
            self.tricks[-1].append(self.index)
            self.trick += sum(1 for e in events if e.get("type") == "trick")
        self.index += 1
        if ends_hand:
            self.hand, self.trick = self.hand + 1, 1
            self.bounds.append([self.index, self.index])
            self.tricks.append([])

    def outline(self) -> tuple[HandOutline, ...]:
        hands = [HandOutline(n + 1, first, last, tuple(tricks))
                 for n, ((first, last), tricks) in enumerate(zip(self.bounds, self.tricks, strict=True))]
        return tuple(h for h in hands if h.first < self.index)  # no empty hand after the last one


# --- The transcript --------------------------------------------------------------------------------------------


def transcript(history: History, seat: int | None, lang: str) -> str:
    """The whole game as text in ``lang``: the table, the players, each hand with every seat's cards as dealt,
    every sentence as ``seat`` heard it (a spectator's for None), and the table chat in its place."""
    game = load_game(history.game, **history.options)
    told = replay(history, seat, lang)
    lines = [translate("transcript.title", lang, name=history.name, description=describe(game, lang)),
             translate("transcript.players", lang, list=grouped(
                 [translate("transcript.seat", lang, number=s + 1, name=n) for s, n in enumerate(told.names)], lang))]
    if history.finished_at:
        lines.append(translate("transcript.finished", lang, date=history.finished_at.replace("T", " ")[:16]))
    chat = sorted(history.chat)
    said = 0
    first_of = {h.first: h.number for h in told.hands}
    for step in told.steps:
        if step.index in first_of:
            lines += ["", translate("transcript.hand", lang, number=first_of[step.index])]
        if step.seat is None and any(step.hands):  # a deal: every seat's cards
            cards = [translate("transcript.seat_cards", lang, name=told.names[s], cards=cards_name(list(held), lang))
                     for s, held in enumerate(step.hands) if held]
            lines.append(translate("transcript.cards", lang, list=grouped(cards, lang)))
        lines += step.texts
        if step.ends_trick and not step.ends_hand:
            lines.append("")
        upto = history.event_seqs[step.move] if step.move < len(history.event_seqs) else None
        while said < len(chat) and (upto is None or chat[said][0] < upto):
            _, sender, message = chat[said]
            lines.append(translate("chat.table", lang, name=sender, message=message))
            said += 1
    return "\n".join(lines).strip() + "\n"


# --- A finished game in one sentence (the "my games" list) ------------------------------------------------------


def result_text(game_name: str, standings: Mapping[str, Any] | None, names: Sequence[str], seat: int | None,
                lang: str) -> str:
    """"You won.", "Anna won.", "Your team won.", "Nobody won." (``names``: each seat's, in ``lang``)."""
    winner = (standings or {}).get("winner")
    if winner is None:
        return translate("games.result.nobody", lang)
    teams = game_class(game_name).teams
    if teams and (standings or {}).get("kind") == "teams":
        team = list(teams[int(winner)])
        if seat is not None and seat in team:
            return translate("games.result.your_team", lang)
        return translate("games.result.team", lang, names=joined([names[s] for s in team], lang))
    if winner == seat:
        return translate("games.result.you", lang)
    return translate("games.result.name", lang, name=names[int(winner)])


def game_line(history_game: str, title: str, standings: Mapping[str, Any] | None, names: Sequence[str | None],
              seat: int | None, lang: str) -> str:
    """One finished game for a list: "Bura: you and Bot 2. You won."."""
    said = seat_names(list(names), lang)
    players = [translate("games.you", lang) if s == seat else n for s, n in enumerate(said)]
    return translate("games.entry", lang, title=title, players=joined(players, lang),
                     result=result_text(history_game, standings, said, seat, lang))
