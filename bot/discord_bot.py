"""The discord.py bot: a thin adapter from interactions to `bot.service.Service`."""

from __future__ import annotations

import asyncio
import io
import logging
import signal
import time
from datetime import UTC, datetime
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.config import Config
from bot.db import Database
from bot.service import Reply, Service, in_background
from bot.session import Engine
from i18n import DEFAULT, _, speaking

log = logging.getLogger(__name__)

EXTENSIONS = ("bot.cogs.games", "bot.cogs.play")
CLOCK_MARGIN = 300.0  # seconds by which this machine's clock and Discord's may differ (looking back that much more)


def allowed_mentions_for(members: list[int]) -> discord.AllowedMentions:
    """Ping exactly these members: never everyone, roles or the replied-to user."""
    users = [discord.Object(m) for m in members if m > 0]
    if not users:
        return discord.AllowedMentions.none()
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False, users=users)


def thread_link(reply: Reply) -> str:
    """A link to the game's thread in its server (a DM has no `<#thread>` context to resolve)."""
    if not reply.thread_id or not reply.guild_id:
        return ""
    return f"https://discord.com/channels/{reply.guild_id}/{reply.thread_id}"


class RoundhouseTree(app_commands.CommandTree):
    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """Every command, autocomplete included, answers the member in their Discord language."""
        from bot.cogs.common import speak_to_member
        return await speak_to_member(interaction)


def make_bot(config: Config, *, engine: Any | None = None, db: Database | None = None) -> RoundhouseBot:
    if config.sharded:
        return RoundhouseShardedBot(config, engine=engine, db=db)
    return RoundhouseBot(config, engine=engine, db=db)


class RoundhouseBot(commands.Bot):
    def __init__(self, config: Config, *, engine: Any | None = None, db: Database | None = None, **kw: Any):
        intents = discord.Intents.none()
        intents.guilds = True
        kwargs: dict[str, Any] = {
            "command_prefix": commands.when_mentioned,
            "intents": intents,
            "help_command": None,
            "allowed_mentions": discord.AllowedMentions.none(),
            "guild_ready_timeout": config.guild_ready_timeout,
            "chunk_guilds_at_startup": False,
            "tree_cls": RoundhouseTree,
        }
        if config.sharded and config.shard_count:
            kwargs["shard_count"] = config.shard_count
        kwargs.update(kw)
        super().__init__(**kwargs)
        self.config = config
        self.db = db or Database(config.db_path)
        self._own_db = db is None
        self.service = Service(self.db, engine or Engine(), pictures=config.pictures, **config.memory())
        self._reminder_task: asyncio.Task | None = None
        self.resumed: asyncio.Task | None = None  # the running games built once connected (`_resume`)
        self._bg: set[asyncio.Task] = set()
        self.synced: list[Any] = []

    async def setup_hook(self) -> None:
        if self.db.conn is None:
            await self.db.open()
        for channel_id, note in await self.service.close_threadless():  # closed before any command
            await self.publish(note, channel_id)
        self._spawn(self.drop_late_threads())
        # the running games are replayed once connected, not before: with many games the bot would be deaf
        # for as long (a command on a game not built yet builds it, `Service.live`)
        self.resumed = asyncio.create_task(self._resume())
        from bot.ui import GameButton
        self.add_dynamic_items(GameButton)
        for ext in EXTENSIONS:
            await self.load_extension(ext)
        from bot.translator import CatalogueTranslator
        await self.tree.set_translator(CatalogueTranslator())
        await self.sync_commands()
        self._reminder_task = asyncio.create_task(self._reminder_loop())

    async def _resume(self) -> None:
        """Once connected: the running games most recently played, as many as memory keeps, built from their
        logs (those failing to replay reported), and their titles' first pictures drawn; then the others checked
        (`Service.check_beyond`), and the threads of the games found broken told so once (`Service.tell_broken`)."""
        await self.wait_until_ready()
        try:
            resumed, broken = await self.service.resume_all(limit=self.service.max_live)
        except Exception:
            log.exception("resuming the running games failed (each is built at its first command)")
            return
        log.info("resumed %d active game(s)%s", len(resumed),
                 f"; {len(broken)} could not be loaded: {sorted(broken)}" if broken else "")
        if self.config.pictures:  # the running games' first pictures (a new lobby warms its own)
            titles = {self.service._live[g].row.title for g in resumed if g in self.service._live}
            await asyncio.to_thread(lambda: [self.service.engine.warm_pictures(t) for t in sorted(titles)])
        try:  # then the running games beyond those, one at a time, each let go once checked
            beyond = await self.service.check_beyond(set(resumed) | set(broken))
        except Exception:
            log.exception("checking the running games not kept in memory failed (each is checked at its first "
                          "command)")
            beyond = {}  # those found broken before are told still
        if beyond:
            log.error("%d running game(s) beyond those kept in memory could not be loaded: %s", len(beyond),
                      sorted(beyond))
        try:
            await self.service.tell_broken({*broken, *beyond}, self.publish)
        except Exception:
            log.exception("telling the threads of the games that cannot be loaded failed")

    # seconds between looks for a late thread Discord does not list yet (its answer to the bot's ask may come late)
    LATE_THREAD_WAITS = (5.0, 20.0, 60.0)
    LATE_THREAD_SETTLED = 86_400.0  # an ask this old whose thread is not listed: Discord never opened it

    async def drop_late_threads(self) -> None:
        """At start-up: each game's thread asked of Discord whose answer never came (the bot stopped first) is
        looked for among its server's active threads (the bot's own, in the channel asked in, by the name asked
        for) and deleted: its game was closed (`Service.close_threadless`, or when the wait ran out). One not
        listed is looked for again after each of `LATE_THREAD_WAITS`, then at the next start-up, until the ask is
        `LATE_THREAD_SETTLED` old."""
        waiting = []
        for game_id, guild_id, parent_id, name, asked_at in await self.db.threads_asked():
            row = await self.db.get_game(game_id)
            if row is None or row.thread_id is not None or guild_id is None:
                await self.db.thread_answered(game_id)
            else:
                waiting.append((game_id, guild_id, parent_id, name, asked_at))
        for wait in (0.0, *self.LATE_THREAD_WAITS):
            if not waiting:
                return
            await asyncio.sleep(wait)
            listed: dict[int, list[dict]] = {}
            for ask in list(waiting):
                game_id, guild_id, parent_id, name, _asked_at = ask
                try:
                    if guild_id not in listed:
                        listed[guild_id] = (await self.http.get_active_threads(guild_id)).get("threads", [])
                except discord.HTTPException as exc:
                    log.warning("game %s: could not look for the thread asked for it: %s", game_id, exc)
                    continue
                for thread in listed[guild_id]:
                    if str(thread.get("parent_id")) == str(parent_id) and thread.get("name") == name and \
                            self.user is not None and str(thread.get("owner_id")) == str(self.user.id):
                        await self.drop_late_thread(game_id, int(thread["id"]))
                        waiting.remove(ask)
                        break
        for game_id, *_where, asked_at in waiting:  # not listed: looked for again at the next start-up, until settled
            if time.time() - asked_at >= self.LATE_THREAD_SETTLED:
                await self.db.thread_answered(game_id)

    async def drop_late_thread(self, game_id: int, thread_id: int) -> None:
        """Delete a game's thread Discord opened after the game was closed for want of it, as nothing will ever be
        posted in it; where the bot may not delete it, it says so in it."""
        log.info("game %s: its thread %s was opened too late: deleting it", game_id, thread_id)
        try:
            await self.http.delete_channel(thread_id, reason=f"Roundhouse game #{game_id} was not opened")
        except discord.HTTPException:
            try:
                row = await self.db.get_game(game_id)
                with speaking(row.language if row is not None else DEFAULT):  # the thread's, as the game's
                    text = _("Discord opened this thread too late: game #{game} was not opened, so nothing will be "
                             "posted here.", game=game_id)
                await self.get_partial_messageable(thread_id).send(text, allowed_mentions=discord.AllowedMentions.none())
            except discord.HTTPException as exc:
                log.info("game %s: could not say so in the thread opened too late: %s", game_id, exc)
        await self.db.thread_answered(game_id)

    async def sync_commands(self) -> None:
        mode = self.config.sync
        if mode == "off":
            return
        guild_id = self.config.dev_guild
        if guild_id and mode in ("auto", "guild"):
            guild = discord.Object(guild_id)
            self.tree.copy_global_to(guild=guild)
            self.synced = await self.tree.sync(guild=guild)
        elif mode in ("auto", "global"):
            self.synced = await self.tree.sync()

    async def close(self) -> None:
        for task in (self._reminder_task, self.resumed):
            if task:
                task.cancel()
        for t in list(self._bg):
            t.cancel()
        await super().close()
        if self._own_db:
            await self.db.close()

    # ---------------------------------------------------------------- publishing
    async def publish(self, reply: Reply, channel_id: int | None = None) -> discord.Message | None:
        """Post a reply in its game's thread (or edit `reply.edit` in place): text, pictures, buttons; ping
        only `reply.mention`. The thread's pinned summary is brought up to date first (`reply.pinned`), the
        replies in `reply.also` follow. Returns the message of `reply` itself, or None if Discord refused it
        (a locked thread, a permission taken away): what it tells of is stored already, so the command that
        did it must still answer that it was done, and the thread catches up with the next post."""
        try:
            return await self._post(reply, channel_id)
        except discord.HTTPException as exc:
            log.warning("game %s: could not post in %s: %s", reply.game_id, reply.thread_id or channel_id, exc)
            return None

    async def _post(self, reply: Reply, channel_id: int | None) -> discord.Message | None:
        from bot.ui import buttons_view
        target = reply.thread_id or channel_id
        if target is None:
            return None
        channel = self.get_partial_messageable(target)
        if reply.pinned is not None and reply.game_id is not None and reply.thread_id:
            # first: a summary posted anew stays above the news, which remains the thread's last message
            await self.keep_pinned(reply.game_id, reply.thread_id, reply.pinned)
        if reply.reuse is not None and reply.edit is None and reply.game_id is not None and \
                (posted := await self._posted_already(channel, reply.game_id, *reply.reuse)) is not None:
            if reply.buttons:  # this very post, out before a restart
                return posted
            reply.edit = posted.id  # a closing of that ballot's message (`Service._closing`): edited
        kwargs: dict[str, Any] = {
            "content": reply.text[:2000],
            "allowed_mentions": allowed_mentions_for(reply.mention),
            "view": buttons_view(reply),
        }
        if reply.edit is not None:
            try:
                msg = await channel.get_partial_message(reply.edit).edit(**kwargs)
            except discord.NotFound:  # the message is gone: post it again
                msg = await channel.send(**kwargs)
        else:
            if kwargs["view"] is None:
                del kwargs["view"]
            if reply.pictures:
                kwargs["files"] = [discord.File(io.BytesIO(p.data), filename=p.name) for p in reply.pictures]
            msg = await channel.send(**kwargs)
        if reply.on_posted is not None:
            await reply.on_posted(msg.id)
        if reply.dm:
            self._spawn(self._send_dms(reply))
        for more in reply.also:
            await self.publish(more, target)
        return msg

    async def _posted_already(self, channel: discord.PartialMessageable, game_id: int, button: str,
                              since: float) -> discord.Message | None:
        """The bot's message with the button `button` (`what:arg`) among all those posted in the thread since
        `since` (a time before it could be posted: a message's id tells when it was posted), the oldest first: one
        posted just before a restart, not known to be. None if there is none, or the history cannot be read."""
        from bot.ui import carries, custom_id
        what, _sep, arg = button.partition(":")
        cid = custom_id(what, game_id, int(arg) if arg else None)
        after = discord.Object(discord.utils.time_snowflake(
            datetime.fromtimestamp(since - CLOCK_MARGIN, tz=UTC)))
        try:
            async for message in channel.history(limit=None, after=after, oldest_first=True):
                if self.user is not None and message.author.id == self.user.id and carries(message, cid):
                    return message
        except discord.HTTPException as exc:
            log.info("game %s: could not read the thread's latest messages: %s", game_id, exc)
        return None

    async def keep_pinned(self, game_id: int, thread_id: int, text: str) -> None:
        """Edit the thread's pinned summary to `text`: pinned again if someone unpinned it, posted and pinned
        anew if it was deleted (or never posted). Best effort: a summary that cannot be kept never stops the
        game (pinning needs the Pin Messages permission)."""
        channel = self.get_partial_messageable(thread_id)
        kwargs: dict[str, Any] = {"content": text[:2000], "allowed_mentions": discord.AllowedMentions.none()}
        try:
            message_id = await self.service.pinned_message(game_id)
            msg = None
            if message_id is not None:
                try:
                    msg = await channel.get_partial_message(message_id).edit(**kwargs)
                except discord.NotFound:
                    msg = None
            if msg is None:
                msg = await channel.send(**kwargs)
                await self.service.set_pinned_message(game_id, msg.id)
            if not msg.pinned:
                await msg.pin(reason=f"Roundhouse game #{game_id}: where the game stands")
        except discord.HTTPException as exc:
            log.info("game %s: could not keep the pinned summary: %s", game_id, exc)

    def _spawn(self, coro: Any) -> None:
        in_background(self._bg, coro)

    async def _send_dms(self, reply: Reply) -> None:
        link = thread_link(reply)
        for member in reply.dm:
            if member <= 0:
                continue
            try:
                dm = await self.create_dm(discord.Object(member))  # type: ignore[arg-type]
                with speaking(await self.db.member_language(member) or reply.language):
                    text = _("It is your turn in Roundhouse game #{game}: {thread} {link}", game=reply.game_id,
                             thread=f"<#{reply.thread_id}>", link=link)
                await dm.send(text, allowed_mentions=discord.AllowedMentions.none())
            except discord.HTTPException:
                log.info("could not DM %s", member)

    # ---------------------------------------------------------------- reminders
    async def _reminder_loop(self) -> None:
        await self.wait_until_ready()
        while not self.is_closed():
            try:  # first: a post lost before a restart is made good as soon as the bot is back
                await self.service.catch_up(self.publish)
            except Exception:
                log.exception("catching up the threads failed")
            try:
                await self.send_reminders()
            except Exception:
                log.exception("reminder sweep failed")
            self.service.evict()  # idle games leave memory (rebuilt from their log when next used)
            await asyncio.sleep(self.config.reminder_check)

    async def send_reminders(self, now: float | None = None) -> int:
        """Post the reminders due (each in its game's line of posts, see `Service.due_reminders`): how many."""
        posted = []

        async def remind(reply: Reply) -> discord.Message | None:
            if reply.thread_id:
                try:  # reminder posts reopen archived threads
                    await self.http.edit_channel(reply.thread_id, archived=False)
                except discord.HTTPException:
                    pass
            msg = await self.publish(reply)
            if msg is not None:
                posted.append(msg)
            return msg

        await self.service.due_reminders(now, publish=remind)
        return len(posted)


class RoundhouseShardedBot(RoundhouseBot, commands.AutoShardedBot):
    """Same bot on discord.AutoShardedClient (ROUNDHOUSE_SHARDED=1)."""


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


async def run_bot(config: Config) -> None:
    discord.utils.setup_logging(level=config.log_level)
    db = await Database(config.db_path).open()  # the owner lock first: a second process stops here
    try:
        bot = make_bot(config, db=db)
        async with bot:
            stopped_by = await run_until_stopped(bot, config.token or "")
    finally:
        await db.close()
    if stopped_by == signal.SIGINT:
        raise KeyboardInterrupt  # Ctrl-C: the caller reports a quiet stop


async def run_until_stopped(bot: commands.Bot, token: str) -> int | None:
    """Run the bot until it ends, or until Ctrl-C or a stop from the system (SIGTERM: `docker stop`) closes it;
    the signal, if one stopped it. Its own handlers, rather than Python's: SIGTERM would end the process without
    closing the connection, and a process started with Ctrl-C ignored (a background job) would never stop on it."""
    loop = asyncio.get_running_loop()
    stop: asyncio.Future[int] = loop.create_future()
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, lambda sig=sig: stop.done() or stop.set_result(sig))
    runner = asyncio.ensure_future(bot.start(token))
    try:
        await asyncio.wait({runner, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)
    if not stop.done():
        stop.cancel()
        runner.result()  # the bot's own end, or its error
        return None
    await bot.close()
    done, _ = await asyncio.wait({runner}, timeout=30)
    if not done:
        runner.cancel()
    return stop.result()


def main(config: Config) -> None:
    asyncio.run(run_bot(config))


__all__ = ["RoundhouseBot", "make_bot", "run_bot", "main", "Engine", "allowed_mentions_for", "thread_link"]
