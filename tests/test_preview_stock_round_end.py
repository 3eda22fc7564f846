"""A stock round's last pass is previewed, for every 18xx title: at each pass of a recorded game that ends a stock
round, the engine's preview (`engine.core.preview`, the pass tried on a copy) tells what the pass then does to the
game itself, and that accounts for everything the round's end changed: each corporation's price moved (sold out,
shares in the market; 1817: the liquidation zone), each player's and corporation's cash (the privates' income,
their powers' payments, 18MEX's mail contract of the first to operate), the privates closed, the priority deal, and who operates first. The bot words it before
the Confirm (`bot.families.g18xx.previews.pass_text`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.families.g18xx import G18xx
from engine.core.actions import resolve_undo
from engine.core.preview import preview
from engine.titles import load_18xx
from i18n import speaking

FIXTURES = Path(__file__).parent / "fixtures"
GAMES = {"1830": "1830/26855.json", "1860": "1860/1860_game_end_bank.json", "1817": "1817/15528.json",
         "18MEX": "18MEX/13315.json"}
MORE = {"1830": "1830/1830_game_end_bank.json", "1860": "1860/1860_game_end_stock_market.json",
        "1817": "1817/16281.json", "18MEX": "18MEX/18MEX_game_end_stock_market.json"}


def _state(game) -> dict:
    return {"price": {c.sym: c.share_price.price for c in game.corporations if c.share_price is not None},
            "cash": {**{p.id: p.cash for p in game.players}, **{c.sym: c.cash for c in game.corporations}},
            "closed": {c.sym for c in game.companies if c.closed}, "order": [p.id for p in game.players]}


def _stock_round_ends(path: str):
    """(game before the pass, the pass, turn_info, preview) for each pass of a stock round in a recorded game
    (`path` under the fixtures); the caller moves the game on by the pass itself."""
    log = json.loads((FIXTURES / path).read_text())
    actions = [a for a in resolve_undo(log["actions"]) if a["type"] != "message"]
    game = load_18xx({**log, "actions": []})
    game.generate_auto_actions = False  # the log brings its standing orders' actions
    for action in actions:
        if game.finished:
            return
        round_ = game.round
        if round_.stock and action["type"] == "pass":
            info = game.turn_info()
            said = preview(game, action)
            yield game, action, info, said, round_
        else:
            game.apply(action)


@pytest.mark.parametrize("title,path", sorted(GAMES.items()) + sorted(MORE.items()))
def test_the_preview_of_a_stock_round_s_last_pass_is_what_the_pass_does(title, path):
    ends = 0
    for game, action, info, said, round_ in _stock_round_ends(path):
        before = _state(game)
        game.apply(action)
        if game.round is round_:
            continue
        ends += 1
        after, events = _state(game), said["events"]
        assert info.get("pass_sets_off"), (title, action)
        # what the preview told is what the pass did
        assert events == game.outcomes, (title, action["id"])
        kinds = [e["event"] for e in events]
        assert {"event": "round_ended", "round": round_.description, "kind": "stock"} in events
        # every price that moved is told, from its price before to its price after, and no other
        moves: dict[str, list[int]] = {}
        for e in events:
            if e["event"] in ("price_moved", "liquidation_zone") and e["price"][0] != e["price"][1]:
                moves.setdefault(e["corporation"], []).append(e["price"])
        moved = {sym for sym, price in after["price"].items() if price != before["price"].get(sym)}
        assert set(moves) == moved, (title, action["id"], moves, moved)
        for sym, chain in moves.items():
            assert chain[0][0] == before["price"][sym] and chain[-1][1] == after["price"][sym], (sym, chain)
            assert all(a[1] == b[0] for a, b in zip(chain, chain[1:], strict=False)), (sym, chain)
        # every cash that moved is the privates' income and their powers' payments
        paid: dict = {}
        for e in [x for x in events if x["event"] in ("income", "mail_contract")] + said["payments"]:
            paid[e["to"]] = paid.get(e["to"], 0) + e["amount"]
        changed = {k: after["cash"][k] - before["cash"].get(k, 0) for k in after["cash"]
                   if after["cash"][k] != before["cash"].get(k, 0)}
        assert changed == paid, (title, action["id"], changed, paid)
        # the privates closed, the priority deal, who operates first
        closed = {e["company"] for e in events if e["event"] == "company_closed"}
        assert after["closed"] - before["closed"] == closed, (title, action["id"])
        priority = [e["player"] for e in events if e["event"] == "priority"]
        assert priority == [after["order"][0]], (title, action["id"], priority, after["order"])
        order = next(e["operators"] for e in events if e["event"] == "operating_order")
        assert game.round.operating and order == [op.key for op in game.round.entities], (title, action["id"])
        assert kinds.index("round_ended") < kinds.index("priority") < kinds.index("round_started") \
            < kinds.index("operating_order")
    assert ends >= 3, (title, path, ends)


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_stock_round_s_last_pass_is_shown_before_it_is_sent(lang):
    """1830's second stock round: its last pass raises the sold-out NYNH, gives Player 3 the priority deal and starts
    the operating round, where the privates pay and NYNH operates first; a pass that ends nothing is sent at once."""
    log = json.loads((FIXTURES / GAMES["1830"]).read_text())
    actions = [a for a in resolve_undo(log["actions"]) if a["type"] != "message"]
    k = next(i for i, a in enumerate(actions) if a["id"] == 89)
    session = G18xx("1830", load_18xx({**log, "actions": actions[:k]}))
    last = {key: v for key, v in actions[k].items() if key not in ("id", "created_at")}
    with speaking(lang):
        text = session.confirmation(last, session.player_names())
    expected = {
        "en": "If you pass: Stock Round 2 ends; NYNH is sold out: price $65 → $67; Player 3 gets the priority deal; "
              "Operating Round 2.1 (of 1) begins; privates pay SV $5 to Player 2, CS $10 to Player 2, DH $15 to "
              "Player 3, MH $20 to Player 4, CA $25 to Player 1, BO $30 to Player 2; NYNH operates first, then "
              "NYC, PRR",
    }
    if lang in expected:
        assert text == expected[lang]
    else:
        assert text and "NYNH" in text and "$65 → $67" in text and "Player 3" in text
        assert not any(word in text for word in ("ends", "sold out", "priority", "operates", "begins")), text
    earlier = next(i for i, a in enumerate(actions[:k]) if a["type"] == "pass" and i > k - 8)
    session = G18xx("1830", load_18xx({**log, "actions": actions[:earlier]}))
    assert session.game.round.stock
    first = {key: v for key, v in actions[earlier].items() if key not in ("id", "created_at")}
    with speaking(lang):
        assert session.confirmation(first, session.player_names()) is None
