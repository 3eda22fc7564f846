-- Roundhouse bot storage, version 10: an action shown to its member before it is sent (a loan, a merger, a pass
-- that lets the bank liquidate...) waits for their Confirm here, so a restart does not lose it: the Confirm
-- button's number is the key. Applied only while the game is where it was when shown (at_count actions, the
-- same last action), and only once (the row goes when answered).

CREATE TABLE IF NOT EXISTS previews (
    token       INTEGER PRIMARY KEY,                    -- the number on its Confirm and Cancel buttons
    game_id     INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    member_id   INTEGER NOT NULL,                       -- the member who asked (only they answer it)
    player_id   INTEGER NOT NULL,                       -- their seat
    at_count    INTEGER NOT NULL,                       -- actions in the log when it was shown
    action      TEXT    NOT NULL,                       -- JSON: the action applied on Confirm
    command     TEXT    NOT NULL,                       -- the family's command that built it
    last_action TEXT,                                   -- JSON: the log's last action when shown
    created_at  REAL    NOT NULL
);
CREATE INDEX IF NOT EXISTS previews_by_member ON previews(game_id, member_id);
