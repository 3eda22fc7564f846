"""Rounds: who acts in which order, made of steps that each declare the actions they accept.

Modelled on 18xx.games: an action goes to the first step that is either blocking (it must act now)
or accepts it; after it, steps with nothing left to do are skipped.
"""

from __future__ import annotations

from engine.core.entities import Company, Corporation, Player
from engine.core.errors import GameError, Phrase
from engine.core.steps.stock import certificates_on_offer


class Round:
    name = "Round"
    kind = "round"  # what the game's round flow goes by: after_<kind>_round picks the next round
    stock = False  # a stock round: players buy and sell, programs act
    operating = False  # an operating round: corporations take turns
    auction = False  # an opening auction: auction programs act, and last while it does
    merger = False  # a merger round (1817's merger and acquisition rounds): merger-round programs act
    # a pass here may set something off a player would want told before they send it (a sale ended, a
    # liquidation, interest borrowed for, the liquidation zone): a user interface previews it (turn_info)
    passes_set_off = False
    short_name = ""  # 18xx.games' short name of the round, as programs name it (1817: "MR", "AR")

    def __init__(self, game, step_classes, round_num: int = 1) -> None:
        self.game = game
        self.round_num = round_num
        self.steps = [cls(game, self) for cls in step_classes]
        self.entities: list = []
        self.entity_index = 0
        self.at_start = True  # nothing has been done in this round yet
        # shared by the steps of a turn: tile lays made, a station placed, a private that teleported
        self.num_laid_track = 0
        self.tokened = False
        self.teleported = None
        # step -> blocking() and (step, entity) -> actions, valid until the state changes (cleared around
        # every change)
        self.blocking_cache: dict = {}

    # --- who acts -----------------------------------------------------------------------------
    @property
    def current_entity(self):
        if 0 <= self.entity_index < len(self.entities):
            return self.entities[self.entity_index]
        return None

    def active_step(self):
        for step in self.steps:
            if not step.passed and step.blocking():
                return step
        return None

    def active_entities(self) -> list:
        step = self.active_step()
        return step.active_entities() if step else []

    @property
    def finished(self) -> bool:
        raise NotImplementedError

    @property
    def description(self) -> str:
        return f"{self.name} {self.game.turn}"

    def start(self) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        """End-of-round bookkeeping."""

    def priority_player(self) -> Player | None:
        """Who acts first in the next stock round, when this round sets it."""
        return self.entities[self.entity_index % len(self.entities)] if self.entities else None

    # --- actions ------------------------------------------------------------------------------
    def step_for(self, action, entity):
        """The step that takes `action` from `entity` now. If none, GameError says whose turn it is or which
        rule stands in the way. Changes nothing."""
        self.blocking_cache.clear()
        for step in self.steps:
            if step.passed:
                continue
            accepts = action.type in self.cached_actions(step, entity)
            if step.blocking() and not accepts:
                raise self.explain_refusal(step, entity, action)
            if accepts:
                return step
        raise self.power_refusal(entity, action) or \
            GameError("{name} can't {action} now", name=self.game.name_of(entity),
                      action=Phrase(action.type.replace('_', ' '), "action"))

    def process(self, action, entity=None, step=None) -> None:
        """Let the step that takes the action process it (`entity` and `step` as `step_for` found them)."""
        if step is None:
            entity = self.game.entity(action)
            step = self.step_for(action, entity)
        getattr(step, "process_" + action.type)(action, entity)
        self.at_start = False
        self.blocking_cache.clear()
        self.skip_steps()
        self.after_process(action, entity)

    def cached_actions(self, step, entity) -> tuple[str, ...]:
        key = (step, entity)
        acts = self.blocking_cache.get(key)
        if acts is None:
            acts = self.blocking_cache[key] = step.actions(entity)
        return acts

    def explain_refusal(self, blocking_step, entity, action) -> GameError:
        """The specific rule an action breaks, when a step that handles it can tell; else whose turn it is."""
        if self.game.player_of(entity) in [self.game.player_of(e) for e in blocking_step.active_entities()]:
            for step in self.steps:
                if hasattr(step, "process_" + action.type):
                    reason = step.why_not(entity, action)
                    if reason:
                        return reason
        return self.power_refusal(entity, action) or blocking_step.refusal(entity, action.type)

    def power_refusal(self, entity, action) -> GameError | None:
        """A private's station tried in a round none of whose steps places one (a stock round): why, and when it
        is placed (18MEX's Boleo: in its corporation's turn of an operating round)."""
        if action.type != "place_token" or not isinstance(entity, Company) or \
                any(hasattr(step, "process_place_token") for step in self.steps):
            return None
        return self.game.station_power_refusal(entity)

    def skip_steps(self) -> None:
        for step in self.steps:
            if step.passed or not step.blocks:
                continue
            if step.blocking():
                break
            step.skip()
            self.blocking_cache.clear()

    def after_process(self, action, entity) -> None:
        pass

    def next_entity(self) -> None:
        raise NotImplementedError

    def begin_entity_turn(self) -> None:
        """Fresh steps for the entity whose turn starts; straight on if it has nothing to do."""
        self.blocking_cache.clear()
        for step in self.steps:
            step.passed = False
            step.setup()
        self.skip_steps()
        if self.active_step() is None:
            entity = self.current_entity
            if entity is not None:
                self.game.passed_over.append({"entity": entity.key, "entity_type": entity.kind,
                                              **self.pass_over_reason(entity)})
            self.next_entity()

    def pass_over_reason(self, entity) -> dict:
        """Why `entity`, whose turn came, was passed over (it could do nothing): {"why": …, facts}. Rounds where
        it happens say more."""
        return {"why": "nothing_to_do"}

    def steps_open_to_actor(self, entity=None) -> tuple[object, list]:
        """(acting entity, the steps it may use now): optional steps before the active one, then that one. The
        acting entity is the first to act, or `entity` if it is one of those to act."""
        step = self.active_step()
        if step is None or not step.active_entities():
            return None, []
        if entity not in step.active_entities():
            entity = step.active_entities()[0]
        open_steps = [s for s in self.steps[: self.steps.index(step)] if not s.passed and not s.blocks]
        return entity, open_steps + [step]

    def action_types(self) -> list[str]:
        """The kinds of action the acting entity may take now (cheap: no enumeration)."""
        entity, steps = self.steps_open_to_actor()
        return list(dict.fromkeys(t for s in steps for t in self.cached_actions(s, entity)))

    def offered_by(self, step, action: dict) -> bool:
        """The step takes this kind of action from its entity now (what `process` will look for)."""
        game = self.game
        kind = action["entity_type"]
        lookup = {"player": game.player, "corporation": game.corporation, "minor": game.minor,
                  "company": game.company}.get(kind)
        return lookup is not None and action["type"] in self.cached_actions(step, lookup(action["entity"]))

    def company_actions(self, players=None) -> list[dict]:
        """What privates may do now, whoever's turn it is (abilities usable between turns, e.g. 1830 MH's
        exchange or DH's teleport): the legal actions of steps that come before the first blocking one, for
        the privates of `players` (all players by default)."""
        out: list[dict] = []
        for step in self.steps:
            if step.passed:
                continue
            if step.for_companies and (not step.blocks or not step.blocking()):
                for player in self.game.players if players is None else players:
                    out.extend(a for a in step.legal(player) if a["entity_type"] == "company"
                               and self.offered_by(step, a))
            if step.blocking():
                break
        return out

    def legal_actions(self, entity=None) -> list[dict]:
        """The acting entity's legal moves (`entity`: one of several to act, see `steps_open_to_actor`)."""
        entity, steps = self.steps_open_to_actor(entity)
        out: list[dict] = [a for s in steps for a in s.legal(entity) if self.offered_by(s, a)]
        unique = {}
        for action in out:
            unique.setdefault(repr(sorted(action.items())), action)
        return list(unique.values())


class AuctionRound(Round):
    """The opening sale of private companies."""

    name = "Auction Round"
    kind = "auction"
    auction = True

    def start(self) -> None:
        self.entities = list(self.game.players)
        self.entity_index = 0
        for p in self.entities:
            p.passed = False
        for step in self.steps:
            step.setup()

    @property
    def finished(self) -> bool:
        return all(step.done() for step in self.steps)

    def next_entity_index(self) -> None:
        self.entity_index = (self.entity_index + 1) % len(self.entities)
        self.blocking_cache.clear()


class StockRound(Round):
    name = "Stock Round"
    kind = "stock"
    stock = True

    def start(self) -> None:
        self.entities = [p for p in self.game.players if not p.bankrupt]
        self.entity_index = 0
        self.players_sold: dict[int, set[str]] = {}
        # player id -> corporation -> [(action order, kind)] of the player's latest turn (programs read it)
        self.players_history: dict[int, dict[str, list[tuple[int, str]]]] = {}
        for p in self.entities:
            p.passed = False
        self.begin_entity_turn()

    @property
    def finished(self) -> bool:
        return all(p.passed for p in self.entities)

    def after_process(self, action, entity) -> None:
        if self.active_step() is None:
            self.next_entity()

    def next_entity(self) -> None:
        # when everyone has passed the index is left on the player after the last to act: priority
        self.entity_index = (self.entity_index + 1) % len(self.entities)
        self.blocking_cache.clear()
        if not self.finished:
            self.begin_entity_turn()

    def pass_over_reason(self, entity) -> dict:
        """A player is passed over when they may neither buy nor sell: at the certificate limit, or else
        with too little cash for any certificate on offer (selling being closed to them then either way).
        A player at or over the limit is stopped by his cash when the limit lets him buy a certificate on
        offer (one of a corporation whose price is in a zone off the limit)."""
        game = self.game
        certificates, limit = game.num_certs(entity), game.cert_limit
        if limit and certificates >= limit and not any(
                game.has_room_for(entity, share) for corp in game.corporations
                for share in certificates_on_offer(game, corp)):
            return {"why": "cert_limit", "certificates": certificates, "cert_limit": limit}
        return {"why": "cash", "cash": entity.cash}

    def finish(self) -> None:
        """Prices move at the end of the round: up for a corporation the players hold all of, and down (as the
        title says) for one with shares in the market; each move is told (`game.outcomes`, `price_moved`)."""
        game = self.game
        drops = {"down_share": "down", "down_block": "down", "left_block": "left"}
        for corp in sorted((c for c in game.corporations if c.floated and c.share_price), key=game.operating_sort_key):
            was = corp.share_price.price
            game.market.move(corp, "up", game.sold_out_moves(corp))
            game.note_price_move(corp, was, "sold_out")
            # 18xx.games counts the market's shares by its holdings ledger, which a short's backing share never
            # enters (1817): a market short bought back leaves the ledger negative, and nothing drops
            pooled = corp.holdings.get(game.pool, 0)
            if game.rules.pool_share_drop in drops and pooled > 0:
                times = pooled // corp.share_percent if game.rules.pool_share_drop == "down_share" else 1
                was = corp.share_price.price
                game.market.move(corp, drops[game.rules.pool_share_drop], times)
                game.note_price_move(corp, was, "market_shares")


class OperatingRound(Round):
    name = "Operating Round"
    kind = "operating"
    operating = True

    @property
    def description(self) -> str:
        return f"{self.name} {self.game.turn}.{self.round_num} (of {self.game.operating_rounds})"

    # A train that has run stays marked until the next operating round starts, as on 18xx.games: one that
    # passes to another operator in the round (an 18MEX merger, a sale) does not run again in it. 1860
    # clears the marks at each operator's turn instead.
    trains_run_again_each_turn = False

    def start(self) -> None:
        self.game.payout_companies()
        self.entities = self.game.operating_order()
        self.game.outcomes.append({"event": "operating_order", "operators": [op.key for op in self.entities]})
        if self.game.rules.home_token_timing == "operating_round":
            for operator in self.entities:
                self.game.place_home_token(operator)
        for operator in self.entities:
            for train in operator.trains:
                train.operated = False
        self.entity_index = 0
        self.routes: list = []
        self.revenue = 0
        self.operator_acted = False
        self.done = not self.entities
        if self.entities:
            self.start_operating()

    @property
    def finished(self) -> bool:
        return self.done

    def current_operator(self) -> Corporation | None:
        return None if self.done else self.current_entity

    def start_operating(self) -> None:
        corp: Corporation = self.current_entity
        self.operator_acted = False
        if self.trains_run_again_each_turn:
            for train in corp.trains:
                train.operated = False
        self.routes = []
        self.revenue = 0
        if self.game.rules.home_token_timing == "operate":
            self.game.place_home_token(corp)
        self.begin_entity_turn()

    def after_process(self, action, entity) -> None:
        operator = self.current_operator()
        if operator is not None and (entity is operator or getattr(entity, "owner", None) is operator):
            self.operator_acted = True
        # an operator that closed in its own turn (18MEX: merged into the NdM) ends it, whatever is left;
        # as the last of the round, the round still waits for a step that blocks for another entity (the
        # NdM choosing which of the merged major's stations it keeps): a round ends when none blocks
        if not self.done and (self.active_step() is None or self.current_entity.closed):
            if not (self.current_entity.closed and self.waits_for_others()):
                self.next_entity()

    def waits_for_others(self) -> bool:
        """After its last operator, whether a step still blocks for someone else."""
        if any(not c.closed for c in self.entities[self.entity_index + 1:]):
            return False
        step = self.active_step()
        return step is not None and any(e is not self.current_entity for e in step.active_entities())

    def next_entity(self) -> None:
        game = self.game
        rest = [c for c in self.entities[self.entity_index + 1:] if not c.closed]
        rest.sort(key=game.operator_order_key)
        self.entities = self.entities[: self.entity_index + 1] + rest
        self.entity_index += 1
        self.blocking_cache.clear()
        if self.entity_index >= len(self.entities) or game.finished:
            self.done = True
            return
        self.start_operating()
