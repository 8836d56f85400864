"""A user's own vocabulary: which words most of their memories share.

Read from a sample of the user's newest live memories, so the cost is bounded however many
they have: the newest first through `ix_memories_user_created`, split into words in SQL.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

SAMPLE = 500

# Words are what `[^[:alnum:]]+` separates in the indexed text (segmented for CJK), lower-cased: the
# same split as services/recall/focus.py applies to a query. Stop words (no lexeme in the memory's full-text
# configuration) are never "common": every text has them and leaving them out of a query would change
# its sense, not its focus.
_COMMON_WORDS = """
WITH sample AS (
    SELECT coalesce(m.search_text, m.content) AS words, m.ts_config FROM memories m
    WHERE m.user_id = :user AND (m.valid_until IS NULL OR m.valid_until > :now)
    ORDER BY m.created_at DESC
    LIMIT :sample
),
total AS (SELECT count(*) AS n FROM sample),
common AS MATERIALIZED (  -- materialized: the stop-word test below runs on these few words, not on every word
    SELECT w.word, count(*) AS docs, (array_agg(s.ts_config))[1] AS cfg
    FROM sample s CROSS JOIN LATERAL (
        SELECT DISTINCT lower(x) AS word FROM regexp_split_to_table(s.words, '[^[:alnum:]]+') AS x WHERE x <> ''
    ) w
    GROUP BY w.word
    HAVING count(*) >= CAST(:min_share AS float8) * (SELECT n FROM total)
)
SELECT t.n, c.word, c.docs::float8 / t.n AS share
FROM total t LEFT JOIN common c ON to_tsvector(c.cfg, c.word) <> ''::tsvector
ORDER BY share DESC NULLS LAST, c.word
"""


async def common_words(
    session: AsyncSession, user_id: str, now: datetime, min_share: float
) -> tuple[int, dict[str, float]]:
    """(memories sampled, {word: share of them containing it}) for the words in at least
    `min_share` of the user's newest SAMPLE live memories."""
    rows = (
        await session.execute(
            text(_COMMON_WORDS), {"user": user_id, "now": now, "sample": SAMPLE, "min_share": min_share}
        )
    ).all()
    sampled = int(rows[0].n) if rows else 0
    return sampled, {r.word: float(r.share) for r in rows if r.word is not None}
