"""The Mpourloto rule set: options, new matches, and matches rebuilt from a view for search bots."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from trickroom.cards import new_seed
from trickroom.games.base import JSON, Game, Option
from trickroom.games.mpourloto.match import MpourlotoMatch


class Mpourloto(Game):
    """Mpourloto (Greek, a relative of Belote): four players in two teams, 32 cards, played to 1000.

    Rules: docs/rules/mpourloto.md, decided by /work/shared/rulings.md M1-M11.
    """

    name: ClassVar[str] = "mpourloto"
    title: ClassVar[dict[str, str]] = {"en": "Mpourloto", "ru": "Мпурлото"}
    min_players: ClassVar[int] = 4
    max_players: ClassVar[int] = 4
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("players", 4, {"en": "Mpourloto is played by four players in two teams of partners.",
                              "ru": "В мпурлото играют вчетвером, две команды партнёров."}, choices=(4,)),
        Option("partner_relief", False,
               {"en": "While your partner is winning the trick you need not beat or trump, "
                      "but you must still follow suit.",
                "ru": "Пока взятку берёт ваш партнёр, можно не перебивать и не козырять, "
                      "но масть поддерживать нужно."}),
        Option("target", 1000, {"en": "The first team to reach this many points wins the match.",
                                "ru": "Побеждает команда, первой набравшая столько очков."},
               minimum=100, maximum=10000),
    )

    def new_match(self, seed: int | None = None, decks: Sequence[Sequence[str]] | None = None) -> MpourlotoMatch:
        return MpourlotoMatch(self, new_seed() if seed is None else seed, decks or ())

    def describe(self, lang: str = "en") -> str:
        relief = bool(self.options["partner_relief"])
        target = self.options["target"]
        if lang == "ru":
            rule = "без обязанности бить, пока берёт партнёр" if relief else "со строгим правилом перебивать"
            return f"Мпурлото до {target} очков, {rule}."
        rule = "partner relief" if relief else "strict overtrumping"
        return f"Mpourloto to {target} points, {rule}."

    def determinized_match(self, view: JSON, hidden: JSON) -> MpourlotoMatch:
        """A match continuing the current hand of ``view`` as the real one would, with ``hidden`` filled in.

        ``hidden`` keys:

        - ``"hands"`` (required): ``{seat: [cards]}`` for every seat whose hand ``view`` does not show (all four
          for a spectator's view), each with as many cards as ``view["hand_sizes"]`` says. Keys may be ints or
          strings. A consistent sample puts the ``turned_card`` in the dealer's hand until it is played, and
          declared meld cards in their owners' hands.
        - ``"stock"`` (during bidding and the exchange only): the 11 undealt cards in dealing order, top first;
          without it they are dealt in a fixed order, so bots that sample the stock should pass it shuffled.
        - ``"seed"`` (optional, default 0) and ``"decks"`` (optional): for the deals after this hand.

        The result has no history (``actions``, ``events`` and ``hand_results`` start empty).
        """
        return MpourlotoMatch.from_view(self, view, hidden)
