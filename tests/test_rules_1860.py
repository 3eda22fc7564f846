"""A sale that makes an 1860 company bankrupt in a stock round: a new stock round starts at once, its
priority with the player holding the fewest shares (here the seller, left with none); a priority player
with nothing they can do passes and the turn goes on (18xx.games instead leaves the restarted round on
that player, where nobody can act: the log it refuses at the next action)."""

import json
from pathlib import Path

from tracelines import digest

from engine.replay import replay

CASE = Path(__file__).parent / "fixtures" / "1860" / "cases" / "sr_bankruptcy_restart.json"


def test_stock_round_restarts_with_priority_to_the_player_with_fewest_shares():
    log = json.loads(CASE.read_text())
    sale = log["actions"][-1]
    reference = CASE.with_suffix(".digests").read_text().split()
    log["actions"] = log["actions"][:-1]
    ours: list = []
    game, _ = replay(log, ours)
    assert [digest(line) for line in ours] == reference
    seller = game.player(sale["entity"])
    game.apply(sale)
    rnd = game.round
    assert "C&N" in {c.sym for c in game.bankrupt}
    assert game.players[0] is seller and not list(seller.all_shares())
    assert rnd.stock and rnd.players_sold == {}
    assert all(not p.passed for p in rnd.entities[1:]) and seller.passed
    assert rnd.current_entity is game.players[1]
