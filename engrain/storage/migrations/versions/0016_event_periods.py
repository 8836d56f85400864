"""When a thing happened is a period at the precision the user gave (issue 41): `event_end` (exclusive) and
`event_grain` (day, week, month, season, year, span) beside `event_time`, its start.

Rows stored before get a grain from the words that gave their date (`metadata.date_text`), read with this
revision's own copy of the rules (reading/periods.grain_of as of now); a date a client gave, with no words,
is a day. Their end is left empty: the period is the one of that grain that holds `event_time` in the user's
zone (reading/periods.Period.stored), which only Python knows; a new row stores its end.

Revision ID: 0016
Revises: 0015
"""

from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

_MONTHS = (
    "jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|januar|februar|märz|mai|juni|juli|oktober|dezember|enero|"
    "febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|janvier|février|mars|avril|"
    "juin|juillet|août|septembre|octobre|novembre|décembre"
)
_DAY = (
    r"\m\d{1,2}(st|nd|rd|th)?\M|\d{4}-\d{2}-\d{2}|yesterday|today|tonight|tomorrow|\mdays?\M|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday|gestern|heute|morgen|\mtag|ayer|hoy|mañana|\mdía|hier|aujourd|"
    r"demain|\mjour|[日号天晚]|周[一二三四五六日]|星期.|礼拜."
)
_SEASONS = (
    "spring|summer|autumn|fall|winter|frühling|sommer|herbst|verano|invierno|otoño|primavera|été|hiver|automne"
    "|printemps|[春夏秋冬][天季]"
)
_MONTH_WORDS = f"\\mmonths?\\M|\\mmonat|\\mmes(es)?\\M|\\mmois\\M|\\m({_MONTHS})|月"
_YEAR_WORDS = "\\myears?\\M|\\mjahr|\\maños?\\M|\\mann[ée]es?\\M|\\mans\\M|年(前|底|初)?$"
_WEEK_WORDS = "\\mweeks?\\M|woche|semana|semaine|(周|星期|礼拜)([^一二三四五六日天末]|$)"
_GRAIN = f"""
CASE
    WHEN t ~* 'weekend|wochenende|fin de semana|week-end|周末' THEN 'span'
    WHEN t ~* '{_SEASONS}' THEN 'season'
    WHEN t ~* '^\\s*(in\\s+)?(1[89]|20)\\d\\d\\s*(年)?\\s*$'
        OR (t ~* '{_YEAR_WORDS}' AND t !~* '{_DAY}' AND t !~* '{_MONTH_WORDS}') THEN 'year'
    WHEN t ~* '{_MONTH_WORDS}' AND t !~* '{_DAY}' THEN 'month'
    WHEN t ~* '{_WEEK_WORDS}' AND t !~* '{_DAY}' THEN 'week'
    ELSE 'day'
END"""


def upgrade() -> None:
    op.execute(
        "ALTER TABLE memories ADD COLUMN IF NOT EXISTS event_end timestamptz, "
        "ADD COLUMN IF NOT EXISTS event_grain text "
        "CHECK (event_grain IN ('day', 'week', 'month', 'season', 'year', 'span'))"
    )
    op.execute(
        f"UPDATE memories SET event_grain = (SELECT {_GRAIN} FROM (SELECT lower(coalesce(metadata ->> 'date_text', ''))"
        " AS t) w) WHERE event_time IS NOT NULL AND event_grain IS NULL"
    )


def downgrade() -> None:
    op.execute("ALTER TABLE memories DROP COLUMN IF EXISTS event_end, DROP COLUMN IF EXISTS event_grain")
