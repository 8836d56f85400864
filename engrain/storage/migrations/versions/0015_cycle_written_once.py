"""A reflection cycle is written once, when it ends: its evidence rows point at it before it exists in the same
transaction, so their foreign key is checked at commit (DEFERRABLE INITIALLY DEFERRED). A cycle was inserted as
'running' and updated at its end, yet no one could see it running: the whole cycle is one transaction.

Revision ID: 0015
Revises: 0014
"""

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE trait_evidence ALTER CONSTRAINT trait_evidence_cycle_fkey DEFERRABLE INITIALLY DEFERRED")


def downgrade() -> None:
    op.execute("ALTER TABLE trait_evidence ALTER CONSTRAINT trait_evidence_cycle_fkey NOT DEFERRABLE")
