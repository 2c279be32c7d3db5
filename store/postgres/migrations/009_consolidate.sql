-- Consolidation: run records carry their status (ok, failed, skipped,
-- running), the reason a pass was skipped, and LLM calls and tokens
-- beside 001's counts; the runs table's kind column holds the pass.
-- tier_changes is the log of every entity promotion and demotion the
-- lifecycle pass makes (seed 004), in insertion order (seq); it holds
-- ids and tiers only, never text.
ALTER TABLE runs ADD COLUMN status text NOT NULL DEFAULT 'ok';
ALTER TABLE runs ADD COLUMN reason text NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN llm_calls integer NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN tokens bigint NOT NULL DEFAULT 0;
CREATE INDEX runs_started ON runs(bank_id, started_at, id);
CREATE TABLE tier_changes (
    bank_id   text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    seq       bigint GENERATED ALWAYS AS IDENTITY,
    entity_id text COLLATE "C" NOT NULL,
    from_tier text NOT NULL,
    to_tier   text NOT NULL,
    reason    text NOT NULL DEFAULT '',
    at        timestamptz NOT NULL,
    PRIMARY KEY (bank_id, seq)
);
CREATE INDEX tier_changes_bank ON tier_changes(bank_id, at, seq);
