"""One slash command per action kind, generated from `bot.actions.OPTIONS` (the console uses the same
table). Options are autocompleted from the game's legal actions."""

from __future__ import annotations

import inspect
import logging
from typing import Any, Optional

import discord
from discord import app_commands
from discord.ext import commands

from bot import actions as acts
from bot.cogs.common import autocompleter, caller, handle_error, resolve_game, send_private, service
from bot.errors import UserError
from bot.ui import bankrupt_view

log = logging.getLogger(__name__)

GAME_HELP = "game number (default: this thread's game)"
DESCRIPTIONS = {
    "bid": "Bid on (or buy) a private company",
    "par": "Start a corporation at a par price",
    "buy": "Buy a share",
    "sell": "Sell shares",
    "pass": "Pass",
    "lay": "Lay or upgrade a tile",
    "token": "Place a station token",
    "run": "Run trains: 'best' or routes as text",
    "dividend": "Pay out or withhold the revenue",
    "train": "Buy a train",
    "discard": "Discard a train over the limit",
    "private": "The corporation buys a private company from a player",
    "bankrupt": "Declare bankruptcy (asks to confirm)",
    "auto": "Standing orders for stock rounds: pass or buy for you at your turns",
}
DEFAULTS: dict[tuple[str, str], Any] = {("run", "routes"): "best"}


async def act(interaction: discord.Interaction, kind: str, game: int | None, /, **options: Any) -> None:
    await interaction.response.defer(ephemeral=True, thinking=True)
    try:
        gid = await resolve_game(interaction, game)
        if kind == "bankrupt":
            await interaction.followup.send("Declare bankruptcy? This cannot be undone by you alone.",
                                            view=bankrupt_view(gid), ephemeral=True)
            return
        reply = await service(interaction).act(gid, caller(interaction), kind, options,
                                               publish=interaction.client.publish)  # type: ignore[attr-defined]
    except UserError as e:
        await send_private(interaction, str(e))
        return
    await send_private(interaction, f"Done: {reply.text.splitlines()[0]}")


def action_command(kind: str) -> app_commands.Command:
    """`/<kind>` with the options of `acts.OPTIONS[kind]` (typed, described, autocompleted) and `game`."""
    P = inspect.Parameter
    params = [P("self", P.POSITIONAL_OR_KEYWORD),
              P("interaction", P.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction)]
    for name, typ, _ in acts.OPTIONS[kind]:
        if name in acts.REQUIRED.get(kind, ()):
            params.append(P(name, P.POSITIONAL_OR_KEYWORD, annotation=typ))
        elif (kind, name) in DEFAULTS:
            params.append(P(name, P.POSITIONAL_OR_KEYWORD, annotation=typ, default=DEFAULTS[kind, name]))
        else:
            params.append(P(name, P.POSITIONAL_OR_KEYWORD, annotation=Optional[typ], default=None))  # noqa: UP045
    params.append(P("game", P.POSITIONAL_OR_KEYWORD, annotation=Optional[int], default=None))  # noqa: UP045

    async def callback(self: Play, interaction: discord.Interaction, /, game: int | None = None, **options: Any):
        await act(interaction, kind, game, **options)

    callback.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    callback.__name__ = f"{kind}_"
    callback.__qualname__ = f"Play.{kind}_"  # a method: discord.py skips `self`
    cmd = app_commands.guild_only()(app_commands.command(name=kind, description=DESCRIPTIONS[kind])(callback))
    helps = {name: text for name, _, text in acts.OPTIONS[kind]}
    app_commands.describe(**helps, game=GAME_HELP)(cmd)
    if helps:
        app_commands.autocomplete(**{name: autocompleter(kind, name) for name in helps})(cmd)
    return cmd


class Play(commands.Cog):
    def __init__(self, bot: commands.Bot):
        self.bot = bot

    async def cog_app_command_error(self, interaction: discord.Interaction, error: Exception) -> None:
        log.exception("command failed", exc_info=error)
        await handle_error(interaction, error)

    vars().update({f"{kind}_": action_command(kind) for kind in acts.KINDS})


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Play(bot))
