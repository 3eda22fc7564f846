"""The things an 18xx game is made of: players, corporations, privates, shares, trains, bank, depot.

Entities are plain mutable objects owned by one game; rules live in steps and in the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(eq=False)
class Share:
    id: str  # "PRR_0"; certificate 0 is the president's
    corporation: Corporation
    percent: int
    president: bool = False
    owner: ShareHolder | None = None

    @property
    def num_shares(self) -> int:
        return self.percent // self.corporation.share_percent


class ShareHolder:
    """Anything that holds certificates and cash: players, corporations (their IPO), the pool."""

    cash: int = 0

    def __init__(self) -> None:
        # corporation sym -> certificates in the order they were received
        self.shares_by_corp: dict[str, list[Share]] = {}

    def shares_of(self, corp: Corporation) -> list[Share]:
        return self.shares_by_corp.get(corp.sym, [])

    def percent_of(self, corp: Corporation) -> int:
        return sum(s.percent for s in self.shares_by_corp.get(corp.sym, ()))

    def all_shares(self):
        for shares in self.shares_by_corp.values():
            yield from shares


class Player(ShareHolder):
    def __init__(self, pid: int, name: str, cash: int) -> None:
        super().__init__()
        self.id = pid
        self.name = name
        self.cash = cash
        self.companies: list[Company] = []
        self.bankrupt = False
        self.passed = False

    kind = "player"

    @property
    def key(self):
        return self.id

    def __repr__(self) -> str:
        return f"Player({self.id})"


class SharePool(ShareHolder):
    kind = "pool"
    name = "the market"

    def __repr__(self) -> str:
        return "SharePool"


class Bank:
    kind = "bank"
    name = "the bank"

    def __init__(self, cash: int | None) -> None:
        self.unlimited = cash is None
        self.cash = 0 if cash is None else cash
        self.broken = False


@dataclass(eq=False)
class Company:
    """A private company."""

    sym: str
    name: str
    value: int
    revenue: int
    abilities: list[dict]
    owner: Player | Corporation | None = None
    closed: bool = False
    discount: int = 0  # auction price reductions (1830 SV)

    kind = "company"

    @property
    def min_bid(self) -> int:
        return self.value - self.discount

    def ability(self, kind: str) -> dict | None:
        for ability in self.abilities:
            if ability["type"] == kind:
                return ability
        return None

    @property
    def player(self) -> Player | None:
        return self.owner if isinstance(self.owner, Player) else None

    def __repr__(self) -> str:
        return f"Company({self.sym})"


@dataclass(eq=False)
class Train:
    id: str  # "2-0"
    name: str
    distance: int  # 999: unlimited
    price: int
    rusts_on: str | None = None
    available_on: str | None = None
    discount: dict | None = None  # trade-in value by train name
    owner: object | None = None
    operated: bool = False
    rusted: bool = False

    def __repr__(self) -> str:
        return f"Train({self.id})"


class Corporation(ShareHolder):
    kind = "corporation"

    def __init__(self, data: dict) -> None:
        super().__init__()
        derived = data.get("derived", {})
        self.sym: str = data["sym"]
        self.name: str = data["name"]
        self.color: str = data.get("color", "#888888")
        self.data = data
        self.token_prices: list[int] = list(derived.get("token_prices", data.get("tokens", [])))
        self.tokens_used = 0
        self.home: str | list = derived.get("home", data.get("coordinates"))
        self.home_city: int | None = data.get("city")
        self.float_percent: int = derived.get("float_percent", data.get("float_percent", 60))
        self.max_ownership_percent: int = derived.get("max_ownership_percent", 60)
        self.share_percents: list[int] = derived.get("share_percents", [20] + [10] * 8)
        self.capitalization: str = derived.get("capitalization", "full")
        self.total_shares = sum(self.share_percents) // min(self.share_percents)
        self.share_percent = 100 // self.total_shares
        self.cash = 0
        self.owner: Player | None = None  # the president
        self.par_price = None  # market Cell
        self.share_price = None  # market Cell
        self.ipoed = False
        self.floated = False
        self.operated = False
        self.closed = False
        self.trains: list[Train] = []
        self.companies: list[Company] = []
        self.last_revenue = 0
        self.shares: list[Share] = []
        for i, percent in enumerate(self.share_percents):
            share = Share(f"{self.sym}_{i}", self, percent, president=(i == 0), owner=self)
            self.shares.append(share)
        self.shares_by_corp[self.sym] = list(self.shares)

    @property
    def key(self):
        return self.sym

    @property
    def tokens_left(self) -> int:
        return len(self.token_prices) - self.tokens_used

    @property
    def next_token_price(self) -> int | None:
        return self.token_prices[self.tokens_used] if self.tokens_left else None

    @property
    def ipo_percent(self) -> int:
        return self.percent_of(self)

    @property
    def presidents_share(self) -> Share:
        return self.shares[0]

    def __repr__(self) -> str:
        return f"Corporation({self.sym})"


@dataclass
class Phase:
    name: str
    on: str | None
    train_limit: int
    tiles: list[str]
    operating_rounds: int
    status: list[str] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)
