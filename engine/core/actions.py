"""18xx actions as pydantic models, field for field the 18xx.games log format.

Every action keeps unknown fields (created_at, user, ...) so a log round-trips unchanged.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.core.errors import GameError


class Action(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: str
    entity: int | str
    entity_type: str = "player"
    id: int | None = None
    auto_actions: list[dict] = Field(default_factory=list)

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

    shares: list[str]
    percent: int | None = None
    share_price: int | None = None


class BuyShares(ShareTrade):
    type: str = "buy_shares"


class SellShares(ShareTrade):
    type: str = "sell_shares"


class BuyCompany(Action):
    type: str = "buy_company"
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
    model_config = ConfigDict(extra="allow")
    train: str
    connections: list[list[str]] = Field(default_factory=list)
    hexes: list[str] | None = None
    nodes: list[str] | None = None
    revenue: int | None = None


class RunRoutes(Action):
    type: str = "run_routes"
    routes: list[Route]
    extra_revenue: int | None = None


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


class Message(Action):
    type: str = "message"
    message: str = ""


class Program(Action):
    """program_buy_shares / program_share_pass / program_disable / program_merger_pass."""


class EndGame(Action):
    type: str = "end_game"


ACTION_TYPES: dict[str, type[Action]] = {
    "pass": Pass, "bid": Bid, "par": Par, "buy_shares": BuyShares, "sell_shares": SellShares,
    "buy_company": BuyCompany, "lay_tile": LayTile, "place_token": PlaceToken, "run_routes": RunRoutes,
    "dividend": Dividend, "buy_train": BuyTrain, "discard_train": DiscardTrain, "bankrupt": Bankrupt,
    "merge": Merge, "assign": Assign,
    "message": Message, "program_buy_shares": Program, "program_share_pass": Program,
    "program_disable": Program, "program_merger_pass": Program, "end_game": EndGame,
}


def register_action(kind: str, model: type[Action]) -> None:
    """A title's own kind of action (its model validates the log fields)."""
    existing = ACTION_TYPES.get(kind)
    if existing is not None and existing is not model:
        raise ValueError(f"action type {kind!r} is already registered")
    ACTION_TYPES[kind] = model


def parse_action(data: dict[str, Any] | Action) -> Action:
    """A log dict -> its typed action; GameError on an unknown type or malformed fields."""
    if isinstance(data, Action):
        return data
    kind = data.get("type")
    cls = ACTION_TYPES.get(kind)
    if cls is None:
        raise GameError(f"unknown action type {kind!r}")
    try:
        return cls.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise GameError(f"malformed {kind} action: {where}: {first['msg']}") from None


def resolve_undo(actions: list[dict]) -> list[dict]:
    """The actions an 18xx.games log applies after its undo/redo markers are resolved (FORMAT.md s.3)."""
    alive = [False] * len(actions)
    groups: list[list[int]] = []
    for i, action in enumerate(actions):
        kind = action.get("type")
        if kind == "undo":
            target = action.get("action_id")
            if target is None:
                removed = next(([j] for j in range(i - 1, -1, -1)
                                if alive[j] and actions[j].get("type") != "message"), [])
            else:
                # back to just after action `target` (or the last one before it, if that id is missing)
                pos = max((j for j in range(i) if (actions[j].get("id") or 0) <= target), default=-1)
                removed = [j for j in range(pos + 1, i) if alive[j] and actions[j].get("type") != "message"]
            for j in removed:
                alive[j] = False
            groups.append(removed)
        elif kind == "redo":
            if groups:
                for j in groups.pop():
                    alive[j] = True
        else:
            alive[i] = True
            if kind != "message":
                groups.clear()
    return [a for a, keep in zip(actions, alive, strict=True) if keep]
