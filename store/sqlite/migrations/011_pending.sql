-- mnemo schema v11: the consolidation queue (memory.PendingFacts). The
-- per-fact observation pass walks a bank's active facts that are not yet
-- consolidated (consolidated_at NULL) in Seq order; this partial index
-- holds exactly those, so the walk never reads the consolidated bulk of
-- the bank, and a fact leaves the index when it is marked.
CREATE INDEX facts_pending ON facts(bank_id, seq) WHERE consolidated_at IS NULL AND status = 'active';
