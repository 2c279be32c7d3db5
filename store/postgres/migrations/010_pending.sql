-- The consolidation queue (memory.PendingFacts): the per-fact observation
-- pass walks a bank's active facts not yet consolidated (consolidated_at
-- NULL) in Seq order; this partial index holds exactly those, so the walk
-- never reads the consolidated bulk of the bank.
CREATE INDEX facts_pending ON facts (bank_id, seq) WHERE consolidated_at IS NULL AND status = 'active';
