"""Steam player actions: pydantic v2 models, a discriminated union on "type".

Hexes are written [q, r] (flat-top axial, see docs/steam-rules.md).  Every action names the acting
player by seat index (0-based, in the order of Settings.players).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

HexT = tuple[int, int]


class _Base(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    player: int


class Bid(_Base):
    """Turn-order auction: basic setup auction or standard phase 2."""
    type: Literal["bid"] = "bid"
    amount: int


class Pass(_Base):
    """Pass in an auction, or pass your action in a move-goods cycle."""
    type: Literal["pass"] = "pass"


class Capital(_Base):
    """Standard phase 1: borrow `loans` x $5 (income -1 each)."""
    type: Literal["capital"] = "capital"
    loans: int = Field(ge=0)


class TakeTile(_Base):
    """Select an action tile 1-7.  Basic game: for City Growth (5) / Urbanization (7), use=False passes."""
    type: Literal["take_tile"] = "take_tile"
    tile: int
    use: bool = True


class _TrackBuild(_Base):
    """What the three track builds share: a hex, a track tile id and its rotation (0-5, clockwise)."""
    type: str
    hex: HexT
    tile: str
    rotation: int = Field(ge=0, le=5)


class Lay(_TrackBuild):
    """Lay a track tile on an empty hex."""
    type: Literal["lay"] = "lay"


class Upgrade(_TrackBuild):
    """Replace a tile with one that keeps all its track and adds more."""
    type: Literal["upgrade"] = "upgrade"


class Redirect(_TrackBuild):
    """Rotate or replace the open-end tile of an incomplete link."""
    type: Literal["redirect"] = "redirect"


class Urbanize(_Base):
    """Lay a New City tile of `color` on a town hex (Urbanization)."""
    type: Literal["urbanize"] = "urbanize"
    hex: HexT
    color: Literal["red", "blue", "yellow", "purple", "gray"]


class Grow(_Base):
    """City Growth: move all cubes of reserve hex `reserve` (0-based) to `city`."""
    type: Literal["grow"] = "grow"
    reserve: int
    city: HexT


class EndBuild(_Base):
    """Finish your build turn (standard game: also declines an unused Urbanization/City Growth)."""
    type: Literal["end_build"] = "end_build"


class Move(_Base):
    """Deliver one cube of `color` from `city` along the complete links `links` (ids, in order).

    `to` is where the mover puts their own points: "income" or "vp"."""
    type: Literal["move"] = "move"
    city: HexT
    color: Literal["red", "blue", "yellow", "purple", "gray"]
    links: tuple[str, ...]
    to: Literal["income", "vp"] = "income"


class UpgradeLoco(_Base):
    """Move-goods phase: raise your locomotive one level instead of moving a cube (free, once per phase)."""
    type: Literal["upgrade_loco"] = "upgrade_loco"


class Score(_Base):
    """Another scorer's choice after a delivery: put all of this delivery's points on income or VP."""
    type: Literal["score"] = "score"
    to: Literal["income", "vp"]


Action = Annotated[
    Bid | Pass | Capital | TakeTile | Lay | Upgrade | Redirect | Urbanize | Grow | EndBuild | Move
    | UpgradeLoco | Score,
    Field(discriminator="type"),
]

_ADAPTER: TypeAdapter = TypeAdapter(Action)


def parse_action(data) -> BaseModel:
    """A dict (or JSON-ready mapping) or an action model -> action model."""
    if isinstance(data, BaseModel):
        return data
    return _ADAPTER.validate_python(data)


def dump_action(action: BaseModel) -> dict:
    return action.model_dump(mode="json")
