-- Roundhouse bot storage, version 4: undo votes belong to seats, not members.
-- After `/game replace` the seat's new holder votes and the old one no longer can; who must agree is
-- every other claimed seat at the time of voting, so it is not stored.

CREATE TABLE IF NOT EXISTS undo_votes (
    game_id     INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    requester   INTEGER NOT NULL,                       -- player id (seat) that asked
    steps       INTEGER NOT NULL,
    at_count    INTEGER NOT NULL,                       -- actions in the log when it was asked (the vote's key)
    agreed      TEXT    NOT NULL DEFAULT '[]',          -- JSON: player ids (seats) that agreed so far
    message_id  INTEGER,                                -- the vote message (its buttons are removed when closed)
    created_at  REAL    NOT NULL
);

INSERT OR IGNORE INTO undo_votes(game_id, requester, steps, at_count, agreed, message_id, created_at)
SELECT u.game_id, s.player_id, u.steps, u.at_count,
       (SELECT json_group_array(s2.player_id) FROM json_each(u.agreed) j
          JOIN seats s2 ON s2.game_id = u.game_id AND s2.member_id = j.value),
       u.message_id, u.created_at
  FROM undo_requests u JOIN seats s ON s.game_id = u.game_id AND s.member_id = u.requester;

DROP TABLE undo_requests;
