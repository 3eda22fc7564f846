"""The game commands, generated from the families' command specs (bot/families/): a family without a group
has its commands at the top level (`/lay`, `/buy` for every 18xx title), a family with one has them in its
group (`/steam build`). Options are typed and described as the family says and autocompleted from the
legal moves of the game in the thread. The console reads the same specs.

Shape: commands of several families that share a name at the top level are one slash command whose
options are the union of theirs (each family checks its own); `COMMAND_LIMIT` is Discord's limit on
top-level commands, and `tests/test_bot_commands.py` counts them.
"""

from __future__ import annotations

import inspect
import logging
from typing import Any, Optional

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import autocompleter, caller, fits, handle_error, resolve_game, send_private, service
from bot.commands import Command, Option
from bot.errors import UserError
from bot.families import FAMILIES
from bot.ui import buttons_view, confirm_view
from i18n import N_, _

log = logging.getLogger(__name__)

GAME_HELP = N_("game number (default: this thread's game)")
COMMAND_LIMIT = 100      # Discord: global chat-input commands per application
SUBCOMMAND_LIMIT = 25    # Discord: subcommands in a group, options in a command
GROUP_HELP = {"steam": N_("Steam: your move in the game of this thread")}


def top_level() -> dict[str, list[Command]]:
    """Commands of the families without a group, by name (several families may share a name)."""
    out: dict[str, list[Command]] = {}
    for fam in FAMILIES:
        if fam.group is None:
            for cmd in fam.commands.values():
                out.setdefault(cmd.name, []).append(cmd)
    return out


def groups() -> dict[str, list[Command]]:
    return {fam.group: list(fam.commands.values()) for fam in FAMILIES if fam.group is not None}


def merged_options(cmds: list[Command]) -> list[Option]:
    """The options of commands sharing a name: each once, required only where every family requires it."""
    out: dict[str, Option] = {}
    for cmd in cmds:
        for o in cmd.options:
            if o.name not in out:
                out[o.name] = o
    required = {name for name in out if all((c.option(name) or Option(name, "")).required for c in cmds)}
    return [Option(o.name, o.help, o.kind, o.name in required, o.default) for o in out.values()]


async def act(interaction: discord.Interaction, group: str | None, spec: Command, game: int | None, /,
              **options: Any) -> None:
    await interaction.response.defer(ephemeral=True, thinking=True)
    try:
        gid = await resolve_game(interaction, game)
        if spec.confirm:
            question, button = spec.confirm
            moment = await service(interaction).moment(gid, caller(interaction))
            await interaction.followup.send(_(question), view=confirm_view(gid, button, moment), ephemeral=True)
            return
        reply = await service(interaction).act(gid, caller(interaction), spec.name, options, group=group,
                                               publish=interaction.client.publish)  # type: ignore[attr-defined]
    except UserError as e:
        await send_private(interaction, str(e))
        return
    if reply.private:  # a preview: the member confirms or cancels it with its buttons
        await interaction.followup.send(fits(reply.text), view=buttons_view(reply), ephemeral=True)
        return
    await send_private(interaction, _("Done: {what}", what=reply.text.splitlines()[0]))


def action_command(group: str | None, cmds: list[Command]) -> app_commands.Command:
    """`/<name>` (a method of the cog) or `/<group> <name>` (a function of the group) with its options
    (typed, described, autocompleted) and `game`."""
    spec = cmds[0]
    options = merged_options(cmds)
    P = inspect.Parameter
    params = [] if group else [P("self", P.POSITIONAL_OR_KEYWORD)]
    params.append(P("interaction", P.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction))
    for o in options:
        if o.required:
            params.append(P(o.name, P.POSITIONAL_OR_KEYWORD, annotation=o.kind))
        elif o.default is not None:
            params.append(P(o.name, P.POSITIONAL_OR_KEYWORD, annotation=o.kind, default=o.default))
        else:
            params.append(P(o.name, P.POSITIONAL_OR_KEYWORD, annotation=Optional[o.kind], default=None))  # noqa: UP045
    params.append(P("game", P.POSITIONAL_OR_KEYWORD, annotation=Optional[int], default=None))  # noqa: UP045

    async def method(self: Any, interaction: discord.Interaction, /, game: int | None = None, **opts: Any):
        await act(interaction, group, spec, game, **opts)

    async def function(interaction: discord.Interaction, /, game: int | None = None, **opts: Any):
        await act(interaction, group, spec, game, **opts)

    callback = function if group else method
    ident = f"{group or 'play'}_{spec.name}"
    callback.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    callback.__name__ = ident
    callback.__qualname__ = ident if group else f"Play.{ident}"  # a method: discord.py skips `self`
    cmd = app_commands.command(name=spec.name, description=spec.help[:100])(callback)
    if group is None:
        cmd = app_commands.guild_only()(cmd)
    helps = {o.name: o.help[:100] for o in options}
    # as locale strings: described after the command is made, plain strings would not be translated
    app_commands.describe(**{k: app_commands.locale_str(v) for k, v in helps.items()},
                          game=app_commands.locale_str(GAME_HELP))(cmd)
    if helps:
        app_commands.autocomplete(**{name: autocompleter(group, spec.name, name) for name in helps})(cmd)
    return cmd


class Play(commands.Cog):
    def __init__(self, bot: commands.Bot):
        self.bot = bot
        super().__init__()
        self._groups: list[app_commands.Group] = []
        for name, cmds in groups().items():
            grp = app_commands.Group(name=name, description=GROUP_HELP.get(name, f"{name} games")[:100],
                                     guild_only=True)
            for cmd in cmds:
                grp.add_command(action_command(name, [cmd]))
            grp.error(self.group_error)
            bot.tree.add_command(grp)
            self._groups.append(grp)

    async def group_error(self, interaction: discord.Interaction, error: Exception) -> None:
        log.exception("command failed", exc_info=error)
        await handle_error(interaction, error)

    async def cog_unload(self) -> None:
        for grp in self._groups:
            self.bot.tree.remove_command(grp.name)
        self._groups.clear()

    async def cog_app_command_error(self, interaction: discord.Interaction, error: Exception) -> None:
        log.exception("command failed", exc_info=error)
        await handle_error(interaction, error)

    vars().update({f"play_{name}": action_command(None, cmds) for name, cmds in top_level().items()})


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Play(bot))
