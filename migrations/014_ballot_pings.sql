-- Roundhouse bot storage, version 14: when a seat's undo request or trade offer last pinged the seats it asks, so
-- that asking again within a while posts without pinging them (`Service._may_ping`) after a restart too (this was
-- kept in memory only). One row per game, asking seat and kind of ballot (`undo_votes` or `trade_offers`), written
-- with the ballot that pinged.

CREATE TABLE IF NOT EXISTS ballot_pings (
    game_id     INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    player_id   INTEGER NOT NULL,                       -- the asking seat
    ballot      TEXT    NOT NULL,                       -- undo_votes | trade_offers
    pinged_at   REAL    NOT NULL,                       -- unix time
    PRIMARY KEY (game_id, player_id, ballot)
);
