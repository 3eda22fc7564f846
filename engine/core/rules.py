"""Rule knobs of a title, read from its data (constants.json, dumped from 18xx.games' class constants).

Each field is the lower-case name of the 18xx.games constant it comes from (`market_share_limit` from
MARKET_SHARE_LIMIT); the default is 18xx.games' base-game value. A title class overrides a knob with its
`RULES` mapping, and a rule that depends on the state (the tile lays of a minor, the train limit of one
corporation) with a method on the game instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace


@dataclass(frozen=True)
class Rules:
    # stock round
    sell_after: str = "first"  # "first": no sales in the first stock round; "any_time", "after_sr_floated", ...
    sell_buy_order: str = "sell_buy_sell"  # "sell_buy", "sell_buy_or_buy_sell"
    sell_movement: str = "down_share"  # "down_per_10", "left_block", "none", ...
    must_sell_in_blocks: bool = False  # one sale of a corporation per stock-round turn
    president_sales_to_market: bool = False  # the president's certificate may be sold: receivership
    market_share_limit: int = 50
    pool_share_drop: str = "none"
    sold_out_increase: bool = True
    sold_out_top_row_movement: str = "none"
    multiple_buy_types: tuple[str, ...] = ("multiple_buy",)
    multiple_buy_only_from_market: bool = False
    cert_limit_types: tuple[str, ...] = ("multiple_buy", "unlimited", "no_cert_limit")
    cert_limit_includes_privates: bool = True
    cert_limit_change_on_bankruptcy: bool = False
    capitalization: str = "full"  # "incremental", "escrow"
    home_token_timing: str = "operate"  # when the home station goes down: "float", "par", "operating_round"
    next_sr_player_order: str = "after_last_to_act"
    # auctions
    min_bid_increment: int = 5
    must_bid_increment_multiple: bool = False
    only_highest_bid_committed: bool = False
    # operating round
    tile_lays: tuple[dict, ...] = ({"lay": True, "upgrade": True, "cost": 0},)
    tile_cost: int = 0
    track_restriction: str = "semi_restrictive"
    must_buy_train: str = "route"  # a corporation without a train must buy one: "always", "never"
    allow_train_buy_from_others: bool = True
    train_price_min: int = 1  # trains between corporations: at least this, in multiples of
    train_price_multiple: int = 1
    always_buy_trains_at_face_value: bool = False
    discarded_trains: str = "discard"  # "remove"
    obsolete_trains_count_for_limit: bool = False
    allow_obsolete_train_buy: bool = False
    ebuy_from_others: str = "value"  # "never", "always"
    ebuy_depot_train_must_be_cheapest: bool = True
    ebuy_can_sell_shares: bool = True
    ebuy_sell_more_than_needed: bool = False
    ebuy_owner_must_help: bool = False
    # end of the game
    game_end_check: dict = field(default_factory=lambda: {"bankrupt": "immediate", "bank": "full_or"})
    bankruptcy_allowed: bool = True
    bankruptcy_ends_game_after: str = "one"  # "all_but_one"
    currency_format_str: str = "$%s"
    # the money of corporations and minors where a title keeps it apart from the players' (1860: credits)
    company_currency_format_str: str | None = None

    @classmethod
    def from_data(cls, data: dict, overrides: dict | None = None) -> Rules:
        """The knobs in the title's constants.json (meta.json for older dumps), then the title's overrides."""
        constants = data.get("constants") or {}
        meta = data.get("meta") or {}
        values = {}
        for f in fields(cls):
            for source in (constants.get(f.name.upper()), meta.get(f.name)):
                if source is not None:
                    values[f.name] = _frozen(source, f.default)
                    break
        rules = cls(**values)
        return replace(rules, **overrides) if overrides else rules

    def sells_in_first_stock_round(self) -> bool:
        return self.sell_after != "first"


def _frozen(value, default):
    """Lists from JSON as tuples, where the field holds a tuple (the rules object is shared and hashable)."""
    if isinstance(default, tuple) and isinstance(value, list):
        return tuple(value)
    return value
