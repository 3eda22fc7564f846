"""18xx actions as pydantic models, field for field the 18xx.games log format.

Every action keeps unknown fields (created_at, user, ...) so a log round-trips unchanged. Known fields are
typed strictly: a price must be a number and a train id a string, so a malformed action is refused with the
field it got wrong instead of failing somewhere inside the rules.
"""

from __future__ import annotations

import bisect
import math
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from engine.core.errors import GameError, first_invalid


class Action(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)

    type: str
    entity: int | str
    entity_type: str = "player"
    id: int | None = None
    auto_actions: list[dict] = Field(default_factory=list)

    @field_validator("id", mode="before")
    @classmethod
    def _numeric_id(cls, value):
        # some exported logs write action ids as strings
        if isinstance(value, str) and value.strip().isdigit():
            return int(value)
        return value

    def to_dict(self) -> dict:
        """The log form: unset optional fields and an empty auto_actions list are left out."""
        data = self.model_dump(exclude_none=True)
        if not self.auto_actions:
            data.pop("auto_actions", None)
        return data


class Pass(Action):
    type: str = "pass"


class Bid(Action):
    type: str = "bid"
    price: int
    company: str | None = None
    corporation: str | None = None
    minor: str | None = None


class Par(Action):
    type: str = "par"
    corporation: str
    share_price: str


class ShareTrade(Action):
    """Certificates changing hands; `percent` may be less than their sum (a president's certificate
    sold for part of its value)."""

    shares: list[str] = Field(min_length=1)
    percent: int | None = None
    share_price: int | None = None
    swap: str | None = None  # a certificate given in change (18MEX NdM 5%)


class BuyShares(ShareTrade):
    type: str = "buy_shares"


class SellShares(ShareTrade):
    type: str = "sell_shares"


class BuyCompany(Action):
    type: str = "buy_company"
    company: str
    price: int


class SellCompany(Action):
    """A player sells a private to the bank (1860: for its face value less a fee)."""

    type: str = "sell_company"
    company: str
    price: int


class LayTile(Action):
    type: str = "lay_tile"
    hex: str
    tile: str
    rotation: int


class PlaceToken(Action):
    type: str = "place_token"
    city: str
    slot: int = 0
    tokener: str | None = None
    cost: int | None = None


class Route(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    train: str
    connections: list[list[str]] = Field(default_factory=list)
    hexes: list[str] | None = None
    nodes: list[str] | None = None
    revenue: int | None = None
    halts: int | None = None  # 1860: how many of the route's halts are stops
    subsidy: int | None = None  # 1860: what the halts visited pay the treasury


class RunRoutes(Action):
    type: str = "run_routes"
    routes: list[Route]
    extra_revenue: int | None = None
    subsidy: int | None = None


class Dividend(Action):
    type: str = "dividend"
    kind: str


class BuyTrain(Action):
    type: str = "buy_train"
    train: str
    price: int
    variant: str | None = None
    exchange: str | None = None


class DiscardTrain(Action):
    type: str = "discard_train"
    train: str


class Bankrupt(Action):
    type: str = "bankrupt"


class Merge(Action):
    """Merge with `corporation` (18MEX: a major into the NdM; 1817: mergers and acquisitions)."""

    type: str = "merge"
    corporation: str


class Assign(Action):
    """Assign something to `target` (18MEX: the NdM's station after a merger; 1817: privates, bridges)."""

    type: str = "assign"
    target: str
    target_type: str | None = None


class RemoveToken(Action):
    """A station taken off the map (1817: a survivor over the station limit after a merger)."""

    type: str = "remove_token"
    city: str
    slot: int


class Choose(Action):
    """A choice a step offers by name or number (1817: the number of shares of a corporation)."""

    type: str = "choose"
    choice: int | str


class TakeLoan(Action):
    """A corporation borrows from the bank; `loan` names one of the game's loans, as 18xx.games numbers them
    (it lends the next one whichever is named, and refuses an action without one)."""

    type: str = "take_loan"
    loan: int


class PayoffLoan(Action):
    type: str = "payoff_loan"
    loan: int


class Short(Action):
    """A player sells a share of `corporation` short (1817)."""

    type: str = "short"
    corporation: str


class Convert(Action):
    """A corporation grows to its next size (1817: 2 to 5, 5 to 10 shares)."""

    type: str = "convert"


class Message(Action):
    type: str = "message"
    message: str  # 18xx.games refuses a message without its text


class Log(Message):
    """A player's line in the game's log (18xx.games' `log` action, a kind of message its chat step takes).
    It changes nothing, but unlike chat it is one of the moves: undo takes it back, it ends what a redo could
    put back, and it is refused once the game is over."""

    type: str = "log"


WORDS_ONLY = ("message", "log")  # actions that only add words (chat, log lines): they change nothing in the game


class ProgramBuyShares(Action):
    """Buy a share of `corporation` each stock turn until it floats or the player holds `until_condition` shares."""

    type: str = "program_buy_shares"
    corporation: str
    until_condition: Literal["float"] | int  # 18xx.games refuses an order without its end
    from_market: bool = False
    auto_pass_after: bool = False


class ProgramSharePass(Action):
    type: str = "program_share_pass"
    unconditional: bool = False
    indefinite: bool = False


class ProgramDisable(Action):
    type: str = "program_disable"
    reason: str  # 18xx.games refuses it without a reason
    original_type: str | None = None


class ProgramMergerPass(Action):
    type: str = "program_merger_pass"
    corporations_by_round: dict[str, list[str]] = Field(default_factory=dict)
    options: list[str] = Field(default_factory=list)


def whole_number(value):
    """A number as a program's form sends it: a number, or text read as the whole number it starts with (0 when
    it starts with none, as 18xx.games reads such a field)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return value  # refused by the field's type
    if isinstance(value, float):
        return int(value) if math.isfinite(value) else value
    if isinstance(value, int):
        return value
    match = re.match(r"\s*([+-]?\d+)", value)
    return int(match.group(1)) if match else 0


class ProgramAuctionBid(Action):
    """In an opening waterfall auction: buy `bid_target` when it is the cheapest private and costs at most
    `buy_price`, or bid on it up to `maximum_bid`; otherwise pass, unless it stops itself (`auto_pass_after`
    off: once others bid on a private it would only buy, or once the price passes its maximum)."""

    type: str = "program_auction_bid"
    bid_target: str
    enable_maximum_bid: bool | None = False
    maximum_bid: int
    enable_buy_price: bool | None = False
    buy_price: int
    auto_pass_after: bool | None = False

    _whole = field_validator("maximum_bid", "buy_price", mode="before")(classmethod(
        lambda cls, value: whole_number(value)))


class EndGame(Action):
    type: str = "end_game"


ACTION_TYPES: dict[str, type[Action]] = {
    "pass": Pass, "bid": Bid, "par": Par, "buy_shares": BuyShares, "sell_shares": SellShares,
    "buy_company": BuyCompany, "sell_company": SellCompany, "lay_tile": LayTile, "place_token": PlaceToken, "run_routes": RunRoutes,
    "dividend": Dividend, "buy_train": BuyTrain, "discard_train": DiscardTrain, "bankrupt": Bankrupt,
    "merge": Merge, "assign": Assign, "choose": Choose, "take_loan": TakeLoan, "payoff_loan": PayoffLoan,
    "short": Short, "convert": Convert, "remove_token": RemoveToken,
    "message": Message, "log": Log, "program_buy_shares": ProgramBuyShares, "program_share_pass": ProgramSharePass,
    "program_disable": ProgramDisable, "program_merger_pass": ProgramMergerPass,
    "program_auction_bid": ProgramAuctionBid, "end_game": EndGame,
}


def register_action(kind: str, model: type[Action]) -> None:
    """A title's own kind of action (its model validates the log fields)."""
    existing = ACTION_TYPES.get(kind)
    if existing is not None and existing is not model:
        raise ValueError(f"action type {kind!r} is already registered")
    ACTION_TYPES[kind] = model


MAX_QUOTED = 40  # an error message quotes at most this much of a bad value


def quoted(value: Any) -> str:
    """A value as an error message shows it: repr, cut short."""
    return brief(repr(value))


def brief(value: Any) -> str:
    """A value as an error message shows it, as text cut short (ids typed by players are echoed this way)."""
    text = str(value)
    return text if len(text) <= MAX_QUOTED else text[: MAX_QUOTED - 3] + "..."


def parse_action(data: dict[str, Any] | Action) -> Action:
    """A log dict -> its typed action; GameError on an unknown type or malformed fields."""
    if isinstance(data, Action):
        return data
    if not isinstance(data, dict):
        raise GameError("an action is a JSON object, not {name}", name=type(data).__name__)
    kind = data.get("type")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise GameError("unknown action type {kind}", kind=quoted(kind))
    try:
        return cls.model_validate(data)
    except ValidationError as e:
        where, reason, given = first_invalid(e.errors(), ("int", "str", "literal['float']"))
        if not given:
            raise GameError("malformed {kind} action: {field} {reason}", kind=kind, field=where or "action",
                            reason=reason) from None
        raise GameError("malformed {kind} action: {field} {reason}, not {value}", kind=kind, field=where or "action",
                        reason=reason, value=quoted(e.errors()[0]["input"])) from None


def require_json(data: Any, where: str = "action") -> None:
    """GameError unless `data` is plain JSON (what a log can store): objects with string keys, arrays,
    strings, whole or finite numbers, booleans and null."""
    if data is None or isinstance(data, str | bool | int):
        return
    if isinstance(data, float):
        if data != data or data in (float("inf"), float("-inf")):
            raise GameError("{where} holds {data}, which a game log can't store", where=where, data=data)
        return
    if isinstance(data, list):
        for item in data:
            require_json(item, where)
        return
    if isinstance(data, dict):
        for key, value in data.items():
            if not isinstance(key, str):
                raise GameError("{where} has a field named {hex}: field names are strings", where=where,
                                hex=quoted(key))
            require_json(value, f"{where} field {quoted(key)}" if where == "action" else where)
        return
    raise GameError("{where} holds a {name}, which a game log can't store", where=where,
                    name=type(data).__name__)


def as_action_id(value) -> int | None:
    """An action id as a number (logs may write it as a string, or as a float: 18xx.games finds action 40 for
    40.0); None if it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def resolve_undo(actions: list[dict]) -> list[dict]:
    """The actions an 18xx.games log applies once its undo and redo markers are resolved
    (docs/formats/log.md section 3).

    Chat is never undone. The kept game actions form a stack: `undo` takes its top action, `undo` with
    `action_id: N` every kept action after the one with id N (the first such action in the log), and each undo
    is remembered so that `redo` can put it back, until the next game action. As on 18xx.games, an undo to an id
    no action has and a redo with no undo open are refused (its pages never send them). Linear in the log: the
    stack is an array whose tail past `top` still holds what the open undos took, so an undo or a redo only
    moves `top`.
    """
    for i, action in enumerate(actions):
        if not isinstance(action, dict):
            raise GameError("action {n} of the log is not a JSON object", n=i + 1)
    first_position: dict[int, int] = {}
    for i, action in enumerate(actions):
        action_id = as_action_id(action.get("id"))
        if action_id is not None:
            first_position.setdefault(action_id, i)
    stack: list[int] = []  # log positions of kept game actions, in order; only stack[:top] are kept
    top = 0
    undone: list[tuple[int, int]] = []  # (top before, top after) of each open undo
    for i, action in enumerate(actions):
        kind = action.get("type")
        if kind == "message":
            continue
        if kind == "undo":
            target = action.get("action_id")
            if target is None:
                new_top = max(top - 1, 0)
            elif as_action_id(target) is None:
                raise GameError("undo {id}: action_id {target} is not an action id",
                                id=quoted(action.get('id')), target=quoted(target))
            elif as_action_id(target) == 0:
                new_top = 0
            elif as_action_id(target) in first_position:
                new_top = bisect.bisect_right(stack, first_position[as_action_id(target)], 0, top)
            else:
                raise GameError("undo {id}: no action of the log has the id {target}", id=quoted(action.get('id')),
                                target=quoted(target))
            undone.append((top, new_top))
            top = new_top
        elif kind == "redo":
            if not undone:
                raise GameError("redo {id}: there is no undo to redo", id=quoted(action.get('id')))
            top = undone.pop()[0]
        else:
            del stack[top:]
            stack.append(i)
            top += 1
            undone.clear()
    kept = [False] * len(actions)
    for i in stack[:top]:
        kept[i] = True
    return [a for i, a in enumerate(actions) if kept[i] or a.get("type") == "message"]
