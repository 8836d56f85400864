"""Only dates a person can mean: rows stored before the checks of issue 39 may hold a told time of the year 1
(stored by asyncpg as -infinity) or an event in the year 9999, which made every recall that met them fail.
An event time outside 1000–2999 becomes none (no date beats a wrong date); a told time before 1900 or in the
future becomes the time the row was stored (`created_at`), as for rows from before told times were kept.

Revision ID: 0014
Revises: 0013
"""

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

# The range as of this revision (reading/dates.py: EARLIEST_EVENT, LATEST_EVENT, EARLIEST_TOLD); a migration
# keeps its own copy so that it means the same thing should the range change.
EARLIEST_EVENT, LATEST_EVENT, EARLIEST_TOLD = "1000-01-01", "3000-01-01", "1900-01-01"


def upgrade() -> None:
    op.execute(
        f"UPDATE memories SET event_time = NULL WHERE event_time < '{EARLIEST_EVENT}' OR event_time >= '{LATEST_EVENT}'"
    )
    op.execute(
        "UPDATE memories SET told_at = created_at "
        f"WHERE told_at < '{EARLIEST_TOLD}' OR told_at > created_at + interval '1 day'"
    )


def downgrade() -> None:
    """The slips are gone for good; nothing to restore."""
