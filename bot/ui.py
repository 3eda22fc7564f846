"""Buttons. All are persistent DynamicItems: their custom_id carries the game, so they work after restarts."""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.cogs.common import caller
from bot.errors import UserError
from bot.service import Reply

log = logging.getLogger(__name__)

BUTTONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "pass": ("Pass", discord.ButtonStyle.secondary),
    "payout": ("Pay out", discord.ButtonStyle.success),
    "withhold": ("Withhold", discord.ButtonStyle.secondary),
    "run_best": ("Run best routes", discord.ButtonStyle.primary),
    "join": ("Join", discord.ButtonStyle.success),
    "leave": ("Leave", discord.ButtonStyle.secondary),
    "start": ("Start", discord.ButtonStyle.primary),
    "undo_yes": ("Agree to undo", discord.ButtonStyle.danger),
    "undo_no": ("Refuse", discord.ButtonStyle.secondary),
    "bankrupt": ("Yes, go bankrupt", discord.ButtonStyle.danger),
}


class GameButton(discord.ui.DynamicItem[discord.ui.Button], template=r"rh:(?P<what>[a-z_]+):(?P<game>\d+)(?::(?P<arg>\d+))?"):
    def __init__(self, what: str, game_id: int, arg: int | None = None) -> None:
        label, style = BUTTONS[what]
        cid = f"rh:{what}:{game_id}" + (f":{arg}" if arg is not None else "")
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=cid))
        self.what, self.game_id, self.arg = what, game_id, arg

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str], /) -> GameButton:
        arg = match.group("arg")
        what = match.group("what")
        if what not in BUTTONS:
            raise ValueError(what)
        return cls(what, int(match.group("game")), int(arg) if arg else None)

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        await interaction.response.defer(ephemeral=True, thinking=True)
        bot: Any = interaction.client
        svc = bot.service
        who = caller(interaction)
        try:
            if self.what in ("pass", "payout", "withhold", "run_best", "bankrupt"):
                kind, opts = {
                    "pass": ("pass", {}), "payout": ("dividend", {"kind": "payout"}),
                    "withhold": ("dividend", {"kind": "withhold"}), "run_best": ("run", {"routes": "best"}),
                    "bankrupt": ("bankrupt", {}),
                }[self.what]
                reply = await svc.act(self.game_id, who, kind, opts, publish=bot.publish)
                await interaction.followup.send(f"Done: {reply.text.splitlines()[0]}", ephemeral=True)
            elif self.what in ("join", "leave", "start"):
                lobby = {"join": svc.join, "leave": svc.leave, "start": svc.start}[self.what]
                reply = await lobby(self.game_id, who)
                await bot.publish(reply)
                await interaction.followup.send("Done.", ephemeral=True)
            elif self.what in ("undo_yes", "undo_no"):
                await svc.vote_undo(self.game_id, who, self.what == "undo_yes", self.arg or 0,
                                    publish=bot.publish)
                await interaction.followup.send("Vote counted.", ephemeral=True)
        except UserError as e:
            await interaction.followup.send(str(e), ephemeral=True)


def buttons_view(reply: Reply) -> discord.ui.View | None:
    """The buttons of a reply: `what` or `what:arg` (e.g. `undo_yes:12`, the vote's action count)."""
    if not reply.buttons or reply.game_id is None:
        return None
    view = discord.ui.View(timeout=None)
    for button in reply.buttons:
        what, _, arg = button.partition(":")
        view.add_item(GameButton(what, reply.game_id, int(arg) if arg else None))
    return view


def bankrupt_view(game_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(GameButton("bankrupt", game_id))
    return view
