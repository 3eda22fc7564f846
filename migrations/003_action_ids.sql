-- Roundhouse bot storage, version 3: a log can hold each action once, in order.
-- `action_id` is the action's own id (the 18xx.games `id`). Two writers on one database used to store
-- two actions with one id; now the second insert fails. Rows of a log already damaged that way are
-- kept (the later duplicate loses its id), and start-up reports that game instead of resuming it.

ALTER TABLE actions ADD COLUMN action_id INTEGER;

UPDATE actions SET action_id = json_extract(action, '$.id');

CREATE INDEX actions_action_id_scan ON actions(game_id, action_id);

UPDATE actions SET action_id = NULL
 WHERE EXISTS (SELECT 1 FROM actions a
                WHERE a.game_id = actions.game_id AND a.action_id = actions.action_id AND a.seq < actions.seq);

DROP INDEX actions_action_id_scan;

CREATE UNIQUE INDEX IF NOT EXISTS actions_action_id ON actions(game_id, action_id);

-- appended in order: the next sequence number, and an id after every stored one
CREATE TRIGGER IF NOT EXISTS actions_append_in_order
BEFORE INSERT ON actions
WHEN NEW.action_id IS NULL
  OR NEW.seq <> COALESCE((SELECT MAX(seq) FROM actions WHERE game_id = NEW.game_id), 0) + 1
  OR NEW.action_id <= COALESCE((SELECT MAX(action_id) FROM actions WHERE game_id = NEW.game_id), 0)
BEGIN
    SELECT RAISE(ABORT, 'actions are appended in order, each with a new id');
END;
