-- Roundhouse bot storage, version 17: a new game's thread asked of Discord and not answered yet. Stored before the
-- request, dropped once its thread is the game's (or known never to come, or deleted): a row left at start-up is
-- a thread Discord may have opened while the bot was stopped, looked for and deleted.

CREATE TABLE IF NOT EXISTS threads_asked (
    game_id    INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    parent_id  INTEGER NOT NULL,                        -- the channel the thread was asked in
    name       TEXT    NOT NULL,                        -- the thread's name as asked
    asked_at   REAL    NOT NULL
);
