-- A ref's rank in its fact: 0 for the fact's most salient entity (most
-- mentions, then first named; memory.RankEntities). A fact adds
-- co-occurrences only among its first memory.CooccurrenceTop entities,
-- so forgetting it needs their ranks to take off exactly those pairs
-- (memory.ForgetCooccurrences). NULL where unknown: refs written before
-- this migration (their facts paired every entity), or brought in by an
-- export or a merge.
ALTER TABLE entity_refs ADD COLUMN ord integer;
