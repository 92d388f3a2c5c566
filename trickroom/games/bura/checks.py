"""What a seat may say in a Bura match, checked before anything changes: an action as its canonical form, or an
:class:`~trickroom.games.base.IllegalAction` that says why not (with a catalog key for every language). Apart
from :mod:`trickroom.games.bura.match`, which calls them for what its fast paths do not recognise."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trickroom import cards
from trickroom.games.base import IllegalAction
from trickroom.games.bura.tables import CLAIM, CODES, ID_OF, PASS, announce_action, play_string

if TYPE_CHECKING:
    from trickroom.games.bura.match import BuraMatch


def check_action(match: BuraMatch, seat: int, action: str) -> str:
    """The canonical form of ``action`` if ``seat`` may take it now; otherwise raise IllegalAction."""
    if match.over:
        raise IllegalAction("The match is over.", key="illegal.over")
    if not isinstance(seat, int) or not 0 <= seat < match.n:
        raise IllegalAction(f"There is no seat {seat} at this table.", key="illegal.bura.no_seat", seat=seat)
    if not match.in_hand[seat]:
        raise IllegalAction("You are not playing in this hand.", key="illegal.bura.out_of_hand")
    if not isinstance(action, str) or not action.split():
        raise IllegalAction("Say what to do: play some cards, pass, announce a combination, or claim.",
                            key="illegal.bura.empty")
    verb, *rest = action.split()
    verb = verb.lower()
    if verb == CLAIM:
        if rest:
            raise IllegalAction("A claim takes no cards: just say claim.", key="illegal.bura.claim_args")
        return CLAIM
    if verb in (PASS, "announce"):
        return _check_answer(match, seat, verb, rest)
    if verb == "play":
        return _check_play(match, seat, rest)
    raise IllegalAction(f"Unknown action {verb!r}: play some cards, pass, announce a combination, or claim.",
                        key="illegal.bura.unknown", verb=verb)


def _check_answer(match: BuraMatch, seat: int, verb: str, rest: list[str]) -> str:
    if match.phase != "announce":
        raise IllegalAction("There is nothing to announce now: announcements come before a trick's lead.",
                            key="illegal.bura.no_announce")
    if seat not in match.pending:
        raise IllegalAction("You have already answered for this trick.", key="illegal.bura.answered")
    if verb == PASS:
        if rest:
            raise IllegalAction("Pass takes nothing after it.", key="illegal.bura.pass_args")
        return PASS
    if len(rest) != 1 or rest[0].lower() not in match.kinds:
        raise IllegalAction(f"Announce one of: {', '.join(match.kinds)}.", key="illegal.bura.kinds",
                            kinds=list(match.kinds))
    kind = rest[0].lower()
    if match.combos.get(seat) != kind:
        raise IllegalAction(f"You do not hold {kind}.", key="illegal.bura.kind_not_held", kind=kind)
    return announce_action(kind)


def _check_play(match: BuraMatch, seat: int, rest: list[str]) -> str:
    if match.phase == "announce":
        raise IllegalAction("First answer the announcement: pass, or announce your combination.",
                            key="illegal.bura.answer_first")
    if seat != match.turn:
        raise IllegalAction("It is not your turn to play.", key="illegal.bura.turn")
    try:
        played = [ID_OF[c] for c in cards.parse_cards(" ".join(rest))]
    except cards.CardError as error:
        raise IllegalAction(str(error), key=error.key, **error.params) from None
    if not played:
        raise IllegalAction("Say which cards to play.", key="illegal.bura.no_cards")
    if len(set(played)) != len(played):
        raise IllegalAction("You named the same card twice.", key="illegal.bura.twice")
    hand = match.hands[seat]
    missing = [CODES[c] for c in played if c not in hand]
    if missing:
        raise IllegalAction(f"You do not hold {', '.join(missing)}.", key="illegal.bura.not_held", cards=missing)
    canonical = play_string(tuple(sorted(played)))
    if canonical in match._moves:
        return canonical
    if match.trick:
        count = len(match.trick[0][1])
        raise IllegalAction(f"You must play exactly {count} card{'s' if count > 1 else ''}, as many as were led.",
                            key="illegal.bura.count", count=count)
    raise IllegalAction("A lead is one, two or three cards of one suit.", key="illegal.bura.lead")
