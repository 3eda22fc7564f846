"""1817 through the bot's session: what its commands offer (autocomplete from the legal moves, the terms of a
loan and the effect of a conversion or merger shown before they are sent), what the table reads after each
kind of move, and refusals that name the rule. Positions come from the recorded game 15528."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from bot.errors import UserError
from bot.families.g18xx import G18xx
from engine.core.actions import resolve_undo
from engine.core.errors import GameError
from engine.titles import rules_class

LOG = json.loads((Path(__file__).parent / "fixtures" / "1817" / "15528.json").read_text())
ACTIONS = [a for a in resolve_undo(LOG["actions"]) if a["type"] != "message"]
NAMES = {p["id"]: p["name"].replace(" ", "") for p in LOG["players"]}


@cache
def _first(kind: str, nth: int = 0, **match) -> int:
    found = [k for k, a in enumerate(ACTIONS) if a["type"] == kind and all(a.get(x) == v for x, v in match.items())]
    return found[nth]


def before(kind: str, nth: int = 0, **match) -> tuple[G18xx, dict]:
    """A session just before the nth recorded action of a kind, and that action."""
    k = _first(kind, nth, **match)
    return G18xx("1817", rules_class("1817").from_18xx(dict(LOG, actions=ACTIONS[:k]))), \
        {x: v for x, v in ACTIONS[k].items() if x not in ("id", "created_at", "original_id")}


def send(s: G18xx, kind: str, options: dict, player: int):
    cmd = s.command(kind)
    action = cmd.build(s, cmd.given(options), player, s.legal())
    if action.get("entity_type") == "player" and action.get("entity") is None:
        action["entity"] = player
    return s.apply(action)


def test_a_loan_says_what_it_costs_before_and_after():
    s, action = before("take_loan")
    assert s.command_for(action) == ("loan", {"corporation": action["entity"]})
    count = len(s.actions)
    choices = dict((v, n) for n, v in s.command("loan").choices(s, "corporation", {}, s.legal()))
    label = choices[action["entity"]]
    # borrowing $100 at the rate then, and the share price one step left: tried on a copy, the game untouched
    assert "borrow $100, 1 of 2 loans, interest $5 a loan ($5 a round)" in label and "price $55 → $50" in label
    assert len(s.actions) == count and s.summary()["corporations"][action["entity"]].get("loans", 0) == 0
    assert s.hint(NAMES) == "act for ME, PSNR, WT (/loan) or pass"
    with pytest.raises(UserError, match="Name the corporation that will borrow: "):
        send(s, "loan", {}, s.active_players()[0])  # its president presides several
    change = send(s, "loan", {"corporation": action["entity"].lower()}, s.active_players()[0])
    text = s.describe(change, NAMES)
    assert text == f"{action['entity']} takes a loan of $100: 1 of 2 loans, interest $5 a loan ($5 a round); " \
                   f"{action['entity']} price $55 → $50"


def test_a_repayment_reads_its_terms():
    s, action = before("payoff_loan")
    change = send(s, "repay", {"corporation": action["entity"]}, s.active_players()[0])
    text = s.describe(change, NAMES)
    assert text.startswith(f"{action['entity']} repays a loan of $100: ") and " loans, interest $" in text


def test_a_corporation_at_its_loan_limit_is_refused_with_the_rule():
    s, action = before("take_loan", 1, entity="Bess")  # Bess's second loan: a 2-share corporation's last
    send(s, "loan", {"corporation": "Bess"}, s.active_players()[0])
    cmd = s.command("loan")
    built = cmd.build(s, cmd.given({"corporation": "Bess"}), s.active_players()[0], s.legal())
    with pytest.raises(GameError, match="owes 2 loans, as many as it has shares"):
        s.apply(built)


def test_a_conversion_tells_each_holder_before_and_after():
    s, action = before("convert")
    corp = action["entity"]
    [(label, value)] = s.command("convert").choices(s, "corporation", {}, s.legal())
    assert value == corp and label == f"{corp}: 2 → 5 shares: Player 2 2 of 2 → 2 of 5 (40%), treasury 0 of 2 → 3 of 5 (60%)"
    text = s.describe(send(s, "convert", {}, s.active_players()[0]), NAMES)
    assert text == f"{corp} converts, 2 → 5 shares: Player2 2 of 2 → 2 of 5 (40%), treasury 0 of 2 → 3 of 5 (60%)"
    assert "buy shares or pass" in s.hint(NAMES)


def test_a_merger_names_the_survivor_its_price_and_each_holder():
    s, action = before("merge", entity="WT")
    choices = dict((v, n) for n, v in s.command("merge").choices(s, "corporation", {}, s.legal()))
    assert choices[action["corporation"]].startswith(f"{action['corporation']} into WT: 5 shares at $")
    text = s.describe(send(s, "merge", {"corporation": action["corporation"]}, s.active_players()[0]), NAMES)
    assert text.startswith(f"{action['corporation']} merges into WT: 5 shares at $150; Player3 2 WT + 2 J → 2 of 5")
    assert "WT price" not in text  # the merger's own words give the price


def test_a_short_sale_and_the_size_of_a_new_corporation():
    s, action = before("short")
    shorts = s.command("short").choices(s, "corporation", {}, s.legal())
    assert (f"{action['corporation']} at $70", action["corporation"]) in shorts
    text = s.describe(send(s, "short", {"corporation": action["corporation"]}, action["entity"]), NAMES)
    assert text == (f"{NAMES[action['entity']]} sells a share of NYSW short for $70 (a share goes to the market; "
                    f"{NAMES[action['entity']]} holds 1 short of NYSW: buying a share closes one)")
    s, action = before("choose")
    assert "choose how many shares J has (/choose)" == s.hint(NAMES)
    assert s.command("choose").choices(s, "choice", {}, s.legal()) == [("2 shares for J", "2"), ("5 shares for J", "5")]
    text = s.describe(send(s, "choose", {"choice": "2 shares"}, action["entity"]), NAMES)
    assert text == f"{NAMES[action['entity']]} makes J a 2-share corporation at $110 a share"


def test_starting_a_corporation_home_city_and_privates():
    s, action = before("place_token")  # the home city of a corporation being auctioned
    bidder = ACTIONS[_first("place_token") - 1]["entity"]
    assert s.active_players() == [bidder]  # who opened the auction chooses
    s, action = before("assign", target_type="company")
    assert s.hint(NAMES).startswith("put privates into H at their face value (/assign)")
    text = s.describe(send(s, "assign", {"target": action["target"]}, action["entity"]), NAMES)
    assert text == f"{NAMES[action['entity']]} puts {action['target']} into H for $40"


def test_the_acquisition_round_offer_bid_and_buyer():
    s, action = before("assign", target_type="corporation")
    corp = action["target"]
    assert s.command_for(action) == ("offer", {"corporation": corp})
    assert s.hint(NAMES).startswith(f"offer {corp} for sale (/offer, from $")
    # shown first: what each holder gets if it sells at its opening bid ($250 for 5 shares: $50 a share)
    assert s.confirmation(action, NAMES) == f"{corp} is offered for sale: bids from $250; the price it fetches is " \
        "paid to its holders per share, shorts paying; sold at $250: Player2 receives $50 and Player3 receives $100"
    text = s.describe(send(s, "offer", {}, action["entity"]), NAMES)
    assert text.startswith(f"{NAMES[action['entity']]} offers {corp} for sale (bids from $")
    s, action = before("merge", entity_type="player")
    assert "(/merge)" in s.hint(NAMES)
    text = s.describe(send(s, "merge", {"corporation": action["corporation"]}, action["entity"]), NAMES)
    assert text.startswith(f"{NAMES[action['entity']]} names {action['corporation']} as the buyer of ")


def test_a_corporation_buys_back_its_shares_and_bids_name_corporations():
    s, action = before("buy_shares", entity_type="corporation")
    kind, options = s.command_for(action)
    assert kind == "buy" and options["share"].startswith(f"{action['entity']}>")
    text = s.describe(send(s, "buy", options, s.active_players()[0]), NAMES)
    assert text.startswith(f"{action['entity']} buys back ") and "from the market for $" in text
    # "ME" is a private and a corporation: in a stock round a bid on ME starts the corporation
    s, action = before("bid", corporation="ME")
    built = s.command("bid").build(s, {"company": "me", "price": action["price"]}, action["entity"], s.legal())
    assert built["corporation"] == "ME" and "company" not in built
    with pytest.raises(UserError, match="short needs corporation"):
        s.command("short").given({})


async def test_the_console_plays_1817(tmp_path):
    """The recorded game's opening through the console: the private auction, corporations started with their
    home, size and privates, the first operating rounds' loans, half pays and the first conversion, each
    move typed as `as SEAT COMMAND …` from what `legal` offers."""
    from fakediscord.recorded import console_moves, console_text

    upto = _first("buy_shares", 0) + 1  # the first share bought after the first conversion
    trace = [json.loads(x) for x in (Path(__file__).parent / "fixtures" / "1817" / "15528.trace.jsonl")
             .read_text().splitlines()]
    empty = tmp_path / "game.json"
    empty.write_text(json.dumps(dict(LOG, actions=[])))
    lines = [f"import {empty} Ann Bob Cid Dan", "legal"]
    for line, kind in console_moves("1817", LOG, trace, ACTIONS[:upto]):
        lines.append(line)
        # shown first: `yes` sends it (the last one with --yes; a pass that may end the stock round too)
        if kind in ("loan", "repay", "convert", "pass"):
            if kind in ("convert", "pass"):
                lines[-1] += " --yes"
            else:
                lines.append("yes")
    lines.append("status")
    text = await console_text(tmp_path, lines)
    assert "bid PSM 0    # PSM: $0 or more" in text
    assert "A&S converts from 2 to 5 shares" not in text  # sent with --yes: no preview  # `legal` as lines to type: the seed money pays to face value
    for words in ("Ann bids $10 on MAJC", "opens an auction to start H with $", "puts OBC into H for $40",
                  "takes a loan of $100: 1 of 2 loans, interest $5 a loan", "pays half of $60",
                  "A&S converts, 2 → 5 shares: Bob 2 of 2 → 2 of 5 (40%)", "buys 20% of A&S from the IPO",
                  "PSNR takes a loan of $100: treasury $40 → $140; 1 of 2 loans; interest $5 a round at $5 a loan",
                  "Send it? `yes` or `no`."):
        assert words in text, words


def test_a_cash_crisis_says_what_is_owed_and_bankruptcy_follows():
    log = json.loads((Path(__file__).parent / "fixtures" / "1817" / "random" / "shorts_and_bankruptcies.json")
                     .read_text())
    actions = resolve_undo(log["actions"])
    k = next(i for i, a in enumerate(actions) if a["type"] == "bankrupt")
    s = G18xx("1817", rules_class("1817").from_18xx(dict(log, actions=actions[:k])))
    names = {p["id"]: p["name"] for p in log["players"]}
    assert s.hint(names) == "sell shares to pay the $6 owed (/sell), or go bankrupt (/bankrupt)"
    player = actions[k]["entity"]
    assert s.command("bankrupt").confirm is not None  # asked before it is sent
    text = s.describe(send(s, "bankrupt", {}, player), names)
    assert text.startswith(f"{names[player]} goes bankrupt, owing $6")


def test_auctions_of_corporations_say_who_won():
    said = []
    s = G18xx("1817", rules_class("1817").from_18xx(dict(LOG, actions=[])))
    for a in ACTIONS[:960]:
        change = s.apply({k: v for k, v in a.items() if k not in ("id", "created_at", "original_id")})
        said.append(s.describe(change, NAMES))
    assert "Player3 passes; Player4 wins H for $160" in said  # then chooses its size
    assert "Player3 passes; Player2 wins GT for $110" in said  # one size then, nothing to put in: started at once
    assert "Player4 passes; Player2 wins GT for $70, A&S buying it (borrowing 1 loan to pay)" in " ".join(said)
    assert "Player3 bids $450 on A&A; Player3 wins A&A for $450" in said  # then names the buyer
    assert "Player3 bids $250 on ME; Player3 wins ME for $250, WT buying it (taking over its treasury of $124, its " \
           "treasury shares sold to the market for $100, taking over its 4 loans)" in said


def test_standing_order_to_pass_in_merger_rounds():
    s, action = before("convert")  # a merger round: A&S's president may convert, merge or pass
    president = s.active_players()[0]
    auto = s.command("auto")
    assert ("merger-pass", "merger-pass") in auto.choices(s, "mode", {}, s.legal())
    order = auto.build(s, auto.given({"mode": "merger-pass"}), president, s.legal())
    mine = sorted(sym for sym, c in s.summary()["corporations"].items() if c.get("pres") == president)
    assert order["corporations_by_round"] == {"MR": mine, "AR": mine}
    order["entity"] = president
    text = s.describe(s.apply(order), NAMES)
    assert text.startswith(f"{NAMES[president]} will pass automatically in merger and acquisition rounds for ")
    assert "A&S passes" in text  # the order acts at once: A&S's turn is passed
    with pytest.raises(UserError, match="no corporation"):
        auto.build(s, {"mode": "merger-pass", "corporation": "XYZ"}, president, [])


def test_standing_order_names_other_corporations_for_the_acquisition_round():
    """18xx.games keeps a merger pass's corporations per kind of round (`MR`, `AR`): `acquisition` names the
    acquisition round's when they differ, and the order's options build it back."""
    s, action = before("convert")
    president = s.active_players()[0]
    auto = s.command("auto")
    mine = sorted(sym for sym, c in s.summary()["corporations"].items() if c.get("pres") == president)
    order = auto.build(s, auto.given({"mode": "merger-pass", "acquisition": "none"}), president, s.legal())
    assert order["corporations_by_round"] == {"MR": mine, "AR": []}
    assert auto.build(s, auto.given(auto.options_for(order)), president, [])["corporations_by_round"] == \
        order["corporations_by_round"]
    order = auto.build(s, auto.given({"mode": "merger-pass", "corporation": "none", "acquisition": mine[0].lower()}),
                       president, s.legal())
    assert order["corporations_by_round"] == {"MR": [], "AR": [mine[0]]}
    order["entity"] = president
    text = s.describe(s.apply(order), NAMES)
    assert text.startswith(f"{NAMES[president]} will pass automatically in merger rounds for none and in "
                           f"acquisition rounds for {mine[0]}"), text
    assert f"{action['entity']} passes" not in text  # not in this merger round: its turn waits for its president
    with pytest.raises(UserError, match="no corporation"):
        auto.build(s, {"mode": "merger-pass", "acquisition": "XYZ"}, president, [])


@pytest.mark.parametrize("kind, entity", [("take_loan", None), ("payoff_loan", None), ("convert", None),
                                          ("merge", "A&S"), ("assign", None), ("merge", None)])
def test_a_preview_in_each_language(kind, entity):
    """What the member confirms: the engine's facts in words, in English and in Russian (only names left in
    Latin letters)."""
    from i18n import speaking
    from i18n.glossary import foreign_words

    match = {"entity": entity} if entity else {"entity_type": "player"} if kind == "merge" else \
        {"target_type": "corporation"} if kind == "assign" else {}
    s, action = before(kind, **match)
    text = s.confirmation(action, NAMES)
    assert text and s.confirmation({"type": "pass", "entity": action.get("entity"),
                                    "entity_type": action.get("entity_type")}, NAMES) is None
    head = {"take_loan": " takes a loan of $100: treasury ", "payoff_loan": " repays a loan of $100: treasury ",
            "convert": " converts from 2 to 5 shares: 5 shares at ", "assign": " is offered for sale: bids from $"}
    assert head.get(kind, " merges into " if entity else " buys ") in text, text
    with speaking("ru"):
        russian = s.confirmation(action, NAMES)
    allowed = set(NAMES.values()) | set(s.corporations()) | set((s.facts().get("locations") or {}).values())
    assert russian != text and not foreign_words(russian, allowed), russian


def _at(k: int) -> tuple[G18xx, dict]:
    return G18xx("1817", rules_class("1817").from_18xx(dict(LOG, actions=ACTIONS[:k]))), \
        {x: v for x, v in ACTIONS[k].items() if x not in ("id", "created_at", "original_id")}


@pytest.mark.parametrize("k, said", [
    (617, "If you pass: the auction of GT ends: Player2 wins it for $70; A&S buys GT for $70 (borrowing 1 loan to "
          "pay); A&S price $150 → $135"),
    (1125, "If you pass: WT keeps 3 loans of PSNR: its price moves 3 steps left; holders of PSNR: Player4 pays $8, "
           "Player1 pays $8, Player2 pays $4 and Player3 receives $8; WT price $165 → $120"),
    (1197, "If you pass: R can't pay for its stations: it moves into the liquidation zone ($165 → $0)"),
    (1403, "If you pass: R's 2 loans are repaid first; Player1, its president, pays the $126 they leave unpaid; the "
           "holders of R get nothing"),
    (1193, None),
    (592, "If you pass: GT ends its turn without a train: it moves into the liquidation zone ($60 → $0)"),
    (359, "If you pass: ME borrows 1 loan to pay its $60 interest; ME price $45 → $40"),
    (307, None), (310, None), (311, None)])
def test_a_pass_is_shown_first_when_it_sets_something_off(k, said):
    """What the engine settles as it carries a pass out, in words. GT's liquidation auction, one of two bidders
    passing: the other wins it, their A&S borrowing to pay; WT, buying PSNR, passing on repaying its loans: its
    price falls a step for each, PSNR's holders paid and its shorts paying; R, converted, passing on loans
    without the cash for its stations: the liquidation zone; DL&W, buying R, passing on loans: R's loans repaid
    from its treasury and price, its president paying the rest. In operating rounds: GT ending its turn
    without a train, ME borrowing for its interest. A pass on buying R's new shares, and J's passes on track,
    on a train (its interest paid from its treasury) and on loans set nothing off: sent without a preview."""
    from i18n import speaking
    from i18n.glossary import foreign_words

    s, action = _at(k)
    assert action["type"] == "pass" and s.turn_info().get("pass_sets_off")
    assert s.confirmation(action, NAMES) == said
    if said:
        with speaking("ru"):
            russian = s.confirmation(action, NAMES)
        assert russian.startswith("Если вы спасуете: ") and not foreign_words(russian, set(NAMES.values()) |
                                                                           set(s.corporations())), russian


@pytest.mark.parametrize("k, told", [
    (617, "Player4 passes; Player2 wins GT for $70, A&S buying it (borrowing 1 loan to pay) — A&S price $150 → $135"),
    (618, "A&S passes; holders of GT: Player3 receives $24, Player1 receives $24 and Player2 receives $72"),
    (1403, "DL&W passes; R's 2 loans are repaid first; Player1, its president, pays the $126 they leave unpaid; the "
           "holders of R get nothing"),
    (1123, "Player4 passes; the auction of PSNR ends: Player3 wins it for $20; WT buys PSNR for $20 (taking over its 3 "
           "loans, borrowing 1 loan to pay) — WT price $180 → $165"),
    (592, "GT passes; GT ends its turn without a train: it moves into the liquidation zone ($60 → $0)"),
    (359, "ME passes; ME borrows 1 loan to pay its $60 interest — ME price $45 → $40")])
def test_the_thread_is_told_what_a_pass_settled(k, told):
    """Once sent, a pass's message tells what the engine settled, in the words its preview used: a sale's
    holders paid, a liquidated corporation's loans and its president's share, the auction's winner and buyer,
    the liquidation zone and why, a loan borrowed for interest."""
    s, action = _at(k)
    assert s.describe(s.apply(action), NAMES) == told


@pytest.mark.parametrize("why, price, told", [
    ("no_train", [60, 0], "GT ends its turn without a train: it moves into the liquidation zone ($60 → $0)"),
    ("stations", [0, 0], "GT can't pay for its stations: it moves into the liquidation zone"),
    ("interest", [0, 0], "GT moves into the liquidation zone")])
def test_a_move_into_the_liquidation_zone_tells_the_price_only_when_it_moves(why, price, told):
    """A corporation already at the liquidation zone's price is not told as going from $0 to $0."""
    from bot.families.g18xx.previews import event_lines
    from bot.families.g18xx.words import Words
    event = {"event": "liquidation_zone", "corporation": "GT", "why": why, "price": price}
    assert event_lines(Words({}, {}), event) == [told]
