"""Core pieces every title builds on: the title registry, rules from data, market movements, train kinds."""

import pytest

from engine.core import data as title_data
from engine.core.depot import Depot
from engine.core.entities import Corporation
from engine.core.market import StockMarket
from engine.core.rules import Rules
from engine.titles import REGISTRY, TITLES


class Marker:
    def __init__(self):
        self.share_price = None
        self.par_price = None


def market_at(title, price, **kwargs):
    market = StockMarket(title_data.load(title)["market"], **kwargs)
    corp = Marker()
    cell = next(c for c in market.cells.values() if c.price == price and "par" in c.types) \
        if any(c.price == price and "par" in c.types for c in market.cells.values()) else \
        next(c for c in market.cells.values() if c.price == price)
    market.set_par(corp, cell)
    return market, corp


def test_registry_lists_every_title_folder_with_its_facts():
    assert set(REGISTRY) == {"1830", "1860", "1817", "18MEX"}
    assert REGISTRY["18MEX"].player_range == (3, 5)
    assert REGISTRY["1830"].playable and "1830" in TITLES
    assert all(t.data_dir.parent.name == "g" + name.lower() for name, t in REGISTRY.items())
    assert ("delay_minor_close", "Delay minor close") in REGISTRY["18MEX"].optional_rules
    assert "baja_variant" in dict(REGISTRY["18MEX"].playable_rules)


def test_rules_come_from_title_data_and_title_overrides():
    mex = Rules.from_data(title_data.load("18MEX"))
    assert mex.sell_movement == "down_per_10"
    assert mex.game_end_check == {"bankrupt": "immediate", "stock_market": "current_or", "bank": "current_or"}
    assert Rules.from_data(title_data.load("1860")).market_share_limit == 100
    assert Rules.from_data(title_data.load("1817")).capitalization == "incremental"
    assert Rules.from_data(title_data.load("1830"), {"market_share_limit": 60}).market_share_limit == 60


def test_zigzag_market_moves_two_cells_sideways_and_one_up_or_down():
    market, corp = market_at("1860", 100)
    market.move_right(corp)
    assert corp.share_price.price == 110
    market.move_up(corp)
    assert corp.share_price.price == 116
    market.move_left(corp)
    assert corp.share_price.price == 105
    market.move_down(corp)
    assert corp.share_price.price == 100


def test_zigzag_ledge_stops_at_the_end_cell():
    for ledge, expected in ((False, 330), (True, 340)):
        market, corp = market_at("1860", 100, ledge=ledge)
        market._move(corp, market.cell(0, len(market.grid[0]) - 2))
        market.move_right(corp)
        assert corp.share_price.price == expected
        assert market.max_reached is ledge


def test_one_dimensional_market_moves_along_the_row():
    market, corp = market_at("1817", 100)
    market.move_up(corp)
    assert corp.share_price.price == 110
    market.move(corp, "down", 3)
    assert corp.share_price.price == 80


def test_two_dimensional_market_wraps_at_the_row_ends_and_flags_the_end_cell():
    market, corp = market_at("18MEX", 90)
    market.move(corp, "right", 9)
    assert corp.share_price.price == 200 and market.max_reached
    market.move_right(corp)  # the top row's end: nowhere higher to go
    assert corp.share_price.price == 200
    market2, corp2 = market_at("18MEX", 60)  # row 2, column 2
    market2.move(corp2, "left", 3)
    assert (corp2.share_price.row, corp2.share_price.price) == (3, 45)


def test_train_kinds_keep_n_plus_m_distances_multipliers_and_obsolescence():
    depot = Depot(title_data.load("18MEX")["trains"])
    four_d = next(t for t in depot.trains if t.name == "4D")
    assert four_d.stop_multiplier("city") == 2 and four_d.stop_multiplier("town") == 1
    two = depot.trains[0]
    assert isinstance(two.distance, list) and two.stop_multiplier("offboard") == 1
    fours = [t for t in depot.trains if t.name == "4"]
    corp = Corporation(title_data.load("18MEX")["corporations"][0])
    for train in fours[:2]:
        depot.remove(train)
        train.owner = corp
        corp.trains.append(train)
    depot.remove(fours[2])
    depot.discard(fours[2])
    assert depot.rust_and_obsolete("6'") == []  # owned 4s run once more
    assert all(t.obsolete for t in fours) and fours[2].rusted and fours[2] not in depot.discarded
    assert corp.trains == fours[:2]


def test_share_size_is_the_second_certificate_as_on_18xx_games():
    ndm = Corporation(next(c for c in title_data.load("18MEX")["corporations"] if c["sym"] == "NdM"))
    assert (ndm.share_percent, ndm.total_shares) == (10, 10)
    assert [s.num_shares for s in ndm.shares][-3:] == [0.5, 0.5, 1]


@pytest.mark.parametrize("title", sorted(REGISTRY))
def test_every_title_has_its_data_in_its_own_folder(title):
    data = title_data.load(title)
    assert data["meta"]["title"] == title
    assert REGISTRY[title].data_dir == title_data.title_dir(title)
