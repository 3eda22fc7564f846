"""Steam player actions: pydantic v2 models, a discriminated union on "type", and their log form.

Inside the engine an action names the acting player by seat index (`player`, 0-based, in the order of
Settings.players) and hexes as (q, r) tuples.  Outside (the log, `apply`, `legal_actions`) an action is a
plain dict read like an 18xx.games action: `{"id", "type", "entity": <player id>, "entity_type": "player",
...fields}` with hexes written "q,r".  `from_dict` and `to_dict` translate between the two.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from engine.core.errors import GameError, first_invalid

HexT = tuple[int, int]


class _Base(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    player: int


class Bid(_Base):
    """Turn-order auction: basic setup auction or standard phase 2."""
    type: Literal["bid"] = "bid"
    amount: int


class Pass(_Base):
    """Pass in an auction, or pass your action in a move-goods cycle.

    `free_pass` is said only by the holder of the First Player free pass in the standard auction: True uses it
    (stay in), False declines it and drops out.  Left out (None, and every pass logged before the field), the
    holder uses it, as the engine always did."""
    type: Literal["pass"] = "pass"
    free_pass: bool | None = None


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
    """Lay a New City tile of `color` on a town hex (Urbanization); it takes the cubes of reserve hex
    `reserve` (0-based), which may be left out only when every reserve hex is empty."""
    type: Literal["urbanize"] = "urbanize"
    hex: HexT
    color: Literal["red", "blue", "yellow", "purple", "gray"]
    reserve: int | None = None


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
MODELS: dict[str, type[_Base]] = {m.model_fields["type"].default: m for m in (
    Bid, Pass, Capital, TakeTile, Lay, Upgrade, Redirect, Urbanize, Grow, EndBuild, Move, UpgradeLoco, Score)}
HEX_FIELDS = ("hex", "city")
# written only when said: a plain pass logs as it did before the field existed
OMITTED_WHEN_NONE = ("free_pass",)
ENVELOPE = ("id", "type", "entity", "entity_type")


def parse_action(data) -> BaseModel:
    """A seat-indexed dict or an action model -> action model (inside the engine and its tests)."""
    if isinstance(data, BaseModel):
        return data
    return _ADAPTER.validate_python(data)


def fields_of(kind: str) -> list[str]:
    """The fields an action of this type carries besides the envelope (id, type, entity)."""
    return [f for f in MODELS[kind].model_fields if f not in ("type", "player")]


def _hex_text(h) -> str:
    return f"{h[0]},{h[1]}"


def _read_hex(kind: str, name: str, value) -> tuple[int, int]:
    try:
        if isinstance(value, str):
            q, r = value.split(",")
        else:
            q, r = value
        if isinstance(q, float) or isinstance(r, float) or isinstance(q, bool) or isinstance(r, bool):
            raise ValueError
        return int(q), int(r)
    except (TypeError, ValueError):
        raise GameError("{kind}: {name} must be a hex written \"q,r\" (e.g. \"3,4\"), not {value}", kind=kind,
                        name=name, value=repr(value)) from None


def from_dict(data, seat_of) -> BaseModel:
    """The log form of an action (see the module docstring) -> the engine's model.

    `seat_of(player_id)` gives the seat of a player id or raises GameError.  Anything malformed raises
    GameError naming the problem: an unknown type, a missing or unknown field, a value of the wrong kind."""
    if not isinstance(data, dict):
        raise GameError("a Steam action is a JSON object, not {name}", name=type(data).__name__)
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in MODELS:
        raise GameError("unknown Steam action type {kind}; types: {models}", kind=repr(kind),
                        models=', '.join(MODELS))
    if data.get("entity_type", "player") != "player":
        raise GameError("{kind}: Steam actions are taken by players (entity_type \"player\"), not {entity_type}",
                        kind=kind, entity_type=repr(data.get('entity_type')))
    if "entity" not in data:
        raise GameError("{kind}: the acting player's id (entity) is missing", kind=kind)
    allowed = fields_of(kind)
    unknown = [k for k in data if k not in allowed and k not in ENVELOPE]
    if unknown:
        if not allowed:
            raise GameError("{kind}: unknown field(s) {fields}; a {kind} action takes no fields", kind=kind,
                            fields=", ".join(map(repr, unknown)))
        raise GameError("{kind}: unknown field(s) {fields}; a {kind} action takes {allowed}", kind=kind,
                        fields=", ".join(map(repr, unknown)), allowed=", ".join(allowed))
    if data.get("id") is not None and (not isinstance(data["id"], int) or isinstance(data["id"], bool)):
        raise GameError("{kind}: the action id must be an integer, not {id}", kind=kind, id=repr(data['id']))
    body = {k: v for k, v in data.items() if k in allowed}
    for name in HEX_FIELDS:
        if name in body:
            body[name] = _read_hex(kind, name, body[name])
    if "links" in body and isinstance(body["links"], list):
        body["links"] = tuple(body["links"])
    try:
        return MODELS[kind].model_validate({"type": kind, "player": seat_of(data["entity"]), **body})
    except ValidationError as e:
        where, reason, given = first_invalid(e.errors())
        if not given:
            raise GameError("{kind}: {field} {reason}", kind=kind, field=where or "value", reason=reason) from None
        raise GameError("{kind}: {field} {reason}, not {value}", kind=kind, field=where or "value", reason=reason,
                        value=repr(e.errors()[0]["input"])) from None


def to_dict(action: BaseModel, player_id, action_id: int | None = None) -> dict:
    """The engine's model -> the log form, fields in a fixed order, defaults kept (explicit logs) but for an
    unsaid `free_pass`."""
    out: dict = {} if action_id is None else {"id": action_id}
    out.update({"type": action.type, "entity": player_id, "entity_type": "player"})
    for name in fields_of(action.type):
        value = getattr(action, name)
        if value is None and name in OMITTED_WHEN_NONE:
            continue
        if name in HEX_FIELDS:
            value = _hex_text(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[name] = value
    return out
