"""A chat is a conversation between the user and an assistant (issue 51): what the assistant said is kept as a
memory of kind `reply` (reading/speakers.py), never read as the user's own; and the user's standing
instructions (`metadata.standing`, reading/standing.py) are recall's candidates for every query, found by a
partial index of their own (a user has a few; scanning a user's 100,000 rows for them would cost each recall).

Revision ID: 0018
Revises: 0017
"""

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE memories DROP CONSTRAINT IF EXISTS memories_kind_check")
    op.execute(
        "ALTER TABLE memories ADD CONSTRAINT memories_kind_check "
        "CHECK (kind IN ('fact', 'episodic', 'procedural', 'reply', 'trait'))"
    )
    op.execute(
        "CREATE INDEX IF NOT EXISTS ix_memories_instructions ON memories (user_id, told_at DESC)"
        " WHERE (metadata ->> 'standing') = 'instruction'"
    )


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_memories_instructions")
    op.execute("DELETE FROM memories WHERE kind = 'reply'")
    op.execute("ALTER TABLE memories DROP CONSTRAINT IF EXISTS memories_kind_check")
    op.execute(
        "ALTER TABLE memories ADD CONSTRAINT memories_kind_check "
        "CHECK (kind IN ('fact', 'episodic', 'procedural', 'trait'))"
    )
