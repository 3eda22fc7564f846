"""Roundhouse on Discord: a thin async adapter (discord.py), its SQLite storage and a local console.

`python -m bot` runs the Discord bot when DISCORD_TOKEN is set, otherwise the local console.
"""
