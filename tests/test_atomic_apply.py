"""`apply` is all or nothing whatever goes wrong, refusals and undo go back through checkpoints, and logs load
as 18xx.games writes them (hotseat seeds, ids as strings, game ids that round-trip)."""

import json
from pathlib import Path

import pytest

from engine import GameError
from engine.core.actions import resolve_undo
from engine.core.steps.operating import BuyTrain
from engine.selfplay import play_one
from engine.titles import create_game, load_18xx

FIXTURE = Path(__file__).parent / "fixtures" / "1830" / "26855.json"


def fixture_log() -> dict:
    return json.loads(FIXTURE.read_text())


def game_at(upto: int):
    log = fixture_log()
    return load_18xx({**log, "actions": resolve_undo(log["actions"])[:upto]})


def state(game) -> tuple:
    return game.summary(), game.map_view(), game.legal_actions(), list(game.actions)


def test_a_train_from_another_corporation_with_a_bogus_trade_in_is_refused_and_changes_nothing():
    game = game_at(53)  # PRR may buy a 2-train from another corporation
    before = state(game)
    action = {"type": "buy_train", "entity": "PRR", "entity_type": "corporation", "train": "2-0", "price": 80}
    with pytest.raises(GameError, match="only for one bought from the bank"):
        game.apply({**action, "exchange": game.depot.upcoming[-1].id})
    assert state(game) == before
    with pytest.raises(GameError, match="is a 2-train, not 'D'"):
        game.apply({**action, "variant": "D"})
    assert state(game) == before
    game.apply(action)
    assert game.corporation("PRR").cash == before[0]["corporations"]["PRR"]["cash"] - 80


def test_an_error_in_the_rules_is_a_game_error_and_changes_nothing(monkeypatch):
    game = game_at(53)
    before = state(game)

    def broken(self, action, corp):  # pays, then fails the way a rules bug would
        self.game.transfer(corp, self.game.bank, 10)
        raise KeyError("oops")

    monkeypatch.setattr(BuyTrain, "process_buy_train", broken)
    with pytest.raises(GameError, match="KeyError") as refused:
        game.apply({"type": "buy_train", "entity": "PRR", "entity_type": "corporation", "train": "2-0",
                    "price": 80})
    assert isinstance(refused.value.__cause__, KeyError)
    assert state(game) == before

    def interrupted(self, action, corp):
        self.game.transfer(corp, self.game.bank, 10)
        raise KeyboardInterrupt

    monkeypatch.setattr(BuyTrain, "process_buy_train", interrupted)
    with pytest.raises(KeyboardInterrupt):
        game.apply({"type": "buy_train", "entity": "PRR", "entity_type": "corporation", "train": "2-0",
                    "price": 80})
    assert state(game) == before


def test_refusals_and_undo_put_back_exactly_the_state_a_replay_reaches():
    _, problem, _, played = play_one("1830", 4, 3, 700)
    assert problem is None
    log = played.to_18xx()
    game = create_game("1830", log["players"], seed=log["settings"]["seed"])
    for n, action in enumerate(log["actions"]):
        game.apply({k: v for k, v in action.items() if k != "auto_actions"})
        if n % 37 == 5:  # a refusal that a step only finds out about, then an undo of several actions
            for legal in game.legal_actions():
                if "price" in legal:
                    with pytest.raises(GameError):
                        game.apply({**legal, "price": 10**6})
                    break
            assert state(game) == state(load_18xx({**log, "actions": game.actions}))
            back = 1 + n % 23
            for _ in range(back):
                game.undo()
            assert state(game) == state(load_18xx({**log, "actions": log["actions"][:n + 1 - back]}))
            for again in log["actions"][n + 1 - back:n + 1]:
                game.apply({k: v for k, v in again.items() if k != "auto_actions"})
    assert game.actions == played.actions
    assert state(game) == state(played)


def test_undo_keeps_later_chat_and_refuses_when_there_is_nothing_to_undo():
    game = create_game("1830", [{"id": i, "name": f"P{i}"} for i in (1, 2, 3)])
    with pytest.raises(GameError, match="nothing to undo"):
        game.undo()
    game.apply({"type": "bid", "entity": 1, "entity_type": "player", "company": "SV", "price": 20})
    game.apply({"type": "message", "entity": 2, "entity_type": "player", "message": "nice"})
    game.undo()
    assert [a["type"] for a in game.actions] == ["message"]
    assert game.summary() == create_game("1830", [{"id": i, "name": f"P{i}"} for i in (1, 2, 3)]).summary()


def test_a_standing_order_for_a_corporation_that_does_not_exist_is_refused():
    game = create_game("1830", [{"id": i, "name": f"P{i}"} for i in (1, 2, 3)])
    before = state(game)
    with pytest.raises(GameError, match="no corporation XYZ"):
        game.apply({"type": "program_buy_shares", "entity": 2, "entity_type": "player", "corporation": "XYZ",
                    "until_condition": "float"})
    with pytest.raises(GameError, match="until_condition"):
        game.apply({"type": "program_buy_shares", "entity": 2, "entity_type": "player", "corporation": "PRR",
                    "until_condition": "forever"})
    with pytest.raises(GameError, match="no program merger pass"):
        game.apply({"type": "program_merger_pass", "entity": 2, "entity_type": "player"})
    assert state(game) == before
    game.apply({"type": "program_buy_shares", "entity": 2, "entity_type": "player", "corporation": "PRR",
                "until_condition": 2})


def test_malformed_actions_name_the_field():
    game = create_game("1830", [{"id": i, "name": f"P{i}"} for i in (1, 2, 3)])
    cases = {
        "an action is a JSON object": ["bid"],
        "unknown action type 'fly'": {"type": "fly", "entity": 1},
        "malformed bid action: price must be a whole number, not '20'": {"type": "bid", "entity": 1, "company": "SV",
                                                                         "price": "20"},
        "malformed bid action: entity": {"type": "bid", "entity": None, "company": "SV", "price": 20},
        "there is no player 9": {"type": "bid", "entity": 9, "company": "SV", "price": 20},
        "action id 0 is not after": None,
    }
    game.apply({"type": "pass", "entity": 1, "entity_type": "player"})
    cases["action id 0 is not after"] = {"type": "pass", "entity": 2, "id": 0}
    for message, action in cases.items():
        with pytest.raises(GameError, match=message):
            game.apply(action)
    assert len(game.actions) == 1


@pytest.mark.parametrize("seed", ["", None])
def test_hotseat_logs_load_with_the_seed_from_the_game_id(seed):
    log = fixture_log()
    hotseat = {**log, "id": "hs_abcdefgh_19354", "mode": "hotseat", "settings": dict(log["settings"])}
    if seed is None:
        del hotseat["settings"]["seed"]
    else:
        hotseat["settings"]["seed"] = seed
    # ids written as strings: players, entities and action ids
    hotseat["players"] = [{**p, "id": str(p["id"])} for p in log["players"]]
    hotseat["actions"] = [{**a, "id": str(a["id"]),
                           **({"entity": str(a["entity"])} if a.get("entity_type") == "player" else {})}
                          for a in log["actions"]]
    game = load_18xx(hotseat)
    assert game.seed == 19354
    assert game.finished and game.result() == log["result"]


def test_a_seed_that_is_not_a_number_is_refused():
    log = fixture_log()
    with pytest.raises(GameError, match="seed"):
        load_18xx({**log, "settings": {**log["settings"], "seed": "abc"}})
    for broken in ([], {"title": "1830"}, {**log, "players": "me"}, {**log, "actions": {}}):
        with pytest.raises(GameError):
            load_18xx(broken)


def test_game_id_and_seed_round_trip_through_an_export():
    numbered = create_game("1830", [{"id": 1, "name": "A"}, {"id": 2, "name": "B"}], seed=77, game_id=5)
    numbered.apply({"type": "pass", "entity": 1, "entity_type": "player"})
    again = load_18xx(json.loads(json.dumps(numbered.to_18xx())))
    assert (again.game_id, again.seed, again.actions) == (5, 77, numbered.actions)
    unnumbered = create_game("1830", [{"id": 1, "name": "A"}, {"id": 2, "name": "B"}], seed=77)
    exported = unnumbered.to_18xx()
    assert "id" not in exported
    again = load_18xx(json.loads(json.dumps(exported)))
    assert (again.game_id, again.seed) == (None, 77)


def test_a_reloaded_game_plays_its_standing_orders():
    """Programs act in a game rebuilt from its log (after a restart, an import), as in the game played."""
    game = game_at(next(n for n in range(20, 200) if game_at(n).round.name == "Stock Round"))
    seats = [p.id for p in game.players]
    first = game.active_players()[0]
    second = seats[(seats.index(first) + 1) % len(seats)]
    game.apply({"type": "program_share_pass", "entity": second, "entity_type": "player"})
    reloaded = load_18xx(json.loads(json.dumps(game.to_18xx())))
    outcomes = []
    for g in (game, reloaded):
        stored = g.apply({"type": "pass", "entity": first, "entity_type": "player"})
        outcomes.append((stored.get("auto_actions"), g.summary()))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] and outcomes[0][0][0]["entity"] == second


def _canon(value):
    """Map pieces by name, containers by content: comparable across two games."""
    from engine.core.hexmap import Hex
    from engine.core.market import Cell, StockMarket
    from engine.core.tiles import Node, Path, Tile

    if isinstance(value, Hex):
        return ("hex", value.coord)
    if isinstance(value, Tile):
        return ("tile", value.id)
    if isinstance(value, Node):
        return ("node", value.tile.id, value.kind, value.index)
    if isinstance(value, Path):
        return ("path", value.tile.id, value.index)
    if isinstance(value, Cell):
        return ("cell", value.id)
    if isinstance(value, StockMarket):
        return ("market",)
    if hasattr(value, "__dict__") and not isinstance(value, type) and not callable(value):
        return (type(value).__name__, _canon(vars(value)))
    if isinstance(value, dict):
        return sorted((repr(_canon(k)), _canon(v)) for k, v in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        items = [_canon(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, set | frozenset) else items
    return value


def _fixed_fields(game) -> dict:
    """Every field of the map's and the market's pieces declared fixed (never saved by checkpoints)."""
    from engine.core.hexmap import HexMap, _saved_fields, _tile_fields
    from engine.core.market import StockMarket

    hm, out = game.hexmap, {}
    for h in hm.hexes.values():
        out[h.coord] = {f: _canon(getattr(h, f)) for f in type(h).__slots__ if f not in _saved_fields(type(h))}
    for tile_id, t in hm._tiles_by_id.items():
        t.rotate(t.rotation)  # what follows from the rotation is compared too
        out[tile_id] = {k: _canon(v) for k, v in vars(t).items() if k not in _tile_fields(vars(t)) and k != "_shapes"}
        for part in (*t.nodes, *t.paths):
            slots = [f for k in type(part).__mro__ for f in getattr(k, "__slots__", ())]
            out[(tile_id, repr(part))] = {f: _canon(getattr(part, f)) for f in slots
                                          if f not in _saved_fields(type(part))}
    out["market"] = {k: _canon(v) for k, v in vars(game.market).items() if k in StockMarket.FIXED}
    out["cells"] = [[_canon(getattr(c, f)) for f in StockMarket.CELL_FIXED] for c in game.market.cells.values()]
    assert HexMap.FIXED <= set(vars(hm))
    return out


@pytest.mark.parametrize("path", sorted((Path(__file__).parent / "fixtures").glob("*/*.json")),
                         ids=lambda p: p.stem)
def test_fields_that_checkpoints_leave_out_never_change_in_play(path):
    """Checkpoints save only the fields of map and market pieces not declared fixed: played to the end, a
    real game's fixed fields are still those of a new game (tiles compared at their own rotation)."""
    log = json.loads(path.read_text())
    if log.get("title") not in ("1830", "18MEX"):
        pytest.skip("no rules engine for this title")
    played = load_18xx(log)
    fresh = load_18xx({**log, "actions": []})
    for tile_id, t in played.hexmap._tiles_by_id.items():  # copies made in play, and rotations
        fresh.hexmap.tile(tile_id).rotate(t.rotation)
    assert _fixed_fields(played) == _fixed_fields(fresh)


@pytest.mark.parametrize("path", sorted((Path(__file__).parent / "fixtures").glob("*/*.json")),
                         ids=lambda p: p.stem)
def test_undo_through_checkpoints_matches_a_replay_in_real_games(path):
    log = json.loads(path.read_text())
    if log.get("title") not in ("1830", "18MEX"):
        pytest.skip("no rules engine for this title")
    kept = resolve_undo(log["actions"])
    game = load_18xx({**log, "actions": []})
    checks = set(range(7, len(kept), max(1, len(kept) // 8)))
    for n, action in enumerate(kept):
        if game.finished:
            break
        game.apply(action)
        if n in checks:
            back = 1 + n % 19
            for _ in range(back):
                game.undo()
            assert state(game) == state(load_18xx({**log, "actions": game.actions}))
            for again in kept[n + 1 - back:n + 1]:
                game.apply(again)
    assert game.result() == load_18xx(log).result()


def test_a_standing_order_for_a_corporation_not_yet_parred_switches_itself_off():
    """As on 18xx.games: accepted, and at the player's turn it can't buy, so it is disabled."""
    game = game_at(next(n for n in range(20, 200) if game_at(n).round.name == "Stock Round"))
    unparred = next(c.sym for c in game.corporations if not c.ipoed)
    seats = [p.id for p in game.players]
    first = game.active_players()[0]
    second = seats[(seats.index(first) + 1) % len(seats)]
    game.apply({"type": "program_buy_shares", "entity": second, "entity_type": "player", "corporation": unparred,
                "until_condition": 2})
    stored = game.apply({"type": "pass", "entity": first, "entity_type": "player"})
    assert stored["auto_actions"][0] == {"type": "program_disable", "entity": second, "entity_type": "player",
                                         "reason": f"Cannot buy {unparred} from IPO"}
