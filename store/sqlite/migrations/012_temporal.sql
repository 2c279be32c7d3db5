-- The temporal pass and importance scoring (consolidation).
--
-- entity_marks: per (bank, pass, entity) the highest fact seq the pass
-- has taken in (memory.EntityTimelines.MarkEntities), so that an entity
-- with no new fact is not asked about again. Ids and numbers only.
--
-- importance_scored_at: when a model scored the fact's importance
-- (memory.ImportanceScores); NULL until then. It is the store's mark,
-- not a field of memory.Fact, and the partial index holds only the
-- active facts still to score, so finding them never walks the bank.
-- Times are microseconds since the epoch.
CREATE TABLE entity_marks (
    bank_id   TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    pass      TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    at        INTEGER,
    PRIMARY KEY (bank_id, pass, entity_id)
) WITHOUT ROWID;

ALTER TABLE facts ADD COLUMN importance_scored_at INTEGER;
CREATE INDEX facts_unscored ON facts(bank_id, seq) WHERE importance_scored_at IS NULL AND status = 'active';
