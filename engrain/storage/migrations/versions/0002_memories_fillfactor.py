"""Leave room on each memories page so that recall's access-count updates are HOT.

An update that fits on its page and changes no indexed column (access_count and
last_accessed_at are in no index) skips every index, the HNSW one included; on a full
page each access count would add a new entry to the HNSW, GIN and B-tree indexes.

Revision ID: 0002
Revises: 0001
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE memories SET (fillfactor = 90)")


def downgrade() -> None:
    op.execute("ALTER TABLE memories RESET (fillfactor)")
