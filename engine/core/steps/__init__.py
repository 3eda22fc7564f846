"""Steps of a round. Each declares the actions it accepts now, who must act, and how to process them."""

from __future__ import annotations

from engine.core.entities import Company
from engine.core.errors import Either, GameError, Phrase


class Step:
    blocks = True  # a blocking step must be acted on (or passed) before later steps
    for_companies = False  # privates act in this step, possibly out of their owners' turns
    description = Phrase("act")

    def __init__(self, game, round_) -> None:
        self.game = game
        self.round = round_
        self.passed = False

    def setup(self) -> None:
        """Called at the start of each entity's turn."""

    def actions(self, entity) -> tuple[str, ...]:
        return ()

    def active_entities(self) -> list:
        current = self.round.current_entity
        return [current] if current is not None else []

    def blocking(self) -> bool:
        if not self.blocks:
            return False
        cache = self.round.blocking_cache
        result = cache.get(self)
        if result is None:
            entities = self.active_entities()
            result = cache[self] = bool(entities) and bool(self.round.cached_actions(self, entities[0]))
        return result

    def skip(self) -> None:
        self.passed = True

    def done(self) -> bool:
        return True

    def legal(self, entity) -> list[dict]:
        return []

    def turn_facts(self, entity) -> dict:
        """What a player should know about this step now (engine.core.turninfo)."""
        return {}

    def why_not(self, entity, action) -> GameError | None:
        """Why this step can't take `action` from `entity` now, if it can say more than whose turn it is."""
        return None

    def refusal(self, entity, action_type: str) -> GameError:
        """Why a blocking step refuses an action: whose turn it is and what they must do."""
        active = self.active_entities()
        name = self.game.name_of
        if active and entity not in active:
            who = Either(name(e) for e in active)
            if isinstance(entity, Company) and self.game.player_of(entity) in [self.game.player_of(e) for e in active]:
                return GameError("{name} can't {action} now: {who} must {description}", name=name(entity),
                                 action=Phrase(action_type.replace('_', ' '), "action"), who=who, description=self.description)
            return GameError("it's not {name}'s turn: {who} must {description}", name=name(entity), who=who,
                             description=self.description)
        return GameError("{name} can't {action} now: first {description}", name=name(entity),
                         action=Phrase(action_type.replace('_', ' '), "action"), description=self.description)

    # helpers
    def action(self, entity, action_type: str, /, **fields) -> dict:
        if isinstance(entity, Company):
            out = {"type": action_type, "entity": entity.sym, "entity_type": "company"}
        else:
            out = {"type": action_type, "entity": entity.key, "entity_type": entity.kind}
        out.update(fields)
        return out
