"""A memory that states a single-valued fact (where the user lives, where they work: reading/slots.py) keeps
its slot in metadata; a later memory of the same slot with another value replaces it. The writing path
looks the slot's live holders up by this index.

Revision ID: 0011
Revises: 0010
"""

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE INDEX memories_user_slot ON memories (user_id, (metadata ->> 'slot')) WHERE metadata ? 'slot'")


def downgrade() -> None:
    op.execute("DROP INDEX memories_user_slot")
