"""Date phrases in any language dateparser knows, found with dateparser's own vocabulary.

Measured (base 2026-11-22): `dateparser.parse` reads a date phrase on its own in German, Spanish,
French or Chinese ("la semana pasada", "le mois prochain", "Nächsten Monat", "下个月",
"2024年3月3日"), but `search_dates` over a whole sentence misses most of them and invents others:
"La semana pasada fui a Madrid con mi hermana" → only "mi" (read as miércoles), "Le mois prochain
je déménage à Lyon" → only "je" (jeudi), "我上周三去了北京出差" → only 上周. So the phrases are found
here with a pattern built from the language's dateparser data (its relative phrases such as
"gestern" or "el mes pasado", its "vor 3 Tagen" patterns, its month and weekday names), and each
phrase is handed to `dateparser.parse`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from functools import lru_cache
from typing import Any

from engrain.reading.date_library import library

# Relative phrases about hours, minutes and seconds ("jetzt", "ahora") are the moment of speaking, not a date.
_CLOCK_UNITS = ("hour", "minute", "second")
_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Short names ("mi" for miércoles, "je" for jeudi) are everyday words: only names this long count alone.
_MIN_NAME = 4
SETTINGS = {"RETURN_AS_TIMEZONE_AWARE": False, "PREFER_DAY_OF_MONTH": "first"}


def _info(lang: str) -> dict[str, Any] | None:
    library()  # imported once, behind one lock (date_library.py)
    from dateparser.languages import default_loader

    try:
        return default_loader.get_locale(lang).info
    except (ValueError, KeyError):
        return None


@lru_cache(maxsize=64)
def phrase_pattern(lang: str) -> re.Pattern[str] | None:
    """A pattern of the language's date phrases (None when dateparser does not know the language)."""
    info = _info(lang)
    if info is None:
        return None
    spaced = not info.get("no_word_spacing", False)
    minimum = _MIN_NAME if spaced else 1
    literal = [
        p
        for key, phrases in info.get("relative-type", {}).items()
        if not any(unit in key for unit in _CLOCK_UNITS)
        for p in phrases
        if len(p) >= 2
    ]
    patterns = [
        p
        for key, found in info.get("relative-type-regex", {}).items()
        if not any(unit in key for unit in _CLOCK_UNITS)
        for p in found
    ]
    months = [n for m in _MONTHS for n in info.get(m, []) if len(n) >= minimum]
    weekdays = [n for d in _WEEKDAYS for n in info.get(d, []) if len(n) >= minimum]
    alternatives = [re.escape(p) for p in sorted(literal, key=len, reverse=True)]
    alternatives += [p.replace("++", "+").replace("*+", "*") for p in patterns]
    if months:
        names = "|".join(re.escape(n) for n in sorted(months, key=len, reverse=True))
        alternatives.append(rf"(?:\d{{1,2}}\.?\s*(?:de\s+)?)?(?:{names})(?:\s*(?:de\s+)?\d{{4}})?")
    if weekdays:
        alternatives += [re.escape(n) for n in sorted(weekdays, key=len, reverse=True)]
    alternatives.append(r"\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{2,4}")
    body = "|".join(f"(?:{a})" for a in alternatives)
    return re.compile(rf"(?<!\w)(?:{body})(?!\w)" if spaced else f"(?:{body})", re.IGNORECASE)


@lru_cache(maxsize=64)
def month_names(lang: str) -> frozenset[str]:
    """The language's month names as dateparser knows them, lower-cased."""
    info = _info(lang) or {}
    return frozenset(n.lower() for m in _MONTHS for n in info.get(m, []))


def find(
    content: str,
    lang: str,
    local_now: datetime,
    prefer_past: bool,
    is_date: Callable[[int, str], bool] = lambda start, phrase: True,
) -> tuple[datetime, str, int] | None:
    """The first date phrase of `content` that dateparser reads and `is_date(start, phrase)` accepts:
    (date in `local_now`'s zone, phrase, start)."""
    pattern = phrase_pattern(lang)
    if pattern is None:
        return None
    library()  # imported once, behind one lock (date_library.py)
    import dateparser  # heavy import, deferred off the start-up path

    settings = {
        **SETTINGS,
        "RELATIVE_BASE": local_now.replace(tzinfo=None),
        "PREFER_DATES_FROM": "past" if prefer_past else "future",
    }
    for m in pattern.finditer(content):
        if not is_date(m.start(), m.group(0)):
            continue
        try:
            value = dateparser.parse(m.group(0), languages=[lang], settings=settings)
        except Exception:  # dateparser can trip on odd unicode; a date is a bonus, never a failure
            value = None
        if value is not None:
            return value.replace(tzinfo=local_now.tzinfo), m.group(0), m.start()
    return None
