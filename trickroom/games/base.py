"""The public game API shared by every game: options, games, matches and event visibility.

A :class:`Game` is a rule set with its options fixed (``load_game("bura", players=3)``); a :class:`Match` is
one match of it, from the first deal to the end. Matches are pure and deterministic: given the same options,
seed (or prearranged decks) and actions they produce the same states and events.

Events are JSON-safe dicts with a ``"type"``. An event that only one seat may see whole carries
``"private_to": seat``; if it also carries ``"secret": [field, ...]`` the other seats see the event without
those fields, otherwise they do not see it at all. :func:`events_for` applies this for one recipient.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

Event = dict[str, Any]
JSON = dict[str, Any]

PRIVATE_TO = "private_to"
SECRET = "secret"
# The event types that end a hand: its result (either game), or a Mpourloto hand nobody bid on.
HAND_OVER = frozenset({"hand_end", "throw_in"})


def ends_a_hand(events: Iterable[Event]) -> bool:
    """Whether these events (an action's) include the end of a hand."""
    return any(event["type"] in HAND_OVER for event in events)


class IllegalAction(ValueError):
    """An action the game does not allow now. The message is a clear English sentence for the player.

    ``key`` names the sentence in the narration catalogs (``illegal.<game>.<name>``, or ``illegal.<name>`` for
    one every game shares) and ``params`` its parameters as data: card codes, suit letters, combination names,
    action strings, numbers. The games never word a refusal in another language themselves (they import
    nothing from the narration layer); ``trickroom.narration.refusal`` says it in the player's language.
    """

    def __init__(self, message: str = "", key: str | None = None, **params: Any) -> None:
        super().__init__(message)
        self.key = key
        self.params = params


class OptionError(ValueError):
    """An option name or value that the game does not accept. The message is a clear English sentence.

    As with :class:`IllegalAction`, ``key`` names the sentence in the room catalog (``option.unknown``,
    ``option.boolean``, ``option.integer``, ``option.choices``, ``option.minimum``, ``option.maximum``) and
    ``params`` its parameters as data (the option's name, the value given, the limits), so that the server can
    say it in each player's language with ``trickroom.narration.refusal``.
    """

    def __init__(self, message: str = "", key: str | None = None, **params: Any) -> None:
        super().__init__(message)
        self.key = key
        self.params = params


def events_for(events: Iterable[Event], seat: int | None) -> list[Event]:
    """The events as ``seat`` may see them (``None``: a spectator), without the visibility markers."""
    visible: list[Event] = []
    for event in events:
        owner = event.get(PRIVATE_TO)
        if owner is None:
            visible.append(event)
            continue
        if owner == seat:
            visible.append({k: v for k, v in event.items() if k not in (PRIVATE_TO, SECRET)})
            continue
        hidden = event.get(SECRET)
        if hidden:
            visible.append({k: v for k, v in event.items() if k not in hidden and k not in (PRIVATE_TO, SECRET)})
    return visible


@dataclass(frozen=True)
class Option:
    """One table option, declared once and used by the engine, the server, and both clients.

    ``key`` is the option's message id in the game's narration catalog (``bura.option.players``): the catalog
    holds its one-sentence description under ``key``, its short name under ``key.label`` and, for an option with
    named choices, each choice's name under ``key.<value>``. The games word nothing themselves.
    """

    name: str
    default: Any
    key: str
    choices: tuple[Any, ...] | None = None  # allowed values, for str/bool/int choices
    minimum: int | None = None
    maximum: int | None = None

    @property
    def kind(self) -> type:
        return type(self.default)

    def validate(self, value: Any) -> Any:
        """Return ``value`` converted to the option's type, or raise :class:`OptionError`."""
        kind = self.kind
        allowed = ", ".join(str(c) for c in self.choices or ())
        if kind is bool:
            if isinstance(value, str) and value.lower() in ("true", "on", "yes", "1", "false", "off", "no", "0"):
                value = value.lower() in ("true", "on", "yes", "1")
            if not isinstance(value, bool):
                raise OptionError(f"Option {self.name} must be on or off.", key="option.boolean", option=self.name)
        elif kind is int:
            value = _whole_number(value)
            if value is None:
                raise OptionError(f"Option {self.name} must be a whole number.", key="option.integer",
                                  option=self.name)
        elif kind is str and not isinstance(value, str):
            raise OptionError(f"Option {self.name} must be one of: {allowed}.", key="option.choices",
                              option=self.name, choices=allowed, value=repr(value)[:40])
        if self.choices is not None and value not in self.choices:
            raise OptionError(f"Option {self.name} must be one of: {allowed}; got {value!r}.", key="option.choices",
                              option=self.name, choices=allowed, value=repr(value)[:40])
        if self.minimum is not None and value < self.minimum:
            raise OptionError(f"Option {self.name} must be at least {self.minimum}; got {value}.",
                              key="option.minimum", option=self.name, minimum=self.minimum, value=value)
        if self.maximum is not None and value > self.maximum:
            raise OptionError(f"Option {self.name} must be at most {self.maximum}; got {value}.",
                              key="option.maximum", option=self.name, maximum=self.maximum, value=value)
        return value

    def to_json(self) -> JSON:
        return {
            "name": self.name,
            "type": self.kind.__name__,
            "default": self.default,
            "choices": list(self.choices) if self.choices is not None else None,
            "minimum": self.minimum,
            "maximum": self.maximum,
            "key": self.key,
        }


def _whole_number(value: Any) -> int | None:
    """``value`` as an int if it is one (3, 3.0, "3"), else None: never a bool, a fraction (2.5 is not quietly
    2), an infinity or a NaN."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        return int(value) if value.is_integer() else None  # is_integer() is False for inf and nan
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return None


class Match(ABC):
    """One match of a game: deals, hands and scores until :attr:`is_over`.

    Every concrete match records ``seed``, the prearranged ``decks`` and the ``actions`` applied (seat and
    canonical action string), which together are its whole history: :meth:`Game.replay` rebuilds it.
    """

    game: Game
    seed: int
    decks: list[list[str]]
    actions: list[tuple[int, str]]
    # Every event so far, with visibility markers; use events_for() per recipient. The engines only ever append
    # to it and never read it back, so a host that runs long matches may delete old events from the front.
    events: list[Event]

    @property
    @abstractmethod
    def to_act(self) -> list[int]:
        """Seats whose move the game waits for (empty only when the match is over)."""

    @abstractmethod
    def legal_actions(self, seat: int) -> list[str]:
        """Canonical action strings legal for ``seat`` now; [] when it may do nothing."""

    @abstractmethod
    def apply(self, seat: int, action: str) -> list[Event]:
        """Apply ``seat``'s ``action``; return the new events. :class:`IllegalAction` leaves state unchanged."""

    @abstractmethod
    def view(self, seat: int | None) -> JSON:
        """What ``seat`` may see now (``None``: a spectator), JSON-safe, cards as codes."""

    @property
    @abstractmethod
    def hand_results(self) -> list[JSON]:
        """One JSON-safe dict per finished hand (a copy: callers may edit it)."""

    @property
    def hands_done(self) -> int:
        """How many entries ``hand_results`` has, without copying them (a host asks after every action)."""
        return len(self.hand_results)

    @property
    @abstractmethod
    def is_over(self) -> bool: ...

    @property
    @abstractmethod
    def standings(self) -> JSON:
        """Scores and ranking so far; ``winner`` is set when the match is over and someone won."""

    @abstractmethod
    def clone(self) -> Match:
        """An independent copy, for search: applying actions to it never touches this match."""

    def client_view(self, seat: int | None) -> JSON:
        """What a client is sent for ``seat``: :meth:`view`, plus what a client would otherwise have to work out
        from the rules. Every game's ``"stock"`` is the number of cards not yet dealt or drawn (Bura's view has
        it already; Mpourloto adds it here, so that its ``view``, pinned by the engine digest, stays as it is)."""
        return self.view(seat)


@dataclass(frozen=True)
class Announcement:
    """A combination a player may announce (Bura's Bura, Three Aces...), as the game rules it."""

    kind: str  # its name in actions and events: "bura", "little-moscow"
    action: str  # the legal action that announces it: "announce bura"
    rank: int  # among the announcements made at once, the highest rank leads
    wins_hand: bool  # it wins the hand at once (a single Bura, Moscow) instead of only taking the lead


class Game(ABC):
    """A rule set with its options fixed. Create with :func:`trickroom.games.load_game`."""

    name: ClassVar[str]
    title: ClassVar[str]  # the English name, for the library's English messages; speech says narration's title
    OPTIONS: ClassVar[tuple[Option, ...]]
    min_players: ClassVar[int]
    max_players: ClassVar[int]

    def __init__(self, /, **options: Any) -> None:  # positional-only: an option called "self" is just unknown
        self.options = self.validate_options(options)

    @classmethod
    def option(cls, name: str) -> Option:
        for opt in cls.OPTIONS:
            if opt.name == name:
                return opt
        raise OptionError(f"{cls.title} has no option {name!r}.", key="option.unknown", option=str(name)[:40],
                          options=", ".join(opt.name for opt in cls.OPTIONS))

    @classmethod
    def validate_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """All options with defaults filled in; raise :class:`OptionError` on an unknown name or bad value."""
        known = {opt.name for opt in cls.OPTIONS}
        unknown = sorted(set(options) - known)
        if unknown:
            raise OptionError(f"{cls.title} has no option {unknown[0]!r}; options: {', '.join(sorted(known))}.",
                              key="option.unknown", option=str(unknown[0])[:40], options=", ".join(sorted(known)))
        return {opt.name: opt.validate(options[opt.name]) if opt.name in options else opt.default
                for opt in cls.OPTIONS}

    @property
    def players(self) -> int:
        return int(self.options.get("players", self.min_players))

    @abstractmethod
    def new_match(self, seed: int | None = None, decks: Sequence[Sequence[str]] | None = None) -> Match:
        """A new match. ``seed`` None draws one with :func:`trickroom.cards.new_seed` (kept in ``match.seed``).

        ``decks`` are prearranged decks (card codes, top first) for the 1st, 2nd... deal; later deals are
        shuffled from the seed.
        """

    def determinized_match(self, view: JSON, hidden: JSON) -> Match:
        """A match whose public state is ``view`` (one seat's view) with the hidden parts filled from ``hidden``.

        For search bots: they sample the cards they cannot see (and supply what they remember, such as Bura
        points taken) and play the game forward on the result. The keys of ``hidden`` are game-specific and
        documented by each game. The returned match may lack history (``actions``, ``events`` from before).
        """
        raise NotImplementedError(f"{self.name} cannot build a match from a view")

    def replay(self, seed: int, actions: Iterable[tuple[int, str]],
               decks: Sequence[Sequence[str]] | None = None) -> Match:
        """Rebuild a match from its history: seed, prearranged decks and actions."""
        match = self.new_match(seed=seed, decks=decks)
        for seat, action in actions:
            match.apply(seat, action)
        return match

    # --- The rules that bots, integrations, the server and the clients need ----------------------------------
    # Each game answers these from its own tables; nothing outside the game packages keeps a copy.

    deck: ClassVar[tuple[str, ...]]  # the cards of the game, in the order a fresh deck is shuffled from
    claim_target: ClassVar[int | None] = None  # card points a claim needs to be true (Bura: 31); None: no claims
    off_turn_actions: ClassVar[tuple[str, ...]] = ()  # what a seat the game is not waiting for may do (Bura: claim)
    teams: ClassVar[tuple[tuple[int, ...], ...]] = ()  # the partners' seats, by team; (): everyone plays alone

    @classmethod
    def team_of(cls, seat: int) -> int | None:
        """The team of ``seat`` (an index into :attr:`teams`), or None in a game without partners."""
        return next((team for team, seats in enumerate(cls.teams) if seat in seats), None)

    @classmethod
    @abstractmethod
    def card_points(cls, card: str, trumps: str | None = None) -> int:
        """What ``card`` counts in won tricks when ``trumps`` is the trump suit (None: not chosen yet)."""

    @classmethod
    @abstractmethod
    def rank_order(cls, suit: str, trumps: str | None = None) -> str:
        """The ranks of ``suit`` from the highest to the lowest when ``trumps`` is the trump suit."""

    @classmethod
    def canonical_action(cls, action: str) -> str:
        """``action`` spelled as the engine spells it in ``legal_actions`` and the action log (card order and
        spellings, letter case), whether or not it is legal now; what cannot be read comes back with its verb in
        lower case, so that it equals no canonical action it does not mean."""
        words = action.replace(",", " ").split()
        if not words:
            return ""
        verb, rest = words[0].lower(), words[1:]
        try:
            spelled = cls._spelled(verb, rest)
        except ValueError:  # a card or suit that cannot be read (cards.CardError)
            spelled = None
        return " ".join([verb, *rest]) if spelled is None else spelled

    @classmethod
    @abstractmethod
    def _spelled(cls, verb: str, words: list[str]) -> str | None:
        """For :meth:`canonical_action`: the canonical spelling of ``verb`` (lower case) with ``words``, or None
        when the game spells them as they are."""

    @classmethod
    @abstractmethod
    def action_space(cls) -> tuple[str, ...]:
        """Every canonical action the game can ever offer, each once, in a fixed order (integer action ids for
        integrations such as OpenSpiel)."""

    def announcements(self) -> dict[str, Announcement]:
        """The combinations this game, with its options, lets a player announce, by kind; {} when none."""
        return {}
