"""Keys by user: every user table carries `user_id`, and every primary key, unique key and foreign key
includes it, so that the schema can be distributed by `user_id` (Citus) with each user's rows, and
the references between them, on one shard (docs/scaling.md).

`trait_evidence` gains `user_id` (its trait's). Rows that referred across users, which no write path
makes, are dropped (links, evidence) or cleared (a trait's parent) so the new keys hold.

Revision ID: 0007
Revises: 0006
"""

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

UPGRADE = """
ALTER TABLE trait_evidence ADD COLUMN user_id text;
UPDATE trait_evidence e SET user_id = m.user_id FROM memories m WHERE m.id = e.trait_id;
DELETE FROM trait_evidence e WHERE user_id IS NULL
    OR NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = e.memory_id AND m.user_id = e.user_id);
UPDATE trait_evidence e SET cycle_id = NULL WHERE cycle_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM reflection_cycles c WHERE c.id = e.cycle_id AND c.user_id = e.user_id);
ALTER TABLE trait_evidence ALTER COLUMN user_id SET NOT NULL;
DELETE FROM memory_links l
    WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = l.source_id AND m.user_id = l.user_id)
       OR NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = l.target_id AND m.user_id = l.user_id);
UPDATE memories c SET trait_parent_id = NULL WHERE trait_parent_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM memories p WHERE p.id = c.trait_parent_id AND p.user_id = c.user_id);

ALTER TABLE memories DROP CONSTRAINT memories_trait_parent_id_fkey;
ALTER TABLE memory_links DROP CONSTRAINT memory_links_source_id_fkey, DROP CONSTRAINT memory_links_target_id_fkey;
ALTER TABLE trait_evidence DROP CONSTRAINT trait_evidence_trait_id_fkey,
    DROP CONSTRAINT trait_evidence_memory_id_fkey, DROP CONSTRAINT trait_evidence_cycle_id_fkey;

ALTER TABLE memories DROP CONSTRAINT memories_pkey, ADD PRIMARY KEY (user_id, id);
ALTER TABLE memory_links DROP CONSTRAINT memory_links_pkey, ADD PRIMARY KEY (user_id, source_id, target_id, relation);
ALTER TABLE trait_evidence DROP CONSTRAINT trait_evidence_pkey,
    ADD PRIMARY KEY (user_id, trait_id, memory_id, polarity);
ALTER TABLE reflection_cycles DROP CONSTRAINT reflection_cycles_pkey, ADD PRIMARY KEY (user_id, id);
ALTER TABLE memory_history DROP CONSTRAINT memory_history_pkey, ADD PRIMARY KEY (user_id, id);
ALTER TABLE host_tasks DROP CONSTRAINT host_tasks_pkey, ADD PRIMARY KEY (user_id, id);

ALTER TABLE memories ADD CONSTRAINT memories_trait_parent_fkey FOREIGN KEY (user_id, trait_parent_id)
    REFERENCES memories (user_id, id) ON DELETE SET NULL (trait_parent_id);
ALTER TABLE memory_links
    ADD CONSTRAINT memory_links_source_fkey FOREIGN KEY (user_id, source_id)
        REFERENCES memories (user_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT memory_links_target_fkey FOREIGN KEY (user_id, target_id)
        REFERENCES memories (user_id, id) ON DELETE CASCADE;
ALTER TABLE trait_evidence
    ADD CONSTRAINT trait_evidence_trait_fkey FOREIGN KEY (user_id, trait_id)
        REFERENCES memories (user_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT trait_evidence_memory_fkey FOREIGN KEY (user_id, memory_id)
        REFERENCES memories (user_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT trait_evidence_cycle_fkey FOREIGN KEY (user_id, cycle_id)
        REFERENCES reflection_cycles (user_id, id) ON DELETE SET NULL (cycle_id);

-- The look-ups that went by id alone now lead with the user.
DROP INDEX ix_memory_links_target;
CREATE INDEX ix_memory_links_target ON memory_links (user_id, target_id);
DROP INDEX ix_trait_evidence_memory;
CREATE INDEX ix_trait_evidence_memory ON trait_evidence (user_id, memory_id);
DROP INDEX ix_memory_history_memory;
CREATE INDEX ix_memory_history_memory ON memory_history (user_id, memory_id, at);
DROP INDEX ix_memories_superseded_by;
CREATE INDEX ix_memories_superseded_by ON memories (user_id, superseded_by) WHERE superseded_by IS NOT NULL;
"""

DOWNGRADE = """
DROP INDEX ix_memories_superseded_by;
CREATE INDEX ix_memories_superseded_by ON memories (superseded_by) WHERE superseded_by IS NOT NULL;
DROP INDEX ix_memory_history_memory;
CREATE INDEX ix_memory_history_memory ON memory_history (memory_id, at);
DROP INDEX ix_trait_evidence_memory;
CREATE INDEX ix_trait_evidence_memory ON trait_evidence (memory_id);
DROP INDEX ix_memory_links_target;
CREATE INDEX ix_memory_links_target ON memory_links (target_id);

ALTER TABLE trait_evidence DROP CONSTRAINT trait_evidence_trait_fkey,
    DROP CONSTRAINT trait_evidence_memory_fkey, DROP CONSTRAINT trait_evidence_cycle_fkey;
ALTER TABLE memory_links DROP CONSTRAINT memory_links_source_fkey, DROP CONSTRAINT memory_links_target_fkey;
ALTER TABLE memories DROP CONSTRAINT memories_trait_parent_fkey;

ALTER TABLE host_tasks DROP CONSTRAINT host_tasks_pkey, ADD PRIMARY KEY (id);
ALTER TABLE memory_history DROP CONSTRAINT memory_history_pkey, ADD PRIMARY KEY (id);
ALTER TABLE reflection_cycles DROP CONSTRAINT reflection_cycles_pkey, ADD PRIMARY KEY (id);
ALTER TABLE trait_evidence DROP CONSTRAINT trait_evidence_pkey, ADD PRIMARY KEY (trait_id, memory_id, polarity);
ALTER TABLE memory_links DROP CONSTRAINT memory_links_pkey, ADD PRIMARY KEY (source_id, target_id, relation);
ALTER TABLE memories DROP CONSTRAINT memories_pkey, ADD PRIMARY KEY (id);

ALTER TABLE memories ADD CONSTRAINT memories_trait_parent_id_fkey FOREIGN KEY (trait_parent_id)
    REFERENCES memories (id) ON DELETE SET NULL;
ALTER TABLE memory_links
    ADD CONSTRAINT memory_links_source_id_fkey FOREIGN KEY (source_id) REFERENCES memories (id) ON DELETE CASCADE,
    ADD CONSTRAINT memory_links_target_id_fkey FOREIGN KEY (target_id) REFERENCES memories (id) ON DELETE CASCADE;
ALTER TABLE trait_evidence
    ADD CONSTRAINT trait_evidence_trait_id_fkey FOREIGN KEY (trait_id) REFERENCES memories (id) ON DELETE CASCADE,
    ADD CONSTRAINT trait_evidence_memory_id_fkey FOREIGN KEY (memory_id) REFERENCES memories (id) ON DELETE CASCADE,
    ADD CONSTRAINT trait_evidence_cycle_id_fkey FOREIGN KEY (cycle_id)
        REFERENCES reflection_cycles (id) ON DELETE SET NULL;
ALTER TABLE trait_evidence DROP COLUMN user_id;
"""


def upgrade() -> None:
    for statement in UPGRADE.split(";"):
        if statement.strip():
            op.execute(statement)


def downgrade() -> None:
    for statement in DOWNGRADE.split(";"):
        if statement.strip():
            op.execute(statement)
