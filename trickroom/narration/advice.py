"""What the hard bot advises, said: a hint in one sentence with its reason in the game's terms, and the review of a
hand, one sentence per decision (the data comes from trickroom/bots/advice.py).

A hint's template is the game's (``hint.<game>.<reason>`` in bura.po or mpourloto.po); its parameters are the
advice's facts said as words (cards, suits, combinations: ``refusals.words``) and, where the reason leaves the
choice to the search, the search's outlook ("about 62% chance of winning the hand", "your team should end this
hand about 40 points ahead"). The review's sentences and the fallbacks are the room's (room.po).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trickroom.bots.advice import POINTS, WIN, Advice
from trickroom.narration import capitalized, template, translate
from trickroom.narration.refusals import action_text, words

# Reasons whose sentence carries the search's outlook ({outlook}); the others are settled by the rules or the count.
WITH_OUTLOOK = frozenset({"lead", "follow", "beat", "throw", "estimate", "play", "bid_accept", "bid_name", "bid_pass"})
COUNTED = ("points",)  # the fact that picks a hint's plural form


def percent(value: float) -> int:
    return round(100 * value)


def outlook(game: str, unit: str, value: float, lang: str) -> str:
    """The search's expectation for the chosen move, as a phrase."""
    if unit == WIN:
        return translate(f"hint.{game}.outlook", lang, game, percent=percent(value))
    points = round(abs(value))
    if points == 0:
        return translate(f"hint.{game}.outlook.level", lang, game)
    side = "ahead" if value > 0 else "behind"
    return translate(f"hint.{game}.outlook.{side}", lang, game, plural=points, points=points)


def hint_text(game: str, advice: Advice, lang: str) -> str:
    """One sentence: what to do and why."""
    facts = dict(advice.facts)
    key = f"hint.{game}.{advice.reason}"
    needs_outlook = advice.reason in WITH_OUTLOOK
    if template(key, lang, game) is None or (needs_outlook and "value" not in facts):
        return translate("hint.choice", lang, action=action_text(advice.action, lang))
    params: dict[str, Any] = words({k: v for k, v in facts.items() if k not in ("value", "top", "led")}, lang)
    if "top" in facts:  # the card to beat
        top = words({"card": facts["top"]}, lang)
        params["top"], params["top_acc"] = top["card"], top["card_acc"]
    if "led" in facts:
        params["led"] = words({"suit": facts["led"]}, lang)["suit"]
    params["action_cap"] = capitalized(action_text(advice.action, lang))
    if needs_outlook:
        params["outlook"] = outlook(game, advice.unit, float(facts["value"]), lang)
    count = next((int(facts[name]) for name in COUNTED if isinstance(facts.get(name), int)), None)
    return translate(key, lang, game, plural=count, **params)


def where(context: dict[str, Any], lang: str) -> str:
    """The moment of a decision: "Trick 3", "Before trick 3" (Bura's announcements), "Bidding"."""
    phase = str(context.get("phase", "play"))
    if phase in ("play", "announce"):
        return translate(f"review.where.{phase}", lang, trick=context.get("trick", 1))
    return translate(f"review.where.{phase}" if template(f"review.where.{phase}", lang) else "review.where.other",
                     lang)


def loss_amount(unit: str, loss: float) -> int:
    return percent(loss) if unit == WIN else round(loss)


def review_item_text(item: dict[str, Any], lang: str) -> str:
    """One reviewed decision: where, what was chosen, what the hard bot prefers and what the choice cost."""
    amount = loss_amount(str(item["unit"]), float(item["loss"]))
    key = "review.item.win" if item["unit"] == WIN else "review.item.points"
    return translate(key, lang, plural=amount if item["unit"] == POINTS else None, where=where(item["context"], lang),
                     played=action_text(str(item["played"]), lang), better=action_text(str(item["better"]), lang),
                     loss=amount)


def review_summary(hand: int, items: Sequence[dict[str, Any]], lang: str) -> str:
    if not items:
        return translate("review.none", lang, hand=hand)
    return translate("review.summary", lang, plural=len(items), hand=hand, count=len(items))
