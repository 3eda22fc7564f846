"""What the table reads, played in the console as a person would: money that moves says so, players passed
over are named, typed runs keep their revenue and say when the best run was higher, refusals name the rule,
history and undo tell sentences, `legal` lists moves as a player thinks of them, and an end of turn passes
what is left in one message.

Short games are typed line by line; the operating-round cases continue the recorded 1830 game 26855
(tests/fixtures/1830), its first 79 actions typed as commands.
"""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path

import pytest

from bot.console import HELP, Console
from bot.db import Database
from bot.families.g18xx import G18xx
from bot.service import Service
from bot.session import Engine, engine_available

pytestmark = pytest.mark.skipif(not engine_available(), reason="engine.titles not importable yet")

FIXTURE = Path(__file__).parent / "fixtures" / "1830" / "26855.json"
# seed 3 seats Dee, Ann, Cid, Bob in that order
AUCTION = ["new 1830 Ann Bob Cid Dee seed=3", "start", "as Dee bid SV 20", "as Ann bid CS 40", "as Cid bid DH 70",
           "as Bob bid MH 110", "as Dee bid CA 160", "as Ann bid BO 220"]


class Table:
    def __init__(self, console: Console, out: io.StringIO):
        self.console, self.out = console, out

    async def say(self, *lines: str) -> str:
        """The console's answer to these lines."""
        start = len(self.out.getvalue())
        for line in lines:
            await self.console.run_line(line)
        return self.out.getvalue()[start:]


@pytest.fixture
async def table(tmp_path):
    async with Database(str(tmp_path / "rh.db")) as db:
        out = io.StringIO()
        yield Table(Console(Service(db, Engine(), pictures=False), tmp_path / "out", out), out)


async def _recorded(table: Table, upto: int) -> None:
    """The first `upto` actions of the recorded game, typed as commands by the seats that made them."""
    from fakediscord.recorded import controller, flatten

    from engine.titles import load_18xx

    log = json.loads(FIXTURE.read_text())
    trace = [json.loads(x) for x in FIXTURE.with_suffix(".trace.jsonl").read_text().splitlines()]
    empty = Path(table.console.out) / "empty.json"
    empty.parent.mkdir(parents=True, exist_ok=True)
    empty.write_text(json.dumps(dict(log, actions=[])))
    await table.say(f"import {empty}")
    ids = [p["id"] for p in log["players"]]
    for k, action in list(flatten(load_18xx(log).actions))[:upto]:
        kind, opts = G18xx.command_for(action)
        words = " ".join(shlex.quote(f"{key}={v}") for key, v in opts.items())
        said = await table.say(f"as {ids.index(controller(action, trace[k])) + 1} {kind} {words}")
        if table.console.preview is not None:  # shown first (a pass that ends the stock round): sent
            said = await table.say("yes")
        assert not said.startswith("!"), said


async def test_money_that_moves_is_told(table):
    text = await table.say(*AUCTION[:3], "as Ann pass", "as Cid pass", "as Bob pass", "as Dee pass")
    assert "Dee passes — everyone passed, so the privates pay SV $5 to Dee." in text
    text = await table.say(*[f"as {n} pass" for n in ("Ann", "Cid", "Bob", "Dee")])
    assert "everyone passed, so the privates pay SV $5 to Dee" in text

    # nobody floats a corporation: the operating round is only the privates' income, told with the new round
    text = await table.say(*AUCTION, "as Ann par B&O 100",
                           *[f"as {n} pass" for n in ("Cid", "Bob", "Dee", "Ann")])
    # the last pass is shown first: what the stock round's end settles
    assert ("If you pass: Stock Round 1 ends; Cid gets the priority deal; Operating Round 1.1 (of 1) begins; "
            "privates pay SV $5 to Dee, CS $10 to Ann, DH $15 to Cid, MH $20 to Bob, CA $25 to Dee, BO $30 to Ann; "
            "no corporation operates; Stock Round 2 begins\nSend it? `yes` or `no`.") in text, text
    text = await table.say("yes")
    assert ("Ann passes — no corporation operates, so the operating round is only the privates' income: "
            "SV $5 to Dee, CA $25 to Dee, CS $10 to Ann, BO $30 to Ann, DH $15 to Cid, MH $20 to Bob; "
            "Stock Round 2 begins; Cid gets the priority deal.") in text


async def test_refusals_name_the_rule(table):
    text = await table.say(*AUCTION, "as Ann par B&O 95", "as Ann par PRR 67")
    assert "! B&O cannot be parred at $95: its par price is one of $67, $71, $76, $82, $90, $100." in text
    assert "! PRR cannot be parred at $67 now; you may choose B&O's par price (`as SEAT par …`)." in text


async def test_history_and_undo_tell_sentences(table):
    await table.say(*AUCTION[:5])
    text = await table.say("undo Cid")
    assert "Cid undid 1 action: Cid buys DH for $70." in text
    text = await table.say("as Cid bid DH 70", "undo Ann 2", "agree Cid", "agree Bob", "agree Dee")
    assert "Ann asks to undo the last 2 actions: Ann buys CS for $40; Cid buys DH for $70." in text
    vote = ("With everyone's agreement (Bob, Cid and Dee), Ann undid 2 actions taken by Ann and Cid: "
            "Ann buys CS for $40; Cid buys DH for $70.")
    assert vote in text
    # who undid what is kept (undo_events) and told in the history where it happened: both undos after
    # action 1, the last one kept no later action
    text = await table.say("history 5")
    assert text.strip().splitlines() == ["1. Dee buys SV for $20", "↩ Cid undid 1 action: Cid buys DH for $70.",
                                         f"↩ {vote}"]
    await table.say(*AUCTION[3:6])
    assert (await table.say("history 2")).strip().splitlines() == [
        "3. Cid buys DH for $70", "4. Bob buys MH for $110", "(page 1 of 2; older: page 2)"]
    assert (await table.say("history 2 2")).strip().splitlines() == [
        "1. Dee buys SV for $20", "↩ Cid undid 1 action: Cid buys DH for $70.", f"↩ {vote}",
        "2. Ann buys CS for $40", "(page 2 of 2)"]
    assert "! The log has 4 actions: 2 page(s) of 2." in await table.say("history 2 3")
    # everyone takes back their own: the log is empty, and its history is the undos, in the order they happened
    await table.say("undo Bob", "undo Cid", "undo Ann")
    text = await table.say("undo Dee", "history")
    assert text.strip().splitlines()[-6:] == [
        "↩ Cid undid 1 action: Cid buys DH for $70.", f"↩ {vote}", "↩ Bob undid 1 action: Bob buys MH for $110.",
        "↩ Cid undid 1 action: Cid buys DH for $70.", "↩ Ann undid 1 action: Ann buys CS for $40.",
        "↩ Dee undid 1 action: Dee buys SV for $20."]


async def test_console_speaks_console(table):
    assert "auto pass" in HELP and "seats" in HELP
    text = await table.say("new 1830 Ann Bob Cid Dee seed=3")
    assert "**" not in text and "/game" not in text and "`join NAME`" in text
    text = await table.say("start", "seats", *AUCTION[2:], "legal")
    assert "Seats: 1. Dee, 2. Ann, 3. Cid, 4. Bob." in text
    assert "**" not in text and "(/par)" not in text and "choose B&O's par price (`as SEAT par …`)" in text
    par_lines = [ln for ln in text.splitlines() if ln.strip().startswith("par ")]
    assert par_lines == ["  par 'B&O' PRICE    # B&O at $67, $71, $76, $82, $90 or $100"], text
    text = await table.say("new 1830 Ann Bob Cid seed=3", "start", "legal")
    assert "bid SV 20    # SV: buy it for $20" in text


async def test_stock_round_players_passed_over_are_named(table):
    await _recorded(table, 44)  # Player 1 holds $50: no share is that cheap, and nothing may be sold yet
    text = await table.say("as 4 pass")
    assert "Player 4 passes; Player 1 (nothing to buy or sell with $50) is passed over." in text
    assert "Next: @Player 2" in text


async def test_typed_run_tokens_by_hex_and_end_of_turn(table):
    await _recorded(table, 78)  # NYNH has laid Providence's tile; three 2 trains
    assert "has no city to take a station" in await table.say("as 1 token F20")
    assert "! Not allowed: the city on E19 (Albany) is full: its slots are taken by NYC" in \
        await table.say("as 1 token E19")
    assert "NYNH places a station in F22 Providence for $40." in await table.say("as 1 token F22")
    text = await table.say('as 1 run "2-2: G19,F20,F22"')
    assert "end the segment there and start the next one from it (`G19,F20 | F20,F22`)" in text
    text = await table.say('as 1 run "2-2: G19,F20"')
    assert "NYNH runs 1 train for $50 (2-2: $50); 2-3 and 2-4 stay idle; the best run was $110 ($60 more)." in text
    assert "NYNH pays out $50: $5 a share" in await table.say("as 1 dividend payout")


async def test_train_refusals_and_one_end_of_turn(table):
    await _recorded(table, 88)  # phase 3: NYC holds four trains, the limit
    assert "! Not allowed: NYC already has 4 trains, the limit in phase 3" in await table.say("as 3 train 3-2")
    assert "! NYC can't run trains now; it may buy a private company or pass." in await table.say("as 3 run")
    await table.say("as 3 pass", "as 4 lay H16 57-2 1", "as 4 pass", "as 4 run best", "as 4 dividend payout")
    text = await table.say("legal")
    assert "  private MH PRICE    # MH from Player 4 for $55 to $220" in text
    text = await table.say("as 4 done")  # no train, no private: two passes, one message
    assert "PRR ends its turn — Stock Round 3 begins." in text


async def test_a_train_from_another_players_corporation_waits_for_its_president(table):
    await _recorded(table, 336)  # C&O (Player 2) may buy B&O's 4-0 (Player 4's) for $1 to $760
    text = await table.say("legal")
    assert "  train 4-0 PRICE    # 4-0 from B&O (Player 4) for $1 to $760" in text
    assert "! Not allowed: C&O may pay $1 to $760 for 4-0, not $3000" in await table.say("as 2 train 4-0 3000")
    text = await table.say("as 2 train 4-0 300")
    assert "C&O offers $300 for train 4-0 of B&O; the price is Player 4's to agree to.\n" \
        "Next: @Player 4 — accept or decline the offer." in text
    assert "! Only Player 4 answers this offer." in await table.say("decline 2")
    text = await table.say("decline 4")
    assert "Player 4 declines: C&O offers $300 for train 4-0 of B&O." in text
    assert "Next: Player 2 for C&O" in text
    await table.say("as 2 train 4-0 300")
    text = await table.say("accept 4")
    assert "Player 4 agrees. C&O buys a 4 train from B&O for $300." in text
    assert "! No trade offer is open." in await table.say("accept 4")


async def test_a_trade_offer_survives_a_restart_and_ends_when_the_game_moves_on(tmp_path):
    """The offer is stored (trade_offers): a bot restarted while it waits still takes the seller's answer;
    any other action, or an undo, withdraws it."""
    path = str(tmp_path / "rh.db")

    async def table_on(db: Database) -> Table:
        out = io.StringIO()
        return Table(Console(Service(db, Engine(), pictures=False), tmp_path / "out", out), out)

    async with Database(path) as db:
        table = await table_on(db)
        await _recorded(table, 336)  # C&O (Player 2) may buy B&O's 4-0 (Player 4's)
        await table.say("as 2 train 4-0 300")
        offer = await db.trade_offer(1)
        names = {s.player_id: s.name for s in await db.seats(1)}
        assert (names[offer.buyer], names[offer.seller]) == ("Player 2", "Player 4")
        assert offer.at_count == 336 and offer.action["price"] == 300
    async with Database(path) as db:  # a new process: the offer is still open
        table = await table_on(db)
        assert "! Only Player 4 answers this offer." in await table.say("accept 2")
        text = await table.say("accept 4")
        assert "Player 4 agrees. C&O buys a 4 train from B&O for $300." in text
        assert await db.trade_offer(1) is None
        # offered again and withdrawn by the buyer's other action
        await table.say("undo 2", "as 2 train 4-0 250")
        assert (await db.trade_offer(1)).action["price"] == 250
        await table.say("as 2 pass")
        assert await db.trade_offer(1) is None
        # offered again and withdrawn by an undo (of the action before, by a vote if it was another's)
        await table.say("undo 2", "as 2 train 4-0 200")
        assert (await db.trade_offer(1)).action["price"] == 200
        await table.say("undo 2", "agree 1", "agree 3", "agree 4")
        assert await db.action_count(1) == 335 and await db.trade_offer(1) is None
        assert "! No trade offer is open." in await table.say("accept 4")
