-- CJK text (Han, Kana, Hangul) is written without spaces between words,
-- so PostgreSQL's parser reads a whole run as one word and none of its
-- words could be found. mnemo_cjk splits each run into its overlapping
-- character pairs ("東京都" → "東京 京都"; a run of one character stays)
-- exactly as internal/lex does for the SQLite store (lex.Words, whose
-- cjkRanges this class spells; TestStore_CJKIsLex checks they agree),
-- and leaves text without CJK as it is, so the search vectors of every
-- other fact are unchanged. The facts' search columns are rebuilt with
-- it, and the BM25 statistics derived from them recomputed (as 003 did).
CREATE FUNCTION mnemo_cjk(text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT CASE WHEN $1 !~ '[\u1100-\u11FF\u2E80-\u2FDF\u3005\u3007\u3021-\u3029\u3038-\u303B\u3041-\u3096\u309D-\u309F\u30A1-\u30FA\u30FC-\u30FF\u3131-\u318E\u31F0-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uA960-\uA97F\uAC00-\uD7AF\uD7B0-\uD7FF\uF900-\uFAFF\uFF66-\uFF9F\uFFA0-\uFFDC\U0001B000-\U0001B16F\U00020000-\U0002FA1F\U00030000-\U000323AF]' THEN $1 ELSE (
        SELECT string_agg(CASE
            WHEN r.m[1] !~ '^[\u1100-\u11FF\u2E80-\u2FDF\u3005\u3007\u3021-\u3029\u3038-\u303B\u3041-\u3096\u309D-\u309F\u30A1-\u30FA\u30FC-\u30FF\u3131-\u318E\u31F0-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uA960-\uA97F\uAC00-\uD7AF\uD7B0-\uD7FF\uF900-\uFAFF\uFF66-\uFF9F\uFFA0-\uFFDC\U0001B000-\U0001B16F\U00020000-\U0002FA1F\U00030000-\U000323AF]' THEN r.m[1]
            WHEN char_length(r.m[1]) = 1 THEN r.m[1]
            ELSE (SELECT string_agg(substr(r.m[1], i, 2), ' ' ORDER BY i) FROM generate_series(1, char_length(r.m[1]) - 1) AS i)
        END, ' ' ORDER BY r.n)
        FROM regexp_matches($1, '[\u1100-\u11FF\u2E80-\u2FDF\u3005\u3007\u3021-\u3029\u3038-\u303B\u3041-\u3096\u309D-\u309F\u30A1-\u30FA\u30FC-\u30FF\u3131-\u318E\u31F0-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uA960-\uA97F\uAC00-\uD7AF\uD7B0-\uD7FF\uF900-\uFAFF\uFF66-\uFF9F\uFFA0-\uFFDC\U0001B000-\U0001B16F\U00020000-\U0002FA1F\U00030000-\U000323AF]+|[^\u1100-\u11FF\u2E80-\u2FDF\u3005\u3007\u3021-\u3029\u3038-\u303B\u3041-\u3096\u309D-\u309F\u30A1-\u30FA\u30FC-\u30FF\u3131-\u318E\u31F0-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uA960-\uA97F\uAC00-\uD7AF\uD7B0-\uD7FF\uF900-\uFAFF\uFF66-\uFF9F\uFFA0-\uFFDC\U0001B000-\U0001B16F\U00020000-\U0002FA1F\U00030000-\U000323AF]+', 'g') WITH ORDINALITY AS r(m, n)) END $$;

ALTER TABLE facts DROP COLUMN tsv, DROP COLUMN words;
ALTER TABLE facts
    ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig,
        mnemo_cjk(CASE WHEN speaker = '' THEN text ELSE speaker || ': ' || text END))) STORED,
    ADD COLUMN words integer GENERATED ALWAYS AS (mnemo_tsvector_words(to_tsvector('english'::regconfig,
        mnemo_cjk(CASE WHEN speaker = '' THEN text ELSE speaker || ': ' || text END)))) STORED;
CREATE INDEX facts_tsv ON facts USING gin (bank_id, tsv);

DELETE FROM fact_lexemes;
DELETE FROM doc_stats;
DELETE FROM doc_lexemes;
DELETE FROM lexemes;

INSERT INTO fact_lexemes (bank_id, lexeme, seq, tf, words)
SELECT f.bank_id, u.lexeme, f.seq, cardinality(u.positions), f.words FROM facts f, unnest(f.tsv) u;

INSERT INTO doc_stats (bank_id, document_id, words, first_seq)
SELECT bank_id, document_id, sum(words), min(seq) FROM facts
WHERE document_id <> '' GROUP BY bank_id, document_id;

INSERT INTO doc_lexemes (bank_id, lexeme, document_id, tf)
SELECT f.bank_id, u.lexeme, f.document_id, sum(cardinality(u.positions)) FROM facts f, unnest(f.tsv) u
WHERE f.document_id <> '' GROUP BY f.bank_id, u.lexeme, f.document_id;

INSERT INTO lexemes (bank_id, lexeme, df, max_tf, min_words)
SELECT f.bank_id, u.lexeme, count(*), max(cardinality(u.positions)), min(f.words) FROM facts f, unnest(f.tsv) u
GROUP BY f.bank_id, u.lexeme;

UPDATE banks b SET fact_count = coalesce(x.n, 0), fact_words = coalesce(x.words, 0)
FROM banks b2 LEFT JOIN (SELECT bank_id, count(*) AS n, sum(words) AS words FROM facts GROUP BY bank_id) x ON x.bank_id = b2.id
WHERE b.id = b2.id;
