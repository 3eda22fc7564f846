"""The things an 18xx game is made of: players, corporations, minors, privates, shares, trains, bank.

Entities are plain mutable objects owned by one game; rules live in steps and in the game. Corporations
and minors are both operators: they have a treasury, trains, station tokens and a turn in the operating
round; only corporations have shares.
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
    buyable: bool = True  # False: reserved for an exchange (18MEX minors' and merger certificates)
    counts_for_limit: bool = True  # toward the certificate limit

    @property
    def number(self) -> int:
        """The certificate's number within its corporation (the president's is 0)."""
        return int(self.id.rsplit("_", 1)[1])

    @property
    def num_shares(self) -> int | float:
        """How many shares the certificate is (an 18MEX NdM 5% certificate is half a share)."""
        n = self.percent / self.corporation.share_percent
        return int(n) if n == int(n) else n


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

    def __init__(self, cash: int | None, checks_cash: bool = True) -> None:
        self.unlimited = cash is None
        self.cash = 0 if cash is None else cash
        self.broken = False
        # whether paying out more than it has breaks the bank (1860: the bank also holds the companies'
        # credits, and the title says when its pounds run out)
        self.checks_cash = checks_cash


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
    min_price: int = 0  # what a corporation may pay its owner (set by the game: half to twice face value)
    max_price: int = 0

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
    distance: int | list[dict]  # stops (999: unlimited), or N+M rules: [{"nodes", "pay", "visit", "multiplier"}]
    price: int
    rusts_on: str | list[str] | None = None
    available_on: str | None = None
    discount: dict | None = None  # trade-in value by train name
    owner: object | None = None
    operated: bool = False
    rusted: bool = False
    obsolete_on: str | None = None  # the kind whose first sale makes this one obsolete (it runs once more)
    obsolete: bool = False
    multiplier: int | None = None  # revenue multiplier of every stop (else per kind in `distance`)
    buyable: bool = True  # False: may never change hands (18MEX minors' 2-trains)

    def rusts_on_name(self, name: str) -> bool:
        return name == self.rusts_on if isinstance(self.rusts_on, str) else name in (self.rusts_on or ())

    def stop_multiplier(self, kind: str) -> int:
        """What a stop of this kind ("city", "town", "offboard", ...) is multiplied by on this train's run."""
        base = self.multiplier or 1
        if isinstance(self.distance, list):
            for rule in self.distance:
                if kind in rule["nodes"]:
                    return rule.get("multiplier", base)
        return base

    @property
    def max_stops(self) -> int:
        """The most stops the train may count (N+M: all kinds together)."""
        if isinstance(self.distance, list):
            return sum(int(r.get("visit", r["pay"])) for r in self.distance)
        return self.distance

    def __repr__(self) -> str:
        return f"Train({self.id})"


class Operator:
    """What corporations and minors share: a treasury, trains, station tokens on a home, a turn."""

    kind = "operator"

    def __init__(self, data: dict) -> None:
        derived = data.get("derived", {})
        self.sym: str = data["sym"]
        self.name: str = data["name"]
        self.color: str = data.get("color", "#888888")
        self.data = data
        self.token_prices: list[int] = list(derived.get("token_prices", data.get("tokens", [])))
        self.token_used: list[bool] = [False] * len(self.token_prices)  # per station token, in charter order
        self.home: str | list = derived.get("home", data.get("coordinates"))
        self.home_city: int | None = data.get("city")
        self.cash = 0
        self.owner: Player | None = None  # the president (a minor's owner)
        self.floated = False
        self.operated = False
        self.closed = False
        self.trains: list[Train] = []
        self.companies: list[Company] = []
        self.last_revenue = 0
        self.loans = 0  # loans from the bank outstanding (engine.core.loans)

    @property
    def key(self):
        return self.sym

    @property
    def tokens_used(self) -> int:
        return sum(self.token_used)

    @tokens_used.setter
    def tokens_used(self, count: int) -> None:
        """Placing tokens uses the first unused ones on the charter; taking them back frees the last used."""
        while self.tokens_used < count:
            self.token_used[self.token_used.index(False)] = True
        while self.tokens_used > count:
            last = len(self.token_used) - 1 - self.token_used[::-1].index(True)
            self.token_used[last] = False

    def add_tokens(self, prices: list[int]) -> None:
        self.token_prices.extend(prices)
        self.token_used.extend([False] * len(prices))

    def use_token(self, index: int) -> None:
        """A particular token goes on the map (18MEX: the NdM's exchange tokens)."""
        self.token_used[index] = True

    @property
    def tokens_left(self) -> int:
        return len(self.token_prices) - self.tokens_used

    @property
    def next_token_price(self) -> int | None:
        return self.token_prices[self.token_used.index(False)] if self.tokens_left else None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.sym})"


class Minor(Operator):
    """A company wholly owned by one player: no shares, its owner decides and shares its revenue."""

    kind = "minor"

    def __init__(self, data: dict) -> None:
        super().__init__(data)
        self.closed_cities: list = []  # the cities its stations stood in when it closed


class Corporation(Operator, ShareHolder):
    kind = "corporation"

    def __init__(self, data: dict) -> None:
        Operator.__init__(self, data)
        ShareHolder.__init__(self)
        derived = data.get("derived", {})
        self.float_percent: int = derived.get("float_percent", data.get("float_percent", 60))
        self.max_ownership_percent: int = derived.get("max_ownership_percent", 60)
        self.capitalization: str = derived.get("capitalization", "full")
        # shares sold from the treasury at the market price (1817): the par price is the share price
        self.always_market_price: bool = derived.get("always_market_price", data.get("always_market_price", False))
        self.par_price = None  # market Cell
        self.share_price = None  # market Cell
        self.ipoed = False
        # its president's certificate lies in the market: no president, it operates as the rules say
        self.receivership = False
        self.set_shares(derived.get("share_percents") or data.get("shares") or [20] + [10] * 8)

    def set_shares(self, percents: list[int]) -> None:
        """Issue the certificates, all in the IPO; the first is the president's. The size of one share is
        that of the second certificate (half the president's if there is none), as in 18xx.games."""
        self.share_percents = list(percents)
        self.share_percent = percents[1] if len(percents) > 1 else percents[0] // 2
        self.total_shares = 100 // self.share_percent
        self.shares: list[Share] = [Share(f"{self.sym}_{i}", self, percent, president=(i == 0), owner=self)
                                    for i, percent in enumerate(percents)]
        self.shares_by_corp[self.sym] = list(self.shares)
        # who holds how much, as the share transactions say: presidency, sell-outs and dumps go by this
        # ledger (as on 18xx.games, where certificates swapped for a president's are not entered in it)
        self.holdings: dict[object, int] = {self: sum(percents)}

    @property
    def par_price(self):
        return self.share_price if self.always_market_price else self._par_price

    @par_price.setter
    def par_price(self, cell) -> None:
        self._par_price = cell

    def resize_shares(self, percents: list[int]) -> list[Share]:
        """The certificates of the issue take the new sizes by their number, any others (1817: the extra
        shares a short sale adds, and the shorts) become one new share each, keeping their sign; the new
        certificates of the issue go to the treasury (returned). The holdings ledger is the game's to redo."""
        issued = len(self.share_percents)
        share_percent = percents[1] if len(percents) > 1 else percents[0] // 2
        for share in self.shares:
            number = share.number
            if number < min(issued, len(percents)):
                share.percent = percents[number]
            else:
                share.percent = share_percent if share.percent > 0 else -share_percent
        new = [Share(f"{self.sym}_{i}", self, percents[i], owner=self) for i in range(issued, len(percents))]
        self.shares.extend(new)
        self.shares_by_corp.setdefault(self.sym, []).extend(new)
        self.share_percents = list(percents)
        self.share_percent = share_percent
        self.total_shares = 100 // self.share_percent
        return new

    @property
    def ipo_percent(self) -> int:
        return self.percent_of(self)

    @property
    def presidents_share(self) -> Share:
        return self.shares[0]


@dataclass
class Phase:
    name: str
    on: str | None
    train_limit: int
    tiles: list[str]
    operating_rounds: int
    status: list[str] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)
