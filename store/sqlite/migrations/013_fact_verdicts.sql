-- The fact merge's verdicts on pairs of similar facts (memory.MergeVerdicts):
-- a pair judged different by the LLM is not asked about again. A pair is
-- stored ordered (fact_a < fact_b); a row names two fact ids and nothing
-- of their text. at is microseconds since the epoch.
CREATE TABLE fact_verdicts (
    bank_id TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    fact_a  TEXT NOT NULL,
    fact_b  TEXT NOT NULL,
    verdict TEXT NOT NULL,
    at      INTEGER NOT NULL,
    PRIMARY KEY (bank_id, fact_a, fact_b)
);
CREATE INDEX fact_verdicts_b ON fact_verdicts(bank_id, fact_b);
