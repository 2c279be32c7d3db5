-- A bank's facts by status in storage order: the list of one status
-- (mnemo facts list --status quarantined, the console's held-back facts)
-- walks only that status's rows, newest first, instead of every fact;
-- Stats counts by status from the same index. It replaces 020's
-- facts_bank_status, which it covers.
CREATE INDEX facts_bank_status_seq ON facts(bank_id, status, seq);
DROP INDEX IF EXISTS facts_bank_status;
