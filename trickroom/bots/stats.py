"""Small statistics for the arena: shares with 95% confidence intervals, and percentiles.

Duplicate deals make the hands of one deck strongly correlated (the same cards are played with the seats
rotated), so the unit of sampling is the deck, not the hand: each deck contributes a numerator (hands won, or
points taken) and a denominator (hands played, or all points), and the share is a ratio estimate over decks with
its delta-method standard error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z_95 = 1.959964


@dataclass(frozen=True)
class Share:
    value: float  # numerator total / denominator total
    low: float  # 95% confidence interval
    high: float
    samples: int  # decks

    def percent(self) -> str:
        return f"{100 * self.value:.1f}% [{100 * self.low:.1f}, {100 * self.high:.1f}]"


def ratio_share(numerators: Sequence[float], denominators: Sequence[float]) -> Share:
    """The share sum(numerators) / sum(denominators) with a 95% interval, treating each pair as one sample."""
    n = len(numerators)
    if n != len(denominators):
        raise ValueError("numerators and denominators differ in length")
    total_den = sum(denominators)
    if n == 0 or total_den == 0:
        return Share(0.0, 0.0, 1.0, n)
    ratio = sum(numerators) / total_den
    if n < 2:
        return Share(ratio, 0.0, 1.0, n)
    mean_den = total_den / n
    residual_sq = sum((x - ratio * y) ** 2 for x, y in zip(numerators, denominators, strict=True))
    std_error = math.sqrt(residual_sq / (n * (n - 1))) / mean_den
    return Share(ratio, max(0.0, ratio - Z_95 * std_error), min(1.0, ratio + Z_95 * std_error), n)


def ratio_difference(first: Sequence[float], second: Sequence[float], denominators: Sequence[float]) -> Share:
    """How far ``first``'s share is ahead of ``second``'s (negative: behind), with a 95% interval, each deck one
    sample. The two are paired (the same decks, the seats rotated), so the interval is narrower than the two
    shares' intervals side by side; it is not clipped (a lead runs from -1 to 1)."""
    if not len(first) == len(second) == len(denominators):
        raise ValueError("the sequences differ in length")
    n = len(first)
    total_den = sum(denominators)
    if n == 0 or total_den == 0:
        return Share(0.0, -1.0, 1.0, n)
    lead = (sum(first) - sum(second)) / total_den
    if n < 2:
        return Share(lead, -1.0, 1.0, n)
    mean_den = total_den / n
    residual_sq = sum((a - b - lead * y) ** 2 for a, b, y in zip(first, second, denominators, strict=True))
    std_error = math.sqrt(residual_sq / (n * (n - 1))) / mean_den
    return Share(lead, max(-1.0, lead - Z_95 * std_error), min(1.0, lead + Z_95 * std_error), n)


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` percentile (0..1) with linear interpolation; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    lower = math.floor(position)
    upper = min(lower + 1, len(ordered) - 1)
    weight = position - lower
    return ordered[lower] * (1 - weight) + ordered[upper] * weight
