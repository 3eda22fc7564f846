-- Roundhouse bot storage, version 12: how far a game's thread has been told. `told_moment` is the game's moment
-- (actions in the log plus twice the actions undone: every action and every undo moves it on) when its thread was
-- last told of an action, an undo or its start, and `told_count` the actions in the log then; NULL: not known (a
-- game from before this version, or one never posted). An action stored whose post was lost (the process killed in
-- between, Discord refusing the post) leaves them behind: the bot then posts what the thread missed, with its pings.

ALTER TABLE games ADD COLUMN told_moment INTEGER;
ALTER TABLE games ADD COLUMN told_count INTEGER;
