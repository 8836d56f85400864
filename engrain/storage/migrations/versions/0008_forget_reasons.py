"""A forget keeps no free text: reasons stored before are replaced by the category 'user_request'.

A reason written in the user's words ("forget that I have diabetes") repeated what they asked to erase
in the history and in every export. From now on `forget` takes a category (reading/inputs.py,
FORGET_REASONS); this rewrites the rows written before.

Revision ID: 0008
Revises: 0007
"""

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


# The categories as of this revision (services/inputs.FORGET_REASONS); a migration keeps its own copy so
# that it means the same thing when the list grows.
CATEGORIES = ("user_request", "incorrect", "outdated", "duplicate", "private", "other")
# What the server itself writes on a forget row (storage/memories.SERVER_FORGET_REASONS): kept.
SERVER_REASONS = (
    "replaced by a forgotten memory",
    "retention: faded below the threshold",
    "replaced by the calling model''s extraction",
)


def upgrade() -> None:
    categories = ", ".join(f"'{c}'" for c in (*CATEGORIES, *SERVER_REASONS))
    op.execute(
        "UPDATE memory_history SET reason = 'user_request' "
        f"WHERE action = 'forget' AND (reason IS NULL OR reason NOT IN ({categories}))"
    )


def downgrade() -> None:
    """The words are gone for good; nothing to restore."""
