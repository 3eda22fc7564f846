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


async def test_an_1830_game_in_russian_on_the_console(tmp_path):
    """The 18xx words (status, round, phase, hints, lobby) in Russian; an English game beside it stays
    English."""
    import io

    from bot.config import Config
    from bot.console import run_console

    out = io.StringIO()
    config = Config(db_path=str(tmp_path / "c.db"), out_dir=str(tmp_path / "out"), pictures=False)
    await run_console(config, stdin=io.StringIO("new 1830 Ann Bob Cid seed=3 lang=ru\nstart\nstatus\n"
                                                "new 1830 Ann Bob Cid seed=3\nstart\nstatus\n"), stdout=out)
    russian, english = out.getvalue().split("1830 game #2", 1)
    assert "1830, партия №1 — лобби (3/6): Ann, Bob, Cid." in russian, russian
    assert "1830, партия №1 начинается. Места:" in russian, russian
    assert "Аукционный раунд 1, фаза 2, банк $" in russian, russian
    assert "Ходит: @Bob — купите SV за $20, сделайте ставку на более дорогую частную компанию или спасуйте." in russian, russian
    assert "Auction Round 1, phase 2, bank $" in english and "Next: @Bob — buy SV for $20" in english, english


async def test_a_russian_console_takes_russian_names_and_words_the_engines_refusal(tmp_path):
    """The commands' Russian names (as a Russian member's Discord shows them) work on the console too, and
    the engine's reason for a refusal is Russian."""
    import io

    from bot.config import Config
    from bot.console import run_console

    out = io.StringIO()
    config = Config(db_path=str(tmp_path / "c.db"), out_dir=str(tmp_path / "out"), pictures=False, language="ru")
    await run_console(config, stdin=io.StringIO("new 1830 Ann Bob Cid seed=3\nstart\nas Bob ставка CA цена=45\n"
                                                "as Bob bid CA price=45\n"), stdout=out)
    text = out.getvalue()
    assert text.count("! Нельзя: ставка на CA — не меньше $165") == 2, text


async def test_turn_dms_speak_each_members_language(tmp_path):
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"))
    bot = await runner.start()
    try:
        ann, bob = fake.add_user("Ann", locale="ru"), fake.add_user("Bob", locale="en-US")
        for uid in (ann, bob):  # both opt in, from their own clients
            rec = await fake.command(uid, fake.channel_id, "game", {"on": True}, sub="notify")
        assert rec.final.content == "I will DM you when it is your turn."
        from bot.service import Reply
        await bot._send_dms(Reply("x", game_id=7, thread_id=8, guild_id=fake.guild_id, dm=[ann, bob], language="en"))
        dms = {m.channel_id: m.content for m in fake.messages if fake.channels.get(m.channel_id, {}).get("type") == 1}
        texts = sorted(dms.values())
        assert any(t.startswith("Ваш ход в партии Roundhouse №7") for t in texts), texts
        assert any(t.startswith("It is your turn in Roundhouse game #7") for t in texts), texts
    finally:
        await runner.stop()
        await fake.stop()
