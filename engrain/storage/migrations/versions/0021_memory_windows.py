"""A long memory's windows and their vectors (issue 60; engrain/text/windows.py says why): recall meets the sentence
that answers inside a long reply. Written by the background pass that embeds (services/memories/reembedding.py),
which also gives the memories stored before this revision theirs; each embedder's HNSW index is made by the first
write of its windows (storage/vector_index.py).

Revision ID: 0021
Revises: 0020
"""

from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE memory_windows (
            user_id text NOT NULL,
            id uuid NOT NULL,
            window_no smallint NOT NULL,
            embedder text NOT NULL,
            embedding vector NOT NULL,
            PRIMARY KEY (user_id, id, window_no),
            FOREIGN KEY (user_id, id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        )"""
    )


def downgrade() -> None:
    op.execute("DROP TABLE memory_windows")
