"""A trait's stage and confidence after each change, in its history row, so that
`get_user_traits(as_of=…)` can say what engrain believed at any moment.

Rows written before this migration carry no stage: a trait whose history has none yet is
left out of an `as_of` answer until its next recorded change.

Revision ID: 0003
Revises: 0002
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE memory_history ADD COLUMN stage text, ADD COLUMN confidence double precision")


def downgrade() -> None:
    op.execute("ALTER TABLE memory_history DROP COLUMN stage, DROP COLUMN confidence")
