"""/game ...: lobby, seats, status, history, undo, export/import, reminders, DMs."""

from __future__ import annotations

import asyncio
import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import caller, handle_error, resolve_game, send_private, service
from bot.commands import fit
from bot.errors import UserError
from bot.families import FAMILIES
from bot.service import MAX_UNDO_STEPS, Reply, UndoRequest
from bot.session import Title
from bot.ui import GameButton
from i18n import LANGUAGES, N_, _, normalize
from i18n import NAMES as LANGUAGE_NAMES

log = logging.getLogger(__name__)

GAME_HELP = N_("game number (default: this thread's game)")
THREAD_WAIT = 60.0  # seconds Discord has to open a new game's thread (else the game is closed, the member told)
TITLES: list[Title] = [t for fam in FAMILIES for t in fam.titles()]
TITLE_CHOICES = [app_commands.Choice(name=t.display_name, value=t.name) for t in TITLES]
SETTINGS = {s.name: s.help for t in TITLES for s in t.settings}  # every title's settings, as options of /game new
LANGUAGE_CHOICES = [app_commands.Choice(name=LANGUAGE_NAMES[lang], value=lang) for lang in LANGUAGES]


async def complete_setting(interaction: discord.Interaction, current: str) -> list[app_commands.Choice]:
    """The values of a setting for the title chosen (or of every title that has it)."""
    focused = next((o["name"] for o in _options(interaction.data) if o.get("focused")), None)
    title = getattr(interaction.namespace, "title", None)
    values = [(name, value) for t in TITLES if title in (None, t.name) for s in t.settings if s.name == focused
              for name, value in s.choices]
    return [app_commands.Choice(name=n, value=str(v)) for n, v in fit(values, current)]


def _options(data: object) -> list[dict]:
    opts = (data or {}).get("options", []) if isinstance(data, dict) else []
    while opts and opts[0].get("type") in (1, 2):  # subcommand (group)
        opts = opts[0].get("options", [])
    return opts


def _settings_params(fn):
    """`/game new`'s options for the titles' settings (`map`, `mode`, `rules`), each autocompleted."""
    import inspect

    P = inspect.Parameter
    sig = inspect.signature(fn)
    params = [p for p in sig.parameters.values() if p.kind is not P.VAR_KEYWORD]
    params += [P(name, P.KEYWORD_ONLY, annotation=str | None, default=None) for name in SETTINGS]
    fn.__signature__ = sig.replace(parameters=params)
    return fn


@app_commands.guild_only()
class Games(commands.GroupCog, group_name="game", group_description=N_("Roundhouse games: 18xx titles and Steam")):
    def __init__(self, bot: commands.Bot):
        self.bot = bot
        super().__init__()

    async def cog_app_command_error(self, interaction: discord.Interaction, error: Exception) -> None:
        log.exception("command failed", exc_info=error)
        await handle_error(interaction, error)

    @property
    def svc(self):
        return self.bot.service  # type: ignore[attr-defined]

    async def _new_thread(self, interaction: discord.Interaction, game_id: int, name: str) -> int:
        """Ask Discord for the game's thread, the request stored first: should the bot stop before Discord answers,
        the thread it may open is looked for at the next start-up (`RoundhouseBot.drop_late_threads`)."""
        ch = interaction.channel
        if ch is None or interaction.guild_id is None:
            raise UserError(_("Start games in a server text channel."))
        parent_id = getattr(ch, "parent_id", None) if isinstance(ch, discord.Thread) else ch.id
        if parent_id is None:
            raise UserError(_("Start games in a server text channel."))
        await self.bot.db.ask_thread(game_id, parent_id, name[:100])  # type: ignore[attr-defined]
        data = await self.bot.http.start_thread_without_message(
            parent_id, name=name[:100], auto_archive_duration=10080, type=discord.ChannelType.public_thread.value,
            invitable=True, rate_limit_per_user=0,
        )
        return int(data["id"])

    async def _thread_for(self, interaction: discord.Interaction, game_id: int, name: str) -> int:
        """The new game's thread; if Discord refuses it, or does not answer within `THREAD_WAIT` seconds, the game
        just stored is closed again (it would run with no thread, and the member, told so, tries again). A thread
        Discord opens after that wait is deleted (`_opened_late`)."""
        opening = asyncio.ensure_future(self._new_thread(interaction, game_id, name))
        try:
            return await asyncio.wait_for(asyncio.shield(opening), THREAD_WAIT)
        except TimeoutError:
            log.warning("game %s: Discord did not open its thread within %s s", game_id, THREAD_WAIT)
            await self.svc.close_unopened(game_id)
            self.bot._spawn(self._opened_late(opening, game_id))  # type: ignore[attr-defined]
            raise UserError(_("Discord did not open the game's thread in time, so no game was opened: try again."
                              )) from None
        except discord.HTTPException as exc:
            log.warning("game %s: no thread could be opened: %s", game_id, exc)
            await self.svc.close_unopened(game_id)
            await self.bot.db.thread_answered(game_id)  # type: ignore[attr-defined]
            raise UserError(_("The game's thread could not be opened in this channel ({why}), so no game was "
                              "opened: try again, or in a channel where the bot may create threads.",
                              why=exc.text or exc.status)) from None

    async def _opened_late(self, opening: asyncio.Future, game_id: int) -> None:
        """A new game's thread Discord opens after the member was told no game was opened: deleted, as nothing
        will ever be posted in it (`RoundhouseBot.drop_late_thread`)."""
        try:
            thread_id = await opening
        except Exception:  # not opened after all
            await self.bot.db.thread_answered(game_id)  # type: ignore[attr-defined]
            return
        await self.bot.drop_late_thread(game_id, thread_id)  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ lobby
    @app_commands.command(name="new", description=N_("Open a new game in a new thread"))
    @app_commands.describe(title=N_("game"), language=N_("what the game's thread speaks (default: the server's language)"),
                           **SETTINGS)
    @app_commands.choices(title=TITLE_CHOICES, language=LANGUAGE_CHOICES)
    @app_commands.autocomplete(**{name: complete_setting for name in SETTINGS})
    @_settings_params
    async def new(self, interaction: discord.Interaction, title: str, language: str | None = None,
                  **settings: str | None):
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            if interaction.guild_id is None:
                raise UserError(_("Start games in a server text channel."))
            row = await self.svc.new_game(caller(interaction), title=title, channel_id=interaction.channel_id,
                                          settings={k: v for k, v in settings.items() if v},
                                          language=normalize(language or interaction.guild_locale))
            display = service(interaction).engine.title(row.title).display_name
            thread_id = await self._thread_for(interaction, row.id, f"{display} #{row.id}")
            await self.svc.set_thread(row.id, thread_id)
            msg = await self.svc.post(self.bot.publish, await self.svc.lobby_reply(row.id))
            await self.svc.set_thread(row.id, thread_id, msg.id if msg else None)
        except UserError as e:
            await send_private(interaction, str(e))
            return
        await send_private(interaction, _("Game #{game} is open in {thread}.", game=row.id, thread=f"<#{thread_id}>"))

    async def _simple(self, interaction: discord.Interaction, coro_fn, published: bool = False) -> None:
        """The reply, to the member alone; `published`: the service published it in the game's thread itself (in
        the game's line of posts, the only way anything reaches a thread), and the member hears it is done."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            reply = await coro_fn()
        except UserError as e:
            await send_private(interaction, str(e))
            return
        await send_private(interaction, _("Done.") if published else reply)

    async def _on_game(self, interaction: discord.Interaction, game: int | None, fn) -> None:
        """`fn(game id, caller)` for the game of this thread (or the given one), answered to the member alone."""
        async def go():
            return await fn(await resolve_game(interaction, game), caller(interaction))
        await self._simple(interaction, go)

    async def _held(self, interaction: discord.Interaction, game: int | None, fn) -> None:
        """`fn(game id, caller, publish=...)`, a command that publishes its reply itself, in the game's line of
        posts (its place taken while the game is held)."""
        async def go():
            return await fn(await resolve_game(interaction, game), caller(interaction), publish=self.bot.publish)
        await self._simple(interaction, go, published=True)

    @app_commands.command(name="join", description=N_("Take a seat in the game"))
    @app_commands.describe(game=GAME_HELP)
    async def join(self, interaction: discord.Interaction, game: int | None = None):
        await self._held(interaction, game, self.svc.join)

    @app_commands.command(name="leave", description=N_("Leave the lobby"))
    @app_commands.describe(game=GAME_HELP)
    async def leave(self, interaction: discord.Interaction, game: int | None = None):
        await self._held(interaction, game, self.svc.leave)

    @app_commands.command(name="start", description=N_("Start the game (host): seats are shuffled"))
    @app_commands.describe(game=GAME_HELP)
    async def start(self, interaction: discord.Interaction, game: int | None = None):
        await self._held(interaction, game, self.svc.start)

    @app_commands.command(name="abort", description=N_("Abort the game (host)"))
    @app_commands.describe(game=GAME_HELP)
    async def abort(self, interaction: discord.Interaction, game: int | None = None):
        await self._held(interaction, game, self.svc.abort)

    @app_commands.command(name="kick", description=N_("Remove a player from the lobby (host)"))
    @app_commands.describe(member=N_("who"), game=GAME_HELP)
    async def kick(self, interaction: discord.Interaction, member: discord.User, game: int | None = None):
        await self._held(interaction, game, lambda gid, who, publish: self.svc.kick(gid, who, member.id, publish))

    @app_commands.command(name="replace", description=N_("Give a seat to another member (host, or the player)"))
    @app_commands.describe(old=N_("current holder of the seat"), new=N_("new player"), game=GAME_HELP)
    async def replace(self, interaction: discord.Interaction, old: discord.User, new: discord.User,
                      game: int | None = None):
        await self._held(interaction, game, lambda gid, who, publish: self.svc.replace(
            gid, who, old.id, new.id, new.display_name, publish))

    @app_commands.command(name="claim", description=N_("Take an unclaimed seat of an imported game"))
    @app_commands.describe(seat=N_("seat number (1 = first player)"), game=GAME_HELP)
    async def claim(self, interaction: discord.Interaction, seat: int, game: int | None = None):
        await self._held(interaction, game, lambda gid, who, publish: self.svc.claim(gid, who, seat, publish))

    # ------------------------------------------------------------------ read-only
    @app_commands.command(name="list", description=N_("Open games in this server"))
    async def list_(self, interaction: discord.Interaction):
        await self._simple(interaction, lambda: self.svc.list_games(caller(interaction)))

    @app_commands.command(name="status", description=N_("Where the game stands, with pictures"))
    @app_commands.describe(game=GAME_HELP, place=N_("Steam: the board around this city, town or hex, to read on "
                                                   "a phone"))
    async def status(self, interaction: discord.Interaction, game: int | None = None, place: str | None = None):
        await self._on_game(interaction, game, lambda gid, who: self.svc.status(gid, who, place=place))

    @app_commands.command(name="history", description=N_("The game's actions in sentences, the latest first page"))
    @app_commands.describe(count=N_("how many per page (default 10)"), page=N_("1: the latest, 2: those before…"),
                           game=GAME_HELP)
    async def history(self, interaction: discord.Interaction, count: int = 10, page: int = 1,
                      game: int | None = None):
        await self._on_game(interaction, game, lambda gid, who: self.svc.history(gid, who, count, page))

    # ------------------------------------------------------------------ undo
    @app_commands.command(name="undo", description=N_("Take back your last action (further back: everyone agrees)"))
    @app_commands.describe(steps=N_("how many actions (default 1)"), game=GAME_HELP)
    async def undo(self, interaction: discord.Interaction, steps: app_commands.Range[int, 1, MAX_UNDO_STEPS] = 1,
                   game: int | None = None):
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            gid = await resolve_game(interaction, game)
            res = await self.svc.undo(gid, caller(interaction), steps, publish=self.bot.publish)
        except UserError as e:
            await send_private(interaction, str(e))
            return
        await send_private(interaction, _("Undo requested; the others must agree.") if isinstance(res, UndoRequest)
                           else _("Undone."))

    # ------------------------------------------------------------------ export / import
    @app_commands.command(name="export", description=N_("Download the game's log (18xx.games' format for 18xx titles)"))
    @app_commands.describe(game=GAME_HELP)
    async def export(self, interaction: discord.Interaction, game: int | None = None):
        async def go(gid, who):
            name, data = await self.svc.export(gid, who)
            return Reply(_("Game #{game}'s log.", game=gid), gid, file=(name, data))
        await self._on_game(interaction, game, go)

    @app_commands.command(name="import", description=N_("Continue a game here from its log (18xx.games or exported)"))
    @app_commands.describe(file=N_("the game's JSON log"), player1=N_("member for the log's first player"),
                           player2=N_("second player"), player3=N_("third player"), player4=N_("fourth player"),
                           player5=N_("fifth player"), player6=N_("sixth player"))
    async def import_(self, interaction: discord.Interaction, file: discord.Attachment,
                      player1: discord.User | None = None, player2: discord.User | None = None,
                      player3: discord.User | None = None, player4: discord.User | None = None,
                      player5: discord.User | None = None, player6: discord.User | None = None):
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            if interaction.guild_id is None:
                raise UserError(_("Import games in a server text channel."))
            self.svc.check_import_size(file.size)  # before downloading it
            async with self.svc.importing(caller(interaction)):  # one at a time per member, the download included
                try:
                    data = await file.read()
                except discord.HTTPException:
                    raise UserError(_("The attachment could not be downloaded; try again.")) from None
                members = [(m.id, m.display_name) if m is not None else None
                           for m in (player1, player2, player3, player4, player5, player6)]
                row, reply = await self.svc.import_game(caller(interaction), data, members,
                                                        channel_id=interaction.channel_id,
                                                        language=normalize(interaction.guild_locale))
                display = service(interaction).engine.title(row.title).display_name
                thread_id = await self._thread_for(interaction, row.id,
                                                   _("{title} #{game} (imported)", title=display, game=row.id))
                await self.svc.set_thread(row.id, thread_id)
                reply.thread_id = thread_id
                await self.svc.post(self.bot.publish, reply)
        except UserError as e:
            await send_private(interaction, str(e))
            return
        await send_private(interaction, _("Imported as game #{game} in {thread}.", game=row.id, thread=f"<#{thread_id}>"))

    # ------------------------------------------------------------------ reminders / DMs
    @app_commands.command(name="remind", description=N_("Reminder after idle hours (0 = off)"))
    @app_commands.describe(hours=N_("idle hours before the first reminder (0 switches them off)"),
                           every=N_("hours between further reminders (default 24)"), game=GAME_HELP)
    async def remind(self, interaction: discord.Interaction, hours: float, every: float | None = None,
                     game: int | None = None):
        await self._held(interaction, game, lambda gid, who, publish: self.svc.set_remind(gid, who, hours, every,
                                                                                           publish))

    @app_commands.command(name="notify", description=N_("DM me when it becomes my turn"))
    @app_commands.describe(on=N_("on or off"))
    async def notify(self, interaction: discord.Interaction, on: bool = True):
        await self._simple(interaction, lambda: self.svc.set_notify(caller(interaction), on))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Games(bot))


__all__ = ["Games", "GameButton"]
