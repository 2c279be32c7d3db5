-- Consolidation: run records carry their status (ok, failed, skipped,
-- running), the reason a pass was skipped, and LLM calls and tokens
-- beside 001's counts; the runs table's kind column holds the pass.
-- tier_changes is the log of every entity promotion and demotion the
-- lifecycle pass makes (seed 004), in insertion order (seq); it holds
-- ids and tiers only, never text. Times are microseconds since the epoch.
ALTER TABLE runs ADD COLUMN status TEXT NOT NULL DEFAULT 'ok';
ALTER TABLE runs ADD COLUMN reason TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN llm_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0;
CREATE INDEX runs_started ON runs(bank_id, started_at, id);
CREATE TABLE tier_changes (
    seq       INTEGER PRIMARY KEY,
    bank_id   TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    entity_id TEXT NOT NULL,
    from_tier TEXT NOT NULL,
    to_tier   TEXT NOT NULL,
    reason    TEXT NOT NULL DEFAULT '',
    at        INTEGER NOT NULL
);
CREATE INDEX tier_changes_bank ON tier_changes(bank_id, at, seq);
