"""When a thing happened, at the precision the user gave it: a period of the calendar, never a guessed day.

"Last month", told on 2023-01-01, is December 2022 — a month, not 2022-12-01: shown as a day, a model reads it as
the day the user spoke and shifts "last month" again (issue 41). A period is a day, a week (Monday to Monday), a
month, a season (meteorological, northern hemisphere), a year, or a span between two days (a weekend, a range
given as such). Its `start` is what the `event_time` column holds; `end` is exclusive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from enum import StrEnum

from engrain.reading.calendar_words import FULL_WEEKDAYS, MONTHS


class Grain(StrEnum):
    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    SEASON = "season"
    YEAR = "year"
    SPAN = "span"


GRAINS = tuple(str(g) for g in Grain)

# What an output field says, in every result that carries a memory's event.
HAPPENED = (
    "When it happened, at the precision the user gave: 2022-12-05 (a day), week of 2022-11-28, 2022-12 (a month), "
    "summer 2022, 2022 (a year) or 2022-12-03..2022-12-04 (a span); null when the words give no date."
)
GRAIN = "How precise `happened` is: day, week, month, season, year or span."
_SEASON_NAMES = {3: "spring", 6: "summer", 9: "autumn", 12: "winter"}


def _midnight(when: datetime) -> datetime:
    return when.replace(hour=0, minute=0, second=0, microsecond=0)


def _next_month(day: datetime, months: int = 1) -> datetime:
    month = day.month - 1 + months
    return day.replace(year=day.year + month // 12, month=month % 12 + 1, day=1)


@dataclass(frozen=True)
class Period:
    """[start, end) in the user's zone, of one grain."""

    start: datetime
    end: datetime
    grain: Grain

    @classmethod
    def containing(cls, when: datetime, grain: Grain) -> Period:
        """The day, week, month, season or year `when` falls in (a span is made with `between`)."""
        day = _midnight(when)
        if grain is Grain.WEEK:
            monday = day - timedelta(days=day.weekday())
            return cls(monday, monday + timedelta(days=7), grain)
        if grain is Grain.MONTH:
            first = day.replace(day=1)
            return cls(first, _next_month(first), grain)
        if grain is Grain.SEASON:
            first = day.replace(day=1, month=(day.month // 3 * 3) or 12)
            if day.month < 3:  # January and February are the winter that began in December
                first = first.replace(year=day.year - 1)
            return cls(first, _next_month(first, 3), grain)
        if grain is Grain.YEAR:
            first = day.replace(month=1, day=1)
            return cls(first, first.replace(year=first.year + 1), grain)
        return cls(day, day + timedelta(days=1), Grain.DAY)

    @classmethod
    def between(cls, first: datetime, last: datetime) -> Period:
        """The days from `first` to `last`, both included."""
        return cls(_midnight(first), _midnight(last) + timedelta(days=1), Grain.SPAN)

    @classmethod
    def stored(
        cls, start: datetime | None, end: datetime | None, grain: str | None, tz: tzinfo | None
    ) -> Period | None:
        """A row's period (`event_time`, `event_end`, `event_grain`). A row from before periods were kept has a
        grain and no end (migration 0016): the period of that grain holding its start in the user's zone `tz`;
        one with neither is a day."""
        if start is None:
            return None
        kind = Grain(grain) if grain in GRAINS else Grain.DAY
        if end is None or end <= start:
            local = start.astimezone(tz) if tz else start.astimezone()
            return cls.containing(local, kind if kind is not Grain.SPAN else Grain.DAY)
        return cls(start, end, kind)

    def local(self, tz: tzinfo | None) -> Period:
        """The same period read in `tz` (the machine's zone when None)."""
        return Period(self.start.astimezone(tz), self.end.astimezone(tz), self.grain)

    def label(self, tz: tzinfo | None = None) -> str:
        """The period as a model reads it: 2022-12-05 · week of 2022-11-28 · 2022-12 · winter 2022–23 ·
        2022 · 2022-12-03..2022-12-04."""
        start = (self.start.astimezone(tz) if tz else self.start.astimezone()).date()
        last = ((self.end.astimezone(tz) if tz else self.end.astimezone()) - timedelta(days=1)).date()
        if self.grain is Grain.WEEK:
            return f"week of {start.isoformat()}"
        if self.grain is Grain.MONTH:
            return f"{start.year:04d}-{start.month:02d}"
        if self.grain is Grain.SEASON:
            name = _SEASON_NAMES.get(start.month, "season")
            return f"winter {start.year}–{str(start.year + 1)[-2:]}" if start.month == 12 else f"{name} {start.year}"
        if self.grain is Grain.YEAR:
            return f"{start.year:04d}"
        if self.grain is Grain.SPAN and last > start:
            return f"{start.isoformat()}..{last.isoformat()}"
        return start.isoformat()


_SEASON_WORD = re.compile(
    r"\b(?:spring|summer|autumn|fall|winter)\b|frühling|sommer|herbst|verano|invierno|otoño|primavera|été|hiver"
    r"|automne|printemps|[春夏秋冬]天|[春夏秋冬]季",
    re.IGNORECASE,
)
_YEAR_WORD = re.compile(
    r"\byears?\b|\bjahr|\baños?\b|\bann[ée]es?\b|\bun\s+an\b|\bans\b|年(?:前|底|初)?$", re.IGNORECASE
)
_A_YEAR = re.compile(r"(?<!\d)(?:1[89]|20)\d\d(?!\d)")
_BARE_YEAR = re.compile(r"(?:in\s+|im\s+jahr\s+|en\s+)?(?:1[89]|20)\d\d(?:\s*年)?", re.IGNORECASE)
_OTHER_MONTHS = (
    "januar|februar|märz|april|mai|juni|juli|august|september|oktober|november|dezember"
    "|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre"
    "|janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre"
)
_MONTH_WORD = re.compile(
    rf"\bmonths?\b|\bmonat|\bmes(?:es)?\b|\bmois\b|\b(?:{MONTHS}|may|{_OTHER_MONTHS})\b|月", re.IGNORECASE
)
_WEEK_WORD = re.compile(r"\bweeks?\b|woche|semana|semaine|(?:周|星期|礼拜)(?![一二三四五六日天末])", re.IGNORECASE)
_WEEKEND_WORD = re.compile(r"\bweekend\b|wochenende|fin de semana|week-end|周末", re.IGNORECASE)
_DAY_WORD = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\b(?!\s*(?:years?|months?|weeks?|jahr|monat|woche))|\d{{4}}-\d{{2}}-\d{{2}}"
    rf"|yesterday|today|tonight|tomorrow|\bdays?\b|{FULL_WEEKDAYS}|gestern|heute|morgen|\btag"
    r"|ayer|hoy|mañana|\bdía|hier|aujourd|demain|\bjour|[日号天晚]|周[一二三四五六日]|星期.|礼拜.",
    re.IGNORECASE,
)


def grain_of(phrase: str) -> Grain:
    """How precise the date phrase a text gave is: "last summer" a season, "in 2019" a year, "last month" and
    "in March" a month, "two weeks ago" a week, "last weekend" a span, "yesterday" or "March 3" a day."""
    p = phrase.strip().lower()
    if _WEEKEND_WORD.search(p):
        return Grain.SPAN
    if _SEASON_WORD.search(p):
        return Grain.SEASON
    has_day = _DAY_WORD.search(p) is not None
    yearly = _YEAR_WORD.search(p) or _A_YEAR.search(p)  # "in 2019", "seit 2019", "2019年"
    if _BARE_YEAR.fullmatch(p) or (yearly and not has_day and not _MONTH_WORD.search(p)):
        return Grain.YEAR
    if _MONTH_WORD.search(p) and not has_day:
        return Grain.MONTH
    if _WEEK_WORD.search(p) and not has_day:
        return Grain.WEEK
    return Grain.DAY


def period_of(when: datetime, phrase: str | None) -> Period:
    """The period a date read from `phrase` stands for (a weekend: its Saturday and Sunday)."""
    grain = grain_of(phrase) if phrase else Grain.DAY
    if grain is Grain.DAY:  # from the time the words gave, if any ("Sunday evening": 18:00)
        return Period(when, Period.containing(when, Grain.DAY).end, Grain.DAY)
    if grain is Grain.SPAN:
        saturday = _midnight(when) - timedelta(days=(_midnight(when).weekday() - 5) % 7)
        return Period.between(saturday, saturday + timedelta(days=1))
    return Period.containing(when, grain)


def happened_label(start: datetime | None, end: datetime | None, grain: str | None, tz: tzinfo | None) -> str | None:
    """A row's event as `happened` shows it (None without one)."""
    period = Period.stored(start, end, grain, tz)
    return period.label(tz) if period is not None else None
