"""Programmed stock-round actions: a player's standing order to pass, or to buy a share each turn.

As on 18xx.games (shared/fixtures/FORMAT.md, section 4): when it becomes the turn of a player with a
program, the program acts for them, and what it does is recorded as `auto_actions` of the action that
led there. A program switches itself off, with its reason, when its goal is met or when shares were
sold since it was set (unless it is unconditional). Programs last until the end of the stock round,
an indefinite pass excepted.
"""

from __future__ import annotations

from engine.core.entities import Player

PROGRAM_TYPES = ("program_buy_shares", "program_share_pass", "program_disable")


class Programs:
    def __init__(self, game) -> None:
        self.game = game
        self.by_player: dict[int, dict] = {}
        self.sales = 0  # certificates sold in stock rounds so far: what "shares were sold" compares with

    def set(self, player: Player, action) -> None:
        if action.type == "program_disable":
            self.by_player.pop(player.id, None)
            return
        program = action.model_dump(exclude={"id", "auto_actions", "entity", "entity_type"})
        program["sales_at_start"] = self.sales
        self.by_player[player.id] = program

    def end_of_stock_round(self) -> None:
        self.by_player = {pid: p for pid, p in self.by_player.items()
                          if p["type"] == "program_share_pass" and p.get("indefinite")}

    # --- acting --------------------------------------------------------------------------------
    def next_actions(self) -> list[dict]:
        """What the program of the player to act does now (empty when nobody's program acts)."""
        from engine.core.rounds import StockRound
        from engine.core.steps.stock import BuySellParShares

        game = self.game
        if game.finished or not isinstance(game.round, StockRound) or not self.by_player:
            return []
        player = game.round.current_entity
        program = self.by_player.get(getattr(player, "id", None))
        step = game.round.active_step()
        if program is None or not isinstance(step, BuySellParShares):
            return []
        available = step.actions(player)
        if not available:
            return []
        if program["type"] == "program_share_pass":
            if not program.get("unconditional") and self.sales > program["sales_at_start"]:
                return [self._disable(player, "Shares were sold")]
            return [self._act(player, "pass")] if "pass" in available else []
        return self._buy_shares(player, program, step, available)

    def _buy_shares(self, player: Player, program: dict, step, available) -> list[dict]:
        game = self.game
        corp = game.corporation(program["corporation"])
        until = program.get("until_condition")
        reason = None
        if until == "float":
            if corp.floated:
                reason = f"{corp.sym} is floated"
        elif until is not None:
            held = player.percent_of(corp) // corp.share_percent
            if held >= int(until):
                reason = f"{held} share(s) bought in {corp.sym}, end condition met"
        if reason is None and self.sales > program["sales_at_start"]:
            reason = "Shares were sold"
        if reason is not None:
            out = [self._disable(player, reason)]
            if program.get("auto_pass_after") and reason != "Shares were sold":
                out.append(self._act(player, "program_share_pass", unconditional=False, indefinite=False))
            return out
        if step.bought:
            return [self._act(player, "pass")] if "pass" in available else []
        source = game.pool if program.get("from_market") else corp
        for share, _price in step.buyable_shares(player, corp):
            if share.owner is source:
                return [self._act(player, "buy_shares", shares=[share.id], percent=share.percent)]
        return [self._disable(player, f"Cannot buy {corp.sym}")]

    def _disable(self, player: Player, reason: str) -> dict:
        return self._act(player, "program_disable", reason=reason)

    @staticmethod
    def _act(player: Player, kind: str, **fields) -> dict:
        return {"type": kind, "entity": player.id, "entity_type": "player", **fields}
