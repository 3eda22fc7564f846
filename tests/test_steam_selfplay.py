"""Random self-play over both modes, every shipped map and every allowed player count."""

from __future__ import annotations

import json

import pytest

from engine.steam.board import load_board, map_names
from engine.steam.selfplay import main, run

GAMES = 14
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
    assert out["actions"] > GAMES * 50


def test_selfplay_first_game_draw():
    out = run("rust_belt", "basic", 4, 4, seed=3, turn_order="draw")
    assert not out["failures"], json.dumps(out["failures"][:1])[:4000]


def test_selfplay_cli(capsys):
    code = main(["--map", "rust_belt", "--mode", "standard", "--players", "3", "--games", "2", "--seed", "5"])
    last = capsys.readouterr().out.strip().splitlines()[-1]
    data = json.loads(last)
    assert code == 0
    assert set(data) == {"games", "actions", "seconds", "failures"} and data["games"] == 2
