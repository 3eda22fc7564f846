-- Roundhouse bot storage, version 1.
-- A game is its settings plus its action log: state is rebuilt by replaying `actions`.

CREATE TABLE IF NOT EXISTS games (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    title           TEXT    NOT NULL,
    status          TEXT    NOT NULL DEFAULT 'lobby',   -- lobby | active | finished | aborted
    seed            INTEGER NOT NULL,
    optional_rules  TEXT    NOT NULL DEFAULT '[]',      -- JSON list
    guild_id        INTEGER,
    channel_id      INTEGER,                            -- parent channel of the thread
    thread_id       INTEGER UNIQUE,                     -- the game's thread (console: NULL)
    lobby_message_id INTEGER,
    created_by      INTEGER NOT NULL,                   -- member id of the host
    created_at      REAL    NOT NULL,
    updated_at      REAL    NOT NULL,
    last_action_at  REAL,
    turn_members    TEXT    NOT NULL DEFAULT '[]',      -- JSON: members who were last told it is their turn
    result          TEXT,                               -- JSON {player_id: score} once finished
    end_reason      TEXT
);

CREATE TABLE IF NOT EXISTS seats (
    game_id     INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    player_id   INTEGER NOT NULL,                       -- the engine's player id
    member_id   INTEGER NOT NULL,                       -- Discord user id (console: a made-up id)
    name        TEXT    NOT NULL,
    position    INTEGER,                                -- seat order, 0-based; NULL in the lobby
    joined_at   REAL    NOT NULL,
    PRIMARY KEY (game_id, player_id),
    UNIQUE (game_id, member_id)
);

CREATE TABLE IF NOT EXISTS actions (
    game_id     INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,                       -- 1, 2, 3 ... position in the applied log
    action      TEXT    NOT NULL,                       -- JSON, 18xx.games format, as stored by the engine
    member_id   INTEGER,                                -- who submitted it (NULL: imported)
    created_at  REAL    NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE TABLE IF NOT EXISTS reminders (
    game_id     INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    enabled     INTEGER NOT NULL DEFAULT 1,
    first_after REAL    NOT NULL DEFAULT 43200,         -- seconds of idle time before the first reminder
    every       REAL    NOT NULL DEFAULT 86400,         -- seconds between further reminders
    next_at     REAL,                                   -- unix time of the next reminder (NULL: none due)
    last_sent_at REAL
);

CREATE TABLE IF NOT EXISTS dm_optins (
    member_id   INTEGER PRIMARY KEY,
    enabled     INTEGER NOT NULL DEFAULT 1,
    updated_at  REAL    NOT NULL
);

CREATE INDEX IF NOT EXISTS games_status ON games(status);
CREATE INDEX IF NOT EXISTS seats_member ON seats(member_id);
CREATE INDEX IF NOT EXISTS reminders_next ON reminders(next_at) WHERE enabled = 1;
