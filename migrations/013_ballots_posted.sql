-- Roundhouse bot storage, version 13: an undo vote or a trade offer is stored before its message is posted (the
-- game is not held while Discord answers), as not posted yet (`posted` 0), and confirmed once posted (or withdrawn
-- if Discord refuses it). Its buttons carry `token`, a number of its own: a press on its message after a restart
-- that came between the post and its confirmation is known for its own, and confirms it. Those open now keep the
-- number their buttons carry, the action count.

ALTER TABLE undo_votes ADD COLUMN token INTEGER;
ALTER TABLE undo_votes ADD COLUMN posted INTEGER NOT NULL DEFAULT 1;
UPDATE undo_votes SET token = at_count;
ALTER TABLE trade_offers ADD COLUMN token INTEGER;
ALTER TABLE trade_offers ADD COLUMN posted INTEGER NOT NULL DEFAULT 1;
UPDATE trade_offers SET token = at_count;
