"""Games exported from 18xx.games in each shape its API gives them, imported with `/game import` through a fake
Discord and continued by slash command: the whole game object (status, result, turn, acting, users on the
actions...), hotseat games (no seed, players named only), chat, undo and redo around the cut, a standing order
waiting to act; and the exports that cannot be continued, refused with the reason. The engine side of these
shapes is in tests/test_log_shapes_1830.py."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from fakediscord import AttachmentRef, BotRunner, FakeDiscord, UserRef
from fakediscord.recorded import QuickPictures
from hypothesis import given, settings
from hypothesis import strategies as st

import bot.service
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


def ids_as_digits(log: dict) -> dict:
    """The log with every player id written as a string of digits, in the players and the actions alike."""
    ids = {p["id"] for p in log["players"]}

    def written(a: dict) -> dict:
        return {**a, **({"entity": str(a["entity"])} if a["entity_type"] == "player" else {}),
                **({"user": str(a["user"])} if a.get("user") in ids else {})}

    return {**log, "players": [{**p, "id": str(p["id"])} for p in log["players"]],
            "actions": [written(a) for a in log["actions"]]}


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


async def imported(fake: FakeDiscord, host: int, log: dict | bytes, users: list[int]):
    opts = {"file": AttachmentRef("game.json", log if isinstance(log, bytes) else json.dumps(log).encode())}
    for i, uid in enumerate(users):
        opts[f"player{i + 1}"] = UserRef(uid)
    return await fake.command(host, fake.channel_id, "game", opts, sub="import")


@contextlib.asynccontextmanager
async def on_discord(tmp_path, members: int):
    """A fake Discord with the bot running and `members` members: (fake, their ids)."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    await runner.start()
    try:
        yield fake, [fake.add_user(f"Member{i}") for i in range(members)]
    finally:
        await runner.stop()
        await fake.stop()


async def exported(fake: FakeDiscord, member: int, import_reply) -> dict:
    """The log `/game export` gives of the game an import's reply names."""
    game_id = int(import_reply.final.content.split("#")[1].split()[0])
    rec = await fake.command(member, fake.channel_id, "game", {"game": game_id}, sub="export")
    (_, data), = rec.final.attachments
    return json.loads(data)


async def continued(tmp_path, log: dict, move: dict, acting_seat: int) -> str:
    """Imports `log` for one member a seat and sends `move` as the member of `acting_seat`: what the thread says."""
    async with on_discord(tmp_path, len(log["players"])) as (fake, users):
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


def seat_to_act(log: dict) -> int:
    from engine.titles import load_18xx

    game = load_18xx(log)
    ids = [str(p.get("id", p.get("name"))) for p in log["players"]]
    return ids.index(str(game.active_players()[0]))


CUT_1830 = 300  # raw entries of 26855: undos and redos among them; NYC lays E19 next


@pytest.mark.parametrize("shape", ["whole game", "hotseat, players named only", "chat, undo and redo at the cut",
                                   "player ids as strings"])
async def test_an_1830_game_from_18xx_games_continues_here(tmp_path, shape):
    log = fixture("1830", "26855")
    shaped = {"whole game": lambda: in_play(log, CUT_1830),
              "hotseat, players named only": lambda: named_only(in_play(log, CUT_1830)),
              "player ids as strings": lambda: ids_as_digits(in_play(log, CUT_1830)),
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


async def test_a_log_line_and_an_undo_naming_its_action_by_a_float_are_read_as_18xx_games_reads_them(tmp_path):
    """A player's `log` line stays in the game as written (its export has it unchanged); an undo naming the action
    to go back to as 300.0 goes back to action 300, as on 18xx.games."""
    log = fixture("1830", "26855")
    shaped = in_play(log, CUT_1830)
    end, player = shaped["actions"][-1]["id"], log["players"][1]["id"]
    line = {"type": "log", "entity": player, "entity_type": "player", "id": end + 1, "user": player,
            "created_at": 1612930079, "message": "Ann agrees to the deal"}
    move = next_move(log, CUT_1830)
    shaped["actions"] += [line, {**move, "id": end + 2},
                          {"type": "undo", "entity": player, "entity_type": "player", "id": end + 3,
                           "action_id": float(end + 1)}]
    async with on_discord(tmp_path, 4) as (fake, users):
        rec = await imported(fake, users[0], shaped, users)
        assert rec.final.content.startswith("Imported"), rec.final.content
        written = await exported(fake, users[0], rec)
    from engine.core.actions import resolve_undo

    assert written["actions"] == [*resolve_undo(log["actions"][:CUT_1830]), line]
    (tmp_path / "again").mkdir()
    post = await continued(tmp_path / "again", shaped, move, seat_to_act(shaped))
    assert post.startswith("NYC lays tile 15 on E19 Albany"), post


@pytest.mark.parametrize("title, name", [("1817", "15528"), ("1860", "1860_game_end_bank"), ("18MEX", "hotseat01")])
async def test_chat_undo_and_redo_at_the_cut_of_other_titles(tmp_path, title, name):
    log = fixture(title, name)
    cut = next(n for n in range(150, len(log["actions"])) if log["actions"][n - 1]["type"] not in ("undo", "redo")
               and next_move(log, n)["type"] == "lay_tile")
    shaped = with_chat_and_undo(log, cut)
    post = await continued(tmp_path, shaped, next_move(log, cut), seat_to_act(shaped))
    assert " lays tile " in post, post


def nested(log: dict, depth: int) -> bytes:
    """The log's file with a field of its first action holding lists `depth` deep (inside the log's own 3
    levels; deeper than Python's JSON reader or writer go, if need be)."""
    first = log["actions"][0]
    marked = {**log, "actions": [{**first, "note": "NESTED"}, *log["actions"][1:]]}
    return json.dumps(marked).replace('"NESTED"', "[" * depth + "]" * depth).encode()


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


async def test_exports_that_cannot_be_continued_are_refused_with_the_reason(tmp_path, monkeypatch):
    # one member sends every case, more than the imports a member may send in an hour
    monkeypatch.setattr(bot.service, "MAX_IMPORTS_AN_HOUR", 100)
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
              "The log does not replay: action 119 ('take_loan'): malformed take_loan action: loan is missing"),
             ({**listed, "status": "archived", "actions": []}, "without its actions"),
             (nested(in_play(log, 100), 18), "its lists or objects lie more than 20 deep"),
             (json.dumps({"note": [[]] * 200_000, **in_play(log, 100)}).encode(), "holds 200"),
             (nested(in_play(log, 100), 5000), "its lists or objects lie more than 20 deep")]
    async with on_discord(tmp_path, 4) as (fake, users):
        for shaped, words in cases:
            seated = len(log["players"]) if isinstance(shaped, bytes) else len(shaped["players"])
            rec = await imported(fake, users[0], shaped, users[:seated])
            assert rec.final.ephemeral and words in rec.final.content, (words, rec.final.content)
        assert not any(ch.get("type") == 11 for ch in fake.channels.values())  # no game's thread opened


@pytest.mark.parametrize("players_too", [True, False])
async def test_a_game_whose_player_ids_are_strings_is_exported_with_numbers(tmp_path, players_too):
    """The seats are numbered by the players' ids; the actions naming them are written the same way, so that the
    export names each player one way (18xx.games refuses an action by "330" in a game of player 330)."""
    log = fixture("1830", "26855")
    shaped = ids_as_digits(in_play(log, CUT_1830))
    async with on_discord(tmp_path, 4) as (fake, users):
        rec = await imported(fake, users[0], shaped if players_too else {**shaped, "players": log["players"]}, users)
        written = await exported(fake, users[0], rec)
        assert [p["id"] for p in written["players"]] == [p["id"] for p in log["players"]]
        from engine.core.actions import resolve_undo

        kept = resolve_undo(log["actions"][:CUT_1830])
        assert [(a["entity"], a.get("user")) for a in written["actions"]] == \
            [(a["entity"], a.get("user")) for a in kept]


async def test_chat_after_the_end_stays_in_the_imported_game(tmp_path):
    """A finished game with its players' chat after the end, as 18xx.games keeps it: imported as finished, the
    chat in its export."""
    log = fixture("1830", "26855")
    last = log["actions"][-1]["id"]
    ended = {**log, "actions": [*log["actions"], chat(log["players"][0]["id"], last + 1),
                                chat(log["players"][1]["id"], last + 2)]}
    async with on_discord(tmp_path, 4) as (fake, users):
        rec = await imported(fake, users[0], ended, users)
        assert rec.final.content.startswith("Imported"), rec.final.content
        written = await exported(fake, users[0], rec)
        assert [a["type"] for a in written["actions"][-3:]] == ["bankrupt", "message", "message"]
        assert written["actions"][-1]["message"] == "gg" and written["result"] == log["result"]


async def test_a_result_the_replay_does_not_reach_is_told_at_the_import(tmp_path):
    """The site's `result` is the one it stored when the game ended there; the game here is what its actions
    make it. Where the two part, the import says so and keeps the replayed result; where they agree, nothing."""
    log = fixture("1830", "26855")
    first, second = (str(p["id"]) for p in log["players"][:2])
    swapped = {**log["result"], first: log["result"][second], second: log["result"][first]}
    member = {str(p["id"]): f"Member{i}" for i, p in enumerate(log["players"])}  # seats taken in order
    told = ", ".join(f"{member[k]} {v}" for k, v in swapped.items())  # in the log's order
    cases = [(log, None),
             ({**log, "result": swapped}, f"The log's result ({told}) is not what the game replays to here"),
             ({**in_play(log, 300), "result": swapped}, f"The log gives a result ({told}), but replayed here the "
                                                         "game is not over")]
    async with on_discord(tmp_path, 4) as (fake, users):
        for shaped, words in cases:
            rec = await imported(fake, users[0], shaped, users)
            assert rec.final.content.startswith("Imported"), rec.final.content
            thread = max(cid for cid, ch in fake.channels.items() if ch.get("type") == 11)
            said = next(m.content for m in fake.channel_messages(thread) if m.content.startswith("Imported"))
            if words is None:
                assert "result" not in said, said
            else:
                assert words in said, said
                assert ("the replayed result stands" in said) == (shaped["actions"] == log["actions"]), said
            written = await exported(fake, users[0], rec)
            assert written["result"] == (log["result"] if shaped["actions"] == log["actions"] else {})


def depth(value) -> int:
    """How deep lists and objects lie in a value read from JSON (the outermost is 1 deep)."""
    if isinstance(value, dict):
        value = list(value.values())
    return 1 + max(map(depth, value), default=0) if isinstance(value, list) else 0


def count(value) -> int:
    """How many lists and objects a value read from JSON holds, itself included."""
    if isinstance(value, dict):
        value = list(value.values())
    return 1 + sum(map(count, value)) if isinstance(value, list) else 0


def deeper(text: bytes, most: int) -> bool:
    from bot.service import brackets_of, nested_deeper_than

    return nested_deeper_than(brackets_of(text), most)


def test_the_depth_of_a_log_is_its_deepest_list_or_object():
    from bot.service import MAX_IMPORT_DEPTH

    log = fixture("1817", "15528")  # a long game: routes in auto actions are the deepest, 7 levels
    text = json.dumps(log).encode()
    assert not deeper(text, 7) and deeper(text, 6)
    assert not deeper(nested(in_play(log, 100), MAX_IMPORT_DEPTH - 3), MAX_IMPORT_DEPTH)
    assert deeper(nested(in_play(log, 100), MAX_IMPORT_DEPTH - 2), MAX_IMPORT_DEPTH)
    assert not deeper(b'"a string"', 0) and deeper(b"[]", 0) and not deeper(b"[]", 1)


JSON_TEXT = st.text(alphabet='a"\\[]{}/\n\u00e9\u2028\U0001f682', max_size=6)  # what could pass for brackets or quotes
JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | JSON_TEXT,
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(JSON_TEXT, inner, max_size=3),
                           max_leaves=12)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(JSON_VALUES, st.booleans(), st.integers(0, 8))
def test_the_depth_and_count_are_read_from_the_text_as_from_the_value(value, ascii_only, most):
    """Brackets, quotes and backslashes inside strings (escaped or not, or beyond ASCII) do not count."""
    from bot.service import brackets_of

    text = json.dumps(value, ensure_ascii=ascii_only, indent=None if most % 2 else 1).encode()
    assert deeper(text, most) == (depth(value) > most), text
    assert len(brackets_of(text)) == 2 * count(value), text
