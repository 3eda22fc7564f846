-- Roundhouse bot storage, version 19: a ballot closed before its message was known (its post on its way) owes its
-- closing from the same commit as one whose message is known: the edit is kept by the ballot's first button (its
-- number, `undo_yes:<token>`) and the time it was stored, and given its message as soon as Discord answers the post.
-- Should the bot stop before that answer, the message posted since then with that button is the one edited.

CREATE TABLE ballots_closing_by_button (
    id          INTEGER PRIMARY KEY,
    message_id  INTEGER UNIQUE,                         -- the ballot's message (NULL: not known yet)
    game_id     INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    text        TEXT    NOT NULL,                       -- the message as closed ("… — closed: Ann declined.")
    button      TEXT    UNIQUE,                         -- its first button (`what:token`), for one not known yet
    since       REAL                                    -- when the ballot was stored (before its post)
);
INSERT INTO ballots_closing_by_button(message_id, game_id, text) SELECT message_id, game_id, text FROM ballots_closing;
DROP TABLE ballots_closing;
ALTER TABLE ballots_closing_by_button RENAME TO ballots_closing;
