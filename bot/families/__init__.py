"""The game families the bot hosts: each implements `bot.session.Session` over one rules engine and lists
its commands. This tuple is the only list of families; the titles come from each family's engine."""

from __future__ import annotations

from bot.families.g18xx import G18xx
from bot.families.steam import Steam

FAMILIES = (G18xx, Steam)

__all__ = ["FAMILIES", "G18xx", "Steam"]
