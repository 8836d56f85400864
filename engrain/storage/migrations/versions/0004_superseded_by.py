"""`memories.superseded_by`: which memory replaced this one.

Forgetting a memory forgets what it replaced too (the older wording of the same fact), so the
chain must be followable. Rows superseded before this migration get it from their history
("superseded by <id>").

Revision ID: 0004
Revises: 0003
"""

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE memories ADD COLUMN superseded_by uuid")
    op.execute("""
        UPDATE memories m SET superseded_by = h.new_id
        FROM (SELECT DISTINCT ON (memory_id) memory_id, user_id,
                     CAST(substring(reason FROM 'superseded by ([0-9a-f-]{36})') AS uuid) AS new_id
              FROM memory_history WHERE action = 'supersede' AND reason ~ 'superseded by [0-9a-f-]{36}'
              ORDER BY memory_id, at DESC) h
        WHERE m.id = h.memory_id AND m.user_id = h.user_id""")
    op.execute("CREATE INDEX ix_memories_superseded_by ON memories (superseded_by) WHERE superseded_by IS NOT NULL")


def downgrade() -> None:
    op.execute("ALTER TABLE memories DROP COLUMN superseded_by")
