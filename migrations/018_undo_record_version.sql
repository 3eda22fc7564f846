-- Roundhouse bot storage, version 18: an undo's record says how its sentences (`told`) name members, rather than
-- leaving it to be guessed from the text. 1: as messages write them (`written_name`). NULL: stored before, as typed
-- unless the text holds only the escapes `written_name` makes (`written_text`).

ALTER TABLE undo_events ADD COLUMN version INTEGER;
