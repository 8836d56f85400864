"""Every memory keeps when the user said it (`told_at`), apart from when engrain stored it (`created_at`):
imported and ingested history is told in the past, and its relative dates are read against that time
(docs/SPEC.md §4). Rows stored before this migration were told when they were stored.

Revision ID: 0010
Revises: 0009
"""

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE memories ADD COLUMN told_at timestamptz")
    op.execute("UPDATE memories SET told_at = created_at")
    op.execute("ALTER TABLE memories ALTER COLUMN told_at SET DEFAULT now(), ALTER COLUMN told_at SET NOT NULL")
    # Recall measures recency from the user's latest told time: one index probe per recall.
    op.execute("CREATE INDEX memories_user_told ON memories (user_id, told_at)")


def downgrade() -> None:
    op.execute("ALTER TABLE memories DROP COLUMN told_at")
