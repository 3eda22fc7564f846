"""Slash commands in each member's Discord language: discord.py asks this translator for every command,
option and choice name and description when the commands are synced, and Discord shows each member their
own. Names come from bot/names.py; the interaction still arrives with the names the commands have here."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.names import COMMAND, OPTION, localized
from i18n import DEFAULT, catalogue, normalize

NAMES = {app_commands.TranslationContextLocation.command_name: COMMAND,
         app_commands.TranslationContextLocation.group_name: COMMAND,
         app_commands.TranslationContextLocation.parameter_name: OPTION}
DESCRIPTION_LIMIT = 100  # Discord: characters in a command, option or choice description


class CatalogueTranslator(app_commands.Translator):
    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        command = None
        if context.location is app_commands.TranslationContextLocation.parameter_name:
            command = getattr(getattr(context.data, "command", None), "qualified_name", None)
        return translate(string.message, locale, context.location, command)


def translate(text: str, locale: discord.Locale | str,
              location: app_commands.TranslationContextLocation | None = None,
              command: str | None = None) -> str | None:
    """`text` in the catalogue of `locale`'s language, or None where Discord should show it as it is
    (`command`: the command whose option is named)."""
    lang = normalize(locale)
    if lang == DEFAULT or not text:
        return None
    if location in NAMES:
        return localized(text, lang, NAMES[location], command)
    out = catalogue(lang).gettext(text)
    return out[:DESCRIPTION_LIMIT] if out != text else None
