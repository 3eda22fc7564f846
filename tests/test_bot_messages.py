"""What a player reads: the thread message after each action says what happened and who must do what next.

A short 1830 game (seed 5 seats Ann, Bob, Cid in that order) played through the service with the real
engine: the private auction, the first stock round and the start of the first operating round.
"""

from __future__ import annotations

from bot.access import Caller
from bot.db import Database
from bot.errors import UserError
from bot.families.g18xx.words import Words, exits_text, next_hint, passed_over, phase_text
from bot.service import Service
from bot.session import Engine

MEMBERS = {"Ann": 11, "Bob": 12, "Cid": 13}


async def _game(tmp_path):
    db = await Database(str(tmp_path / "rh.db")).__aenter__()
    svc = Service(db, Engine(), pictures=False)
    row = await svc.new_game(Caller(11, "Ann"), title="1830", seed=5)
    await svc.join(row.id, Caller(12, "Bob"))
    await svc.join(row.id, Caller(13, "Cid"))
    start = await svc.start(row.id, Caller(11))
    return db, svc, row.id, start


async def test_auction_and_first_stock_round_messages(tmp_path):
    db, svc, gid, start = await _game(tmp_path)
    try:
        async def act(who: str, kind: str, **options) -> str:
            reply = await svc.act(gid, Caller(MEMBERS[who]), kind, options)
            if reply.private:  # shown first (a pass that ends the stock round): confirmed
                previews.append(reply.text)
                reply = await svc.confirm(gid, Caller(MEMBERS[who]), int(reply.buttons[0].split(":")[1]), True)
            return reply.text

        previews: list[str] = []

        assert "Seats: 1. Ann, 2. Bob, 3. Cid" in start.text
        choices = await svc.autocomplete(gid, Caller(11), "bid", "company", "", {})
        assert choices[:2] == [("SV: buy it for $20", "SV"), ("CS: $45 or more", "CS")]
        assert "Next: <@11> — buy SV for $20, bid on a dearer private, or pass." in start.text
        assert (await act("Ann", "bid", company="SV", price=20)).startswith("Ann buys SV for $20.")
        assert "Bob bids $170 on CA." in await act("Bob", "bid", company="CA", price=170)
        await act("Cid", "bid", company="CS", price=40)
        await act("Ann", "bid", company="CA", price=175)
        await act("Bob", "bid", company="DH", price=70)
        await act("Cid", "bid", company="BO", price=225)
        text = await act("Ann", "bid", company="MH", price=110)
        # MH sold, so the auction for CA among its bidders starts: Bob is the lower bidder
        assert "Next: <@12> — bid at least $180 on CA (high bid: Ann $175) or pass." in text
        text = await act("Bob", "pass")
        assert "Bob passes; Ann wins CA for $175 (with 10% of PRR); Cid wins BO for $225." in text
        assert "Next: <@13> — choose B&O's par price (/par)." in text
        text = await act("Cid", "par", corporation="B&O", price="100")
        assert text.startswith("Cid pars B&O at $100 and takes the president's certificate that came with BO")
        text = await act("Bob", "par", corporation="NYC", price="67")
        assert text.startswith("Bob pars NYC at $67 and buys the president's certificate (20%) for $134.")
        assert "buy shares, start a corporation or pass" in text
        await act("Cid", "pass")
        await act("Ann", "par", corporation="PRR", price="67")
        for _ in range(2):
            await act("Bob", "buy", share="NYC")
            await act("Cid", "pass")
            await act("Ann", "buy", share="PRR")
        await act("Bob", "buy", share="NYC")
        await act("Cid", "pass")
        text = await act("Ann", "buy", share="PRR")
        assert "Ann buys 10% of PRR from the IPO for $67; PRR floats with $670." in text
        try:
            await act("Bob", "buy", share="CPR")
            raise AssertionError("CPR has not been started")
        except UserError as e:
            assert str(e).startswith("No `CPR` share can be bought by you now") and "You can buy: " in str(e)
        text = await act("Bob", "buy", share="NYC")
        assert "NYC floats with $670" in text
        lv = await svc.live(gid)
        while "Operating" not in text:
            who = lv.names[lv.game.active_players()[0]]
            text = await act(who, "pass")
        assert "Operating Round 1.1 (of 1) begins" in text
        # the last pass was shown first: what the stock round's end settles
        assert previews == ["If you pass: Stock Round 1 ends; Cid gets the priority deal; Operating Round 1.1 (of 1) "
                            "begins; privates pay SV $5 to Ann, CS $10 to Cid, DH $15 to Bob, MH $20 to Ann, CA $25 to "
                            "Ann, BO $30 to Cid; NYC operates first, then PRR; NYC places its home station on E19 Albany"], previews
        assert "privates pay SV $5 to " in text and "BO $30 to " in text
        assert "for NYC — lay track or pass." in text  # NYC (sold out first) operates first
        assert await svc.autocomplete(gid, Caller(11), "lay", "hex", "alb", {}) == [("E19 Albany: tile 57", "E19")]
        tiles = await svc.autocomplete(gid, Caller(11), "lay", "tile", "", {"hex": "E19"})
        assert [name for name, _ in tiles] == ["57 on E19 Albany: SW–NE; W–E; NW–SE"]
        rotations = await svc.autocomplete(gid, Caller(11), "lay", "rotation", "", {"hex": "E19", "tile": tiles[0][1]})
        assert [name for name, _ in rotations] == ["0 (SW–NE) — tile 57 on E19 Albany",
                                                   "1 (W–E) — tile 57 on E19 Albany",
                                                   "2 (NW–SE) — tile 57 on E19 Albany"]
        lv = await svc.live(gid)
        lay = next(a for a in await svc.legal(lv) if a["type"] == "lay_tile" and a["hex"] == "E19")
        text = await act("Bob", "lay", hex="E19", tile=lay["tile"], rotation=lay["rotation"])
        assert text.startswith(f"NYC lays tile 57 on E19 Albany, rotation {lay['rotation']} (")
        assert "NYC has no train to run, so it withholds: NYC price $" in text
        assert "for NYC — buy a train or pass." in text
    finally:
        await db.__aexit__(None, None, None)


def test_phrases():
    assert exits_text([1, 4], "pointy") == "W–E" and exits_text([0, 3], "flat") == "S–N"
    assert exits_text([0, 1, 3], "pointy") == "SW, W, NE"
    assert phase_text("3", {"3": {"train_limit": 4, "tiles": ["yellow", "green"],
                                  "status": ["can_buy_companies"]}}) == \
        "Phase 3: green tiles, train limit 4, privates may be sold to corporations"
    w = Words({}, {})
    assert next_hint({"types": ["buy_train", "pass"], "must_buy": True}, w, "PRR") == "must buy a train"
    assert next_hint({"types": ["discard_train"]}, w, "PRR") == "discard a train: PRR is over its train limit"
    assert next_hint({"types": ["buy_train", "sell_shares"], "emergency": True}, w, "PRR") == \
        "must buy a train: PRR is short, so its president pays the rest, selling shares if needed"
    assert next_hint({"types": ["buy_shares", "lay_tile", "pass"]}, w, "PRR") == "lay track or pass"
    assert next_hint({}, w, None) == ""
    # whom the engine passed over (turn_info's passed_over), each with the engine's reason
    w = Words({"currency": "£%s"}, {1: "Ann", 2: "Bob"})
    assert passed_over(w, [{"entity": 1, "entity_type": "player", "why": "cert_limit", "certificates": 16,
                            "cert_limit": 16},
                           {"entity": 2, "entity_type": "player", "why": "cash", "cash": 12},
                           {"entity": "PRR", "entity_type": "corporation", "why": "nothing_to_do"}]) == \
        "; Ann (at the certificate limit of 16) and Bob (nothing to buy or sell with £12) are passed over"
    assert passed_over(w, []) == ""
