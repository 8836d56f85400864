"""The whole schema of docs/SPEC.md §4: memories (all kinds, trait columns), links, evidence,
reflection cycles, history, user state and job runs.

Revision ID: 0001
Revises:
"""

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

SCHEMA = """
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE memories (
    id uuid PRIMARY KEY,
    user_id text NOT NULL,
    namespace text NOT NULL DEFAULT 'default',
    kind text NOT NULL CHECK (kind IN ('fact', 'episodic', 'procedural', 'trait')),
    content text NOT NULL,
    content_hash text NOT NULL,
    embedding vector,
    embedder text,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED,
    importance smallint NOT NULL DEFAULT 5 CHECK (importance BETWEEN 1 AND 10),
    category text,
    tags text[] NOT NULL DEFAULT '{}',
    temporality text NOT NULL DEFAULT 'current'
        CHECK (temporality IN ('current', 'historical', 'prospective')),
    event_time timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    valid_until timestamptz,
    pinned boolean NOT NULL DEFAULT false,
    access_count integer NOT NULL DEFAULT 0,
    last_accessed_at timestamptz,
    source text,
    metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
    trait_subtype text CHECK (trait_subtype IN ('behavior', 'preference', 'core')),
    trait_stage text
        CHECK (trait_stage IN ('trend', 'candidate', 'emerging', 'established', 'core', 'dissolved')),
    trait_confidence double precision CHECK (trait_confidence BETWEEN 0 AND 1),
    trait_context text CHECK (trait_context IN ('work', 'personal', 'social', 'learning', 'general')),
    trait_window_end timestamptz,
    trait_reinforcement_count integer,
    trait_contradiction_count integer,
    trait_first_observed timestamptz,
    trait_last_reinforced timestamptz,
    trait_parent_id uuid REFERENCES memories(id) ON DELETE SET NULL
);
-- Exact dedup among live rows (superseded/archived rows keep their hash but no longer collide).
CREATE UNIQUE INDEX uq_memories_live_hash
    ON memories (user_id, namespace, kind, content_hash) WHERE valid_until IS NULL;
CREATE INDEX ix_memories_user_kind_created ON memories (user_id, kind, created_at);
CREATE INDEX ix_memories_user_created ON memories (user_id, created_at DESC);
CREATE INDEX ix_memories_tsv ON memories USING gin (tsv);
CREATE INDEX ix_memories_prospective ON memories (user_id, event_time)
    WHERE temporality = 'prospective';
CREATE INDEX ix_memories_trait_stage ON memories (user_id, trait_stage) WHERE kind = 'trait';
-- HNSW indexes are per embedder (partial, cast to its dimension): see storage/db.py.

CREATE TABLE memory_links (
    source_id uuid NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    target_id uuid NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    relation text NOT NULL CHECK (char_length(relation) BETWEEN 1 AND 40),
    created_by text NOT NULL DEFAULT 'user',
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (source_id, target_id, relation),
    CHECK (source_id <> target_id)
);
CREATE INDEX ix_memory_links_target ON memory_links (target_id);

CREATE TABLE reflection_cycles (
    id uuid PRIMARY KEY,
    user_id text NOT NULL,
    trigger_type text NOT NULL,
    trigger_value double precision,
    status text NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
    stats jsonb NOT NULL DEFAULT '{}'::jsonb,
    error text,
    started_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
);
CREATE INDEX ix_reflection_cycles_user ON reflection_cycles (user_id, started_at DESC);

CREATE TABLE trait_evidence (
    trait_id uuid NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    memory_id uuid NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    polarity text NOT NULL CHECK (polarity IN ('supporting', 'contradicting')),
    quality text CHECK (quality IN ('A', 'B', 'C', 'D')),
    cycle_id uuid REFERENCES reflection_cycles(id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (trait_id, memory_id, polarity)
);
CREATE INDEX ix_trait_evidence_memory ON trait_evidence (memory_id);

-- No foreign key: the audit trail outlives the memory it describes (forget keeps "deleted").
CREATE TABLE memory_history (
    id bigserial PRIMARY KEY,
    memory_id uuid NOT NULL,
    user_id text NOT NULL,
    action text NOT NULL,
    old_content text,
    new_content text,
    reason text,
    at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ix_memory_history_memory ON memory_history (memory_id, at);
CREATE INDEX ix_memory_history_user ON memory_history (user_id, at);

CREATE TABLE user_state (
    user_id text PRIMARY KEY,
    last_reflected_at timestamptz,
    timezone text,
    settings jsonb NOT NULL DEFAULT '{}'::jsonb,
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE job_runs (
    id bigserial PRIMARY KEY,
    job text NOT NULL,
    user_id text,
    status text NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'skipped')),
    started_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    stats jsonb NOT NULL DEFAULT '{}'::jsonb,
    error text
);
CREATE INDEX ix_job_runs_job ON job_runs (job, started_at DESC);
"""


def upgrade() -> None:
    for statement in SCHEMA.split(";\n"):
        if statement.strip():
            op.execute(statement)


def downgrade() -> None:
    for table in (
        "job_runs",
        "user_state",
        "memory_history",
        "trait_evidence",
        "reflection_cycles",
        "memory_links",
        "memories",
    ):
        op.execute(f"DROP TABLE IF EXISTS {table} CASCADE")
