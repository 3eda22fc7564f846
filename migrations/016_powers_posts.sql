-- Roundhouse bot storage, version 16: each game's latest post carrying the out-of-turn button (`powers`), so that
-- after a restart the next post telling who holds such moves still takes the button off it (it was kept in memory
-- only). Its words and other buttons are kept to edit it as it was posted.

CREATE TABLE IF NOT EXISTS powers_posts (
    game_id     INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    message_id  INTEGER NOT NULL,
    post        TEXT    NOT NULL                        -- JSON: text, buttons, labels, language as posted
);
