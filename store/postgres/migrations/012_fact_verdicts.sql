-- The fact merge's verdicts on pairs of similar facts (memory.MergeVerdicts):
-- a pair judged different by the LLM is not asked about again. A pair is
-- stored ordered (fact_a < fact_b); a row names two fact ids and nothing
-- of their text.
CREATE TABLE fact_verdicts (
    bank_id text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    fact_a  text COLLATE "C" NOT NULL,
    fact_b  text COLLATE "C" NOT NULL,
    verdict text NOT NULL,
    at      timestamptz NOT NULL,
    PRIMARY KEY (bank_id, fact_a, fact_b)
);
CREATE INDEX fact_verdicts_b ON fact_verdicts(bank_id, fact_b);
