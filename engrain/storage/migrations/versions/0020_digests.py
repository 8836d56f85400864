"""Topic digests (issue 60, part 2): a memory of kind `digest` holds what the user told about one thing over months,
written by a model in a reflection, linked (`summarizes`) to the memories it draws on (rules/digests.py).

Revision ID: 0020
Revises: 0019
"""

from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE memories DROP CONSTRAINT IF EXISTS memories_kind_check")
    op.execute(
        "ALTER TABLE memories ADD CONSTRAINT memories_kind_check "
        "CHECK (kind IN ('fact', 'episodic', 'procedural', 'reply', 'trait', 'digest'))"
    )


def downgrade() -> None:
    op.execute("DELETE FROM memories WHERE kind = 'digest'")
    op.execute("ALTER TABLE memories DROP CONSTRAINT IF EXISTS memories_kind_check")
    op.execute(
        "ALTER TABLE memories ADD CONSTRAINT memories_kind_check "
        "CHECK (kind IN ('fact', 'episodic', 'procedural', 'reply', 'trait'))"
    )
