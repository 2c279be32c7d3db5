-- Standing questions: the questions a bank pins and their latest answers
-- (memory.StandingAnswers); answered_at is NULL until the standing pass
-- first answers.
CREATE TABLE standing_questions (
    bank_id     text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id          text COLLATE "C" NOT NULL,
    question    text NOT NULL,
    created_at  timestamptz NOT NULL,
    answer      text NOT NULL DEFAULT '',
    memory_ids  text[] NOT NULL DEFAULT '{}',
    answered_at timestamptz,
    PRIMARY KEY (bank_id, id)
);
