"""Host tasks: the work `reflect` hands to the calling model when the server has no model of its own,
and cycles that ran without any model (`code_only`: the new memories stay pending).

Revision ID: 0005
Revises: 0004
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
        CREATE TABLE host_tasks (
            id uuid PRIMARY KEY,
            user_id text NOT NULL,
            kind text NOT NULL CHECK (kind IN ('reflect', 'review', 'ingest')),
            status text NOT NULL CHECK (status IN ('open', 'answered', 'expired', 'replaced')),
            plan jsonb NOT NULL,
            created_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL,
            answered_at timestamptz,
            result jsonb
        )""")
    op.execute("CREATE INDEX ix_host_tasks_user ON host_tasks (user_id, status)")
    op.execute("ALTER TABLE reflection_cycles DROP CONSTRAINT reflection_cycles_status_check")
    op.execute(
        "ALTER TABLE reflection_cycles ADD CONSTRAINT reflection_cycles_status_check "
        "CHECK (status IN ('running', 'completed', 'failed', 'code_only'))"
    )


def downgrade() -> None:
    op.execute("DROP TABLE host_tasks")
    op.execute("ALTER TABLE reflection_cycles DROP CONSTRAINT reflection_cycles_status_check")
    op.execute(
        "ALTER TABLE reflection_cycles ADD CONSTRAINT reflection_cycles_status_check "
        "CHECK (status IN ('running', 'completed', 'failed'))"
    )
