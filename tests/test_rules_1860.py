"""A sale that makes an 1860 company bankrupt in a stock round: a new stock round starts at once, its
priority with the player holding the fewest shares (here the seller, left with none); a priority player
with nothing they can do passes and the turn goes on (18xx.games instead leaves the restarted round on
that player, where nobody can act: the log it refuses at the next action). And the company operating after
a bankruptcy in an operating round keeps its train step for its whole turn."""

import json
from pathlib import Path

from tracelines import digest

from engine.replay import replay

CASE = Path(__file__).parent / "fixtures" / "1860" / "cases" / "sr_bankruptcy_restart.json"
TRAIN_STEP_CASE = CASE.with_name("train_step_after_bankruptcy.json")


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


def test_the_company_after_a_bankruptcy_keeps_its_train_step():
    """FYN, in receivership, runs nothing: its price falls to 0 and it goes bankrupt as its turn ends. IWNJ,
    next, has no money as its turn begins; its run earns a 10 cr halt subsidy, and after its dividend it may
    buy another company's train for 10 cr, as the rules let it (18xx.games skipped IWNJ's train step with
    FYN's finished steps and refuses the buy). Every trace line before the dividend agrees with the reference."""
    log = json.loads(TRAIN_STEP_CASE.read_text())
    dividend, buy = log["actions"][-2:]
    log["actions"] = log["actions"][:-2]
    ours: list = []
    game, _ = replay(log, ours)
    assert [digest(line) for line in ours] == TRAIN_STEP_CASE.with_suffix(".digests").read_text().split()
    iwnj = game.corporation("IWNJ")
    assert "FYN" in {c.sym for c in game.bankrupt} and iwnj.cash == 0
    game.apply(dividend)
    assert game.round.current_entity is iwnj and iwnj.cash == 10
    offered = [(a["train"], a["price"]) for a in game.legal_actions() if a["type"] == "buy_train"]
    assert ("4+2-1", 10) in offered
    game.apply(buy)
    assert "4+2-1" in [t.id for t in iwnj.trains] and iwnj.cash == 0
