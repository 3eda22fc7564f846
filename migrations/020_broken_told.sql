-- Roundhouse bot storage, version 20: a running game whose stored log no longer replays is told so in its thread
-- once when a start-up finds it (not again at each start-up), until it loads again.

ALTER TABLE games ADD COLUMN broken_told INTEGER NOT NULL DEFAULT 0;  -- 1: its thread was told it cannot be loaded
