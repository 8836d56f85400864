"""A trait's history on the user's timeline (issue 52): each change records the user's clock when it was made
(`user_at`) beside the server's time (`at`), so that `get_user_traits(as_of=…)` and the profile as of a day of
an imported history show the traits as they stood then — by the server's time every trait was made on the day
of the import, and a history's days showed none.

Revision ID: 0019
Revises: 0018
"""

from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE memory_history ADD COLUMN IF NOT EXISTS user_at timestamptz")


def downgrade() -> None:
    op.execute("ALTER TABLE memory_history DROP COLUMN IF EXISTS user_at")
