"""A queued piece of a coding session keeps its project (issue 62): the model's reading of it is kept in the
project's namespace (but for what is about the user, reading/projects.py) even when the rules kept nothing of it
there. Before, the project was inferred from the statements the rules kept, and a piece they kept none of went to
the default namespace. Rows queued before are given the project their kept statements were in.

Revision ID: 0022
Revises: 0021
"""

from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE chat_imports ADD COLUMN project text")
    op.execute(
        """
        UPDATE chat_imports c SET project = (
            SELECT min(m.namespace) FROM memories m
            WHERE m.user_id = c.user_id AND m.id = ANY(c.provisional) AND m.namespace LIKE 'project:%'
        )
        WHERE c.extracted_at IS NULL"""
    )


def downgrade() -> None:
    op.execute("ALTER TABLE chat_imports DROP COLUMN project")
