-- Roundhouse bot storage, version 6: languages.
-- A game's thread speaks the game's language (chosen at `/game new`, else the server's preferred locale);
-- a member's DMs speak the language of their Discord client, as last seen in one of their commands.

ALTER TABLE games ADD COLUMN language TEXT NOT NULL DEFAULT 'en';

CREATE TABLE IF NOT EXISTS member_languages (
    member_id   INTEGER PRIMARY KEY,
    language    TEXT    NOT NULL,
    updated_at  REAL    NOT NULL
);
