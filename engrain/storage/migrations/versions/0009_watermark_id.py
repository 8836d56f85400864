"""The reflection watermark becomes (time, id): memories stored at one instant (a `remember_many` batch)
can be reflected on in parts, and a reflection that shows a model only some of the new memories moves
the watermark past exactly those (docs/SPEC.md §7).

Revision ID: 0009
Revises: 0008
"""

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE user_state ADD COLUMN last_reflected_id uuid")


def downgrade() -> None:
    op.execute("ALTER TABLE user_state DROP COLUMN last_reflected_id")
