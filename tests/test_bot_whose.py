"""A member acts only for what their seat decides for (`Session.not_theirs`, one check for every family): at their
own turn, naming another seat's corporation, minor, private or seat is refused with who decides for it, and nothing
is stored. In 1830, 18MEX and 1817 (merger and acquisition rounds) through the commands as members type them; a
discard the engine itself would take from another president (1830: several corporations over the train limit at
once) and a Steam move for another seat, as a command naming them would send them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakediscord.play import imported_game

from bot.db import Database
from bot.errors import UserError
from bot.service import Service
from bot.session import Engine

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def recorded(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text())


async def refused_and_unchanged(svc: Service, gid: int, caller, kind: str, options: dict, message: str) -> None:
    lv = svc._live[gid]
    count, stored = len(lv.session.actions), len(await svc.db.actions(gid))
    with pytest.raises(UserError) as refusal:
        await svc.act(gid, caller, kind, options)
    assert str(refusal.value) == message
    lv = svc._live[gid]
    assert len(lv.session.actions) == count and len(await svc.db.actions(gid)) == stored


# (log, resolved actions imported, the seat to act, its command naming another seat's entity, the refusal)
CASES = [
    ("1830/26855", 30, 82, "buy", {"share": "PRR>PRR_3"},
     "`PRR` is not yours to act for: Player 4 decides for it, so nothing was done."),
    ("1830/26855", 30, 82, "buy", {"share": "MH>NYC_1@10"},
     "`MH` is not yours to use: only its owner (or the president of the corporation owning it) may."),
    ("18MEX/13315", 11, 671, "buy", {"share": "CHI>CHI_3"},
     "`CHI` is not yours to act for: Player 4 decides for it, so nothing was done."),
    # 1817's merger round: A&S (Player 2's) to act; Belt is Player 4's
    ("1817/15528", 196, 5159, "loan", {"corporation": "Belt"},
     "`Belt` is not yours to act for: Player 4 decides for it, so nothing was done."),
    ("1817/15528", 196, 5159, "convert", {"corporation": "Belt"},
     "`Belt` is not yours to act for: Player 4 decides for it, so nothing was done."),
    # 1817's acquisition round: Player 3 to act; A&S is Player 2's
    ("1817/15528", 205, 655, "buy", {"share": "A&S>A&S_3"},
     "`A&S` is not yours to act for: Player 2 decides for it, so nothing was done."),
    ("1817/15528", 205, 655, "repay", {"corporation": "A&S"},
     "`A&S` is not yours to act for: Player 2 decides for it, so nothing was done."),
]


@pytest.mark.parametrize(("log", "upto", "seat", "kind", "options", "message"), CASES,
                         ids=[f"{c[0]}-{c[3]}-{next(iter(c[4].values()))}" for c in CASES])
async def test_another_seats_entity_is_refused_at_your_turn(tmp_path, log, upto, seat, kind, options, message):
    async with Database(str(tmp_path / "rh.db")) as db:
        svc = Service(db, Engine(), pictures=False)
        gid, callers = await imported_game(svc, recorded(log), upto)
        assert svc._live[gid].session.active_players() == [seat]
        await refused_and_unchanged(svc, gid, callers[seat], kind, options, message)


async def test_a_discard_the_engine_takes_from_any_president_is_refused(tmp_path, monkeypatch):
    """1830: NYC (Player 4's), B&O and B&M are over the train limit at once; the engine lets any of them discard
    first (all three presidents are to act), so a discard for B&M sent by NYC's president would be applied. Whatever a command builds, the service
    refuses it; NYC's own discard goes through."""
    from bot.families.g18xx.commands import Discard

    async with Database(str(tmp_path / "rh.db")) as db:
        svc = Service(db, Engine(), pictures=False)
        gid, callers = await imported_game(svc, recorded("1830/random/discard_pile_first_of_each"), 614)
        lv = svc._live[gid]
        assert lv.session.active_players() == [4, 6, 1] and lv.game.corporation("B&M").owner.id == 1
        built = Discard.build
        monkeypatch.setattr(Discard, "build", lambda self, s, opts, player, legal: {
            "type": "discard_train", "entity": "B&M", "entity_type": "corporation", "train": opts["train"]})
        await refused_and_unchanged(svc, gid, callers[4], "discard", {"train": "4-2"},
                                    "`B&M` is not yours to act for: Player 1 decides for it, so nothing was done.")
        monkeypatch.setattr(Discard, "build", built)
        done = await svc.act(gid, callers[4], "discard", {"train": "3-0"})
        assert done.text.startswith("NYC discards train 3-0"), done.text


async def test_a_steam_move_for_another_seat_is_refused(tmp_path, monkeypatch):
    from test_bot_steam import acting, steam_game

    from bot.families.steam import SteamCommand

    async with Database(str(tmp_path / "rh.db")) as db:
        svc = Service(db, Engine(), pictures=False)
        gid, who = await steam_game(svc)
        lv = svc._live[gid]
        member = acting(svc, gid, who)
        seat = lv.seat_of_member(member.member_id).player_id
        other = next(s for s in lv.seats if s.player_id != seat)
        kind, options = lv.session.command_for(lv.session.legal()[0])
        me = SteamCommand.me
        monkeypatch.setattr(SteamCommand, "me", lambda self, player: me(self, other.player_id))
        await refused_and_unchanged(svc, gid, member, kind, options,
                                    f"You act only for your own seat, not for {other.name}: nothing was done.")
        monkeypatch.setattr(SteamCommand, "me", me)
        await svc.act(gid, member, kind, options)
        assert len(svc._live[gid].session.actions) == 1


async def test_another_seats_corporation_through_discord(tmp_path):
    """Through Discord: in 1817's merger round, A&S's president asking for a loan for Belt hears whose Belt is;
    nothing is posted in the thread."""
    from fakediscord import AttachmentRef, BotRunner, FakeDiscord, UserRef
    from fakediscord.play import resolved_actions

    log = recorded("1817/15528")
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    await runner.start()
    try:
        users = {int(p["id"]): fake.add_user(p["name"].replace(" ", "")) for p in log["players"]}
        opts = {"file": AttachmentRef("game.json", json.dumps(dict(log, actions=resolved_actions(log)[:196])).encode())}
        opts.update({f"player{i + 1}": UserRef(users[int(p["id"])]) for i, p in enumerate(log["players"])})
        rec = await fake.command(users[5159], fake.channel_id, "game", opts, sub="import")
        assert rec.final.content.startswith("Imported as game #"), rec.final.content
        thread = max(cid for cid, ch in fake.channels.items() if ch.get("type") == 11)
        before = len(fake.channel_messages(thread))
        rec = await fake.command(users[5159], thread, "loan", {"corporation": "Belt"})
        assert rec.final.ephemeral
        assert rec.final.content == "`Belt` is not yours to act for: Player4 decides for it, so nothing was done.", \
            rec.final.content
        assert len(fake.channel_messages(thread)) == before
        assert not fake.unknown
    finally:
        await runner.stop()
        await fake.stop()


async def test_a_company_nobody_presides_is_acted_for_by_any_player(tmp_path):
    """1860: C&N in receivership has no president and must run. As 18xx.games
    lets every player still in the game act for it, each is told it is their turn and the run is taken from
    whichever sends it (another seat's corporation stays refused)."""
    from fakediscord.play import resolved_actions

    from bot.families.g18xx import G18xx

    log = recorded("1860/cases/train_step_after_bankruptcy")
    async with Database(str(tmp_path / "rh.db")) as db:
        svc = Service(db, Engine(), pictures=False)
        gid, callers = await imported_game(svc, log, 188)
        lv = svc._live[gid]
        run = resolved_actions(log)[188]
        assert run["entity"] == "C&N" and lv.game.corporation("C&N").receivership
        assert sorted(lv.game.active_players()) == sorted(lv.session.active_players()) == sorted(callers)
        assert {a["type"] for a in lv.game.legal_actions(3)} == set(lv.game.action_types())  # its moves: autocomplete
        assert sorted(lv.row.turn_members) == sorted(c.member_id for c in callers.values())
        kind, options = G18xx.command_for(run)
        done = await svc.act(gid, callers[3], kind, options)
        assert done.text.startswith("C&N runs"), done.text
        assert len(svc._live[gid].session.actions) == 189 and await db.action_count(gid) == 189
