"""One slash command per action kind. Options are autocompleted from the game's legal actions."""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import autocompleter, handle_error, resolve_game, send_private, service
from bot.errors import UserError
from bot.ui import bankrupt_view

log = logging.getLogger(__name__)

GAME_HELP = "game number (default: this thread's game)"


class Play(commands.Cog):
    def __init__(self, bot: commands.Bot):
        self.bot = bot

    async def cog_app_command_error(self, interaction: discord.Interaction, error: Exception) -> None:
        log.exception("command failed", exc_info=error)
        await handle_error(interaction, error)

    async def act(self, interaction: discord.Interaction, kind_: str, game: int | None, **options: Any) -> None:
        kind = kind_
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            gid = await resolve_game(interaction, game)
            if kind == "bankrupt":
                await interaction.followup.send("Declare bankruptcy? This cannot be undone by you alone.",
                                                view=bankrupt_view(gid), ephemeral=True)
                return
            reply = await service(interaction).act(gid, interaction.user.id, kind, options,
                                                   publish=self.bot.publish)  # type: ignore[attr-defined]
        except UserError as e:
            await send_private(interaction, str(e))
            return
        await send_private(interaction, f"Done: {reply.text.splitlines()[0]}")

    @app_commands.command(name="bid", description="Bid on (or buy) a private company")
    @app_commands.describe(company="private company", price="your bid", game=GAME_HELP)
    @app_commands.autocomplete(company=autocompleter("bid", "company"), price=autocompleter("bid", "price"))
    async def bid(self, interaction: discord.Interaction, company: str, price: int, game: int | None = None):
        await self.act(interaction, "bid", game, company=company, price=price)

    @app_commands.command(name="par", description="Start a corporation at a par price")
    @app_commands.describe(corporation="corporation", price="par price", game=GAME_HELP)
    @app_commands.autocomplete(corporation=autocompleter("par", "corporation"), price=autocompleter("par", "price"))
    async def par(self, interaction: discord.Interaction, corporation: str, price: str, game: int | None = None):
        await self.act(interaction, "par", game, corporation=corporation, price=price)

    @app_commands.command(name="buy", description="Buy a share")
    @app_commands.describe(share="certificate", using="private company exchanged for it (e.g. MH)", game=GAME_HELP)
    @app_commands.autocomplete(share=autocompleter("buy", "share"), using=autocompleter("buy", "using"))
    async def buy(self, interaction: discord.Interaction, share: str, using: str | None = None,
                  game: int | None = None):
        await self.act(interaction, "buy", game, share=share, using=using)

    @app_commands.command(name="sell", description="Sell shares")
    @app_commands.describe(shares="certificates to sell", game=GAME_HELP)
    @app_commands.autocomplete(shares=autocompleter("sell", "shares"))
    async def sell(self, interaction: discord.Interaction, shares: str, game: int | None = None):
        await self.act(interaction, "sell", game, shares=shares)

    @app_commands.command(name="pass", description="Pass")
    @app_commands.describe(game=GAME_HELP)
    async def pass_(self, interaction: discord.Interaction, game: int | None = None):
        await self.act(interaction, "pass", game)

    @app_commands.command(name="lay", description="Lay or upgrade a tile")
    @app_commands.describe(hex="hex", tile="tile", rotation="rotation", using="private company ability",
                           game=GAME_HELP)
    @app_commands.autocomplete(hex=autocompleter("lay", "hex"), tile=autocompleter("lay", "tile"),
                               rotation=autocompleter("lay", "rotation"), using=autocompleter("lay", "using"))
    async def lay(self, interaction: discord.Interaction, hex: str, tile: str, rotation: int,
                  using: str | None = None, game: int | None = None):
        await self.act(interaction, "lay", game, hex=hex, tile=tile, rotation=rotation, using=using)

    @app_commands.command(name="token", description="Place a station token")
    @app_commands.describe(city="city and slot", using="private company ability", game=GAME_HELP)
    @app_commands.autocomplete(city=autocompleter("token", "city"), using=autocompleter("token", "using"))
    async def token(self, interaction: discord.Interaction, city: str, using: str | None = None,
                    game: int | None = None):
        await self.act(interaction, "token", game, city=city, using=using)

    @app_commands.command(name="run", description="Run trains: 'best' or routes as text")
    @app_commands.describe(routes="'best', or e.g. 3-0: E19,F20 | F20,G19; 4-1: ...", game=GAME_HELP)
    @app_commands.autocomplete(routes=autocompleter("run", "routes"))
    async def run(self, interaction: discord.Interaction, routes: str = "best", game: int | None = None):
        await self.act(interaction, "run", game, routes=routes)

    @app_commands.command(name="dividend", description="Pay out or withhold the revenue")
    @app_commands.describe(kind="payout or withhold", game=GAME_HELP)
    @app_commands.autocomplete(kind=autocompleter("dividend", "kind"))
    async def dividend(self, interaction: discord.Interaction, kind: str, game: int | None = None):
        await self.act(interaction, "dividend", game, kind=kind)

    @app_commands.command(name="train", description="Buy a train")
    @app_commands.describe(train="train", price="price (from another corporation)", variant="variant",
                           exchange="train traded in", game=GAME_HELP)
    @app_commands.autocomplete(train=autocompleter("train", "train"), price=autocompleter("train", "price"),
                               variant=autocompleter("train", "variant"), exchange=autocompleter("train", "exchange"))
    async def train(self, interaction: discord.Interaction, train: str, price: int | None = None,
                    variant: str | None = None, exchange: str | None = None, game: int | None = None):
        await self.act(interaction, "train", game, train=train, price=price, variant=variant, exchange=exchange)

    @app_commands.command(name="discard", description="Discard a train over the limit")
    @app_commands.describe(train="train", game=GAME_HELP)
    @app_commands.autocomplete(train=autocompleter("discard", "train"))
    async def discard(self, interaction: discord.Interaction, train: str, game: int | None = None):
        await self.act(interaction, "discard", game, train=train)

    @app_commands.command(name="private", description="The corporation buys a private company from a player")
    @app_commands.describe(company="private company", price="price", game=GAME_HELP)
    @app_commands.autocomplete(company=autocompleter("private", "company"), price=autocompleter("private", "price"))
    async def private(self, interaction: discord.Interaction, company: str, price: int | None = None,
                      game: int | None = None):
        await self.act(interaction, "private", game, company=company, price=price)

    @app_commands.command(name="bankrupt", description="Declare bankruptcy (asks to confirm)")
    @app_commands.describe(game=GAME_HELP)
    async def bankrupt(self, interaction: discord.Interaction, game: int | None = None):
        await self.act(interaction, "bankrupt", game)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Play(bot))
