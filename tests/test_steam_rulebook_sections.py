"""Rules of the Steam rulebook (the Russian seed, docs/steam-rules.md) that no worked example covers, each
pinned with the sentence it comes from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.core.errors import GameError
from engine.steam.actions import Bid, Capital, EndBuild, Move, Pass, Redirect, TakeTile, UpgradeLoco
from engine.steam.game import Game, Settings
from engine.steam.testing import (
    city,
    delivery_game,
    line_board,
    line_links,
    make_board,
    new_game,
    put,
    set_cubes,
    start_build,
    start_move,
)

FIXTURES = Path(__file__).parent / "fixtures" / "steam"


def _standard_auction(free_pass: int | None) -> Game:
    g = Game(Settings(map="rust_belt", mode="standard", players=["A", "B", "C"], seed=2))
    g.s.order, g.s.free_pass = [0, 1, 2], free_pass
    for p in range(3):
        g.apply(Capital(player=p, loans=1))
    assert g.s.phase == "auction"
    return g


def test_first_player_free_pass_may_be_used_after_bidding():
    # "можете один раз в текущем аукционе спасовать без каких бы то ни было последствий": once in the
    # auction, not only on the first turn; "Если вы пасуете во второй раз" the token goes on the track.
    g = _standard_auction(free_pass=2)
    g.apply(Bid(player=0, amount=0))
    g.apply(Bid(player=1, amount=1))
    g.apply(Bid(player=2, amount=2))  # C bids on the first turn
    g.apply(Bid(player=0, amount=3))
    g.apply(Pass(player=1))  # B: the rightmost free slot, 3
    g.apply(Pass(player=2))  # C's first pass: free, C stays in
    assert g.s.auction["in"] == [0, 2] and g.s.auction["slots"] == [None, None, 1]
    assert g.active_seat() == 2  # A holds the high bid, so C must act again
    g.apply(Pass(player=2))
    assert g.s.order == [0, 2, 1]
    # "1-е и 2-е место: оплачивается полная ставка ... Последнее место: ставка не оплачивается"
    assert [p.cash for p in g.s.players] == [5 - 3, 5 - 0, 5 - 2]


def test_without_the_free_pass_a_pass_drops_out():
    g = _standard_auction(free_pass=None)
    g.apply(Pass(player=0))
    assert g.s.auction["in"] == [1, 2] and g.s.auction["slots"] == [None, None, 0]


def test_first_player_may_decline_the_free_pass_and_take_the_last_slot():
    # "Если вы выбрали этот жетон в предыдущем раунде, то можете один раз в текущем аукционе спасовать без
    # каких бы то ни было последствий": "можете", may, so the holder may also pass as anyone does,
    # "Спасовав в аукционе, вы кладёте фишку своего цвета на крайнюю правую свободную ячейку", here the last
    # slot: "Последнее место: ставка не оплачивается".
    g = _standard_auction(free_pass=2)
    g.apply(Bid(player=0, amount=1))
    g.apply(Bid(player=1, amount=2))
    g.apply(Pass(player=2, free_pass=False))  # C declines the free pass: out at once, slot 3
    assert g.s.auction["in"] == [0, 1] and g.s.auction["slots"] == [None, None, 2]
    assert g.s.auction["free_pass"] is None and g.last_events() == ["C declines the First Player free pass"]
    g.apply(Pass(player=0))
    assert g.s.order == [1, 0, 2]
    assert [p.cash for p in g.s.players] == [5 - 1, 5 - 2, 5]


def test_first_player_using_the_free_pass_stays_in():
    # the same auction with the free pass used: C stays in and must act again ("В следующий ход вы, как
    # обычно, сможете либо поднять ставку, либо спасовать"); a pass without the field uses it, as it always did
    for said in (True, None):
        g = _standard_auction(free_pass=2)
        g.apply(Bid(player=0, amount=1))
        g.apply(Bid(player=1, amount=2))
        g.apply(Pass(player=2, free_pass=said))
        assert g.s.auction["in"] == [0, 1, 2] and g.s.auction["slots"] == [None, None, None]
        assert g.last_events() == ["C uses the First Player free pass"]
        assert g.legal_actions()[0] == {"type": "pass", "entity": g.pid(0), "entity_type": "player"}


def test_the_free_pass_holder_is_offered_both_passes():
    g = _standard_auction(free_pass=1)
    g.apply(Bid(player=0, amount=0))
    assert g.active_seat() == 1
    passes = [c for c in g.choices() if c["action"]["type"] == "pass"]
    assert [c["action"].get("free_pass") for c in passes] == [True, False]
    assert [c["label"] for c in passes] == ["pass (First Player's free pass: you stay in)",
                                            "pass and drop out of this auction (not using the First Player free "
                                            "pass)"]
    g.apply(Bid(player=1, amount=1))
    assert [c["action"] for c in g.choices() if c["action"]["type"] == "pass"] == [
        {"type": "pass", "entity": g.pid(2), "entity_type": "player"}]  # C holds none: one pass


def test_a_pass_cannot_use_or_decline_a_free_pass_it_does_not_hold():
    g = _standard_auction(free_pass=2)
    for said in (True, False):
        before = g.summary()
        with pytest.raises(GameError, match="A holds no First Player free pass in this auction"):
            g.apply(Pass(player=0, free_pass=said))
        assert g.summary() == before and len(g.actions) == 3  # the three capital actions
    basic = Game(Settings(map="rust_belt", mode="basic", players=3, seed=2))
    with pytest.raises(GameError, match="only a pass in the standard game's turn-order auction"):
        basic.apply(Pass(player=basic.active_seat(), free_pass=False))
    assert basic.actions == []


def test_a_used_free_pass_cannot_be_used_again():
    g = _standard_auction(free_pass=2)
    g.apply(Bid(player=0, amount=0))
    g.apply(Bid(player=1, amount=1))
    g.apply(Pass(player=2, free_pass=True))
    g.apply(Bid(player=0, amount=2))
    g.apply(Bid(player=1, amount=3))
    with pytest.raises(GameError, match="C holds no First Player free pass"):
        g.apply(Pass(player=2, free_pass=True))
    g.apply(Pass(player=2))  # "Если вы пасуете во второй раз" the token goes on the track
    assert g.s.auction["slots"] == [None, None, 2]


def test_a_log_from_before_the_choice_replays_the_same():
    # logs written before `free_pass` existed hold a holder's pass without it: it still uses the free pass,
    # the game ends as it did, and the log is written back unchanged (no field added to any pass)
    log = json.loads((FIXTURES / "eastern_standard_5p.json").read_text(encoding="utf-8"))
    assert all("free_pass" not in a for a in log["actions"])
    g = Game.from_18xx({**log, "actions": []})
    used = []
    for a in log["actions"]:
        g.apply(a)
        used += [a["id"] for e in g.last_events() if "uses the First Player free pass" in e]
    assert used == [43]
    assert g.result() == log["result"] and g.end_reason == log["game_end_reason"]
    assert g.to_18xx()["actions"] == log["actions"]


def test_standard_capital_is_taken_in_turn_order():
    # "Игроки приобретают капитал по очереди."
    g = Game(Settings(map="rust_belt", mode="standard", players=3, seed=2))
    g.s.order = [2, 0, 1]
    seen = []
    for _ in range(3):
        seen.append(g.active_seat())
        g.apply(Capital(player=g.active_seat(), loans=0))
    assert seen == [2, 0, 1] and g.s.auction["turn"] == 2  # the auction opens with the first player


def test_standard_action_tiles_cost_nothing_and_growth_may_be_skipped_when_building():
    # "вы не платите за них деньги: ни в момент их получения, ни во время использования. Выбрав жетон
    # урбанизации или развития города, вы можете не выполнять их действие".
    g = Game(Settings(map="rust_belt", mode="standard", players=3, seed=2))
    g.s.order = [0, 1, 2]
    g.s.phase = "select"
    g.apply(TakeTile(player=0, tile=6))
    g.apply(TakeTile(player=1, tile=5, use=True))
    g.apply(TakeTile(player=2, tile=7, use=True))
    assert [(p.cash, p.income) for p in g.s.players] == [(0, 0)] * 3 and g.s.players[0].loco == 2
    g.apply(EndBuild(player=0))
    reserve = list(g.s.reserve)
    g.apply(EndBuild(player=1))  # City Growth left undone
    g.apply(EndBuild(player=2))  # Urbanization left undone
    assert g.s.phase == "move" and g.s.reserve == reserve and not g.s.new_cities


def test_basic_locomotive_step_in_the_move_phase_is_free():
    # "Это действие бесплатно и не приносит победных очков."
    g, _ = delivery_game(["red", "blue"], [0], loco=1)
    p = g.s.players[0]
    before = (p.cash, p.income, p.vp)
    g.apply(UpgradeLoco(player=0))
    assert p.loco == 2 and (p.cash, p.income, p.vp) == before


def test_a_cube_may_not_come_back_to_the_city_it_left():
    # "Запрещается перевозить кубик товара в тот же город, откуда он был вывезен."
    g = new_game(line_board(["red", "blue"]), 3)
    g.s.order = [0, 1, 2]
    (straight,) = line_links(g, [0])
    put(g, (1, 0), "22", 3, owner=0)  # a second link C0 -> C1 round the east side
    put(g, (1, 1), "22", 4, owner=0)
    around = g.network().link_of((1, 0), (3, 5)).id
    set_cubes(g, (0, 0), ["red"])
    g.s.players[0].loco = 2
    start_move(g, [0, 1, 2])
    with pytest.raises(GameError, match="twice"):
        g.apply(Move(player=0, city=(0, 0), color="red", links=(straight, around), to="vp"))


def _bankrupt_board():
    # Albany (blue) - York (red) - Zed (yellow) down column 0, joined by P2's link and P1's link.
    return make_board({(0, 0): city("Albany", "blue"), (0, 2): city("York", "red"), (0, 4): city("Zed", "yellow")},
                      q_range=(-2, 2), r_range=(-1, 5))


def test_basic_bankruptcy_leaves_the_links_neutral_and_scoring_nobody():
    # "Если у вас не хватает ПО, чтобы занять деньги, вы банкрот! ... Все ваши законченные перегоны считаются
    # ничейными до конца игры ... Однако они могут получить в собственность любые незаконченные перегоны"
    g = new_game(_bankrupt_board(), 3)
    s = g.s
    s.order = [0, 1, 2]
    put(g, (0, 1), "21", 0, owner=1)  # P2: Albany - York, complete
    put(g, (0, 3), "21", 0, owner=0)  # P1: York - Zed, complete
    put(g, (1, 0), "21", 2, owner=1)  # P2: from Albany, incomplete
    for p, tile in zip(s.players, (1, 2, 3), strict=True):
        p.tile = tile
    s.players[1].income, s.players[1].vp = -10, 3  # owes $10: two loans would cost 4 VP
    start_move(g, [0, 1, 2], cycle=2)
    for p in (0, 1, 2):
        g.apply(Pass(player=p))
    assert s.players[1].bankrupt and 1 not in s.order and s.round == 2
    net = g.network()
    assert net.link_of((0, 1), (0, 3)).owner is None and net.link_of((1, 0), (2, 5)).owner is None
    set_cubes(g, (0, 0), ["yellow"])
    s.players[0].loco = 2
    start_move(g, [0, 2])
    g.apply(Move(player=0, city=(0, 0), color="yellow",
                 links=(net.link_of((0, 1), (0, 3)).id, net.link_of((0, 3), (0, 3)).id), to="vp"))
    assert s.players[0].vp == 1 and not s.score_queue  # the neutral link scores nobody


def test_redirecting_a_neutral_link_into_a_city_makes_it_yours():
    # "вы станете собственником ничейного незаконченного перегона, если смена направления рельсов сделает его
    # законченным"; turning it without completing it leaves it neutral ("не считается продолжением").
    board = make_board({(0, 0): city("Albany", "blue"), (2, -1): city("Bay", "red")})
    g = new_game(board, 3)
    g.s.order = [0, 1, 2]
    g.s.players[0].cash = 10
    put(g, (1, 0), "21", 2, owner=None)  # neutral, from Albany towards (2, 0)
    start_build(g, 0)
    g.apply(Redirect(player=0, hex=(1, 0), tile="22", rotation=5))  # now into Bay (edge 1)
    link = g.network().link_of((1, 0), (1, 5))
    assert link.complete and link.owner == 0


def test_redirecting_a_neutral_link_without_completing_it_leaves_it_neutral():
    g = new_game(make_board({(0, 0): city("Albany", "blue")}), 3)
    g.s.order = [0, 1, 2]
    g.s.players[0].cash = 10
    put(g, (1, 0), "21", 2, owner=None)
    start_build(g, 0)
    g.apply(Redirect(player=0, hex=(1, 0), tile="22", rotation=5))  # still open, towards (2, -1)
    link = g.network().link_of((1, 0), (1, 5))
    assert not link.complete and link.owner is None
