"""Full text in every language: each memory's language, its text-search configuration and, for
Chinese, Japanese and Korean, the segmented text the index reads (see engrain/text/fulltext.py).

Existing rows are read once and given their language's form; the tsvector column is then built
again from the new expression (one rewrite of the table) and its GIN index recreated.

Revision ID: 0006
Revises: 0005
"""

from typing import Any

from alembic import op
from sqlalchemy import text

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

BATCH = 2000


def upgrade() -> None:
    from engrain.text.fulltext import form

    op.execute(
        "ALTER TABLE memories ADD COLUMN lang text NOT NULL DEFAULT 'en', "
        "ADD COLUMN ts_config regconfig NOT NULL DEFAULT 'english', ADD COLUMN search_text text"
    )
    bind = op.get_bind()
    rows = bind.execute(text("SELECT id, content FROM memories")).all()
    changed: list[dict[str, Any]] = []
    for row in rows:
        f = form(row.content)
        if (f.lang, f.ts_config, f.search_text) != ("en", "english", None):
            changed.append({"id": row.id, "lang": f.lang, "cfg": f.ts_config, "st": f.search_text})
    for start in range(0, len(changed), BATCH):
        bind.execute(
            text(
                "UPDATE memories SET lang = :lang, ts_config = CAST(:cfg AS regconfig), "
                "search_text = :st WHERE id = :id"
            ),
            changed[start : start + BATCH],
        )
    op.execute("ALTER TABLE memories DROP COLUMN tsv")
    op.execute(
        "ALTER TABLE memories ADD COLUMN tsv tsvector "
        "GENERATED ALWAYS AS (to_tsvector(ts_config, coalesce(search_text, content))) STORED"
    )
    op.execute("CREATE INDEX ix_memories_tsv ON memories USING gin (tsv)")


def downgrade() -> None:
    op.execute("ALTER TABLE memories DROP COLUMN tsv")
    op.execute(
        "ALTER TABLE memories ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED"
    )
    op.execute("CREATE INDEX ix_memories_tsv ON memories USING gin (tsv)")
    op.execute("ALTER TABLE memories DROP COLUMN lang, DROP COLUMN ts_config, DROP COLUMN search_text")
