-- mnemo schema: the facts' FTS5 table goes. Every keyword search over
-- facts is the store's in-process BM25 index (store/sqlite/internal/mirror,
-- persisted in the index file next to the database), which the file's
-- rows rebuild; the FTS5 table duplicated it on disk and cost a fifth of
-- a bulk import's time (its porter tokenizer, its segments and their
-- merges) and a delete per fact removed. Its one reader was Stats'
-- count of facts holding a masked secret, which this partial index
-- serves: it holds only those facts, by bank. Observations keep their
-- FTS5 table (observations_fts): it is their keyword search.
DROP TABLE facts_fts;

CREATE INDEX facts_redacted ON facts(bank_id) WHERE instr(text, '[REDACTED:') > 0;
