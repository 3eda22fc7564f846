"""Helpers shared by the cogs."""

from __future__ import annotations

import io
from typing import Any

import discord
from discord import app_commands

from bot.access import NO_SERVER, Caller
from bot.errors import UserError
from bot.service import Reply
from i18n import _, normalize, use


def service(interaction: discord.Interaction) -> Any:
    return interaction.client.service  # type: ignore[attr-defined]


def caller(interaction: discord.Interaction) -> Caller:
    """Who sent the interaction, from which server (`NO_SERVER`: none) and channel, with their permissions there
    (Discord computes `interaction.permissions` for that channel; Administrator implies Manage Threads) and the
    language of their Discord client."""
    perms = interaction.permissions
    return Caller(member_id=interaction.user.id, name=interaction.user.display_name,
                  guild_id=interaction.guild_id or NO_SERVER, channel_id=interaction.channel_id,
                  manages_threads=bool(interaction.guild_id and perms and (perms.manage_threads
                                                                            or perms.administrator)),
                  language=normalize(interaction.locale))


async def speak_to_member(interaction: discord.Interaction) -> bool:
    """The interaction's replies speak the member's Discord language (their DMs too, from now on)."""
    lang = normalize(interaction.locale)
    use(lang)
    try:
        await service(interaction).note_language(interaction.user.id, lang)
    except Exception:  # a language is no reason to refuse a command
        pass
    return True


async def resolve_game(interaction: discord.Interaction, game: int | None) -> int:
    row = await service(interaction).resolve(caller(interaction), thread_id=interaction.channel_id, game_id=game)
    return row.id


DISCORD_TEXT = 2000  # the most characters Discord takes in a message (more: the whole request is refused)


def fits(text: str) -> str:
    """A message's text as Discord takes it: a longer one shortened (its words may carry many names, escaped)."""
    return text if len(text) <= DISCORD_TEXT else text[:DISCORD_TEXT - 1] + "…"


async def send_private(interaction: discord.Interaction, reply: Reply | str) -> None:
    """The caller-only answer that ends every interaction (also the signal tests wait for)."""
    if isinstance(reply, str):
        await interaction.followup.send(fits(reply), ephemeral=True)
        return
    files = [discord.File(io.BytesIO(p.data), filename=p.name) for p in reply.pictures]
    kwargs: dict[str, Any] = {"ephemeral": True, "allowed_mentions": discord.AllowedMentions.none()}
    if files:
        kwargs["files"] = files
    if reply.file:
        kwargs.setdefault("files", []).append(discord.File(io.BytesIO(reply.file[1]), filename=reply.file[0]))
    await interaction.followup.send(fits(reply.text) or _("Done."), **kwargs)


def autocompleter(group: str | None, kind: str, option: str):
    """Autocomplete callback for one option of a game command, from the legal moves of the thread's game."""

    async def complete(interaction: discord.Interaction, current: Any) -> list[app_commands.Choice]:
        ns = {k: v for k, v in interaction.namespace.__dict__.items()}
        try:
            gid = await resolve_game(interaction, ns.get("game"))
            choices = await service(interaction).autocomplete(gid, caller(interaction), kind, option,
                                                              str(current or ""), ns, group=group)
        except UserError:
            return []
        return [app_commands.Choice(name=str(n), value=v) for n, v in choices]

    complete.__name__ = f"complete_{group or 'play'}_{kind}_{option}"
    return complete


async def handle_error(interaction: discord.Interaction, exc: Exception) -> None:
    original = getattr(exc, "original", exc)
    msg = str(original) if isinstance(original, UserError) else _("Something went wrong; nothing was changed.")
    try:
        if interaction.response.is_done():
            await interaction.followup.send(msg, ephemeral=True)
        else:
            await interaction.response.send_message(msg, ephemeral=True)
    except discord.HTTPException:
        pass
