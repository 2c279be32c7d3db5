-- mnemo schema v8: facts by bank in Seq order, for listing a bank's facts
-- a page at a time (newest first, the cursor a Seq) without sorting the
-- whole bank for every page.
CREATE INDEX facts_seq ON facts(bank_id, seq);
