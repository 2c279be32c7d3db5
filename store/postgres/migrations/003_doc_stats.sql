-- mnemo PostgreSQL schema v3: postings for BM25, kept by every write
-- (write.go: countLexemesSQL adds a write's facts, deleteDocument removes
-- a replaced document's), so that SearchText and SearchDocuments read the
-- narrow postings of the query's lexemes (index-only scans) instead of the
-- wide rows of every matching fact, or every fact of the bank. Like
-- lexemes, they are derived from facts, which stay the source of truth;
-- this migration computes them for the facts already stored.

-- Each lexeme's postings among the bank's facts: the fact (by seq), the
-- lexeme's term frequency in it and the fact's length in words.
CREATE TABLE fact_lexemes (
    bank_id text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    lexeme  text COLLATE "C" NOT NULL,
    seq     bigint NOT NULL,
    tf      integer NOT NULL,
    words   integer NOT NULL,
    PRIMARY KEY (bank_id, lexeme, seq) INCLUDE (tf, words)
);
-- A posting leads back to its fact by seq (unique in a bank).
CREATE INDEX facts_seq ON facts (bank_id, seq);

-- Every document of the bank that has at least one fact: its length in
-- words (the sum of its facts' words) and its first fact's seq (ties go to
-- the document stored first). Facts leave a document only with the whole
-- document (a replacement) or the bank, so a row exists exactly while the
-- document has facts.
CREATE TABLE doc_stats (
    bank_id     text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    document_id text COLLATE "C" NOT NULL,
    words       bigint NOT NULL,
    first_seq   bigint NOT NULL,
    PRIMARY KEY (bank_id, document_id)
);

-- Each lexeme's term frequency in each document (the sum over the
-- document's facts), keyed by lexeme first: a search reads one lexeme's
-- postings in order, and counting them gives its document frequency.
CREATE TABLE doc_lexemes (
    bank_id     text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    lexeme      text COLLATE "C" NOT NULL,
    document_id text COLLATE "C" NOT NULL,
    tf          integer NOT NULL,
    PRIMARY KEY (bank_id, lexeme, document_id) INCLUDE (tf)
);

-- Bounds for top-k fact search (SearchText): per lexeme, the largest term
-- frequency in any fact and the fewest words of any fact that holds it.
-- Writes only raise max_tf and lower min_words (a deleted fact leaves them
-- as they were), so they stay bounds, never exact values.
ALTER TABLE lexemes ADD COLUMN max_tf integer NOT NULL DEFAULT 0;
ALTER TABLE lexemes ADD COLUMN min_words integer NOT NULL DEFAULT 0;

INSERT INTO fact_lexemes (bank_id, lexeme, seq, tf, words)
SELECT f.bank_id, u.lexeme, f.seq, cardinality(u.positions), f.words FROM facts f, unnest(f.tsv) u;

INSERT INTO doc_stats (bank_id, document_id, words, first_seq)
SELECT bank_id, document_id, sum(words), min(seq) FROM facts
WHERE document_id <> '' GROUP BY bank_id, document_id;

INSERT INTO doc_lexemes (bank_id, lexeme, document_id, tf)
SELECT f.bank_id, u.lexeme, f.document_id, sum(cardinality(u.positions)) FROM facts f, unnest(f.tsv) u
WHERE f.document_id <> '' GROUP BY f.bank_id, u.lexeme, f.document_id;

UPDATE lexemes l SET max_tf = x.max_tf, min_words = x.min_words
FROM (SELECT f.bank_id, u.lexeme, max(cardinality(u.positions)) AS max_tf, min(f.words) AS min_words
      FROM facts f, unnest(f.tsv) u GROUP BY f.bank_id, u.lexeme) x
WHERE l.bank_id = x.bank_id AND l.lexeme = x.lexeme;
