"""A private's ability usable out of turn is offered to its owner alone: in 1830's first stock round, while another
player is to act, MH's owner finds the exchange for an NYC share in `/buy`'s autocomplete (with `using` and without),
nobody else does, and the owner may send it there and then; another member sending it is told it is not their turn."""

from __future__ import annotations

from fakediscord.play import fixture_log, imported_game

from bot.db import Database
from bot.errors import UserError
from bot.service import Service
from bot.session import Engine

UPTO = 27  # 26855: Stock Round 1, player 117 to act; MH is player 330's and NYC has its par price
OWNER, ACTING = 330, 117


async def test_mh_is_offered_to_its_owner_out_of_turn(tmp_path):
    async with Database(str(tmp_path / "rh.db")) as db:
        svc = Service(db, Engine(), pictures=False)
        gid, callers = await imported_game(svc, fixture_log(), UPTO)
        lv = svc._live[gid]
        assert lv.session.active_players() == [ACTING] and lv.game.company("MH").owner.id == OWNER
        owner, acting = callers[OWNER], callers[ACTING]
        others = [c for pid, c in callers.items() if pid not in (OWNER, ACTING)]

        assert await svc.autocomplete(gid, owner, "buy", "using", "", {}) == [("MH", "MH")]
        shares = await svc.autocomplete(gid, owner, "buy", "share", "", {"using": "MH"})
        assert shares == [("exchange MH for NYC_1 (10%)", "MH>NYC_1@10")], shares
        assert ("exchange MH for NYC_1 (10%)", "MH>NYC_1@10") in await svc.autocomplete(gid, owner, "buy", "share", "", {})
        for caller in [acting, *others]:
            assert await svc.autocomplete(gid, caller, "buy", "using", "", {}) == []
            offered = await svc.autocomplete(gid, caller, "buy", "share", "", {})
            assert not any("MH" in str(value) for _, value in offered), offered

        try:
            await svc.act(gid, others[0], "buy", {"share": "MH>NYC_1@10"})
            raise AssertionError("another member exchanged MH")
        except UserError as e:
            assert "not your turn" in str(e), str(e)
        reply = await svc.act(gid, owner, "buy", {"share": "MH>NYC_1@10"})
        assert reply.text.startswith("Player 4 exchanges MH for 10% of NYC"), reply.text
        assert lv.session.active_players() == [ACTING]
        assert lv.game.company("MH").closed and lv.game.share("NYC_1").owner.id == OWNER
        assert await svc.autocomplete(gid, owner, "buy", "using", "", {}) == []
