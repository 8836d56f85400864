"""The queue of imported conversations a model has yet to read (issue 43): `engrain import-chats` stores the
rules' statements at once and queues each conversation, in pieces of bounded size, for a model's extraction —
the server's own in the background, else the calling model's, one piece a host task, oldest first. A piece's
row keeps the messages it shows (secrets already replaced), the provisional statements its extraction replaces,
and which of the conversation's messages it covers, so that importing the export again reads only what is new.
An extracted piece keeps its row without its messages.

Revision ID: 0017
Revises: 0016
"""

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
        CREATE TABLE chat_imports (
            user_id text NOT NULL,
            source text NOT NULL,
            piece integer NOT NULL,
            title text NOT NULL,
            messages jsonb NOT NULL,
            provisional uuid[] NOT NULL,
            upto integer NOT NULL,
            first_at timestamptz NOT NULL,
            last_at timestamptz NOT NULL,
            queued_at timestamptz NOT NULL,
            extracted_at timestamptz,
            PRIMARY KEY (user_id, source, piece)
        )""")
    op.execute(
        "CREATE INDEX ix_chat_imports_waiting ON chat_imports (user_id, first_at, source, piece) "
        "WHERE extracted_at IS NULL"
    )


def downgrade() -> None:
    op.execute("DROP TABLE chat_imports")
