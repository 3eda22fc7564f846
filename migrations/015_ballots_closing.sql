-- Roundhouse bot storage, version 15: an undo vote refused or a trade offer declined is closed at once, but its
-- message loses its buttons only when the answer is told; should telling fail, the catch-up edits it. Kept from
-- the answer's commit (with the ballot's deletion) until that edit is out.

CREATE TABLE IF NOT EXISTS ballots_closing (
    message_id  INTEGER PRIMARY KEY,                    -- the ballot's message
    game_id     INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    text        TEXT    NOT NULL                        -- the message as closed ("… — closed: Ann declined.")
);
