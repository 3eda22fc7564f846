"""The engine's preview of an 1817 action (engine.core.preview) tells what `apply` then does: every loan,
repayment, conversion, merger, offer and acquisition-round move of the recorded games 15528 and 16281 and
of random games is previewed, applied, and the preview compared with what changed; previewing never
touches the game. The loan's terms are also checked against the rules (the rate the loans out make)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.core.actions import resolve_undo
from engine.core.errors import GameError
from engine.core.preview import PREVIEWED, effect, preview, snapshot
from engine.selfplay import choose
from engine.titles import rules_class

FIXTURES = Path(__file__).parent / "fixtures" / "1817"


def recorded(name: str) -> list[dict]:
    log = json.loads((FIXTURES / f"{name}.json").read_text())
    return log, [{k: v for k, v in a.items() if k not in ("id", "created_at", "original_id")}
                 for a in resolve_undo(log["actions"]) if a["type"] != "message"]


def previewed(game, action: dict) -> bool:
    return action["type"] in PREVIEWED or action["type"] == "assign" and action.get("target_type") == "corporation" \
        or game.round.merger


def check(game, action: dict) -> dict:
    """Preview, apply, compare; the preview leaves the game as it was."""
    before = snapshot(game)
    summary = game.summary()
    said = preview(game, action)
    assert snapshot(game) == before and game.summary() == summary, action
    game.apply(action)
    assert {**effect(before, snapshot(game)), "events": game.outcomes, "payments": game.company_payments,
            "auto_actions": game.actions[-1].get("auto_actions") or []} == said, action
    return said


@pytest.mark.parametrize("name", ["15528", "16281"])
def test_previews_of_the_recorded_games_are_what_happens(name):
    log, actions = recorded(name)
    game = rules_class("1817").from_18xx(dict(log, actions=[]))
    game.generate_auto_actions = False
    seen: dict[str, int] = {}
    for action in actions:
        if not previewed(game, action):
            game.apply(action)
            continue
        said = check(game, action)
        seen[action["type"]] = seen.get(action["type"], 0) + 1
        if action["type"] == "take_loan":
            corp = said["corporations"][action["entity"]]
            loans = said["loans"]
            assert corp["cash"][1] - corp["cash"][0] == loans["value"] == 100
            assert corp["loans"][1] == corp["loans"][0] + 1 and loans["out"][1] == loans["out"][0] + 1
            assert loans["rate_by_loans"][1] == game.loan_bank.rate_for(loans["out"][1])
            assert corp["interest"][1] == corp["loans"][1] * loans["rate"][1]
            assert corp["price"][1] <= corp["price"][0]  # one step left, or none at the edge
        elif action["type"] == "payoff_loan":
            corp = said["corporations"][action["entity"]]
            assert corp["cash"][0] - corp["cash"][1] == 100 and corp["loans"][1] == corp["loans"][0] - 1
    assert {"take_loan", "payoff_loan", "convert", "merge"} <= set(seen), seen


def test_a_merger_tells_each_holder_and_the_survivor():
    log, actions = recorded("15528")
    k = next(i for i, a in enumerate(actions) if a["type"] == "merge" and a["entity"] == "A&S")
    game = rules_class("1817").from_18xx(dict(log, actions=actions[:k]))
    said = check(game, actions[k])
    survivor, merged = said["corporations"]["A&S"], said["corporations"]["UR"]
    assert survivor["size"] == [5, 10] and merged["gone"]
    assert survivor["cash"][1] == survivor["cash"][0] + merged["cash"][0]
    assert survivor["loans"][1] == survivor["loans"][0] + merged["loans"][0]
    holders = {pid: p["shares"] for pid, p in said["players"].items()}
    assert sum(s["A&S"][1] for s in holders.values()) + survivor["holders"][1].get("treasury", 0) == 100
    assert all(s.get("UR", [0, 0])[1] == 0 for s in holders.values())


def test_a_refused_action_is_refused_by_the_preview_and_changes_nothing():
    log, actions = recorded("15528")
    k = next(i for i, a in enumerate(actions) if a["type"] == "take_loan")
    game = rules_class("1817").from_18xx(dict(log, actions=actions[:k]))
    before = snapshot(game)
    with pytest.raises(GameError):
        preview(game, {**actions[k], "entity": "NOPE"})
    assert snapshot(game) == before


@pytest.mark.parametrize("seed", [7, 23])
def test_previews_of_random_games_are_what_happens(seed):
    rng = random.Random(seed)
    game = rules_class("1817")([{"id": i + 1, "name": f"Player {i + 1}"} for i in range(4)], seed=seed,
                               game_id=seed)
    checked = 0
    turns, current = 0, None
    while not game.finished and len(game.actions) < 2500:
        if game.round is not current:
            current, turns = game.round, 0
        turns += 1
        action = choose(game, rng, turns)
        if action is None:
            break
        action = {k: v for k, v in action.items() if k not in ("id", "created_at")}
        if previewed(game, action) and not action["type"].startswith("program_"):
            check(game, action)
            checked += 1
        else:
            game.apply(action)
    assert checked > 30


@pytest.mark.parametrize("name", ["15528", "1817_game_end_bankrupt"])
def test_an_offer_tells_what_each_holder_gets_at_its_opening_bid(name):
    """An offer for sale tells what each holder gets (a short: pays) if it sells at its opening bid: the
    recorded sales at that bid pay exactly that when they settle."""
    log, actions = recorded(name)
    game = rules_class("1817").from_18xx(dict(log, actions=[]))
    game.generate_auto_actions = False
    offered, checked = None, 0
    for action in actions:
        if action["type"] == "assign" and action.get("target_type") == "corporation":
            sale = preview(game, action)["next"]["sale"]
            assert sale["corporation"] == action["target"] and sale["mode"] == "offered"
            offered = sale
        price = (game.turn_info().get("acquisition") or {}).get("price")
        cash = {p.id: p.cash for p in game.players}
        game.apply(action)
        if offered and not game.corporation(offered["corporation"]).floated:  # sold: its holders paid
            if price == offered["opening"]:
                paid = {p.id: p.cash - cash[p.id] for p in game.players if p.cash != cash[p.id]}
                assert paid == offered["proceeds"], (offered, paid)
                checked += 1
            offered = None
    assert checked


@pytest.mark.parametrize("name", ["15528", "1817_game_end_bankrupt"])
def test_a_sale_tells_what_each_holder_gets_at_the_price_bid_now(name):
    """In the acquisition round the corporation on sale tells, at the price bid now (the bank's $0 in a
    liquidation nobody bid in), what each holder gets (a short: pays) and what a liquidated one's president
    pays of its loans; when it is settled, the engine's event says it paid exactly that, and the players'
    cash moved by it."""
    log, actions = recorded(name)
    game = rules_class("1817").from_18xx(dict(log, actions=[]))
    game.generate_auto_actions = False
    told: dict[str, dict] = {}
    checked = {"liquidate": 0, "other": 0, "president": 0}
    for action in actions:
        sale = game.turn_info().get("acquisition")
        if sale:
            told[sale["corporation"]] = sale
        cash = {p.id: p.cash for p in game.players}
        game.apply(action)
        settled = [e for e in game.outcomes if e["event"] == "settled"]
        moved: dict = {}
        for e in settled:
            sale = told.pop(e["corporation"])
            assert e["paid"] == sale["proceeds"], (sale, e)
            assert e["president_pays"] == sale.get("president_pays", 0), (sale, e)
            for pid, amount in e["paid"].items():
                moved[pid] = moved.get(pid, 0) + amount
            if e["president_pays"]:
                moved[e["president"]] = moved.get(e["president"], 0) - e["president_pays"]
                checked["president"] += 1
            checked["liquidate" if sale["mode"] == "liquidate" else "other"] += 1
        for pay in game.company_payments:  # the Golden Parachute
            if pay["to_type"] == "player":
                moved[pay["to"]] = moved.get(pay["to"], 0) + pay["amount"]
        if settled:
            assert {pid: c for pid, c in moved.items() if c} == \
                {p.id: p.cash - cash[p.id] for p in game.players if p.cash != cash[p.id]}, (action, settled)
    assert all(checked.values()), checked


def test_operating_passes_tell_interest_and_the_liquidation_zone():
    """An operating round's passes may set off what its president would weigh first: H, passing on a train,
    can't pay its interest (its president pays it, getting its treasury; the liquidation zone); GT, passing
    on loans, ends its turn without a train (the liquidation zone); ME borrows to pay its interest. The
    preview reports it as the engine's events, the turn says a pass there may set something off, and a pass
    on track sets off nothing."""
    for name, kind, expected in [
            ("16281", ("interest_unpaid", "H"), {"owed": 100, "treasury": 48}),
            ("15528", ("liquidation_zone", "GT"), {"why": "no_train"}),
            ("15528", ("interest", "ME"), {"amount": 60, "unpaid": 0, "borrowed": 1})]:
        log, actions = recorded(name)
        game = rules_class("1817").from_18xx(dict(log, actions=[]))
        game.generate_auto_actions = False
        for action in actions:
            if action["type"] == "pass" and game.round.operating:
                assert game.turn_info()["pass_sets_off"]
                said = check(game, action)
                found = [e for e in said["events"] if (e["event"], e.get("corporation")) == kind and
                         all(e[k] == v for k, v in expected.items())]
                if found:
                    break
            else:
                game.apply(action)
        assert found, kind
        event = found[0]
        if kind[0] == "interest_unpaid":
            cash = said["players"][event["president"]]["cash"]
            assert cash[1] - cash[0] == event["treasury"] - event["owed"]
            assert [e for e in said["events"] if e["event"] == "liquidation_zone"][0]["why"] == "interest"
    log, actions = recorded("15528")
    k = next(i for i, a in enumerate(actions) if a["type"] == "pass" and i >= 307)
    game = rules_class("1817").from_18xx(dict(log, actions=actions[:k]))
    assert game.round.operating and check(game, actions[k])["events"] == []
