"""Self-play over both modes, every shipped map and every allowed player count; long games reach final scoring."""

from __future__ import annotations

import json
import random

import pytest

from engine.steam.board import load_board, map_names
from engine.steam.game import Game, Settings
from engine.steam.selfplay import check_invariants, choose, main, run

GAMES = 1
CONFIGS = [(m, mode, n) for m in map_names() for mode in ("basic", "standard")
           for n in range(load_board(m).min_players, load_board(m).max_players + 1)]


def test_configs_cover_maps_modes_and_player_counts():
    assert {c[0] for c in CONFIGS} == {"rust_belt", "eastern_us_and_canada"}
    assert len(CONFIGS) == 16


@pytest.mark.parametrize("map_name,mode,players", CONFIGS)
def test_selfplay(map_name, mode, players):
    out = run(map_name, mode, players, GAMES, seed=players * 7 + (mode == "standard"))
    assert out["games"] == GAMES
    assert not out["failures"], json.dumps(out["failures"][0])[:4000]
    assert out["actions"] > GAMES * 80
    assert out["delivered"] >= GAMES * 5


def test_selfplay_first_game_draw():
    out = run("rust_belt", "basic", 4, 1, seed=3, turn_order="draw")
    assert not out["failures"], json.dumps(out["failures"][:1])[:4000]


def test_selfplay_cli(capsys):
    code = main(["--map", "rust_belt", "--mode", "standard", "--players", "3", "--games", "2", "--seed", "5"])
    last = capsys.readouterr().out.strip().splitlines()[-1]
    data = json.loads(last)
    assert code == 0
    assert set(data) == {"games", "actions", "scored", "bankrupt", "delivered", "seconds", "failures"} and data["games"] == 2


@pytest.mark.parametrize("spelling", ["Rust Belt", "rust-belt", "RustBelt"])
def test_selfplay_cli_accepts_the_map_name_as_users_type_it(capsys, spelling):
    assert main(["--map", spelling, "--mode", "standard", "--players", "4", "--games", "1", "--seed", "1"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["failures"] == 0


def test_selfplay_cli_unknown_map_lists_the_shipped_maps(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--map", "rust belts", "--games", "1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unknown Steam map 'rust belts'" in err and "eastern_us_and_canada, rust_belt" in err


def test_selfplay_cli_refuses_a_player_count_the_map_does_not_take(capsys):
    with pytest.raises(SystemExit):
        main(["--map", "rust_belt", "--players", "7", "--games", "1"])
    assert "is for 3-6 players, not 7" in capsys.readouterr().err


# Seeded games (settings and agent seed as run() makes them) that must play every round and end in final
# scoring with a player still in.
FINAL_GAMES = [("rust_belt", "basic", 4, 100003), ("rust_belt", "standard", 5, 100003),
               ("rust_belt", "standard", 4, 100005), ("eastern_us_and_canada", "standard", 3, 100003)]


def _final_scoring_by_the_rulebook(players: list[tuple[int, int, bool]], links: dict[int, int]) -> list[int | None]:
    """Rulebook final scoring: VP + income conversion (+ half rounded down if positive, - double if negative)
    + 1 VP per complete link owned; bankrupt players score nothing."""
    out = []
    for q, (vp, income, bankrupt) in enumerate(players):
        if bankrupt:
            out.append(None)
            continue
        conversion = income // 2 if income > 0 else 2 * income
        out.append(vp + conversion + links.get(q, 0))
    return out


@pytest.mark.parametrize("map_name,mode,players,seed", FINAL_GAMES)
def test_seeded_games_reach_final_scoring_scored_by_the_rulebook(map_name, mode, players, seed):
    g = Game(Settings(map=map_name, mode=mode, players=players, seed=seed))
    rng = random.Random(seed ^ 0x5EED)
    seen = {}
    finish = g._finish

    def spy():  # the state at the moment of final scoring, read from the public view
        view = g.view()
        seen["players"] = [(p["vp"], p["income"], p["bankrupt"]) for p in view["players"]]
        seen["links"] = {}
        for lk in view["links"]:
            if lk["complete"] and lk["owner"] is not None:
                q = g.seat_of(lk["owner"])
                seen["links"][q] = seen["links"].get(q, 0) + 1
        finish()

    g._finish = spy
    while not g.finished:
        g.apply(choose(g, rng))
        check_invariants(g)
    res = g.scoring()
    assert res["rounds"] == g.rounds and seen, "the game did not reach final scoring"
    expected = _final_scoring_by_the_rulebook(seen["players"], seen["links"])
    assert any(v is not None for v in expected), "every player went bankrupt"
    got = {g.seat_of(r["id"]): None if r["bankrupt"] else r["vp"] for r in res["ranking"]}
    assert [got[q] for q in range(players)] == expected
    assert g.s.delivered >= 10
    ranked = [g.seat_of(r["id"]) for r in res["ranking"]]
    solvent = sorted((q for q in range(players) if expected[q] is not None),
                     key=lambda q: (-expected[q], g.s.players[q].tile))
    assert ranked[: len(solvent)] == solvent and res["winner"] == g.pid(solvent[0])


def test_exported_logs_replay_to_the_same_result(tmp_path, capsys):
    from engine.replay import main as replay_main

    assert main(["--map", "rust_belt", "--mode", "basic", "--players", "3", "--games", "2", "--seed", "4",
                 "--export", str(tmp_path)]) == 0
    capsys.readouterr()
    logs = sorted(tmp_path.glob("steam-*.json"))
    assert len(logs) == 2
    for path in logs:
        log = json.loads(path.read_text())
        assert log["title"] == "steam" and len(log["players"]) == 3
        assert log["settings"]["map"] == "rust_belt" and log["settings"]["mode"] == "basic"
        assert replay_main([str(path)]) == 0
        last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert last["result"] == log["result"] and last["actions_applied"] == len(log["actions"])
        assert last["game_end_reason"] == log["game_end_reason"] and set(last) >= {"seconds"}
