-- Standing questions: the questions a bank pins and their latest answers
-- (memory.StandingAnswers). memory_ids is a JSON array of the answer's
-- evidence; answered_at is NULL until the standing pass first answers.
CREATE TABLE standing_questions (
    bank_id     TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id          TEXT NOT NULL,
    question    TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    answer      TEXT NOT NULL DEFAULT '',
    memory_ids  TEXT NOT NULL DEFAULT '[]',
    answered_at INTEGER,
    PRIMARY KEY (bank_id, id)
);
