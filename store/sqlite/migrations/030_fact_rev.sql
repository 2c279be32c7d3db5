-- mnemo schema: banks.fact_rev counts changes to a bank's fact rows other
-- than recorded accesses, so that a process can keep facts it has read
-- (the store's fact cache) and know, with one read of the bank's row,
-- whether any of them may have changed since — whoever changed them:
-- this process, another one, or a statement no Go code of the store
-- knows about. The triggers are the rule; nothing in Go has to
-- remember to bump it. Inserts do not fire: a new row has a new pk and
-- id no cache holds. Accesses (access_count, last_accessed) are counted
-- by banks.access_version instead (RecordAccess), which the store
-- applies to its cache in place.
ALTER TABLE banks ADD COLUMN fact_rev INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER facts_rev_update AFTER UPDATE OF
    bank_id, id, seq, document_id, chunk_id, source_ref, text, kind, category,
    confidence, importance, sensitivity, speaker, evidence, tags,
    occurred_start, occurred_end, mentioned_at, valid_from, valid_to,
    created_at, expired_at, reinforcement_count, decay_score, status,
    superseded_by, consolidated_at, expires_at
ON facts
BEGIN
    UPDATE banks SET fact_rev = fact_rev + 1 WHERE id = NEW.bank_id;
END;

CREATE TRIGGER facts_rev_delete AFTER DELETE ON facts
BEGIN
    UPDATE banks SET fact_rev = fact_rev + 1 WHERE id = OLD.bank_id;
END;
