"""The recall statement (docs/SPEC.md §6): candidates, scoring and 1-hop link expansion in one query.

Candidates are the union of the HNSW top-N by cosine (only rows of the current
embedder: vectors of two models are never compared) and the full-text matches
(every embedder, so rows awaiting a reindex stay findable by text). Each candidate
is scored with the SPEC formula in SQL; the best `limit` are returned together with
up to 3 memories linked to them, and each row's own links.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import RowMapping, TextClause, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from engrain.reading.metadata import Key
from engrain.reading.speakers import REPLY
from engrain.rules import plans
from engrain.rules.recall import (
    BRIDGE_SEEDS,
    BRIDGE_WEIGHT,
    DIVERSITY_POOL_MIN,
    LINK_EXPANSION,
    RARE_WORD_FREQ,
    STANDING_CANDIDATES,
    penalty_sql,
    recency_exponent_sql,
    redundancy_sql,
    reply_weight,
    score_sql,
    slot_sql,
    standing_scale,
    standing_sql,
    temporal_sql,
)
from engrain.rules.traits import RECALLED_STAGES, recall_boost_sql
from engrain.storage.sqltext import memory_behind, memory_passes, safe_exp, sql_literal, vector_literal
from engrain.storage.timeline import user_now_sql
from engrain.text.fulltext import QueryForm

# The query's words, prepared like a memory's (engrain/text/fulltext.py): its language's configuration
# and, for CJK, its segmented text. Parameters, so the statement's text stays the same for every language.
QUERY_TSQUERY = "websearch_to_tsquery(CAST(:qcfg AS regconfig), :qtext)"


# Word rarity comes from the planner's statistics of the tsvector column (most common elements and
# their frequencies, refreshed by ANALYZE): no per-query counting. They are read apart (`word_rarity`,
# cached by the service) and passed as two arrays, so that no recall pays for reading pg_stats. A word
# not among the most common elements is rarer than all of them; with no statistics yet every word
# weighs the same.
# Without a query vector (no model, or one that does not know the query's language) every query word
# brings candidates, not only the rare ones: words are then all recall has.
def _lexeme_ctes(rare_freq: float) -> str:
    return f"""
    stats AS (SELECT s.lexeme, s.freq FROM unnest(CAST(:stat_words AS text[]), CAST(:stat_freqs AS float8[]))
              AS s(lexeme, freq)),
    rarest AS (SELECT coalesce(min(freq) / 2, 0.001) AS freq FROM stats),
    lex AS (
        SELECT w.lexeme, CAST(quote_literal(w.lexeme) AS tsquery) AS tq, coalesce(st.freq, r.freq) AS freq,
               ln(1.0 / greatest(1e-6, least(1.0, coalesce(st.freq, r.freq)))) + 0.1 AS idf
        FROM unnest(to_tsvector(CAST(:qcfg AS regconfig), :qterms)) AS w CROSS JOIN rarest r
        LEFT JOIN stats st ON st.lexeme = w.lexeme),
    lexsum AS (SELECT nullif(sum(idf), 0) AS total FROM lex),
    rare AS (SELECT CAST(string_agg(quote_literal(lexeme), ' | ') AS tsquery) AS tsq
             FROM lex WHERE freq < {rare_freq}),"""


@dataclass(frozen=True)
class WordRarity:
    """The most common words of all memories and the share of memories holding each: the planner's
    statistics of the tsvector column. Empty before the first ANALYZE (every word then weighs the same)."""

    words: tuple[str, ...] = ()
    freqs: tuple[float, ...] = ()


_WORD_RARITY = """
SELECT e.lexeme, f.freq::float8 AS freq
FROM pg_stats s
CROSS JOIN LATERAL unnest(s.most_common_elems::text::text[]) WITH ORDINALITY AS e(lexeme, i)
JOIN LATERAL unnest(s.most_common_elem_freqs) WITH ORDINALITY AS f(freq, j) ON f.j = e.i
WHERE s.schemaname = current_schema() AND s.tablename = 'memories' AND s.attname = 'tsv'
"""


async def word_rarity(session: AsyncSession) -> WordRarity:
    """The statistics recall weighs query words by (a few hundred words; refreshed by ANALYZE)."""
    rows = (await session.execute(text(_WORD_RARITY))).all()
    return WordRarity(tuple(r.lexeme for r in rows), tuple(float(r.freq) for r in rows))


_RECALLED = ", ".join(f"'{stage}'" for stage in RECALLED_STAGES)


@dataclass(frozen=True)
class RecallFilter:
    kinds: tuple[str, ...] | None = None
    namespace: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    include_traits: bool = True
    as_of: bool = False  # time travel: :now is the moment asked about; only what existed then


def _where(f: RecallFilter, alias: str = "m", of_user: bool = True) -> str:
    """Live, visible rows of the user matching the filters (only the filters in use are emitted,
    so each combination gets its own well-planned statement). `of_user=False` leaves out the user: the
    look-up behind a vector row (storage/sqltext.memory_passes) takes it from that row, and the constant
    would let the planner scan the user's rows for each vector, as that function's docstring says."""
    m = alias
    parts = [f"{m}.user_id = :user"] if of_user else []
    parts += [
        _known(m) if f.as_of else f"({m}.valid_until IS NULL OR {m}.valid_until > :now)",
        f"({m}.kind <> 'trait' OR {m}.trait_stage IN ({_RECALLED}))" if f.include_traits else f"{m}.kind <> 'trait'",
    ]
    if f.kinds:
        parts.append(f"{m}.kind = ANY(:kinds)")
    if f.namespace is not None:
        parts.append(f"{m}.namespace = :ns")
    if f.since is not None:  # the period ends after `since` (a point: is at or after it)
        parts.append(f"{_dated_last(m)} >= :since")
    if f.until is not None:  # the period begins by `until`
        parts.append(f"{_dated(m)} <= :until")
    return " AND ".join(parts)


# A memory's place on the user's timeline: when it happened (a period: its start and its last moment), else when
# the user told it.
def _dated(m: str) -> str:
    return f"coalesce({m}.event_time, {m}.told_at)"


def _dated_last(m: str) -> str:
    return f"coalesce({m}.event_end - interval '1 microsecond', {m}.event_time, {m}.told_at)"


_DATED, _DATED_LAST = _dated("m"), _dated_last("m")
# Recency counts on the user's timeline (rules/recall.py): from the user's clock, `user_now` (storage/timeline.py).
_RECENCY_EXPONENT = recency_exponent_sql(
    "extract(epoch FROM ((SELECT t FROM user_now) - m.told_at))",
    ":decay",
    # A client's arousal in [0, 1] (metadata.emotion.arousal); anything else there counts as none.
    f"CASE WHEN jsonb_typeof(m.metadata #> '{{{Key.EMOTION},arousal}}') = 'number' "
    f"THEN least(1.0, greatest(0.0, (m.metadata #>> '{{{Key.EMOTION},arousal}}')::float8)) ELSE 0.0 END",
)


def _user_now(as_of: bool) -> str:
    """The user's clock (storage/timeline.py); as of a moment of their timeline, that moment."""
    clock = "CAST(:now AS timestamptz)" if as_of else user_now_sql(":user")
    return f"""
    user_now AS MATERIALIZED (SELECT {clock} AS t),"""


def _known(m: str) -> str:
    """As of a moment of the user's timeline (`:now`): told by then and still valid then — a row a correction
    replaced until the correction was told, one archived until it was archived (storage/memories.known)."""
    replaced_at = f"(SELECT r.told_at FROM memories r WHERE r.user_id = {m}.user_id AND r.id = {m}.superseded_by)"
    return (
        f"{m}.told_at <= :now AND ({m}.valid_until IS NULL"
        f" OR ({m}.superseded_by IS NULL AND {m}.valid_until > :now)"
        f" OR ({m}.superseded_by IS NOT NULL AND {replaced_at} > :now))"
    )


# A plan dated inside the query's window: what a question about what is ahead looks for.
_PLAN_IN_WINDOW = "m.temporality = 'prospective' AND m.event_time >= :ws AND m.event_time < :we"


def _temporal(asks_when: bool, window: bool, ahead: bool) -> str:
    return temporal_sql(
        asks_when,
        window,
        f"m.metadata ->> '{Key.TIME_PHRASE}' IS NOT NULL",
        f"{_DATED} < :we AND {_DATED_LAST} >= :ws",  # the period meets the window
        _PLAN_IN_WINDOW if ahead else None,
    )


_FILLS_SLOT = f"m.metadata ->> '{Key.SLOT}' = :slot"
# A plan is judged on the user's clock (rules/plans.py), as the intentions and the profile judge it.
_OVERDUE = f"m.temporality = 'prospective' AND {plans.over_sql('(SELECT t FROM user_now)')}"
_IS_REPLY = f"m.kind = '{REPLY}'"
_INSTRUCTION = f"m.metadata ->> '{Key.STANDING}' = 'instruction'"
_PENALTY = penalty_sql(_OVERDUE, _IS_REPLY, ":reply_weight")
_STANDING = standing_sql(f"m.metadata ->> '{Key.STANDING}'", _IS_REPLY, ":standing_scale")


def _score_columns(dim: int | None, emb: str, temporal: str, slot: str = "0.0") -> str:
    """The breakdown terms of one row `m` against the query vector :qv and tsquery `q.tsq`. Without a query
    vector (`dim` None) the vector term is 0 for every row. The row's vector is looked up by its key, as a
    subquery and not a join, for the reason storage/sqltext.memory_behind gives."""
    if dim is None:
        vector = "0.0::float8"
    else:
        # A zero vector (text with nothing to embed) has no direction: its cosine is NaN, counted as 0.
        similarity = f"1 - ({_embedding_of('m', True, dim, emb)} <=> CAST(:qv AS vector({dim})))"
        # A long memory meets the query where its closest window does (engrain/text/windows.py).
        closest_window = (
            f"(SELECT max(1 - (w.embedding::vector({dim}) <=> CAST(:qv AS vector({dim})))) FROM memory_windows w"
            f" WHERE w.user_id = :user AND w.id = m.id AND w.embedder = {emb})"
        )
        # No vector of the query's embedder: 0.
        vector = (
            f"greatest(0.0, coalesce(nullif({similarity}, 'NaN'::float8), 0.0),"
            f" coalesce(nullif({closest_window}, 'NaN'::float8), 0.0))"
        )
    return f"""
        {vector} AS vector,
        coalesce(m.tsv @@ q.tsq, false) AS text,
        coalesce((SELECT sum(l.idf) FROM lex l WHERE m.tsv @@ l.tq) / (SELECT total FROM lexsum), 0.0)
            AS lexical,
        {safe_exp(_RECENCY_EXPONENT)} AS recency,
        ({temporal})::float8 AS temporal,
        ({slot})::float8 AS slot,
        {_STANDING} AS standing,
        m.importance / 10.0 AS importance,
        {recall_boost_sql("m.trait_stage")} AS trait_boost,
        {_PENALTY} AS penalty"""


def _score(bridge: str = "0.0") -> str:
    """docs/SPEC.md §6 with the base kept exactly (min(1, vector + bump)); the lexical and temporal
    evidence is added after the cap, so that two strong candidates never tie at 1 (rules/recall.py)."""
    return score_sql(bridge)


def _embedding_of(alias: str, with_vector: bool, dim: int, emb: str) -> str:
    """The row's vector when it is of the query's embedder (else NULL: never compared)."""
    if not with_vector:
        return "NULL::vector"
    return (
        f"(SELECT v.embedding::vector({int(dim)}) FROM memory_vectors v"
        f" WHERE v.user_id = :user AND v.id = {alias}.id AND v.embedder = {emb})"
    )


def _redundancy(with_vector: bool) -> str:
    """What `ranked` row r loses for resembling a better-ranked one."""
    if not with_vector:
        return "0.0::float8"
    # A zero vector's cosine is NaN, which PostgreSQL orders above every number: counted as 0.
    closest = (
        "(SELECT max(coalesce(nullif(1 - (r.emb <=> o.emb), 'NaN'::float8), 0.0)) FROM ranked o"
        " WHERE (o.first_score > r.first_score OR (o.first_score = r.first_score AND o.id < r.id))"
        " AND o.lexical >= r.lexical)"
    )
    return redundancy_sql("r.first_score", f"coalesce({closest}, 0.0)")


# The columns of `terms` that rows carry out (its tsv stays inside the statement).
_TERM_NAMES = (
    "id, content, kind, namespace, event_time, event_end, event_grain, told_at, created_at, temporality, stage,"
    " importance_raw, category,"
    " tags, pinned, metadata, vector, text, lexical, recency, temporal, slot, standing, importance, trait_boost,"
    " penalty"
)
# The user's newest CORRECTIONS corrections in force (a memory a later one replaced whole, `superseded_by`; a digest's
# rewrite and a trait are no correction of the user's words): what recall marks older lines against
# (services/recall/outdated.py). Read by the recall statement itself and given once, on its first row.
CORRECTIONS = 100
_CORRECTIONS_CTE = f"""corrections AS (
        SELECT o.id AS old_id, o.content AS old, o.metadata ->> '{Key.SLOT_VALUE}' AS old_value,
               n.id AS new_id, n.told_at AS new_told_at
        FROM memories o JOIN memories n ON n.user_id = o.user_id AND n.id = o.superseded_by
        WHERE o.user_id = :user AND o.superseded_by IS NOT NULL AND o.valid_until <= :now
          AND o.kind NOT IN ('trait', 'digest')
        ORDER BY n.told_at DESC, n.id LIMIT {CORRECTIONS}
    )"""
_ROW_COLUMNS = """m.id, m.content, m.kind, m.namespace, m.event_time, m.event_end, m.event_grain, m.told_at,
    m.created_at, m.temporality,
    m.trait_stage AS stage, m.importance AS importance_raw, m.category, m.tags, m.pinned,
    m.metadata"""


@lru_cache(maxsize=256)
def recall_sql(
    embedder_id: str,
    dim: int,
    f: RecallFilter,
    with_vector: bool,
    asks_when: bool = False,
    window: bool = False,
    ahead: bool = False,
    asks_slot: bool = False,
) -> str:
    ahead = ahead and window
    emb = sql_literal(embedder_id)
    where = _where(f)
    keyed = _where(f, of_user=False)  # behind a vector or link row, which gives the user (memory_passes)
    vector_cte = (
        f"""vec AS (
        SELECT v.id FROM memory_vectors v
        WHERE v.embedder = {emb} AND v.user_id = :user
          AND {memory_passes("v", keyed)}
        ORDER BY v.embedding::vector({int(dim)}) <=> CAST(:qv AS vector({int(dim)}))
        LIMIT :pool
    ),
    -- The sentence that answers inside a long memory: its window's vector (engrain/text/windows.py).
    win AS (
        SELECT w.id FROM memory_windows w
        WHERE w.embedder = {emb} AND w.user_id = :user
          AND {memory_passes("w", keyed)}
        ORDER BY w.embedding::vector({int(dim)}) <=> CAST(:qv AS vector({int(dim)}))
        LIMIT :pool
    ),"""
        if with_vector
        else "vec AS (SELECT NULL::uuid AS id WHERE false), win AS (SELECT NULL::uuid AS id WHERE false),"
    )
    score_cols = _score_columns(
        int(dim) if with_vector else None, emb, _temporal(asks_when, window, ahead), slot_sql(asks_slot, _FILLS_SLOT)
    )
    # A question about a single-valued fact: the memories holding it are candidates (the slot index).
    slotted_cte = (
        f"""slotted AS (
        SELECT m.id FROM memories m WHERE m.metadata ? '{Key.SLOT}' AND {_FILLS_SLOT} AND {where} LIMIT :pool
    ),"""
        if asks_slot
        else "slotted AS (SELECT NULL::uuid AS id WHERE false),"
    )
    # What is ahead: the plans dated in the window are candidates whether or not they share a word with it.
    plans_cte = (
        f"""plans AS (
        SELECT m.id FROM memories m WHERE {_PLAN_IN_WINDOW} AND {where} ORDER BY m.event_time, m.id LIMIT :pool
    ),"""
        if ahead
        else "plans AS (SELECT NULL::uuid AS id WHERE false),"
    )
    # As of a moment: a link to a memory not yet told then is not shown (links have no time of the user's own).
    link_time = (
        f" AND EXISTS (SELECT 1 FROM memories t WHERE t.user_id = l.user_id AND t.id = l.target_id AND {_known('t')})"
        if f.as_of
        else ""
    )
    rare = RARE_WORD_FREQ if with_vector else 1.01
    return f"""
    WITH q AS (SELECT {QUERY_TSQUERY} AS tsq),{_user_now(f.as_of)}{_lexeme_ctes(rare)}
    {vector_cte}
    txt AS (  -- the tsquery is written out (not taken from q) so that the GIN index can serve it.
              -- Candidates match every word: ranking all rows that match any word is slow at 100k rows.
        SELECT m.id FROM memories m
        WHERE m.tsv @@ {QUERY_TSQUERY} AND {where}
        ORDER BY ts_rank_cd(m.tsv, {QUERY_TSQUERY}) DESC
        LIMIT :pool
    ),
    any_txt AS (
        SELECT m.id FROM memories m
        WHERE m.tsv @@ (SELECT tsq FROM rare) AND {where}
        ORDER BY (SELECT sum(l.idf) FROM lex l WHERE m.tsv @@ l.tq) DESC, m.id
        LIMIT :pool
    ),
    {plans_cte}
    {slotted_cte}
    -- The user's standing instructions bear on requests that share no word with them (their partial index).
    standing AS (
        SELECT m.id FROM memories m WHERE {_INSTRUCTION} AND {where} ORDER BY m.told_at DESC, m.id
        LIMIT {STANDING_CANDIDATES}
    ),
    -- The user as a column, and MATERIALIZED so that it stays one (not folded into a constant): memory_behind.
    cand AS MATERIALIZED (SELECT CAST(:user AS text) AS user_id, id
             FROM (SELECT id FROM vec UNION SELECT id FROM win UNION SELECT id FROM txt UNION SELECT id FROM any_txt
                   UNION SELECT id FROM plans
                   UNION SELECT id FROM slotted UNION SELECT id FROM standing) AS found),
    terms AS (
        SELECT {_ROW_COLUMNS}, m.tsv, {score_cols}
        FROM cand{memory_behind("cand", "m.*")} CROSS JOIN q
    ),
    -- Two-turn questions: the best few hits (seeds) name things the question does not (the dog's name,
    -- the city); a candidate sharing such a rarer word with a seed other than itself is bridged to it.
    -- MATERIALIZED: computed once, not once per candidate.
    seeds AS MATERIALIZED (
        SELECT t.id, t.tsv FROM terms t WHERE t.vector > 0 OR t.text OR t.lexical > 0 OR t.temporal > 0 OR t.slot > 0
        ORDER BY {_score()} DESC, t.id LIMIT {BRIDGE_SEEDS}
    ),
    bridge_words AS MATERIALIZED (
        SELECT f.id AS seed, CAST(string_agg(quote_literal(w.lexeme), ' | ') AS tsquery) AS tq
        FROM seeds f CROSS JOIN LATERAL unnest(f.tsv) AS w
        LEFT JOIN stats st ON st.lexeme = w.lexeme
        WHERE coalesce(st.freq, (SELECT freq FROM rarest)) < {RARE_WORD_FREQ}
          AND w.lexeme NOT IN (SELECT lexeme FROM lex)
        GROUP BY f.id
    ),
    bridged AS (
        SELECT {_TERM_NAMES},
               CASE WHEN EXISTS (SELECT 1 FROM bridge_words b WHERE b.seed <> t.id AND t.tsv @@ b.tq)
                    THEN {BRIDGE_WEIGHT} ELSE 0.0 END AS bridge
        FROM terms t
    ),
    ranked AS MATERIALIZED (
        SELECT b.*, {_embedding_of("b", with_vector, dim, emb)} AS emb
        FROM (SELECT t.*, {_score("bridge")} AS first_score
              FROM bridged t
              WHERE t.vector > 0 OR t.text OR t.lexical > 0 OR t.temporal > 0 OR t.slot > 0  -- else the score is 0
              ORDER BY first_score DESC, t.id LIMIT :ranked) b
    ),
    top AS (
        SELECT {_TERM_NAMES}, bridge, redundancy, first_score - redundancy AS score, 'search'::text AS source,
               NULL::uuid AS linked_from, NULL::text AS relation
        FROM (SELECT r.*, {_redundancy(with_vector)} AS redundancy FROM ranked r) d
        ORDER BY score DESC, id LIMIT :limit
    ),
    hop AS (
        SELECT DISTINCT ON (l.target_id) l.user_id, l.target_id AS id, l.source_id AS linked_from, l.relation,
               top.score AS from_score
        FROM top JOIN memory_links l ON l.user_id = :user AND l.source_id = top.id
        WHERE l.target_id NOT IN (SELECT id FROM top){link_time}
          AND {memory_passes("l", keyed, id_column="target_id")}
        ORDER BY l.target_id, top.score DESC, l.relation
    ),
    expansion AS (SELECT * FROM hop ORDER BY from_score DESC, id LIMIT {LINK_EXPANSION}),
    linked AS (
        SELECT x.*, {_score()} AS score, 'linked'::text AS source, e.linked_from, e.relation
        FROM expansion e JOIN LATERAL (
            SELECT {_ROW_COLUMNS}, {score_cols}, 0.0::float8 AS bridge, 0.0::float8 AS redundancy
            FROM q{memory_behind("e", "m.*")}
        ) x ON true
        ORDER BY e.from_score DESC, x.id
    ),
    result AS (
        SELECT *, 0 AS part FROM top
        UNION ALL
        SELECT *, 1 AS part FROM linked
    ),
    {_CORRECTIONS_CTE}
    SELECT r.*, (SELECT t FROM user_now) AS user_now,
        coalesce((SELECT json_agg(json_build_object('id', l.target_id, 'relation', l.relation)
                                  ORDER BY l.created_at, l.target_id)
                  FROM memory_links l WHERE l.user_id = :user AND l.source_id = r.id{link_time}), '[]'::json) AS links,
        CASE WHEN row_number() OVER (ORDER BY r.part, r.score DESC, r.id) = 1
             THEN (SELECT coalesce(json_agg(c), '[]'::json) FROM corrections c) END AS corrections
    FROM result r
    ORDER BY r.part, r.score DESC, r.id
    """


@dataclass(frozen=True)
class RecallQuery:
    """Everything one recall statement is built from: its SQL text depends only on the embedder, the
    filters in use and whether there is a vector, a "when" question or a window; the rest are parameters."""

    user_id: str
    query: QueryForm
    vector: list[float] | None
    embedder_id: str
    dim: int
    flt: RecallFilter
    now: datetime
    decay_seconds: float
    limit: int
    pool: int
    # The limit the diversity pool is sized for (DIVERSITY_POOL_MIN or 3 × it): a question that gathers returns
    # 3 × its limit, but its pool of candidates that lose for resembling better ones stays the limit's.
    ranked_for: int | None = None
    asks_when: bool = False
    window: tuple[datetime, datetime] | None = None
    ahead: bool = False  # the query asks what is coming: plans in `window` are candidates (rules/recall.py)
    slot: str | None = None  # the single-valued fact the query asks about (reading/slots.asked_slot)
    rarity: WordRarity = WordRarity()
    asks_assistant: bool = False  # the query asks what the assistant said: replies keep their whole score
    about_user: bool = False  # the user asks about themselves (first person): replies keep less (rules/recall.py)
    asks_what_user_told: bool = False  # "what did I say…": standing instructions gain nothing (rules/recall.py)

    def statement(self) -> tuple[str, dict[str, Any]]:
        """The SQL text and its parameters (also what the benchmarks EXPLAIN)."""
        flt = self.flt
        params: dict[str, Any] = {
            "user": self.user_id,
            "qcfg": self.query.ts_config,
            "qtext": self.query.text,
            "qterms": self.query.terms,
            "now": self.now,
            "decay": self.decay_seconds,
            "limit": self.limit,
            "pool": self.pool,
            "ranked": max(DIVERSITY_POOL_MIN, 3 * (self.ranked_for or self.limit), self.limit),
            "stat_words": list(self.rarity.words),
            "stat_freqs": list(self.rarity.freqs),
            "reply_weight": reply_weight(self.asks_assistant, self.about_user),
            "standing_scale": standing_scale(self.asks_what_user_told),
        }
        if self.vector is not None:
            params["qv"] = vector_literal(self.vector)
        if flt.kinds:
            params["kinds"] = list(flt.kinds)
        if flt.namespace is not None:
            params["ns"] = flt.namespace
        if flt.since is not None:
            params["since"] = flt.since
        if flt.until is not None:
            params["until"] = flt.until
        if self.window is not None:
            params["ws"], params["we"] = self.window
        if self.slot is not None:
            params["slot"] = self.slot
        sql = recall_sql(
            self.embedder_id,
            self.dim,
            flt,
            self.vector is not None,
            self.asks_when,
            self.window is not None,
            self.ahead,
            self.slot is not None,
        )
        return sql, params


@lru_cache(maxsize=256)
def _clause(sql: str) -> TextClause:
    """The statement as SQLAlchemy text, made once per SQL text: building it scans the 9 kB text for
    bind parameters."""
    return text(sql)


# HNSW scans that go on until enough rows pass the statement's filters (relaxed order: the caller sorts);
# without it the index hands back its ef_search nearest rows of every user, and a filtered look-up can
# come back short or empty. Recall's connections and the write connections (the duplicate probe) set it.
ITERATIVE_SCAN = {"hnsw.iterative_scan": "relaxed_order"}
# Every statement planned for its own user (recall_connection_settings says why); recall's connections and
# the write connections set it.
PLANNED_PER_USER = {"plan_cache_mode": "force_custom_plan"}


def recall_connection_settings(timeout_ms: int) -> dict[str, str]:
    """The settings of the connections recall runs on (storage/db.Database.reader), sent when each
    opens: a timeout for the one statement, and HNSW scans that go on until the candidate pool is
    full (relaxed order: the statement sorts by score anyway). Set per connection instead of per
    recall, they cost no round trip: a recall is then one statement outside any transaction block,
    where BEGIN, SET LOCAL and COMMIT took three round trips (docs/performance.md).

    Every recall is planned for its own user (`force_custom_plan`): a prepared statement otherwise
    switches to a generic plan after five runs, made for the average user, and one user's size can be
    far from it: with one user of 200,000 memories among 800 small ones, the generic plan answered the big
    user twenty times slower than a custom plan, which costs a small user little (docs/performance.md)."""
    return {
        "statement_timeout": str(int(timeout_ms)),
        **ITERATIVE_SCAN,
        **PLANNED_PER_USER,
    }


def ef_search(pool: int) -> int:
    """HNSW's candidate list for a vector pool of `pool` rows."""
    return max(40, min(1000, pool))


@dataclass(frozen=True, slots=True)
class LinkedId:
    """One of a recalled memory's own links."""

    id: str
    relation: str


@dataclass(frozen=True, slots=True)
class RecallRow:
    """One row of the recall statement: the memory, the terms of its score (rules/recall.py), and how it
    was found (`source` 'search', or 'linked' from `linked_from` by `relation`)."""

    id: uuid.UUID
    content: str
    kind: str
    namespace: str
    event_time: datetime | None
    event_end: datetime | None
    event_grain: str | None
    told_at: datetime
    created_at: datetime
    temporality: str
    stage: str | None
    importance_raw: int
    category: str | None
    tags: list[str]
    pinned: bool
    metadata: dict[str, Any]
    vector: float
    text: bool
    lexical: float
    recency: float
    temporal: float
    slot: float
    standing: float
    importance: float
    trait_boost: float
    penalty: float
    bridge: float
    redundancy: float
    score: float
    source: str
    linked_from: uuid.UUID | None
    relation: str | None
    links: list[LinkedId]
    user_now: datetime  # the user's clock (or the moment asked about): where plans were judged

    @classmethod
    def of(cls, row: RowMapping) -> RecallRow:
        fields: dict[str, Any] = {name: row[name] for name in _ROW_FIELDS}
        links: list[dict[str, Any]] = row["links"] or []  # json_agg of {id, relation}
        fields["links"] = [LinkedId(str(link["id"]), str(link["relation"])) for link in links]
        return cls(**fields)


_ROW_FIELDS = tuple(name for name in RecallRow.__slots__ if name != "links")


async def run_recall(conn: AsyncConnection, recall: RecallQuery) -> Recalled:
    """The recall statement, on a connection of `Database.reader`. The HNSW list length follows the
    pool; a connection keeps the last one it was given, so only a change of pool costs a round trip."""
    ef = ef_search(recall.pool)
    if conn.info.get("hnsw.ef_search") != ef:
        await conn.execute(text("SELECT set_config('hnsw.ef_search', :ef, false)"), {"ef": str(ef)})
        conn.info["hnsw.ef_search"] = ef
    sql, params = recall.statement()
    found = list((await conn.execute(_clause(sql), params)).mappings())
    given: list[dict[str, Any]] = (found[0]["corrections"] or []) if found else []
    return Recalled([RecallRow.of(m) for m in found], [Correction.of(c) for c in given])


@dataclass(frozen=True)
class Correction:
    """A memory a later one replaced whole (`superseded_by`): its words, its key's value, and the replacement."""

    old_id: uuid.UUID
    old: str
    old_value: str | None
    new_id: uuid.UUID
    new_told_at: datetime

    @classmethod
    def of(cls, given: dict[str, Any]) -> Correction:
        """One of the statement's `corrections` (JSON: ids and times as text)."""
        return cls(
            old_id=uuid.UUID(given["old_id"]),
            old=given["old"],
            old_value=given["old_value"],
            new_id=uuid.UUID(given["new_id"]),
            new_told_at=datetime.fromisoformat(given["new_told_at"]),
        )


@dataclass(frozen=True)
class Recalled:
    """What the recall statement returns: its rows, and the user's corrections (`CORRECTIONS`; none without rows)."""

    rows: list[RecallRow]
    corrections: list[Correction]
