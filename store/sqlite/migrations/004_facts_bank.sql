-- mnemo schema v4: facts by bank in pk order. The search index loads a
-- bank with `WHERE bank_id = ? AND pk > ? ORDER BY pk`; without this index
-- SQLite took facts_event_time, looked every row up in the table and
-- sorted the whole bank, vectors included, in a temporary B-tree before
-- the first row came out (1.0 s of a 100k-fact load, against 0.35 s
-- streamed in pk order from this index).
CREATE INDEX facts_bank ON facts(bank_id);
