"""Games exported from 18xx.games in each shape its API gives them, imported with `/game import` through a fake
Discord and continued by slash command: the whole game object (status, result, turn, acting, users on the
actions...), hotseat games (no seed, players named only), chat, undo and redo around the cut, a standing order
waiting to act; and the exports that cannot be continued, refused with the reason. The engine side of these
shapes is in tests/test_log_shapes_1830.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakediscord import AttachmentRef, BotRunner, FakeDiscord, UserRef
from fakediscord.recorded import QuickPictures

from bot.families.g18xx import G18xx
from bot.session import engine_available

pytestmark = pytest.mark.skipif(not engine_available(), reason="engine.titles not importable yet")

FIXTURES = Path(__file__).parent / "fixtures"


def fixture(title: str, name: str) -> dict:
    return json.loads((FIXTURES / title / f"{name}.json").read_text())


def in_play(log: dict, n: int) -> dict:
    """The game as 18xx.games' API gives it after its first `n` log entries (undos among them): in play."""
    out = {**log, "actions": log["actions"][:n], "status": "active", "result": {}}
    for key in ("game_end_reason", "finished_at"):
        out.pop(key, None)
    return out


def chat(player, action_id: int) -> dict:
    return {"type": "message", "entity": player, "entity_type": "player", "id": action_id, "created_at": 1,
            "message": "gg"}


def next_move(log: dict, n: int) -> dict:
    """The move the recorded game played next after its first `n` log entries, as a member sends it."""
    from engine.core.actions import resolve_undo

    kept = resolve_undo(log["actions"][:n])
    move = resolve_undo(log["actions"])[len(kept)]
    return {k: v for k, v in move.items() if k not in ("id", "created_at", "user", "auto_actions")}


def named_only(log: dict) -> dict:
    """A hotseat game as early 18xx.games wrote it: no seed, players with names only, actions naming them."""
    names = {p["id"]: p["name"] for p in log["players"]}

    def renamed(a: dict) -> dict:
        return {**a, **({"entity": names[a["entity"]]} if a["entity_type"] == "player" else {}),
                **({"user": names[a["user"]]} if a.get("user") in names else {})}

    return {**log, "id": f"hs_abcdefgh_{log['settings']['seed']}", "mode": "hotseat", "created_at": "2021-02-08",
            "settings": {k: v for k, v in log["settings"].items() if k != "seed"},
            "players": [{"name": p["name"]} for p in log["players"]], "actions": [renamed(a) for a in log["actions"]]}


def with_chat_and_undo(log: dict, n: int) -> dict:
    """The first `n` entries with chat before the first move, and an undo, chat and the redo after the last."""
    first, last = log["players"][0]["id"], log["actions"][n - 1]["entity"]
    shifted = [{**a, "id": a["id"] + 1, **({"action_id": a["action_id"] + 1} if a.get("action_id") else {})}
               for a in log["actions"][:n]]
    end = shifted[-1]["id"]
    return {**in_play(log, n), "actions": [chat(first, 1), *shifted,
                                          {"type": "undo", "entity": last, "entity_type": "player", "id": end + 1},
                                          chat(first, end + 2),
                                          {"type": "redo", "entity": last, "entity_type": "player", "id": end + 3}]}


async def imported(fake: FakeDiscord, host: int, log: dict, users: list[int]):
    opts = {"file": AttachmentRef("game.json", json.dumps(log).encode())}
    for i, uid in enumerate(users):
        opts[f"player{i + 1}"] = UserRef(uid)
    return await fake.command(host, fake.channel_id, "game", opts, sub="import")


async def continued(tmp_path, log: dict, move: dict, acting_seat: int) -> str:
    """Imports `log` for one member a seat and sends `move` as the member of `acting_seat`: what the thread says."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    await runner.start()
    try:
        users = [fake.add_user(f"Member{i}") for i in range(len(log["players"]))]
        rec = await imported(fake, users[0], log, users)
        assert rec.final.content.startswith("Imported"), rec.final.content
        thread = max(cid for cid, ch in fake.channels.items() if ch.get("type") == 11)
        game_id = int(rec.final.content.split("#")[1].split()[0])
        kind, opts = G18xx.command_for(move)
        before = len(fake.channel_messages(thread))
        rec = await fake.command(users[acting_seat], thread, kind, opts)
        confirm = next((c for c in rec.final.custom_ids if c.startswith(f"rh:confirm:{game_id}:")), None)
        if confirm is not None:  # a move the bot shows first (a pass that ends a stock round...)
            rec = await fake.click(users[acting_seat], rec.final, confirm)
        assert rec.final.ephemeral and "Done" in rec.final.content, rec.final.content
        [post] = fake.channel_messages(thread)[before:]
        return post.content
    finally:
        await runner.stop()
        await fake.stop()


def seat_to_act(log: dict) -> int:
    from engine.titles import load_18xx

    game = load_18xx(log)
    ids = [str(p.get("id", p.get("name"))) for p in log["players"]]
    return ids.index(str(game.active_players()[0]))


CUT_1830 = 300  # raw entries of 26855: undos and redos among them; NYC lays E19 next


@pytest.mark.parametrize("shape", ["whole game", "hotseat, players named only", "chat, undo and redo at the cut"])
async def test_an_1830_game_from_18xx_games_continues_here(tmp_path, shape):
    log = fixture("1830", "26855")
    shaped = {"whole game": lambda: in_play(log, CUT_1830),
              "hotseat, players named only": lambda: named_only(in_play(log, CUT_1830)),
              "chat, undo and redo at the cut": lambda: with_chat_and_undo(log, CUT_1830)}[shape]()
    move = next_move(log, CUT_1830)
    post = await continued(tmp_path, shaped, move, seat_to_act(shaped))
    assert post.startswith("NYC lays tile 15 on E19 Albany"), post


async def test_a_standing_order_waiting_in_the_imported_game_acts_at_its_turn(tmp_path):
    """Player 1's order to buy NYC shares was set on 18xx.games; the first pass here sets it going."""
    log = fixture("1830", "1830_game_end_bank")
    shaped = in_play(log, 409)
    move = next_move(log, 409)
    assert move["type"] == "pass" and log["actions"][409]["auto_actions"][0]["shares"] == ["NYC_8"]
    post = await continued(tmp_path, shaped, move, seat_to_act(shaped))
    assert "passes; automatically: Member0 buys 10% of NYC, Member0's standing order stops" in post, post


@pytest.mark.parametrize("title, name", [("1817", "15528"), ("1860", "1860_game_end_bank"), ("18MEX", "hotseat01")])
async def test_chat_undo_and_redo_at_the_cut_of_other_titles(tmp_path, title, name):
    log = fixture(title, name)
    cut = next(n for n in range(150, len(log["actions"])) if log["actions"][n - 1]["type"] not in ("undo", "redo")
               and next_move(log, n)["type"] == "lay_tile")
    shaped = with_chat_and_undo(log, cut)
    post = await continued(tmp_path, shaped, next_move(log, cut), seat_to_act(shaped))
    assert " lays tile " in post, post


def gapped(log: dict) -> dict:
    """The log with its ids from 51 on moved up by 5: ids 51 to 55 are no action's."""
    return {**log, "actions": [{**a, "id": a["id"] + 5} if a["id"] > 50 else a for a in log["actions"]]}


def undone_to(log: dict, action_id) -> dict:
    player = log["players"][0]["id"]
    return {**log, "actions": [*log["actions"], {"type": "undo", "entity": player, "entity_type": "player",
                                                 "id": 101, "action_id": action_id}]}


def redo(log: dict, action_id: int) -> dict:
    return {"type": "redo", "entity": log["players"][0]["id"], "entity_type": "player", "id": action_id}


def without(log: dict, at: int, field: str) -> dict:
    return {**log, "actions": [{k: v for k, v in a.items() if i != at or k != field}
                               for i, a in enumerate(log["actions"])]}


async def test_exports_that_cannot_be_continued_are_refused_with_the_reason(tmp_path):
    log = fixture("1830", "26855")
    listed = {k: v for k, v in in_play(log, 100).items() if k != "actions"}
    cases = [({**log, "actions": [], "status": "new"}, "has not started on 18xx.games yet"),
             ({**listed, "loaded": False}, "without its actions"),
             ({**in_play(log, 0), "players": log["players"][:1]}, "The log has 1 player; 1830 is for at least 2."),
             ({**in_play(log, 100), "title": "1889"}, "Cannot import a `1889` game"),
             (undone_to(gapped(in_play(log, 100)), 53), "The log does not replay: undo 101: no action of the log "
                                                        "has the id 53"),
             ({**in_play(log, 100), "actions": [*log["actions"][:100], redo(log, 101)]},
              "The log does not replay: redo 101: there is no undo to redo"),
             (without(in_play(fixture("1817", "16281"), 119), 118, "loan"),
              "The log does not replay: action 119 ('take_loan'): malformed take_loan action: loan is missing")]
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    await runner.start()
    try:
        users = [fake.add_user(f"Member{i}") for i in range(4)]
        for shaped, words in cases:
            rec = await imported(fake, users[0], shaped, users[:len(shaped["players"])])
            assert rec.final.ephemeral and words in rec.final.content, (words, rec.final.content)
        assert not any(ch.get("type") == 11 for ch in fake.channels.values())  # no game's thread opened
    finally:
        await runner.stop()
        await fake.stop()


async def test_chat_after_the_end_stays_in_the_imported_game(tmp_path):
    """A finished game with its players' chat after the end, as 18xx.games keeps it: imported as finished, the
    chat in its export."""
    log = fixture("1830", "26855")
    last = log["actions"][-1]["id"]
    ended = {**log, "actions": [*log["actions"], chat(log["players"][0]["id"], last + 1),
                                chat(log["players"][1]["id"], last + 2)]}
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    await runner.start()
    try:
        users = [fake.add_user(f"Member{i}") for i in range(4)]
        rec = await imported(fake, users[0], ended, users)
        assert rec.final.content.startswith("Imported"), rec.final.content
        game_id = int(rec.final.content.split("#")[1].split()[0])
        rec = await fake.command(users[0], fake.channel_id, "game", {"game": game_id}, sub="export")
        (_, data), = rec.final.attachments
        exported = json.loads(data)
        assert [a["type"] for a in exported["actions"][-3:]] == ["bankrupt", "message", "message"]
        assert exported["actions"][-1]["message"] == "gg" and exported["result"] == log["result"]
    finally:
        await runner.stop()
        await fake.stop()
