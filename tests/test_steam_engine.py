"""Steam engine mechanics: replay, undo, legal-action soundness, maps, tiles, views."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from engine.core.errors import GameError
from engine.steam import tiles as T
from engine.steam.actions import EndBuild, Lay, Pass, TakeTile
from engine.steam.board import MapError, load_board, parse_board
from engine.steam.game import Game, Settings, vp_track
from engine.steam.legal import legal_actions
from engine.steam.selfplay import check_invariants, choose
from engine.steam.testing import (
    build_game,
    fingerprint,
    make_board,
    ne_game,
    play_selfplay,
    put,
    start_build,
)


@pytest.mark.parametrize("mode", ["basic", "standard"])
def test_replay_of_the_log_gives_the_same_state(mode):
    st = Settings(map="eastern_us_and_canada", mode=mode, players=4, seed=11)
    g = play_selfplay(st, 400, 5)
    log = g.action_log()
    h = Game.replay(st, json.loads(json.dumps(log)))
    assert fingerprint(h) == fingerprint(g)
    assert h.s.rng.getstate() == g.s.rng.getstate()


def test_same_seed_same_setup_different_seed_differs():
    a = Game(Settings(map="rust_belt", players=4, seed=1))
    b = Game(Settings(map="rust_belt", players=4, seed=1))
    c = Game(Settings(map="rust_belt", players=4, seed=2))
    assert a.s.city_cubes == b.s.city_cubes and a.s.reserve == b.s.reserve
    assert (a.s.city_cubes, a.s.reserve) != (c.s.city_cubes, c.s.reserve)


def test_undo_restores_previous_state():
    st = Settings(map="rust_belt", mode="basic", players=3, seed=4)
    g = play_selfplay(st, 60, 2)
    before = fingerprint(Game.replay(st, g.actions[:-1]))
    g.undo()
    assert fingerprint(g) == before
    while g.actions:
        g.undo()
    assert fingerprint(g) == fingerprint(Game(st))
    with pytest.raises(GameError, match="nothing to undo"):
        g.undo()


@pytest.mark.parametrize("mode", ["basic", "standard"])
def test_every_enumerated_action_is_legal(mode):
    st = Settings(map="rust_belt", mode=mode, players=4, seed=21)
    g = Game(st)
    rng = random.Random(8)
    checked = 0
    for step in range(500):
        if g.finished:
            break
        acts = legal_actions(g)
        assert acts, f"no legal action at step {step} in phase {g.s.phase}"
        if step % 4 == 0:
            for a in rng.sample(acts, min(15, len(acts))):
                probe = Game.replay(st, g.actions) if checked % 10 == 0 else None
                trial = probe or g
                snap = trial.s.clone()
                trial.apply(a)  # must not raise
                check_invariants(trial)
                trial.s = snap
                trial.actions.pop()
                trial._net_cache = None
                checked += 1
        g.apply(choose(g, rng))
    assert checked > 60


def test_build_enumeration_offers_builds_from_cities():
    g = build_game()
    acts = legal_actions(g)
    lays = [a for a in acts if isinstance(a, Lay)]
    assert EndBuild(player=0) in acts
    assert Lay(player=0, hex=(0, 1), tile="21", rotation=0) in lays
    assert any(a.hex == (0, 2) for a in lays) is False  # Poughkeepsie is not adjacent to a city
    assert 20 < len(acts) < 600


def test_incomplete_link_lapses_if_not_continued_next_round():
    g = ne_game()
    g.s.round = 2
    put(g, (1, 0), "21", 2, owner=0, rnd=1)  # built last round, still incomplete
    put(g, (0, 1), "21", 0, owner=0, rnd=2)  # built this round
    start_build(g, 0)
    g.apply(EndBuild(player=0))
    net = g.network()
    assert net.link_of((1, 0), (2, 5)).owner is None
    assert net.link_of((0, 1), (0, 3)).owner == 0


def test_neutral_link_taken_over_by_eligible_player():
    g = ne_game()
    g.s.players[0].cash = 20
    put(g, (1, 0), "21", 2, owner=None, rnd=1)  # neutral, starts from Albany
    start_build(g, 0)
    g.apply(Lay(player=0, hex=(2, 0), tile="22", rotation=5))  # completes Albany-Hartford
    link = g.network().link_of((1, 0), (2, 5))
    assert link.complete and link.owner == 0


def test_redirect_costs_base_price_and_keeps_round_stamp():
    from engine.steam.actions import Redirect

    g = ne_game()
    g.s.players[0].cash = 10
    put(g, (1, 0), "21", 2, owner=0)
    start_build(g, 0)
    g.apply(Redirect(player=0, hex=(1, 0), tile="22", rotation=5))  # now points NE instead of SE
    assert g.s.players[0].cash == 8
    assert g.s.track[(1, 0)].segs[0].edges == (1, 5)


def test_town_tile_spur_joining_other_players_link_stays_theirs():
    g = ne_game()
    g.s.players[0].cash = 20
    put(g, (0, 1), "21", 0, owner=1)  # P2's link from Albany pointing into Poughkeepsie
    put(g, (0, 3), "21", 0, owner=0)  # P1's own link... from New York pointing north
    start_build(g, 0)
    g.apply(Lay(player=0, hex=(0, 2), tile="T21", rotation=0))
    net = g.network()
    a = net.link_of((0, 1), (0, 3))
    b = net.link_of((0, 3), (0, 3))
    assert a.complete and a.owner == 1
    assert b.complete and b.owner == 0


def test_vp_track_markers():
    assert vp_track(37) == {"space": 37, "marker": 0}
    assert vp_track(50) == {"space": 50, "marker": 0}
    assert vp_track(51) == {"space": 1, "marker": 50}
    assert vp_track(104) == {"space": 4, "marker": 100}


def test_view_has_what_the_map_and_bot_need():
    st = Settings(map="rust_belt", mode="basic", players=3, seed=4)
    g = play_selfplay(st, 80, 1)
    v = g.view()
    json.dumps(v)
    for key in ("track", "links", "cities", "players", "turn_order", "action_tiles", "reserve", "bag", "round"):
        assert key in v
    assert all({"income", "vp", "loco", "cash"} <= set(p) for p in v["players"])


def test_rounds_by_player_count_and_setup_cubes():
    for n, rounds in ((3, 10), (4, 8), (5, 7), (6, 7)):
        g = Game(Settings(map="rust_belt", players=n, seed=1))
        assert g.rounds == rounds
        per = 2 if n == 3 else 3
        assert all(len(r) == per for r in g.s.reserve)
        assert sum(len(c) for c in g.s.city_cubes.values()) == 26
        check_invariants(g)


def test_player_count_outside_map_range():
    with pytest.raises(GameError, match="3-6 players"):
        Game(Settings(map="rust_belt", players=2, seed=1))


def test_tile_stock_double_sided():
    assert sum(n for _, n in T.PHYSICAL) == 136
    assert T.feasible({"21": 40, "22": 46})
    assert not T.feasible({"21": 40, "22": 47})
    assert T.feasible({"44": 4}) and not T.feasible({"44": 4, "47": 1, "45": 4})
    assert not T.can_add({"23": 7, "T23": 1}, "23")
    left = T.supply_left({})
    assert left["21"] == 86 and left["T11"] == 4 and left["44"] == 4


def test_map_validation_errors_are_clear():
    with pytest.raises(MapError, match="unknown Steam map"):
        load_board("atlantis")
    with pytest.raises(MapError, match="expected an object"):
        parse_board([])
    base = {"q": 0, "r": 0, "terrain": "plain", "town": None, "city": None, "blocked_edges": []}
    with pytest.raises(MapError, match="terrain 'lava'"):
        parse_board({"meta": {}, "hexes": [dict(base, terrain="lava")]})
    with pytest.raises(MapError, match="colour 'gray'"):
        parse_board({"meta": {}, "hexes": [dict(base, city={"name": "X", "color": "gray", "start_cubes": 2})]})
    with pytest.raises(MapError, match="appears twice"):
        parse_board({"meta": {}, "hexes": [base, base]})
    with pytest.raises(MapError, match="no city"):
        parse_board({"meta": {}, "hexes": [base]})
    with pytest.raises(MapError, match="does not block"):
        make_board({(0, 0): {"blocked_edges": [3]}})
    with pytest.raises(MapError, match="more than the 96 cubes"):
        make_board({(0, 0): {"city": {"name": "X", "color": "red", "start_cubes": 90}}}, steam={"reserve_hexes": 5})


def test_shipped_maps_load():
    rb = load_board("rust_belt")
    ea = load_board("eastern_us_and_canada")
    assert (len(rb.hexes), len(rb.cities), len(rb.towns)) == (189, 12, 14)
    assert (len(ea.hexes), len(ea.cities), len(ea.towns)) == (355, 24, 32)
    assert rb.reserve_hexes == 10 and ea.reserve_hexes == 8


def test_basic_growth_pass_is_free_and_commit_costs_2():
    g = ne_game(cash=10)
    g.apply(TakeTile(player=0, tile=5, use=False))
    g.apply(TakeTile(player=1, tile=7, use=True))
    assert g.s.players[0].cash == 10 and g.s.players[1].cash == 4
    assert 5 in g.s.passed_tiles and g.s.pending == {1: "urbanize"}


def test_python_dash_m_selfplay_runs():
    out = subprocess.run([sys.executable, "-m", "engine.steam.selfplay", "--map", "rust_belt", "--mode", "basic",
                          "--players", "3", "--games", "1", "--seed", "2"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout.strip().splitlines()[-1])
    assert data["games"] == 1 and data["failures"] == 0


def test_pass_refused_outside_auction_and_move():
    g = ne_game()
    with pytest.raises(GameError, match="action-tile selection"):
        g.apply(Pass(player=0))
