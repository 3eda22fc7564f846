"""When a private's ability may be used: its owner type and its `when` values, as 18xx.games reads them.

An ability with no `when` is passive: it applies at any time (a blocked hex); a teleport with no `when`
is made while its corporation lays track. `when` names
either a step ("track", "token", "route", "dividend", "buy_train": usable while that step is the
current one of the owning corporation's turn, or the owning player's stock-round turn) or a moment:

- "any": always
- "owning_corp_or_turn": during the turn of the corporation that owns the private
- "owning_player_or_turn": during the turn of a corporation presided by the player who owns the private
- "owning_player_track" / "owning_player_token": the same, while it lays track / places a token
- "owning_player_sr_turn": the owning player's stock-round turn
- "or_between_turns": in an operating round before the corporation to operate has acted
- "or_start": at the start of an operating round, before anyone acted
- "stock_round": any time in a stock round

A caller asking about given moments (`times`) gets True for a `when` among them that names no rule
above; without `times` only the `when` values themselves are checked.
"""

from __future__ import annotations

from engine.core.entities import Company, Corporation, Player

# the steps whose names a `when` may give, in the order 18xx.games looks for the current one
STEP_NAMES = {"Track": "track", "Token": "token", "Route": "route", "Dividend": "dividend", "BuyTrain": "buy_train"}


def whens(ability: dict) -> list[str]:
    value = ability.get("when")
    if not value:
        # a teleport with no stated time is made while its corporation lays track
        return ["track"] if ability["type"] == "teleport" else []
    return [str(w) for w in value] if isinstance(value, list) else [str(value)]


def passive(ability: dict) -> bool:
    if ability["type"] == "teleport":
        return False
    return bool(ability.get("passive", not whens(ability)))


def right_owner(company: Company, ability: dict) -> bool:
    kind = ability.get("owner_type")
    if kind == "player":
        return company.owner is None or isinstance(company.owner, Player)
    if kind == "corporation":
        return isinstance(company.owner, Corporation)
    return True


def current_step_name(round_) -> str | None:
    """The step of the turn the round is at, among those a `when` may name."""
    for step in round_.steps:
        name = step_name(step)
        if name and not step.passed and step.blocks:
            return name
    return None


def step_name(step) -> str | None:
    for cls in type(step).__mro__:
        if cls.__name__ in STEP_NAMES:
            return STEP_NAMES[cls.__name__]
    return None


def right_time(game, company: Company, ability: dict, times: tuple[str, ...] | None = None,
               passive_ok: bool = True) -> bool:
    kinds = whens(ability)
    if "any" in kinds:
        return True
    if passive(ability):
        if not passive_ok:
            return False
        if not kinds:
            return True
    return _check(game, company, kinds, times)


def usable(game, company: Company, ability: dict, times: tuple[str, ...] | None = None,
           passive_ok: bool = True) -> bool:
    """The ability is live (not used up or removed), its private has the right owner, now is its time, and a
    station it grants has somewhere to go."""
    return game.ability_live(company, ability) and right_owner(company, ability) and \
        right_time(game, company, ability, times, passive_ok) and station_site_left(game, company, ability)


def station_site_left(game, company: Company, ability: dict) -> bool:
    """A station ability on named hexes (type "token") counts, as on 18xx.games, only while the corporation
    owning the private has a station left on its charter and none yet on one of those hexes."""
    corp = company.owner
    if ability["type"] != "token" or not ability.get("hexes") or not isinstance(corp, Corporation):
        return True
    if not corp.tokens_left:
        return False
    tokened = game.hexmap.tokened_hexes(corp.sym)
    return any(coord not in tokened for coord in ability["hexes"])


def _check(game, company: Company, kinds: list[str], times) -> bool:
    round_ = game.round
    operating = getattr(round_, "operating", False)
    stock = getattr(round_, "stock", False)
    operator = round_.current_operator() if operating else None
    owner = company.owner
    corp_owned = isinstance(owner, Corporation)
    player = owner if isinstance(owner, Player) else getattr(owner, "owner", None)
    player_owned = isinstance(owner, Player)
    step = current_step_name(round_)
    check = [k for k in kinds if k in times] if times else kinds
    default = bool(times)
    for kind in check:
        if kind == step:
            ok = (operating and operator is not None and operator is (owner if corp_owned else None)) or \
                 (stock and round_.current_entity is player)
        elif kind == "owning_corp_or_turn":
            ok = operating and corp_owned and operator is owner
        elif kind == "owning_player_or_turn":
            ok = operating and player_owned and operator is not None and operator.owner is owner
        elif kind in ("owning_player_track", "owning_player_token"):
            ok = operating and player_owned and operator is not None and operator.owner is owner \
                and step == kind.removeprefix("owning_player_")
        elif kind == "owning_player_sr_turn":
            ok = stock and player_owned and round_.current_entity is owner
        elif kind == "or_between_turns":
            ok = operating and not round_.operator_acted
        elif kind == "or_start":
            ok = operating and round_.at_start
        elif kind == "stock_round":
            ok = stock
        else:
            ok = default
        if ok:
            return True
    return False
