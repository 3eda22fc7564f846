-- Roundhouse bot storage, version 12: how far a game's thread has been told. `told_moment` is the game's moment
-- (actions in the log plus twice the actions undone: every action and every undo moves it on) when its thread was
-- last told of an action, an undo or its start (-1: started, the start not told yet), and `told_count` the actions
-- in the log then; NULL: not known (a game from before this version). A post lost after what it tells was stored
-- (the process killed in between, Discord refusing it) leaves them behind: the bot then posts what the thread
-- missed, with its pings.

ALTER TABLE games ADD COLUMN told_moment INTEGER;
ALTER TABLE games ADD COLUMN told_count INTEGER;
