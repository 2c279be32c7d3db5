-- A bank's facts by tag: a vector search filtered by tags counts and
-- compares the facts that carry them (search.go, searchFew) instead of
-- reading the whole bank. GIN over (bank_id, tags) (bank_id through
-- btree_gin): a tag's facts are confined to their bank inside the index.
CREATE INDEX facts_tags ON facts USING gin (bank_id, tags);
