-- Roundhouse bot storage, version 7: each game thread keeps one pinned summary message (round, whose turn,
-- standings), edited after every action. Its id is kept here; NULL until it is first posted.

ALTER TABLE games ADD COLUMN pin_message_id INTEGER;
