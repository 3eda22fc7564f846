"""The title-independent 18xx game: setup from title data, money, shares, trains, phases, round flow.

A game is its settings plus its action log. `apply` validates an action against the active round's
steps and changes the state, or raises GameError and leaves the state as it was. Titles subclass
BaseGame and override the hooks (round step lists, private abilities, scoring).
"""

from __future__ import annotations

import gc
import itertools
from collections.abc import Iterable
from contextlib import contextmanager

from engine.core import data as title_data
from engine.core.abilities import passive, whens
from engine.core.actions import (
    WORDS_ONLY,
    Action,
    as_action_id,
    brief,
    parse_action,
    quoted,
    require_json,
    resolve_undo,
)
from engine.core.checkpoints import Checkpoints
from engine.core.checkpoints import restore as restore_checkpoint
from engine.core.depot import Depot
from engine.core.entities import (
    Bank,
    Company,
    Corporation,
    Minor,
    Operator,
    Phase,
    Player,
    Share,
    ShareHolder,
    SharePool,
    Train,
)
from engine.core.errors import GameError
from engine.core.market import StockMarket
from engine.core.operations import OperatingMixin
from engine.core.programs import PROGRAM_TYPES, Programs
from engine.core.rules import Rules

MAX_REFUSAL = 300  # characters at most in a refusal's message
MAX_VALUE = 80  # ... and in a value inside it (a value typed by a player, echoed)


def _clipped(value):
    """A value of a refusal no longer than MAX_VALUE characters (a value typed by a player, echoed)."""
    if isinstance(value, GameError) or len(str(value)) <= MAX_VALUE:
        return value
    return str(value)[: MAX_VALUE - 3] + "..."


RAND_A, RAND_C, RAND_M = 1_103_515_245, 12_345, 2**31  # 18xx.games' random numbers


class BaseGame(OperatingMixin):
    TITLE = ""
    RULES: dict = {}  # rule knobs that differ from the title data (engine.core.rules.Rules fields)
    UNSUPPORTED_OPTIONAL_RULES: frozenset[str] = frozenset()  # the title's optional rules not played yet
    PLAYABLE = True  # False: rules still being built; logs replay as far as they go, players can't start one
    PLAYER_DEBT = False  # a player's cash may fall below zero until they settle (1817's cash crisis)
    # a sale names the president's certificate only with every other certificate of it its seller holds (1830)
    PRESIDENTS_CERTIFICATE_SOLD_LAST = False
    PROGRAMS = True  # players may leave standing orders (engine.core.programs)
    PROGRAM_TYPES = PROGRAM_TYPES  # the standing orders (and their cancellation) a player may give
    IPO_NAME = "IPO"  # what 18xx.games calls a corporation's unsold shares (1817: its treasury)

    def __init__(self, players: list[dict], seed: int = 0, optional_rules: Iterable[str] = (),
                 game_id: int | str | None = None) -> None:
        if not players:
            raise GameError("a game needs players")
        self.optional_rules = tuple(optional_rules)
        self.check_optional_rules()
        self.data = title_data.load(self.TITLE, self.optional_rules)
        self.rules = Rules.from_data(self.data, self.RULES)
        self.seed = seed
        self._rand = seed % RAND_M
        self.game_id = game_id
        meta = self.data["meta"]
        n = len(players)
        low, high = meta["player_range"]
        if not low <= n <= high:
            raise GameError("{title} is for {low} to {high} players, not {n}", title=self.TITLE, low=low,
                            high=high, n=n)
        self.settings_players = [dict(p) for p in players]
        bank_cash = meta["bank_cash"]
        self.bank = Bank(None if bank_cash == "unlimited" else bank_cash)
        start_cash = meta["starting_cash"][str(n)]
        self.players = [Player(p["id"], p.get("name", str(p["id"])), 0) for p in players]
        for player in self.players:
            self.transfer(self.bank, player, start_cash)
        self.cert_limit = meta["cert_limit"][str(n)]
        self.market = self.make_market()
        self.pool = SharePool()
        self.corporations = [Corporation(c) for c in self.data["corporations"]]
        self.corporation_by_sym = {c.sym: c for c in self.corporations}
        self.minors = [Minor(m) for m in self.data.get("minors") or ()]
        self.minor_by_sym = {m.sym: m for m in self.minors}
        self.companies = [Company(c["sym"], c["name"], c["value"], c["revenue"], c.get("abilities", []))
                          for c in self.game_companies(n)]
        for company in self.companies:
            company.min_price, company.max_price = -(-company.value // 2), company.value * 2
        self.company_by_sym = {c.sym: c for c in self.companies}
        self.share_by_id: dict[str, Share] = {s.id: s for c in self.corporations for s in c.shares}
        self.depot = Depot(self.data["trains"])
        self.phases = [Phase(p["name"], p.get("on"), p["train_limit"], p["tiles"], p["operating_rounds"],
                             p.get("status", []), p.get("events", [])) for p in self.data["phases"]]
        self.phase_index = 0
        self.player_by_id = {p.id: p for p in self.players}
        self.hexmap = self.make_map()
        # whether a corporation can place a station, as found since the tile or station laid last (a title
        # keeping findings through stations taken off the map: OperatingMixin.KEEPS_FINDINGS_THROUGH_REMOVALS)
        self.track_or_station_count = 0
        self.station_findings: dict[str, tuple[int, bool]] = {}
        self.walks_kept_since_lay: set[str] = set()
        self.graphs_looked: dict[str, int] = {}  # corporation: the count at which its reach was last looked at
        for minor in self.minors:  # stations printed on the map (18MEX minors' homes)
            minor.tokens_used = len(self.hexmap.tokened_hexes(minor.sym))
        self.turn = 1
        self.operating_rounds = self.phase.operating_rounds
        self.finished = False
        self.end_reason: str | None = None
        self.actions: list[dict] = []
        # the entities whose turn the last action skipped because they could do nothing, each with the reason
        # (Round.pass_over_reason): a user interface tells them, it need not guess
        self.passed_over: list[dict] = []
        # what privates' powers paid during the last action ({"company", "to", "to_type", "amount"}): a user
        # interface tells them, it need not work them out from the cash
        self.company_payments: list[dict] = []
        # what the rules settled during the last action beyond the move itself, one dict an event (1817: an
        # auction won, a corporation acquired or liquidated and what its holders got, interest, the liquidation
        # zone; between rounds: prices moved, the priority deal, rounds ended and begun, privates' income, the
        # operating order): a user interface tells them, and a preview reports them, without working them out
        self.outcomes: list[dict] = []
        self.last_routes: dict[str, list] = {}
        self._ability_uses: dict[tuple[str, str], int] = {}
        self._removed_abilities: set[tuple[str, str]] = set()
        self._end_trigger: tuple[str, str] | None = None  # (reason, timing) of the end of game once due
        self._final_turn: int | None = None  # one_more_full_or_set: the turn whose last OR ends the game
        self._routes_found: set[str] = set()
        # (corporation, hex) of a station waiting for its city -> the corporation that places it
        self.token_placers: dict[tuple[str, str], str] = {}
        self.programs = Programs(self)
        # live play: programs act and their actions are recorded as auto_actions; a replayed log
        # brings its own auto_actions instead
        self.generate_auto_actions = True
        self.checkpoints = Checkpoints()
        self.setup()
        self.round = self.initial_round()
        self.round.start()
        self._advance_rounds()

    @classmethod
    def optional_rule_names(cls) -> list[str]:
        return [r["sym"] for r in title_data.load(cls.TITLE)["meta"].get("optional_rules", ())]

    def check_optional_rules(self) -> None:
        known = self.optional_rule_names()
        for rule in self.optional_rules:
            if rule not in known:
                raise GameError("{title} has no optional rule {rule}; its optional rules: {known}",
                                title=self.TITLE, rule=repr(rule), known=', '.join(known))
            if rule in self.UNSUPPORTED_OPTIONAL_RULES:
                raise GameError("the {title} optional rule {rule} isn't played here yet", title=self.TITLE,
                                rule=repr(rule))

    def rand(self) -> int:
        """The game's next random number, drawn from its seed as 18xx.games draws it (a linear congruential
        generator), so that a log's random set-up replays the same."""
        self._rand = (RAND_A * self._rand + RAND_C) % RAND_M
        return self._rand

    # --- hooks -----------------------------------------------------------------------------
    def game_companies(self, players: int) -> list[dict]:
        """The privates in play (their data), before the first round (1817's Volatility draws some)."""
        return [c for c in self.data["companies"] if c.get("in_game", True) and players >= c.get("min_players", 0)]

    def setup(self) -> None:
        """Title set-up after the common one, before the first round (18MEX: the minors' trains)."""
    def make_market(self) -> StockMarket:
        """The stock market as the data draws it (a title may add a ledge to a zig-zag: 1860)."""
        return StockMarket(self.data["market"])

    def make_map(self):
        from engine.core.hexmap import HexMap

        return HexMap(self.data)

    def initial_round(self):
        raise NotImplementedError

    def stock_round(self):
        raise NotImplementedError

    def operating_round(self, round_num: int):
        raise NotImplementedError

    def tile_lays(self, operator: Operator) -> tuple[dict, ...]:
        """The tile lays an operator has in a turn, in order: {"lay": new track on an empty hex,
        "upgrade": replace a tile, "cost"}; "not_if_upgraded" allows it only if no upgrade came before."""
        return self.rules.tile_lays

    def purchasable_companies(self, buyer) -> list[Company]:
        """Privates a buyer (a corporation in its turn, a player in a stock round) may buy from the players
        who own them, when the phase allows such sales (the steps ask the phase)."""
        return [c for c in self.companies if not c.closed and isinstance(c.owner, Player) and c.owner is not buyer
                and not self.abilities(c, "no_buy")]

    def corporations_buy_companies(self) -> bool:
        """Whether corporations may buy privates from players now."""
        return "can_buy_companies" in self.phase.status

    def after_buy_company(self, player: Player, company: Company, price: int) -> None:
        """A private bought from the bank may come with a certificate (1830 CA, 18MEX MIR); a president's
        certificate waits for its par price (1830 BO, 18MEX MNR: the auction's pending-par step)."""
        ability = company.ability("shares")
        if ability is None:
            return
        share = self.share(ability["shares"])
        if not share.president:
            self.buy_shares(player, [share], free=True)

    # --- lookups ----------------------------------------------------------------------------
    @property
    def phase(self) -> Phase:
        return self.phases[self.phase_index]

    @property
    def phase_names_reached(self) -> set[str]:
        return {p.name for p in self.phases[: self.phase_index + 1]}

    def corporation(self, sym: str) -> Corporation:
        try:
            return self.corporation_by_sym[sym]
        except KeyError:
            raise GameError("there is no corporation {name}", name=brief(sym)) from None

    def company(self, sym: str) -> Company:
        try:
            return self.company_by_sym[sym]
        except KeyError:
            raise GameError("there is no private company {name}", name=brief(sym)) from None

    def player(self, pid) -> Player:
        """A player by id; an id written as a string ("5560" for 5560) finds the player too."""
        found = self.player_by_id.get(pid) if isinstance(pid, int | str) and not isinstance(pid, bool) else None
        if found is None:
            found = next((p for p in self.players if str(p.id) == str(pid)), None)
        if found is None:
            raise GameError("there is no player {player}", player=quoted(pid))
        return found

    def share(self, share_id: str) -> Share:
        try:
            return self.share_by_id[share_id]
        except KeyError:
            raise GameError("there is no certificate {name}", name=brief(share_id)) from None

    def train(self, train_id: str) -> Train:
        for t in self.depot.trains:
            if t.id == train_id:
                return t
        raise GameError("there is no train {name}", name=brief(train_id))

    def minor(self, sym: str) -> Minor:
        try:
            return self.minor_by_sym[sym]
        except KeyError:
            raise GameError("there is no minor {name}", name=brief(sym)) from None

    def operator(self, sym: str) -> Operator:
        """A corporation or a minor by its symbol."""
        return self.corporation_by_sym.get(sym) or self.minor(sym)

    def entity(self, action: Action):
        kind = action.entity_type
        if kind == "player":
            return self.player(action.entity)
        if kind == "corporation":
            return self.corporation(str(action.entity))
        if kind == "minor":
            return self.minor(str(action.entity))
        if kind == "company":
            return self.company(str(action.entity))
        raise GameError("unknown entity type {kind}", kind=kind)

    @staticmethod
    def name_of(entity) -> str:
        if isinstance(entity, Player):
            return entity.name
        if isinstance(entity, Operator | Company):
            return entity.sym
        return getattr(entity, "name", str(entity))

    def minor_tokens(self, minor: Minor) -> list[str]:
        """Where a minor's stations are (a closed minor: where they were when it closed)."""
        if minor.closed:
            return [c.tile.hex.coord if c.tile.hex else c.id for c in minor.closed_cities]
        return self.hexmap.tokened_hexes(minor.sym)

    def player_of(self, entity) -> Player | None:
        """The player who decides for an entity."""
        if isinstance(entity, Player):
            return entity
        if isinstance(entity, Operator):
            return entity.owner
        if isinstance(entity, Company):
            owner = entity.owner
            return owner if isinstance(owner, Player) else getattr(owner, "owner", None)
        return None

    # --- abilities ----------------------------------------------------------------------------
    def abilities(self, entity, kind: str, any_owner: bool = False) -> list[dict]:
        """The abilities of a kind an entity (private, corporation) has now: not removed, not used up, and
        for a private, only those for its kind of owner ("owner_type": player or corporation) unless
        `any_owner`."""
        if isinstance(entity, Company):
            if entity.closed:
                return []
            records = entity.abilities
        elif isinstance(entity, Operator):
            records = entity.data.get("abilities", ())
        else:
            return []
        out = []
        for ability in records:
            if ability["type"] != kind or (entity.sym, kind) in self._removed_abilities:
                continue
            owner_type = ability.get("owner_type")
            if not any_owner and owner_type is not None and getattr(entity.owner, "kind", None) != owner_type:
                continue
            if isinstance(entity, Company) and self.ability_used(entity, ability):
                continue
            out.append(ability)
        return out

    def remove_ability(self, entity, kind: str) -> None:
        self._removed_abilities.add((entity.sym, kind))

    # --- money --------------------------------------------------------------------------------
    def company_pays(self, company: Company, payee, amount: int) -> None:
        """The bank pays what a private's power brings (1817's Volatility privates), noted for the players."""
        self.transfer(self.bank, payee, amount)
        self.company_payments.append({"company": company.sym, "to": payee.key, "to_type": payee.kind,
                                      "amount": amount})

    def transfer(self, payer, payee, amount: int) -> None:
        if amount == 0:
            return
        if payer is self.bank:
            if not self.bank.unlimited and self.bank.checks_cash and self.bank.cash - amount < 0:
                self.bank.broken = True
        elif payer.cash < amount:
            raise GameError("{name} has {cash}, not {amount}", name=self.name_of(payer),
                            cash=self.fmt(payer.cash, payer), amount=self.fmt(amount, payer))
        payer.cash -= amount
        payee.cash += amount

    def fmt(self, amount: int, of=None) -> str:
        """Money as the title writes it; `of`: whose money (a corporation's or a minor's may be another
        currency: 1860's credits)."""
        form = self.rules.currency_format_str
        if isinstance(of, Operator) and self.rules.company_currency_format_str:
            form = self.rules.company_currency_format_str
        return form.replace("%s", str(amount)) if amount >= 0 else "-" + self.fmt(-amount, of)

    # --- shares -------------------------------------------------------------------------------
    def move_share(self, share: Share, to: ShareHolder) -> None:
        sym = share.corporation.sym
        share.owner.shares_by_corp[sym].remove(share)
        to.shares_by_corp.setdefault(sym, []).append(share)
        share.owner = to

    def give_share(self, share: Share, to: ShareHolder) -> None:
        """A certificate changes hands outside a trade (18MEX merger), entered in the holdings ledger."""
        self.enter_holding(share.corporation, share.owner, to, share.percent)
        self.move_share(share, to)

    @staticmethod
    def enter_holding(corp: Corporation, giver, taker, percent: int) -> None:
        corp.holdings[giver] = corp.holdings.get(giver, 0) - percent
        corp.holdings[taker] = corp.holdings.get(taker, 0) + percent

    def player_percents(self, corp: Corporation) -> dict[Player, int]:
        """What the players hold of a corporation by its holdings ledger (those with a holding)."""
        return {p: corp.holdings[p] for p in self.players if corp.holdings.get(p)}

    def seat_distance(self, a: Player, b: Player) -> int:
        order = self.players
        return (order.index(b) - order.index(a)) % len(order)

    def num_certs(self, player: Player) -> int:
        count = sum(1 for c in player.companies if not c.closed) if self.rules.cert_limit_includes_privates else 0
        for sym, shares in player.shares_by_corp.items():
            corp = self.corporation_by_sym[sym]
            if shares and self.counts_for_cert_limit(corp):
                count += sum(self.cert_count(s) for s in shares)
        return count

    def cert_count(self, share: Share) -> int:
        """How many certificates a share counts for toward the limit."""
        return 1 if share.counts_for_limit and self.counts_for_cert_limit(share.corporation) else 0

    def has_room_for(self, player: Player, share: Share) -> bool:
        """Whether the certificate limit lets the player gain the certificate: always one of a corporation
        whose price is in a zone off the limit (as on 18xx.games, even for a player over the limit who can't
        sell down), otherwise if it leaves him within the limit."""
        if not self.counts_for_cert_limit(share.corporation):
            return True
        return self.num_certs(player) + self.cert_count(share) <= self.cert_limit

    NO_HOLD_LIMIT_TYPES = frozenset({"unlimited", "multiple_buy"})

    def counts_for_cert_limit(self, corp: Corporation) -> bool:
        return not (corp.share_price and corp.share_price.types.intersection(self.rules.cert_limit_types))

    def holding_ok(self, player: Player, corp: Corporation, extra: int) -> bool:
        if corp.share_price and corp.share_price.types & self.NO_HOLD_LIMIT_TYPES:
            return True
        return player.percent_of(corp) + extra <= corp.max_ownership_percent

    def transfer_shares(self, shares: list[Share], to: ShareHolder, percent: int | None = None) -> None:
        """Move certificates and hand over the presidency if the holdings now call for it."""
        corp = shares[0].corporation
        owner = shares[0].owner
        previous = corp.owner
        total = sum(s.percent for s in shares)
        percent = total if percent is None else percent
        self.enter_holding(corp, owner, to, percent)
        for share in shares:
            self.move_share(share, to)
        change_due = (total - percent) // corp.share_percent
        if self.rules.president_sales_to_market and self.receivership_change(corp, shares, owner, to, change_due):
            return
        # the president's certificate sold for part of its value: the pool gives change, from its own
        # certificates if it has them, else from those the new president swaps in
        change = []
        while change_due and any(not s.president for s in to.shares_of(corp)):
            change.append(next(s for s in to.shares_of(corp) if not s.president))
            self.move_share(change[-1], owner)
            change_due -= 1
        self.check_presidency(corp, previous, to)
        no_change_left = change_due and not any(not s.president for s in to.shares_of(corp))
        if (change or no_change_left) and corp.owner is previous and corp.presidents_share.owner is to:
            # no change without a new president, as on 18xx.games (18MEX: a bankrupt president selling part
            # of the NdM's certificate while its holdings ledger keeps him level with another player; the
            # market may have had no certificate to give)
            for share in change:
                self.move_share(share, to)
            return
        for _ in range(change_due):
            self.move_share(next(s for s in to.shares_of(corp) if not s.president), owner)

    def receivership_change(self, corp: Corporation, shares: list[Share], owner, to, change_due: int) -> bool:
        """Where a president's certificate may be sold to the market (PRESIDENT_SALES_TO_MARKET): sold there
        while no other player holds as much as it, the corporation goes into receivership (the market gives
        change for a part sale); bought back from the market by a shareholder, it makes them president (they
        hand one of their certificates to the market). Whether either happened."""
        pres = corp.presidents_share
        if pres in shares and to is self.pool and \
                max(self.player_percents(corp).values(), default=0) < pres.percent:
            corp.owner = None
            corp.receivership = True
            for _ in range(change_due):
                self.move_share(next(s for s in self.pool.shares_of(corp) if not s.president), owner)
            return True
        if pres in shares and owner is self.pool:
            corp.owner = to
            corp.receivership = False
            for _ in range(change_due):
                self.move_share(next(s for s in to.shares_of(corp) if not s.president), self.pool)
            return True
        return False

    def check_presidency(self, corp: Corporation, previous: Player | None, sold_to: ShareHolder) -> None:
        percents = self.player_percents(corp)
        if not percents:
            return
        best = max(percents.values())
        leaders = [p for p, v in percents.items() if v == best]
        if previous in leaders:
            return
        candidates = [p for p in leaders if p.percent_of(corp) >= corp.presidents_share.percent]
        if not candidates:
            return
        if corp.receivership:
            # no president to count seats from: the first of them to have held the corporation
            order = list(corp.holdings)
            president = min(candidates, key=order.index)
            corp.receivership = False
        elif previous is None:
            president = candidates[0]
        else:
            president = min(candidates, key=lambda p: self.seat_distance(previous, p))
        corp.owner = president
        pres_share = corp.presidents_share
        if pres_share.owner is president:
            return
        if previous is not None and previous.percent_of(corp) >= pres_share.percent and pres_share.owner is previous:
            swap_to: ShareHolder = previous
        else:
            swap_to = pres_share.owner
        swapped = [s for s in self.presidency_swap_order(president.shares_of(corp)) if not s.president]
        for share in swapped[: pres_share.percent // corp.share_percent]:
            self.move_share(share, swap_to)
        self.move_share(pres_share, president)

    def reissue_shares(self, corp: Corporation, percents: list[int]) -> list[Share]:
        """A corporation's certificates take new sizes (1817 conversions): those issued keep their holders
        and take the first sizes in order, the rest are new certificates in its treasury (returned)."""
        new = corp.resize_shares(percents)
        corp.holdings = {}
        for share in corp.shares:
            corp.holdings[share.owner] = corp.holdings.get(share.owner, 0) + share.percent
        return new

    def presidency_swap_order(self, shares: list[Share]) -> list[Share]:
        """The new president's certificates in the order they are handed over for the president's."""
        return shares

    @staticmethod
    def bundle_price(corp: Corporation, percent: int) -> int:
        """Certificates worth `percent` of a corporation at its market price (part shares rounded up)."""
        return -(-corp.share_price.price * percent // corp.share_percent)

    def liquidation_bundles(self, player: Player, corp: Corporation) -> list[tuple[list[Share], int]]:
        """The bundles counted when judging what a player could raise (18MEX: 10% and 5% certificates
        together, though they are sold apart)."""
        return self.sellable_bundles(player, corp)

    @staticmethod
    def certificate_price(share: Share, per_share: int) -> int:
        """A certificate at a price per share (an 18MEX 5% certificate: half, rounded up)."""
        return -(-per_share * share.percent // share.corporation.share_percent)

    def sellable_bundles(self, player: Player, corp: Corporation) -> list[tuple[list[Share], int]]:
        """(certificates, percent) bundles the player may offer, smallest first (18xx.games order)."""
        if not corp.ipoed:
            return []
        return self.bundles_of(corp, player.shares_of(corp))

    @staticmethod
    def bundles_of(corp: Corporation, certificates: list[Share]) -> list[tuple[list[Share], int]]:
        """Growing bundles of these certificates, the president's last (offered in part as well)."""
        shares = sorted(certificates, key=lambda s: (s.president, s.percent))
        out = []
        for i, share in enumerate(shares):
            bundle = shares[: i + 1]
            percent = sum(s.percent for s in bundle)
            if share.president:
                normal = corp.share_percent
                for n in range((share.percent - normal) // normal, 0, -1):
                    out.append((bundle, percent - normal * n))
            out.append((bundle, percent))
        return out

    @staticmethod
    def sale_percents(corp: Corporation, shares: list[Share]) -> list[int]:
        """The percents these certificates may be sold as: their sum, or less when the president's
        certificate is among them (sold in part, the rest handed back as ordinary certificates)."""
        total = sum(s.percent for s in shares)
        pres = next((s for s in shares if s.president), None)
        extra = (pres.percent - corp.share_percent) // corp.share_percent if pres else 0
        return [total - corp.share_percent * n for n in range(extra, -1, -1)]

    def can_dump(self, player: Player, corp: Corporation, shares: list[Share]) -> bool:
        if not any(s.president for s in shares):
            return True
        others = [v for p, v in self.player_percents(corp).items() if p is not player]
        return max(others, default=0) >= corp.presidents_share.percent

    def check_presidents_certificate_last(self, player: Player, corp: Corporation, shares: list[Share]) -> None:
        """The president's certificate goes into a sale only with every other certificate its seller holds of the
        corporation (the rules sell shares, never that certificate on its own: what the sale's percent leaves
        over is exchanged with the new president). 18xx.games' pages list it last in each bundle; its engine,
        sent it alone, pays the seller and leaves his certificates with him."""
        if not self.PRESIDENTS_CERTIFICATE_SOLD_LAST or not any(s.president for s in shares):
            return
        if len(set(shares)) < len(player.shares_of(corp)):
            raise GameError("{player} can't sell the president's certificate of {corporation} without the other "
                            "{corporation} certificates {player} holds: a sale that includes it names them all",
                            player=player.name, corporation=corp.sym)

    def keeps_presidency_without_certificate(self, player: Player, corp: Corporation, shares: list[Share],
                                             percent: int) -> bool:
        """A sale of the president's certificate after which its seller would still be president (nobody
        holding more): 18xx.games takes it and leaves the certificate in the market; we refuse it."""
        if not any(s.president for s in shares):
            return False
        percents = self.player_percents(corp)
        others = [v for p, v in percents.items() if p is not player]
        return max(others, default=0) <= percents.get(player, 0) - percent

    def fits_in_pool(self, corp: Corporation, percent: int) -> bool:
        return self.pool.percent_of(corp) + percent <= self.rules.market_share_limit

    def sell_shares(self, player: Player, shares: list[Share], percent: int) -> None:
        """Sell to the market at the current price; the marker drops per certificate sold."""
        corp = shares[0].corporation
        was_president = corp.owner is player
        price = self.bundle_price(corp, percent)
        self.transfer_shares(shares, self.pool, percent)
        self.transfer(self.bank, player, price)
        self.move_after_sale(corp, percent, was_president)

    def sold_out_moves(self, corp: Corporation) -> int:
        """Steps up at the end of a stock round for a corporation the players hold all of."""
        return 1 if self.rules.sold_out_increase and sum(self.player_percents(corp).values()) >= 100 else 0

    def move_after_sale(self, corp: Corporation, percent: int, was_president: bool) -> None:
        """The share price drops as the title's sell movement says (per share, per 10%, per sale, ...)."""
        kind = self.rules.sell_movement
        shares = -(-percent // corp.share_percent)
        moves = {"down_share": ("down", shares), "down_per_10": ("down", percent // 10), "down_block": ("down", 1),
                 "left_share": ("left", shares), "left_block": ("left", 1),
                 "left_share_pres": ("left", shares if was_president else 0),
                 "down_block_pres": ("down", 1 if was_president else 0),
                 "left_block_pres": ("left", 1 if was_president else 0),
                 "left_per_10_if_pres_else_left_one": ("left", round(percent / 10) if was_president else 1),
                 "none": ("down", 0)}
        if kind not in moves:
            raise NotImplementedError(f"sell movement {kind}")
        direction, times = moves[kind]
        self.market.move(corp, direction, times)

    def buy_shares(self, player: Player, shares: list[Share], price: int | None = None,
                   free: bool = False) -> None:
        corp = shares[0].corporation
        was_floated = corp.floated
        if not free:
            if price is None:
                per = corp.par_price.price if shares[0].owner is corp else corp.share_price.price
                price = -(-per * sum(s.percent for s in shares) // corp.share_percent)
            receiver = corp if (shares[0].owner is corp and corp.capitalization == "incremental") else self.bank
            if player.cash < price:
                raise GameError("{player} has {cash} and can't pay {price}", player=player.name,
                                cash=self.fmt(player.cash), price=self.fmt(price))
            self.transfer(player, receiver, price)
        self.transfer_shares(shares, player)
        if not was_floated and self.floats(corp):
            corp.floated = True
            self.float_corporation(corp)

    def floats(self, corp: Corporation) -> bool:
        """Whether enough of the corporation has left its IPO for it to float."""
        return corp.ipo_percent <= 100 - corp.float_percent

    def float_corporation(self, corp: Corporation) -> None:
        if corp.capitalization == "full":
            self.transfer(self.bank, corp, corp.par_price.price * corp.total_shares)
        if self.rules.home_token_timing == "float":
            self.place_home_token(corp)

    def set_par(self, corp: Corporation, cell) -> None:
        self.market.set_par(corp, cell)
        corp.ipoed = True
        if self.rules.home_token_timing == "par":
            self.place_home_token(corp)

    def operating_order(self) -> list[Operator]:
        """Minors first, in their order; then corporations by share price."""
        floated = [c for c in self.corporations if c.floated and not c.closed]
        minors = [m for m in self.minors if m.floated and not m.closed]
        return minors + sorted(floated, key=self.operating_sort_key)

    def operator_order_key(self, operator: Operator):
        """Operating order of any operator: minors first in their order, then by share price."""
        if isinstance(operator, Minor):
            return 0, self.minors.index(operator)
        return (1, *self.operating_sort_key(operator))

    @staticmethod
    def operating_sort_key(corp: Corporation):
        cell = corp.share_price
        return (-cell.price, -cell.column, cell.row, cell.corporations.index(corp))

    # --- privates -----------------------------------------------------------------------------
    def payout_companies(self) -> None:
        for company in self.companies:
            if company.owner is not None and not company.closed and company.revenue:
                self.pay_income(company)

    def pay_income(self, company: Company) -> None:
        """A private's revenue paid to its owner at the start of an operating round (told: `income`)."""
        owner = company.owner
        self.transfer(self.bank, owner, company.revenue)
        self.outcomes.append({"event": "income", "company": company.sym, "to": getattr(owner, "key", None),
                              "to_type": owner.kind,
                              "amount": company.revenue})

    def note_price_move(self, corp: Corporation, was: int, why: str) -> None:
        """Tell a price move the rules made between turns (`price_moved`: why, the price before and after)."""
        if corp.share_price.price != was:
            self.outcomes.append({"event": "price_moved", "corporation": corp.sym, "why": why,
                                  "price": [was, corp.share_price.price]})

    def close_company(self, company: Company) -> None:
        if company.closed:
            return
        company.closed = True
        owner = company.owner
        if owner is not None and company in owner.companies:
            owner.companies.remove(company)
        company.owner = None

    def close_corporation(self, corp: Corporation, remove_stations: bool = True) -> None:
        """A corporation leaves the game: its stations come off the map (unless a title still has to deal
        with them) and its marker off the market (its treasury and trains already dealt with)."""
        if remove_stations:
            for coord in self.hexmap.tokened_hexes(corp.sym):
                self.hexmap.remove_token(corp.sym, coord)
            corp.tokens_used = 0
        if corp.share_price is not None and corp in corp.share_price.corporations:
            corp.share_price.corporations.remove(corp)
        corp.share_price = corp.par_price = None
        corp.closed = True
        corp.ipoed = corp.floated = False
        corp.owner = None

    def buy_company_from_bank(self, player: Player, company: Company, price: int) -> None:
        if price:
            self.transfer(player, self.bank, price)
        company.owner = player
        player.companies.append(company)
        self.after_buy_company(player, company, price)

    def sell_company(self, company: Company, buyer, price: int) -> None:
        """A private changes hands: the buyer pays its owner."""
        seller = company.owner
        self.transfer(buyer, seller, price)
        seller.companies.remove(company)
        company.owner = buyer
        buyer.companies.append(company)

    def blocking_privates(self) -> set[str]:
        """Player-owned privates that forbid track on their hexes (the map knows which hexes)."""
        return {c.sym for c in self.companies
                if not c.closed and isinstance(c.owner, Player) and c.ability("blocks_hexes")}

    # --- trains and phases ----------------------------------------------------------------------
    def min_depot_price(self) -> int:
        """The price of the bank's cheapest train on sale (0 when it sells none)."""
        return min((t.price for t in self.depot.depot_trains(self.phase_names_reached)), default=0)

    def train_limit(self, operator: Operator) -> int:
        """The phase's limit, raised by the operator's own abilities (18MEX NdM: +1)."""
        return self.phase.train_limit + sum(a.get("increase", 0) for a in self.abilities(operator, "train_limit"))

    def trains_counted_for_limit(self, operator: Operator) -> int:
        if self.rules.obsolete_trains_count_for_limit:
            return len(operator.trains)
        return sum(1 for t in operator.trains if not t.obsolete)

    def buys_trains_at_face_value(self, operator: Operator) -> bool:
        """Trains between this corporation and others change hands at face value only (18MEX NdM)."""
        return self.rules.always_buy_trains_at_face_value or \
            any(a.get("face_value") for a in self.abilities(operator, "train_buy"))

    def buy_train(self, corp: Corporation, train: Train, price: int, exchange: Train | None = None) -> None:
        seller = train.owner
        if seller is None:  # the depot or its discard pile
            self.transfer(corp, self.bank, price)
            self.depot.remove(train)
        else:
            self.transfer(corp, seller, price)
            seller.trains.remove(train)
        if exchange is not None:
            corp.trains.remove(exchange)
            exchange.owner = None
            self.depot.discarded.append(exchange)
        train.owner = corp
        corp.trains.append(train)
        if seller is None:
            self.on_train_bought_from_depot(train)
        self.after_buy_train(corp, train)

    def after_buy_train(self, corp: Corporation, train: Train) -> None:
        for company in list(self.companies):
            if company.closed:
                continue
            for ability in company.abilities:
                if ability["type"] == "close" and ability.get("when") == "bought_train" \
                        and ability.get("corporation") == corp.sym:
                    self.close_company(company)

    def on_train_bought_from_depot(self, train: Train) -> None:
        """The first train of a kind to leave the bank may start a phase, rust trains and fire events."""
        if train.name in self.depot.sold_names:
            return
        self.depot.sold_names.add(train.name)
        for i in range(self.phase_index + 1, len(self.phases)):
            if self.phases[i].on == train.name:
                self.phase_index = i
                for event in self.phases[i].events:
                    self.run_event(event)
                break
        self.rust(train.name)
        for event in self.depot.data_by_name[train.name].get("events", []):
            self.run_event(event)

    def run_event(self, event: dict) -> None:
        """Phase and train events by name: `event_<type>` of the game."""
        handler = getattr(self, "event_" + event["type"], None)
        if handler is None:
            raise NotImplementedError(f"{self.TITLE} has no rule for the event {event['type']}")
        handler(event)

    def event_close_companies(self, event: dict) -> None:
        for company in self.companies:
            self.close_company(company)

    def rust(self, bought_name: str) -> None:
        self.depot.rust_and_obsolete(bought_name, self.keeps_train)

    def keeps_train(self, train: Train) -> bool:
        """A train that does not rust or go obsolete when its kind's time comes (title exception)."""
        return False

    def over_train_limit(self) -> list[Operator]:
        """Operators with more trains than the limit, minors first, then in the title's order of
        corporations (the first is asked to discard first; any of them may)."""
        return [c for c in self.minors + self.corporations
                if c.trains and self.trains_counted_for_limit(c) > self.train_limit(c)]

    def discard_train(self, train: Train) -> None:
        train.owner.trains.remove(train)
        self.depot.discard(train)

    # --- dividends ----------------------------------------------------------------------------
    def payout(self, corp: Corporation, revenue: int) -> None:
        """Pay a dividend to the holders; certificates in the market pay the corporation, those in its IPO
        nobody. A holder's part is rounded up (18MEX: an odd 5% certificate)."""
        for player in self.players:
            amount = self.dividend_part(corp, player.percent_of(corp), revenue)
            if amount:
                self.transfer(self.bank, player, amount)
        pooled = self.dividend_part(corp, self.pool.percent_of(corp), revenue)
        if pooled:
            self.transfer(self.bank, corp, pooled)

    @staticmethod
    def dividend_part(corp: Corporation, percent: int, revenue: int) -> int:
        return -(-percent * revenue // (corp.share_percent * corp.total_shares))

    # --- flow ---------------------------------------------------------------------------------
    def apply(self, action: dict | Action) -> dict:
        """Validate and apply one action and the automatic actions it carries or sets off.

        All or nothing: whatever goes wrong, the state and the log are left as they were and GameError says
        why (an error in the rules themselves included). Only KeyboardInterrupt and the like pass through
        as they are, after the state is put back.
        """
        parsed = parse_action(action)
        if self.finished and parsed.type != "message":  # as on 18xx.games, the players may still chat
            raise GameError("the game is over")
        raw = dict(action) if isinstance(action, dict) else parsed.to_dict()
        if self.checkpoints.enabled:  # played now, not read from a log: it must be storable as one
            require_json(raw)
        if parsed.id is None:
            parsed.id = (self.actions[-1]["id"] + 1) if self.actions else 1
        elif self.actions and parsed.id <= self.actions[-1]["id"]:
            raise GameError("action id {id} is not after {last}", id=parsed.id, last=self.actions[-1]['id'])
        raw["id"] = parsed.id
        position = len(self.actions)
        if self.checkpoints.due(position):
            self.checkpoints.take(self, position)
        self.changing = False
        passed_over, self.passed_over = self.passed_over, []
        company_payments, self.company_payments = self.company_payments, []
        outcomes, self.outcomes = self.outcomes, []
        try:
            self._process(parsed)
            self.programs.acting = True
            for auto in parsed.auto_actions:
                self._process(parse_action(auto))
            if self.generate_auto_actions and "auto_actions" not in raw:
                generated = self.run_programs()
                if generated:
                    raw["auto_actions"] = generated
        except BaseException as e:
            self.passed_over = passed_over
            self.company_payments = company_payments
            self.outcomes = outcomes
            # while a log loads in one go the caller drops the game instead
            if self.changing and self.checkpoints.enabled:
                self._go_back(position)
            if isinstance(e, GameError) and len(str(e)) > MAX_REFUSAL:  # a long value typed by a player, echoed
                raise GameError(e.msgid, **{k: _clipped(v) for k, v in e.params.items()}) from None
            if isinstance(e, GameError) or not isinstance(e, Exception):
                raise
            raise GameError("{type} could not be applied ({name}: {reason}); nothing was changed",
                            type=parsed.type, name=type(e).__name__, reason=quoted(str(e))) from e
        finally:
            self.programs.acting = False
        self.actions.append(raw)
        return raw

    def _process(self, action: Action) -> None:
        """Apply one action. Until `changing` is set, a refusal has changed nothing."""
        if action.type in WORDS_ONLY:
            if not isinstance(self.entity(action), Player):  # as on 18xx.games: chat comes from the players
                raise GameError("only players write in the game's chat")
            return
        self.programs.tick()
        if action.type.startswith("program_"):
            if not self.PROGRAMS:
                raise GameError("standing orders are not played in {title} yet", title=self.TITLE)
            player = self.entity(action)
            if not isinstance(player, Player):
                raise GameError("only players program their stock-round actions")
            self.programs.check(player, action)
            self.changing = True
            self.programs.set(player, action)
            return
        if action.type == "end_game":
            if isinstance(self.entity(action), Company):
                raise GameError("a private company cannot end the game")
            self.changing = True
            self.end_game("manually_ended")
            return
        self.check_named(action)
        entity = self.entity(action)
        step = self.round.step_for(action, entity)
        self.changing = True
        self.round.process(action, entity, step)
        self.note_graphs_looked(entity)
        self.action_processed(action, entity)
        self.round.blocking_cache.clear()  # the title's follow-up may have changed what steps can do
        self._advance_rounds()

    def check_named(self, action: Action) -> None:
        """A title's refusal of a move naming something its game does not have (1817: a loan), before any
        step looks at the move."""

    def action_processed(self, action: Action, entity) -> None:
        """A title's follow-up to an action, after the round has moved on past steps with nothing to do
        (18MEX: a tile on Copper Canyon by anyone but the KCM&O takes its right to lay there)."""

    def auction_program_offers(self) -> list[dict]:
        """The privates an auction program (program_auction_bid) may be set for now, with their lowest bids."""
        return self.programs.auction_offers()

    def run_programs(self) -> list[dict]:
        """Let the programs of the players to act play their turns; the actions they took."""
        out: list[dict] = []
        self.programs.main_seq = self.programs.seq
        self.programs.auction_round_passed = False
        for _ in range(1000):  # each program action ends a turn, disables itself or starts a pass
            actions = self.programs.next_actions()
            if not actions:
                break
            for action in actions:
                self._process(parse_action(action))
                out.append(action)
        return out

    def _advance_rounds(self) -> None:
        # as on 18xx.games, the end of the game is judged once per action: a condition met while rounds
        # follow each other without an action (1817: the 8-train exported between rounds) counts from
        # the next action on
        reason = self.end_check()
        if reason and reason[1] == "immediate":
            self.end_game(reason[0])
            return
        while not self.finished and self.round.finished:
            self.round.finish()
            # what the round's end settles is told, as it happens (a user interface previews it)
            self.outcomes.append({"event": "round_ended", "round": self.round.description, "kind": self.round.kind})
            if reason and self.end_now(reason[1]):
                self.end_game(reason[0])
                return
            if self.turn >= self.LAST_TURN:
                self.end_game("dnf")  # 18xx.games stops a game that reaches its 100th turn: did not finish
                return
            self.round = self.next_round()
            self.programs.round_started(self.round)
            self.outcomes.append({"event": "round_started", "round": self.round.description, "kind": self.round.kind})
            self.round.start()

    LAST_TURN = 100

    END_TIMINGS = ("immediate", "current_round", "current_or", "full_or", "one_more_full_or_set")  # most urgent first

    def end_check(self) -> tuple[str, str] | None:
        """(reason, timing) of the most urgent end of game met so far: the title's checks by name
        (`end_check_<reason>`); once met, an end stays due."""
        for reason, timing in self.rules.game_end_check.items():
            check = getattr(self, "end_check_" + reason, None)
            if check is None:
                raise NotImplementedError(f"{self.TITLE} has no end-of-game check {reason}")
            if not check():
                continue
            due = self._end_trigger
            if due is None or self.END_TIMINGS.index(timing) < self.END_TIMINGS.index(due[1]):
                self._end_trigger = (reason, timing)
        if self._end_trigger and self._end_trigger[1] == "one_more_full_or_set" and self._final_turn is None:
            self._final_turn = self.turn + 1
        return self._end_trigger

    def end_check_bankrupt(self) -> bool:
        bankrupt = sum(1 for p in self.players if p.bankrupt)
        if self.rules.bankruptcy_ends_game_after == "all_but_one":
            return bankrupt >= len(self.players) - 1
        return bankrupt > 0

    def end_check_bank(self) -> bool:
        return self.bank.broken

    def end_check_stock_market(self) -> bool:
        return self.market.max_reached

    def end_check_final_train(self) -> bool:
        return not self.depot.depot_trains(self.phase_names_reached)

    def end_check_final_phase(self) -> bool:
        return self.phase_index == len(self.phases) - 1

    ROUND_END = "operating"  # the kind of round that closes an operating round of a set (1817: acquisition)

    def end_now(self, timing: str) -> bool:
        """Whether the round just finished ends the game, for an end due at this timing."""
        if timing in ("immediate", "current_round"):
            return True
        if self.round.kind != self.ROUND_END:
            return False
        if timing == "current_or":
            return True
        last_of_set = self.round.round_num >= self.operating_rounds
        if timing == "one_more_full_or_set":
            return last_of_set and self.turn == self._final_turn
        return last_of_set

    def next_round(self):
        """The round after the one just finished, by its kind: `after_<kind>_round` (a title adds rounds,
        e.g. 1817's mergers and acquisitions, by overriding these or adding kinds)."""
        return getattr(self, f"after_{self.round.kind}_round")()

    def after_auction_round(self):
        self.reorder_players()
        return self.stock_round()

    def after_stock_round(self):
        self.operating_rounds = self.phase.operating_rounds
        self.reorder_players()
        return self.operating_round(1)

    def after_operating_round(self):
        if self.round.round_num < self.operating_rounds:
            return self.operating_round(self.round.round_num + 1)
        self.turn += 1
        return self.stock_round()

    def reorder_players(self) -> None:
        first = self.round.priority_player()
        if first is not None:
            i = self.players.index(first)
            self.players = self.players[i:] + self.players[:i]
            self.outcomes.append({"event": "priority", "player": first.id})

    def end_game(self, reason: str) -> None:
        self.finished = True
        self.end_reason = reason

    # --- results and views ----------------------------------------------------------------------
    def player_value(self, player: Player) -> int:
        value = player.cash
        for sym, shares in player.shares_by_corp.items():
            corp = self.corporation_by_sym[sym]
            if shares and corp.ipoed and corp.share_price:
                value += sum(self.certificate_price(s, corp.share_price.price) for s in shares)
        value += sum(c.value for c in player.companies if not c.closed)
        return value

    def result(self) -> dict[str, int]:
        return {str(p.id): self.player_value(p) for p in self.players}

    # --- the interface a UI needs -------------------------------------------------------------
    def acting_entities(self) -> list:
        if self.finished:
            return []
        return self.round.active_entities()

    def acting_entity(self, player=None) -> dict | None:
        """The entity to act (the first of the acting entities); with `player` (a player id), the first of them
        that player decides for, where several may act at once (corporations over their train limit after a
        phase change), else the first."""
        entities = self.acting_entities()
        if not entities:
            return None
        e = self.first_decided_by(entities, player)
        return {"entity": e.key if not isinstance(e, Company) else e.sym, "entity_type": e.kind}

    def first_decided_by(self, entities: list, player) -> object:
        """The first of `entities` the player (an id; None: nobody in particular) decides for, else the first."""
        if player is not None:
            who = self.player(player)
            for e in entities:
                if self.player_of(e) is who:
                    return e
        return entities[0]

    def active_players(self) -> list[int]:
        """Ids of the players to act now: those deciding for the acting entities; where no player decides for
        them (1860: a company in receivership), every player still in the game, as 18xx.games lets any of
        them act for it."""
        out = []
        entities = self.acting_entities()
        for e in entities:
            p = self.player_of(e)
            if p is not None and p.id not in out:
                out.append(p.id)
        if not out and entities and not self.finished:
            out = [p.id for p in self.players if not p.bankrupt]
        return out

    def legal_actions(self, player=None) -> list[dict]:
        """The acting entity's legal moves; with `player` (a player id), that player's: the acting entity's
        moves when they decide for it, and the abilities of the privates they control that may be used now,
        in their turn or out of it (`company_actions`: 1830's MH exchanged for an NYC share at any time,
        1860's starting privates for their company's share in a stock round)."""
        if self.finished:
            return []
        if player is None:
            return self.round.legal_actions()
        out = []
        if self.player(player).id in self.active_players():
            out = self.round.legal_actions(self.first_decided_by(self.acting_entities(), player))
        out += [a for a in self.company_actions(player) if a not in out]
        return out

    def company_actions(self, player=None) -> list[dict]:
        """Private-company actions their owners may take now, in or out of turn; those of the privates player
        `player` (an id) controls, if given."""
        if self.finished:
            return []
        return self.round.company_actions(None if player is None else [self.player(player)])

    def privates_act_out_of_turn(self) -> bool:
        """Whether a private of this game may ever be used by a player while it is not their turn (cheap: its
        abilities as written, no search): an exchange for a share (1830's MH, 1860's privates), an ability a
        player owner uses that is not passive, or one usable at moments outside its owner's turns, of a private
        still open. False (1817, 18MEX; 1830 once MH is closed): `company_actions(player)` offers only the moves
        of privates whose owner is to act."""
        between = {"any", "or_between_turns", "or_start", "stock_round"}
        return any(a["type"] == "exchange" or (a.get("owner_type") == "player" and not passive(a)) or
                   between.intersection(whens(a)) for c in self.companies if not c.closed for a in c.abilities)

    def action_types(self) -> list[str]:
        """Kinds of action the acting entity may take now, without listing every choice."""
        return [] if self.finished else self.round.action_types()

    def undo(self) -> None:
        """Take back the last action (chat after it stays)."""
        last = next((i for i in range(len(self.actions) - 1, -1, -1) if self.actions[i].get("type") != "message"),
                    None)
        if last is None:
            raise GameError("there is nothing to undo")
        chat = self.actions[last + 1:]
        self._go_back(last)
        self.actions.extend(chat)

    def _go_back(self, position: int) -> None:
        """Put the state and the log back to what they were after the first `position` actions: from the
        latest checkpoint at or before it, else by replaying the log."""
        log = self.actions[:position]
        checkpoint = self.checkpoints.at_or_before(position)
        if checkpoint is None:
            self._rebuild(log)
            return
        self.checkpoints.forget_after(position)
        restore_checkpoint(self, checkpoint)
        del self.actions[checkpoint.position:]
        if len(log) > checkpoint.position:
            try:
                self._apply_logged(log[checkpoint.position:])
            except Exception:  # the log no longer applies from the checkpoint: start from the beginning
                self._rebuild(log)
                return
            self.checkpoints.take(self, position)  # the next refusal here costs one load

    def _apply_logged(self, actions: list[dict]) -> None:
        """Apply actions that were accepted before, with the automatic actions they recorded."""
        generate, enabled = self.generate_auto_actions, self.checkpoints.enabled
        self.generate_auto_actions = False
        self.checkpoints.enabled = False
        try:
            for a in actions:
                self.apply(a)
        finally:
            self.generate_auto_actions, self.checkpoints.enabled = generate, enabled

    def _rebuild(self, actions: list[dict]) -> None:
        """Set this game up again and apply `actions` (in place: rounds and steps refer to this object)."""
        generate, enabled = self.generate_auto_actions, self.checkpoints.enabled
        type(self).__init__(self, self.settings_players, self.seed, self.optional_rules, self.game_id)
        self.generate_auto_actions, self.checkpoints.enabled = generate, enabled
        self._apply_logged(actions)

    @contextmanager
    def loading(self):
        """Apply a whole log in one go: the actions carry their automatic actions, no checkpoints are taken,
        and a refused action leaves the game half-changed (the caller drops it). Live play resumes after."""
        self.generate_auto_actions = False
        self.checkpoints.enabled = False
        try:
            with paused_gc():
                yield self
        finally:
            self.generate_auto_actions = True
            self.checkpoints.enabled = True

    def to_18xx(self) -> dict:
        log = {
            "id": self.game_id, "title": self.TITLE, "players": self.settings_players,
            "settings": {"seed": self.seed, "optional_rules": list(self.optional_rules)},
            "actions": list(self.actions), "status": "finished" if self.finished else "active",
            "result": self.result() if self.finished else {}, "game_end_reason": self.end_reason,
        }
        if self.game_id is None:
            del log["id"]  # a game with no number: the importer gives it one
        return log

    @classmethod
    def from_18xx(cls, log: dict, upto: int | None = None, strict: bool = True, before_each=None):
        """A game from an 18xx.games log (undo and redo resolved), ready for live play. GameError if the log
        is malformed or one of its actions is refused. `before_each(game)` is called before each action is
        applied (to sample the game as it goes)."""
        known = cls.optional_rule_names()  # 18xx.games plays a log as if the rules its title has not were not set
        rules = tuple(rule for rule in optional_rules_of(log) if rule in known)
        game = cls(players_of(log), seed_of(log), rules, log.get("id"))
        actions = resolve_undo(actions_of(log))
        with game.loading():
            for action in actions:
                if upto is not None and (as_action_id(action.get("id")) or 0) > upto:
                    break
                if before_each is not None:
                    before_each(game)
                try:
                    game.apply(action)
                except GameError as e:
                    raise GameError("action {id} ({type}): {reason}", id=quoted(action.get('id')),
                                    type=quoted(action.get('type')), reason=e) \
                        from None
        return game

    def turn_info(self) -> dict:
        """Who acts and what they must do now, with the facts of that step (engine.core.turninfo)."""
        from engine.core.turninfo import turn_info

        return turn_info(self)

    def facts(self) -> dict:
        """Per-entity facts for players' views: places, phases, privates, operators (engine.core.turninfo)."""
        from engine.core.turninfo import facts

        return facts(self)

    def operator_facts(self, operator: Operator) -> dict:
        """A title's own facts about an operator (18MEX: its mail contract)."""
        return {}

    def title_facts(self) -> dict:
        """A title's own facts about the game (18MEX: the NdM merger)."""
        return {}

    # the states a corporation can be in besides operating normally, as operator_states names them
    OPERATOR_STATES: tuple[str, ...] = ()

    def operator_states(self, operator: Operator) -> list[str]:
        """The states of OPERATOR_STATES the operator is in now (1860: receivership, insolvent...)."""
        return ["receivership"] if getattr(operator, "receivership", False) else []

    def presided_by_nobody(self, corp: Corporation) -> bool:
        """A corporation the rules let go on without a president (1817: a bankrupt president's, its
        president's certificate in the market, until it is liquidated)."""
        return False

    def trace_fields(self) -> dict:
        """A title's own fields of a state line (engine.core.trace; 1817: the interest rate, loans left)."""
        return {}

    def corporation_trace_fields(self, corp: Corporation) -> dict:
        """A title's own fields of a corporation in a state line (1817: its loans and number of shares)."""
        return {}

    def map_view(self) -> dict:
        """The map as plain data for pictures, with the privates that block hexes right now and the stations
        turned face down (`face_down_stations`)."""
        view = self.hexmap.view(blocked=self.blocking_privates())
        changed_by = title_data.map_rules(self.TITLE, self.optional_rules)
        if changed_by:  # the map as optional rules change it (18MEX's Baja variant): drawn from their data
            view["map"] = "+".join((self.TITLE, *changed_by))
        down = self.face_down_stations()
        if down:
            for hv in view["hexes"].values():
                for city in hv.get("cities") or ():
                    city["face_down"] = [t for t in city["tokens"] if t in down]
        return view

    def face_down_stations(self) -> set[str]:
        """Corporations whose stations lie face down on the map (1860: bankrupt ones)."""
        return set()

    def summary(self) -> dict:
        from engine.core.trace import summary

        return summary(self)


@contextmanager
def paused_gc():
    """Replaying a log makes many small long-lived objects: the cyclic collector only slows that down."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _settings(log: dict) -> dict:
    if not isinstance(log, dict):
        raise GameError("a game log is a JSON object, not {name}", name=type(log).__name__)
    settings = log.get("settings")
    if settings is None:
        return {}
    if not isinstance(settings, dict):
        raise GameError("the log's settings are not a JSON object")
    return settings


def seed_of(log: dict) -> int:
    """The log's random seed as 18xx.games takes it: `settings.seed`, or when that is missing or empty (hotseat
    games) the first number in the game's id ("hs_abcdefgh_19354" -> 19354), else 0."""
    seed = _settings(log).get("seed")
    if seed is None or seed == "":
        digits = "".join(ch if ch.isdigit() else " " for ch in str(log.get("id", ""))).split()
        return int(digits[0]) if digits else 0
    if isinstance(seed, bool) or not (isinstance(seed, int) or (isinstance(seed, str) and seed.strip().isdigit())):
        raise GameError("the log's seed {seed} is not a whole number", seed=quoted(seed))
    return int(seed)


def optional_rules_of(log: dict) -> tuple[str, ...]:
    rules = _settings(log).get("optional_rules") or ()
    if not isinstance(rules, list | tuple) or not all(isinstance(r, str) for r in rules):
        raise GameError("the log's optional_rules are not a list of names")
    return tuple(rules)


def player_id_of(player) -> int | str:
    """A log player's id: its `id`, or where it has none its name, as 18xx.games takes it (early hotseat logs
    name their players only, and their actions name them too)."""
    given = player.get("id") if isinstance(player, dict) else None
    if given is None and isinstance(player, dict):
        given = player.get("name")
    if isinstance(given, bool) or not isinstance(given, int | str):
        raise GameError("the log's player {player} has no id", player=quoted(player))
    return given


def players_of(log: dict) -> list[dict]:
    """The log's players as {id, name}; ids are numbers or strings, as the log has them."""
    players = log.get("players") if isinstance(log, dict) else None
    if not isinstance(players, list) or not players:
        raise GameError("the log has no list of players")
    out = []
    for p in players:
        pid = player_id_of(p)
        out.append({"id": pid, "name": str(p.get("name", pid))})
    if len({str(p["id"]) for p in out}) != len(out):
        raise GameError("two of the log's players have the same id")
    return out


def with_numbered_players(log: dict) -> dict:
    """The log with its players numbered, for a store that numbers them: an id written as digits (`"330"`) made
    that number, players that have no id (named only: see player_id_of) numbered by seat, 1, 2, ... (a number no
    other player has), and every action naming them renamed, a player's number written as digits too, so that
    the log written back names each player as it is numbered (18xx.games takes an action by `"330"` for none by
    player 330)."""
    players = log.get("players") if isinstance(log, dict) else None
    players = players if isinstance(players, list) else []
    unnumbered = [i for i, p in enumerate(players) if isinstance(p, dict) and p.get("id") is None
                  and isinstance(p.get("name"), str)]
    digits = [i for i, p in enumerate(players) if isinstance(p, dict) and isinstance(p.get("id"), str)
              and p["id"].isascii() and p["id"].isdigit()]
    renamed: dict[str, int] = {str(p["id"]): p["id"] for p in players if isinstance(p, dict)
                               and isinstance(p.get("id"), int) and not isinstance(p["id"], bool)}
    renamed.update({players[i]["id"]: int(players[i]["id"]) for i in digits})
    if not renamed and not unnumbered:
        return log  # nothing to number (a malformed log is left for whoever reads it to refuse)
    taken = {p.get("id") for p in players if isinstance(p, dict) and isinstance(p.get("id"), int | str)} | \
        set(renamed.values())
    number = 0
    for i in unnumbered:
        number = next(n for n in itertools.count(number + 1) if n not in taken)
        renamed[players[i]["name"]] = number

    def player(value):
        return renamed.get(value, value) if isinstance(value, str) else value

    def action(a):
        if not isinstance(a, dict):
            return a
        out = dict(a)
        for key, value in a.items():
            if key == "entity" and a.get("entity_type", "player") == "player" or key == "user" or \
                    a.get(f"{key}_type") == "player":  # 18xx.games names an entity's kind in `<field>_type`
                out[key] = player(value)
        if isinstance(a.get("auto_actions"), list):
            out["auto_actions"] = [action(x) for x in a["auto_actions"]]
        return out

    out = {**log, "players": [{**p, "id": renamed[p["name"] if i in unnumbered else p["id"]]}
                              if i in unnumbered or i in digits else p for i, p in enumerate(players)]}
    if isinstance(log.get("actions"), list):
        out["actions"] = [action(a) for a in log["actions"]]
    if isinstance(log.get("result"), dict):
        out["result"] = {str(player(k)): v for k, v in log["result"].items()}
    return out


def actions_of(log: dict) -> list[dict]:
    actions = log.get("actions", [])
    if not isinstance(actions, list):
        raise GameError("the log's actions are not a list")
    return actions
