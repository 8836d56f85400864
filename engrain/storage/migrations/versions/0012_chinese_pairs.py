"""Chinese memories written before issue 27 were indexed by jieba's words only; their index form now
also holds the character pairs of what jieba did not know (engrain/text/fulltext.py: chinese_words), so
a name or colloquial word it cuts wrongly matches in old memories as in new ones. The generated tsvector
follows `search_text` by itself; rows are read and written in batches by id, Chinese rows only, in
the primary key's order.

Revision ID: 0012
Revises: 0011
"""

from alembic import op
from sqlalchemy import text

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

BATCH = 2000


def upgrade() -> None:
    from engrain.text.fulltext import form

    bind = op.get_bind()
    after: dict[str, object] = {"u": "", "i": "00000000-0000-0000-0000-000000000000"}
    while True:
        rows = bind.execute(
            text(
                "SELECT user_id, id, content, search_text FROM memories "
                "WHERE (user_id, id) > (:u, CAST(:i AS uuid)) AND lang = 'zh' ORDER BY user_id, id LIMIT :n"
            ),
            {**after, "n": BATCH},
        ).all()
        if not rows:
            return
        after = {"u": rows[-1].user_id, "i": str(rows[-1].id)}
        changed = [
            {"u": row.user_id, "i": row.id, "st": st}
            for row in rows
            if (st := form(row.content, "zh").search_text) != row.search_text
        ]
        if changed:
            bind.execute(text("UPDATE memories SET search_text = :st WHERE user_id = :u AND id = :i"), changed)


def downgrade() -> None:
    """The pairs are extra terms: an older engrain reads the richer form as it reads its own."""
