"""The page's two charts, as geometry for inline SVG (drawn by the templates, nothing fetched): a trait's
confidence over time, and memories told per week. Pure functions of the numbers: testable, no JavaScript."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

WIDTH, HEIGHT, PAD = 640, 160, 28


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    label: str  # what the point says, for its <title> (a tooltip and what a screen reader reads)


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    points: list[Point]
    bars: list[Bar]
    first: str  # the x axis' first and last labels
    last: str
    top: str  # the y axis' top label

    @property
    def polyline(self) -> str:
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)


def _x(at: datetime, start: datetime, span: float) -> float:
    return PAD + (WIDTH - 2 * PAD) * ((at - start).total_seconds() / span if span else 0.5)


def _y(confidence: float) -> float:
    return HEIGHT - PAD - (HEIGHT - 2 * PAD) * max(0.0, min(1.0, confidence))


def confidence(points: list[tuple[datetime, float, str]]) -> Chart | None:
    """A trait's confidence (0–1) at each change that recorded one: (when, confidence, what changed)."""
    if not points:
        return None
    start, end = points[0][0], points[-1][0]
    span = (end - start).total_seconds()
    plotted = [Point(_x(at, start, span), _y(c), f"{at.date()}: {c:.2f} ({why})") for at, c, why in points]
    return Chart(WIDTH, HEIGHT, plotted, [], start.date().isoformat(), end.date().isoformat(), "1.0")


def weekly(weeks: list[tuple[datetime, int]]) -> Chart | None:
    """Memories told per week: one bar a week that has any, placed on a time axis."""
    if not weeks:
        return None
    start, end = weeks[0][0], weeks[-1][0]
    span = (end - start).total_seconds()
    most = max(n for _, n in weeks)
    slot = (WIDTH - 2 * PAD) / max(1, round(span / (7 * 86400)) + 1)
    width = max(2.0, min(24.0, slot * 0.8))
    bars: list[Bar] = []
    for at, n in weeks:
        h = (HEIGHT - 2 * PAD) * n / most
        x = _x(at, start, span) - width / 2 if span else WIDTH / 2 - width / 2
        bars.append(Bar(max(PAD / 2, x), HEIGHT - PAD - h, width, h, f"week of {at.date()}: {n}"))
    return Chart(WIDTH, HEIGHT, [], bars, start.date().isoformat(), end.date().isoformat(), str(most))
