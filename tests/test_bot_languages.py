"""A game's thread speaks the game's language (`/game new language:`, else the server's preferred locale);
each member's private replies and DMs speak their own Discord language."""

from __future__ import annotations

import pytest
from fakediscord import BotRunner, FakeDiscord

from bot.session import engine_available

pytestmark = pytest.mark.skipif(not engine_available(), reason="engines not importable")


async def test_game_language_and_members_languages(tmp_path):
    fake = await FakeDiscord().start()
    fake.guild_locale = "ru"
    runner = BotRunner(fake, str(tmp_path / "rh.db"))
    bot = await runner.start()
    try:
        ann = fake.add_user("Ann", locale="ru")
        bob = fake.add_user("Bob", locale="en-GB")
        # no language given: the server's
        rec = await fake.command(ann, fake.channel_id, "game", {"title": "1830"}, sub="new")
        assert rec.final.content.startswith("Партия №") and "открыта в" in rec.final.content, rec.final.content
        thread = max(c for c, ch in fake.channels.items() if ch.get("type") == 11)
        lobby = fake.channel_messages(thread)[0]
        gid = int(next(c for c in lobby.custom_ids if c.startswith("rh:join:")).split(":")[2])
        assert (await bot.db.get_game(gid)).language == "ru"
        assert [b["label"] for row in lobby.components for b in row["components"]] == \
            ["Присоединиться", "Выйти", "Начать"]
        # Bob's own answers are English in the Russian game
        rec = await fake.click(bob, lobby, f"rh:join:{gid}")
        assert rec.final.content == "Done.", rec.final.content
        rec = await fake.command(bob, fake.channel_id, "game", {}, sub="join")
        assert rec.final.ephemeral and "game" in rec.final.content and "Партия" not in rec.final.content
        assert await bot.db.member_language(bob) == "en" and await bot.db.member_language(ann) == "ru"

        # a language given overrides the server's
        rec = await fake.command(bob, fake.channel_id, "game", {"title": "steam", "language": "en"}, sub="new")
        assert rec.final.content.startswith("Game #"), rec.final.content
        english = int(rec.final.content.split("#")[1].split()[0])
        assert (await bot.db.get_game(english)).language == "en"
        lobby = fake.channel_messages(max(c for c, ch in fake.channels.items() if ch.get("type") == 11))[0]
        assert [b["label"] for row in lobby.components for b in row["components"]] == ["Join", "Leave", "Start"]
    finally:
        await runner.stop()
        await fake.stop()


async def test_console_language(tmp_path):
    import io

    from bot.config import Config
    from bot.console import run_console

    out = io.StringIO()
    config = Config(db_path=str(tmp_path / "c.db"), out_dir=str(tmp_path / "out"), pictures=False, language="ru")
    await run_console(config, stdin=io.StringIO("new steam Ann Bob Cid map=rust_belt seed=5\nbogus\n"
                                                "new 1830 Ann Bob Cid lang=en\nseats\n"), stdout=out)
    text = out.getvalue()
    assert "! Неизвестная команда `bogus`; см. `help`." in text, text
    assert "Места: 1. Ann, 2. Bob, 3. Cid." in text, text
    from bot.db import Database
    async with Database(config.db_path) as db:
        games = await db.list_games(statuses=("lobby", "active"), any_guild=True)
        assert [r.language for r in games] == ["ru", "en"], games
