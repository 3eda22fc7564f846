"""Several corporations over their train limit at once (a phase change): every president discards for their own
corporation without waiting for the others, in any order, as 18xx.games' engine takes a discard from any of
them; a member presiding none of them is told whose turn it is. The state is a random game's (seed-played,
kept in tests/fixtures/1830/random/) after a 5-train left NYC, B&O and B&M over the limit of 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakediscord.play import imported_game

from bot.db import Database
from bot.errors import UserError
from bot.service import Service
from bot.session import Engine

LOG = Path(__file__).parent / "fixtures" / "1830" / "random" / "discard_pile_first_of_each.json"
UPTO = 614  # NYC (player 4), B&O (player 6) and B&M (player 1, whose turn it is) are over the limit
NYC, BO, BM = 4, 6, 1


async def test_each_president_discards_without_waiting_for_the_first(tmp_path):
    async with Database(str(tmp_path / "rh.db")) as db:
        svc = Service(db, Engine(), pictures=False)
        gid, callers = await imported_game(svc, json.loads(LOG.read_text()), UPTO)
        lv = svc._live[gid]
        assert lv.session.active_players() == [NYC, BO, BM]
        assert lv.session.acting() == {"entity": "NYC", "entity_type": "corporation"}  # the first asked
        assert svc.turn_text(lv, mention=False) == \
            "Next: **Player 4**, **Player 6**, **Player 1** for NYC, B&O, B&M — discard a train: NYC, B&O, B&M are " \
            "over their train limits."

        # the second president is offered their own corporation's trains, and discards first
        offered = await svc.autocomplete(gid, callers[BO], "discard", "train", "", {})
        assert sorted(v for _, v in offered) == sorted(t.id for t in lv.game.corporation("B&O").trains) != []
        reply = await svc.act(gid, callers[BO], "discard", {"train": "3-4"})
        assert "B&O discards train 3-4" in reply.text, reply.text
        assert "3-4" not in [t.id for t in lv.game.corporation("B&O").trains]
        assert lv.session.active_players() == [NYC, BM]
        assert "**Player 4**, **Player 1** for NYC, B&M — discard a train: NYC, B&M are" in svc.turn_text(lv, False)

        # a member presiding no corporation over the limit: not their turn, and whose it is
        for pid in (2, 3, 5):
            with pytest.raises(UserError, match="^It is not your turn: waiting for Player 4, Player 1.$"):
                await svc.act(gid, callers[pid], "discard", {"train": "3-0"})
        # B&O's president, done, has no turn either
        with pytest.raises(UserError, match="^It is not your turn"):
            await svc.act(gid, callers[BO], "discard", {"train": "3-2"})

        await svc.act(gid, callers[BM], "discard", {"train": "4-2"})
        assert lv.session.active_players() == [NYC]
        await svc.act(gid, callers[NYC], "discard", {"train": "3-0"})
        assert lv.game.over_train_limit() == [] and lv.session.acting()["entity"] not in ("NYC", None)
