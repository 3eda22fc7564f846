-- Roundhouse bot storage, version 8: who undid what. Each undo that took actions back is kept, so the game's
-- history tells it where it happened: after action `kept` of the log, the seat `requester` took back `steps`
-- actions (taken by the seats in `takers`), with the agreement of the seats in `agreed` (empty: its own
-- actions, no vote); `told` is what was said of the undone actions.

CREATE TABLE IF NOT EXISTS undo_events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id     INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    kept        INTEGER NOT NULL,                       -- actions left in the log by the undo
    requester   INTEGER NOT NULL,                       -- player id (seat) that asked
    steps       INTEGER NOT NULL,
    takers      TEXT    NOT NULL DEFAULT '[]',          -- JSON: player id that took each undone action (null: imported)
    agreed      TEXT    NOT NULL DEFAULT '[]',          -- JSON: player ids that voted for it, the requester left out
    told        TEXT    NOT NULL,                       -- the undone actions as sentences
    created_at  REAL    NOT NULL
);

CREATE INDEX IF NOT EXISTS undo_events_game ON undo_events(game_id, kept);
