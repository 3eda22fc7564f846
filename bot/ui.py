"""Buttons. All are persistent DynamicItems: their custom_id carries the game, so they work after restarts."""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.cogs.common import caller, fits, handle_error, speak_to_member
from bot.errors import PreviewClosed, UserError
from bot.families import FAMILIES
from bot.service import Reply
from i18n import N_, _, speaking

log = logging.getLogger(__name__)

STYLES = {"primary": discord.ButtonStyle.primary, "secondary": discord.ButtonStyle.secondary,
          "success": discord.ButtonStyle.success, "danger": discord.ButtonStyle.danger}
LOBBY = {"join": (N_("Join"), "success"), "leave": (N_("Leave"), "secondary"), "start": (N_("Start"), "primary")}
VOTES = {"undo_yes": (N_("Agree to undo"), "danger"), "undo_no": (N_("Refuse"), "secondary")}
OFFERS = {"offer_yes": (N_("Accept the offer"), "success"), "offer_no": (N_("Decline"), "secondary")}
PREVIEWS = {"confirm": (N_("Confirm"), "success"), "cancel": (N_("Cancel"), "secondary")}
# what a seat may do out of its turn: the post's button is everyone's, its answer the presser's alone (service)
POWERS = {"powers": (N_("Use a private out of turn"), "secondary"), "power": (N_("Use"), "primary")}
ANSWERED = "\n→ "  # begins the line under a preview that tells what came of it


def _game_buttons() -> dict[str, tuple[str, str]]:
    """The families' buttons (a key means one thing in every family that has it)."""
    out: dict[str, tuple[str, str]] = {}
    for fam in FAMILIES:
        for key, b in fam.buttons.items():
            if out.setdefault(key, (b.label, b.style)) != (b.label, b.style):
                raise ValueError(f"button {key!r} is labelled differently by two families")
    return out


GAME = _game_buttons()
BUTTONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    key: (label, STYLES[style]) for key, (label, style) in {**GAME, **LOBBY, **VOTES, **OFFERS, **PREVIEWS, **POWERS}.items()}


def custom_id(what: str, game_id: int, arg: int | None = None) -> str:
    """A button's id on Discord: `rh:<what>:<game>[:arg]` (the template of `GameButton`)."""
    return f"rh:{what}:{game_id}" + (f":{arg}" if arg is not None else "")


def carries(message: discord.Message, cid: str) -> bool:
    """Whether a message has the button `cid`."""
    return any(getattr(item, "custom_id", None) == cid for row in message.components
               for item in getattr(row, "children", ()))


class GameButton(discord.ui.DynamicItem[discord.ui.Button], template=r"rh:(?P<what>[a-z_]+):(?P<game>\d+)(?::(?P<arg>\d+))?"):
    def __init__(self, what: str, game_id: int, arg: int | None = None, label: str | None = None) -> None:
        kind_label, style = BUTTONS[what]
        super().__init__(discord.ui.Button(label=(label or _(kind_label))[:80], style=style,
                                           custom_id=custom_id(what, game_id, arg)))
        self.what, self.game_id, self.arg = what, game_id, arg

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str], /) -> GameButton:
        arg = match.group("arg")
        what = match.group("what")
        if what not in BUTTONS:
            raise ValueError(what)
        return cls(what, int(match.group("game")), int(arg) if arg else None)

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        return await speak_to_member(interaction)

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        if self.what in PREVIEWS:
            await self.answer_preview(interaction)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        bot: Any = interaction.client
        svc = bot.service
        who = caller(interaction)
        try:
            if self.what in GAME or self.what in POWERS:
                reply = await svc.press(self.game_id, who, self.what, self.arg, publish=bot.publish)
                if reply.private:  # a move shown before it is sent (a pass that ends a sale), or what is the
                    # presser's to use out of turn: for them alone, with its buttons
                    await interaction.followup.send(fits(reply.text), view=buttons_view(reply), ephemeral=True)
                    return
                await interaction.followup.send(fits(_("Done: {what}", what=reply.text.splitlines()[0])), ephemeral=True)
            elif self.what in LOBBY:
                lobby = {"join": svc.join, "leave": svc.leave, "start": svc.start}[self.what]
                await lobby(self.game_id, who, publish=bot.publish)
                await interaction.followup.send(_("Done."), ephemeral=True)
            elif self.what in VOTES:  # the message pressed on: the vote open there, not one that replaced it
                await svc.vote_undo(self.game_id, who, self.what == "undo_yes", self.arg or 0,
                                    publish=bot.publish, message_id=pressed_on(interaction))
                await interaction.followup.send(_("Vote counted."), ephemeral=True)
            elif self.what in OFFERS:
                await svc.answer_offer(self.game_id, who, self.what == "offer_yes", self.arg or 0, publish=bot.publish,
                                       message_id=pressed_on(interaction))
                await interaction.followup.send(_("Answer given."), ephemeral=True)
        except UserError as e:
            await interaction.followup.send(str(e), ephemeral=True)
        except Exception as e:  # answered all the same: a press left unanswered shows as failed, then is sent again
            log.exception("button %s of game %s failed", self.what, self.game_id)
            await handle_error(interaction, e)

    async def answer_preview(self, interaction: discord.Interaction) -> None:
        """Confirm or Cancel under a preview shown to this member alone: the preview itself is edited to say
        what came of it, and its buttons go (they would do nothing more)."""
        await interaction.response.defer()  # a button's deferred update: the message it is on is edited
        bot: Any = interaction.client
        shown = interaction.message.content if interaction.message is not None else ""
        try:
            reply = await bot.service.confirm(self.game_id, caller(interaction), self.arg or 0,
                                              self.what == "confirm", publish=bot.publish)
            outcome = _("Done: {what}", what=reply.text.splitlines()[0]) if reply else \
                _("Cancelled: nothing was done.")
        except PreviewClosed as e:
            if e.answered:  # pressed again (a client still showing the buttons): its answer stays as told
                await interaction.followup.send(str(e), ephemeral=True)
                return
            outcome = str(e)
        except UserError as e:  # not theirs to answer: the preview stays open for its member
            await interaction.followup.send(str(e), ephemeral=True)
            return
        text = f"{shown[:1990 - len(outcome)]}{ANSWERED}{outcome}" if shown else outcome
        await interaction.edit_original_response(content=fits(text), view=None)


def pressed_on(interaction: discord.Interaction) -> int:
    """The message a button was pressed on (0 if Discord did not say: then it answers nothing open)."""
    return interaction.message.id if interaction.message is not None else 0


def buttons_view(reply: Reply) -> discord.ui.View | None:
    """The buttons of a reply: `what` or `what:arg` (e.g. `undo_yes:12`, the vote's action count)."""
    if not reply.buttons or reply.game_id is None:
        return None
    view = discord.ui.View(timeout=None)
    with speaking(reply.language):
        for button in reply.buttons:
            what, _sep, arg = button.partition(":")
            view.add_item(GameButton(what, reply.game_id, int(arg) if arg else None, reply.labels.get(button)))
    return view


def confirm_view(game_id: int, button: str, moment: int) -> discord.ui.View:
    """The button that confirms a command asked about first (e.g. bankruptcy), at this moment of the game."""
    view = discord.ui.View(timeout=None)
    view.add_item(GameButton(button, game_id, moment))
    return view
