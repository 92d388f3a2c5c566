"""What ``bench/load.py`` prints of its runs: latency quantiles, one play run's figures (``PlayResult``) and the
runs at one client count side by side (one node, several nodes)."""

from __future__ import annotations

from dataclasses import dataclass

from loadgen.fullspeed import Stats


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def latency_line(label: str, values: list[float]) -> str:
    return (f"{label}: p50 {quantile(values, 0.5) * 1000:.1f} ms, p99 {quantile(values, 0.99) * 1000:.1f} ms, "
            f"max {max(values, default=float('nan')) * 1000:.1f} ms ({len(values)} samples)")


@dataclass
class PlayResult:
    """One play run's figures, for the detailed report and for the side-by-side table."""

    title: str
    clients: int
    ready: float  # seconds to connect, sign in and seat everyone
    elapsed: float
    stats: Stats
    node_cpu: dict[str, float]  # node label -> mean share of one core during play
    node_memory: dict[str, tuple[float, float, float]]  # node label -> MB idle, when seated, at the end
    client_cpu: float
    failure: str = ""  # why the run stopped before its figures, if it did


def side_by_side(results: list[PlayResult]) -> None:
    """The runs at one N in one table, one column each."""
    def ms(values: list[float], q: float | None) -> str:
        value = max(values, default=float("nan")) if q is None else quantile(values, q)
        return f"{value * 1000:.0f} ms"

    rows: list[tuple[str, list[str]]] = [
        ("clients", [str(r.clients) for r in results]),
        ("seconds of play", [f"{r.elapsed:.1f}" for r in results]),
        ("actions per second", [f"{r.stats.actions / r.elapsed:.0f}" for r in results]),
        ("action to broadcast p50", [ms(r.stats.latencies, 0.5) for r in results]),
        ("action to broadcast p99", [ms(r.stats.latencies, 0.99) for r in results]),
        ("action to broadcast max", [ms(r.stats.latencies, None) for r in results]),
        ("errors during play", [str(sum(r.stats.errors.values())) for r in results]),
        ("errors while seating", [str(sum(r.stats.setup_errors.values())) for r in results]),
        ("seating time", [f"{r.ready:.0f} s" for r in results]),
        ("server CPU, all nodes", [f"{sum(r.node_cpu.values()) * 100:.0f}% of a core" for r in results]),
        ("server memory at the end", [f"{sum(m[2] for m in r.node_memory.values()):.0f} MB" for r in results]),
        ("load generator CPU", [f"{r.client_cpu * 100:.0f}% of a core" for r in results]),
    ]
    for index, result in enumerate(results):  # a failed run's column says so instead of showing figures
        if result.failure:
            for label, cells in rows[1:]:
                cells[index] = "failed" if label == "actions per second" else "-"
    titles = [r.title for r in results]
    widths = [max(len(title), *(len(row[1][i]) for row in rows)) for i, title in enumerate(titles)]
    label_width = max(len(label) for label, _ in rows)
    print("\n" + " " * label_width + "   " + "   ".join(t.rjust(w) for t, w in zip(titles, widths, strict=True)))
    for label, cells in rows:
        print(label.ljust(label_width) + "   " + "   ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True)))
