-- Roundhouse bot storage, version 5: games of any family.
-- `settings` holds what a game is set up with besides its title, seed and optional rules, as the game's
-- family defines it (Steam: map, mode, turn order); 18xx titles leave it empty.

ALTER TABLE games ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
