"""Vectors move out of `memories` into `memory_vectors` (storage/models.py: MemoryVector says why): a
memory's row changes often (access counts, archives, expiries, supersedes) and its vector never, but
every new version of a row holding an indexed vector was entered into the HNSW graph again.

The stored vectors are copied, each embedder's HNSW index is built once over the copies (faster than
growing it row by row), and the old per-embedder indexes and columns go. Space the dropped column held
is reused as rows are rewritten (`VACUUM FULL memories` returns it at once).

Revision ID: 0013
Revises: 0012
"""

from alembic import op
from sqlalchemy import text

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from engrain.storage.vector_index import vector_index_ddl

    bind = op.get_bind()
    op.execute(
        """
        CREATE TABLE memory_vectors (
            user_id text NOT NULL,
            id uuid NOT NULL,
            embedder text NOT NULL,
            embedding vector NOT NULL,
            PRIMARY KEY (user_id, id),
            FOREIGN KEY (user_id, id) REFERENCES memories (user_id, id) ON DELETE CASCADE
        )"""
    )
    op.execute(
        "INSERT INTO memory_vectors (user_id, id, embedder, embedding) SELECT user_id, id, embedder, embedding "
        "FROM memories WHERE embedder IS NOT NULL AND embedding IS NOT NULL"
    )
    stored = bind.execute(
        text("SELECT DISTINCT embedder, vector_dims(embedding) AS dim FROM memory_vectors ORDER BY 1, 2")
    ).all()
    for embedder_id, dim in stored:
        op.execute(vector_index_ddl(embedder_id, int(dim)))
    old = bind.execute(
        text(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'memories' "
            "AND indexname LIKE 'ix\\_memories\\_hnsw\\_%'"
        )
    ).scalars()
    for name in list(old):
        op.execute(f'DROP INDEX "{name}"')
    op.execute("ALTER TABLE memories DROP COLUMN embedding, DROP COLUMN embedder")
    op.execute("ANALYZE memory_vectors")


def downgrade() -> None:
    # The earlier code creates each embedder's index on `memories` at its first write.
    op.execute("ALTER TABLE memories ADD COLUMN embedding vector, ADD COLUMN embedder text")
    op.execute(
        "UPDATE memories m SET embedding = v.embedding, embedder = v.embedder FROM memory_vectors v "
        "WHERE v.user_id = m.user_id AND v.id = m.id"
    )
    op.execute("DROP TABLE memory_vectors")
