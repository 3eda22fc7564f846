-- Roundhouse bot storage, version 9: a trade waiting for the selling seat's consent (a train or private between
-- two players' companies) survives a restart. At most one per game; any action or undo closes it.

CREATE TABLE IF NOT EXISTS trade_offers (
    game_id     INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    buyer       INTEGER NOT NULL,                       -- player id (seat) that offered
    seller      INTEGER NOT NULL,                       -- player id (seat) that must agree
    action      TEXT    NOT NULL,                       -- JSON: the action applied for the buyer if the seller agrees
    at_count    INTEGER NOT NULL,                       -- actions in the log when it was offered (the offer's key)
    message_id  INTEGER,                                -- the offer message (its buttons go when it is closed)
    created_at  REAL    NOT NULL
);
