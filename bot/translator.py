"""Slash commands in each member's Discord language: discord.py asks this translator for every command,
option and choice description when the commands are synced, and Discord shows each member their own.

Command and option names stay as they are in every language: messages, help and docs name them
(`/game join`), and a member reading a Russian message types what it says."""

from __future__ import annotations

import discord
from discord import app_commands

from i18n import DEFAULT, catalogue, normalize

NAMES = (app_commands.TranslationContextLocation.command_name, app_commands.TranslationContextLocation.group_name,
         app_commands.TranslationContextLocation.parameter_name)
DESCRIPTION_LIMIT = 100  # Discord: characters in a command, option or choice description


class CatalogueTranslator(app_commands.Translator):
    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        return translate(string.message, locale, context.location)


def translate(text: str, locale: discord.Locale | str,
              location: app_commands.TranslationContextLocation | None = None) -> str | None:
    """`text` in the catalogue of `locale`'s language, or None where Discord should show it as it is."""
    lang = normalize(locale)
    if lang == DEFAULT or location in NAMES or not text:
        return None
    out = catalogue(lang).gettext(text)
    return out[:DESCRIPTION_LIMIT] if out != text else None
