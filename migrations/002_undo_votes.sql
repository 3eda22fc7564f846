-- Roundhouse bot storage, version 2: open undo votes survive a restart.
-- At most one open request per game; any new action (or undo) closes it.

CREATE TABLE IF NOT EXISTS undo_requests (
    game_id     INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    requester   INTEGER NOT NULL,                       -- member id
    steps       INTEGER NOT NULL,
    at_count    INTEGER NOT NULL,                       -- actions in the log when it was asked (the vote's key)
    needed      TEXT    NOT NULL,                       -- JSON: member ids who must agree
    agreed      TEXT    NOT NULL DEFAULT '[]',          -- JSON: member ids who agreed so far
    message_id  INTEGER,                                -- the vote message (its buttons are removed when closed)
    created_at  REAL    NOT NULL
);
