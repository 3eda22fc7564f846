"""What the bot does, independent of Discord: lobby, seats, actions, undo, reminders, import/export.

The Discord cogs and the local console both call this, naming the caller (`bot.access.Caller`): every
game command is scoped to the caller's server and judged by `bot.access`. Each game has an asyncio.Lock
so its commands (reads included) run one at a time; engine calls and rendering run in worker threads. What
only reads takes it for as little as it can: autocomplete, `/game status` and `/game history` read a copy of
the game as stored (`Copy`, made when a read first needs it), or the log, once the game is free again; an
undo replays the log before taking it. A post's pictures (an action's, an undo's…) are drawn from a copy
once the game is free (`Service._tell`), and each game's posts go out in the order of the changes they tell
(`Service._queue`), none of them sent with the game held (`Service._told`; an undo request and a trade offer
are stored before they are posted: `Service._ballot`).
Games not in use leave memory (`Service.evict`) and are rebuilt from their stored log when next used.
An action is committed to SQLite before anything is published about it, and the game in memory is only
trusted while it matches the stored log: whatever goes wrong between applying an action and storing it,
the game in memory is dropped and rebuilt from the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import logging
import os
import random
import re
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pydantic

from bot import access
from bot.access import Caller
from bot.commands import Command, fit
from bot.db import (
    Closing,
    Database,
    GameRow,
    LogConflict,
    PendingPreview,
    PreviewGone,
    Seat,
    TradeOffer,
    UndoEvent,
    UndoRequest,
)
from bot.errors import PreviewClosed, Refusal, UserError, clip, quote
from bot.names import CommandName
from bot.session import Change, Engine, Session, Title, written_name, written_text
from i18n import DEFAULT, N_, _, lazy, lazy_n, ngettext, normalize, speaking, use

log = logging.getLogger(__name__)

DEFAULT_FIRST_REMINDER = 12 * 3600.0
DEFAULT_REMINDER_EVERY = 24 * 3600.0
MIN_REMINDER_HOURS = 1.0
MAX_REMINDER_HOURS = 24 * 30.0
MAX_UNDO_STEPS = 500
MAX_FOLLOW_UPS = 12  # actions one command may send (an end of turn passing several steps)
NAME_LIMIT = 40
# an imported log: a long real 1830 game is ~2,000 actions and well under 2 MB
MAX_IMPORT_BYTES = 12 * 1024 * 1024
MAX_IMPORT_ACTIONS = 20_000
MAX_IMPORT_DEPTH = 20  # lists and objects inside each other: 18xx.games' exports reach 7 (tests/fixtures)
MAX_IMPORT_VALUES = 200_000  # lists and objects in all: 18xx.games' exports hold 2 to 4 an action (tests/fixtures)
POWER_SLOTS = 25  # the most buttons a message may carry: a seat's moves out of turn offered at once
MAX_PREVIEWS = 1000  # previews waiting for an answer, over all games (the oldest are dropped beyond)
MAX_OPEN_LOBBIES = 10  # lobbies one member may host at once in a server (each is a thread in its channel)
MAX_READS_AT_ONCE = 2  # heavy reads (status, history, export) one member may have on their way at once
# heavy reads running at once, all members' together (others wait): fewer than the worker threads asyncio has
# (min(32, cores + 4): 6 on two cores), which every server's actions, undos and pictures use too
MAX_READS_RUNNING = 3
MAX_COMPLETIONS_AT_ONCE = 2  # autocompletes one member may have on their way (more: no choices, no work)
MAX_IMPORTS_AT_ONCE = 1  # imports one member may have on their way, their file's download included (more: refused)
# imports one member may send in an hour (each is a game every start-up replays, and pings the members it seats)
MAX_IMPORTS_AN_HOUR = 10
MAX_UNDOS_AT_ONCE = 1  # undo requests and votes one member may have on their way (each may replay the game)
BALLOT_TOKENS = 1 << 20  # the least number an undo request's or trade offer's own buttons carry (above any count)
BALLOT_PING_EVERY = 300.0  # seconds: a seat's undo requests (or trade offers) ping the seats asked once in this long
# games kept in memory (a long 1817 game takes a few MB): beyond this many, or idle this long, a game not in use
# leaves memory, and its next command rebuilds it from the stored log (defaults of the bot's settings, bot.config)
MAX_LIVE_GAMES = 32
IDLE_GAME_SECONDS = 2 * 3600.0
READ_COPIES = 8  # games keeping a copy of themselves for reads (`Copy`: about as big again as the game)
READ_WAIT = 1.5  # seconds autocomplete waits for an action in flight (Discord drops an answer after 3 s)

ANY_GROUP = object()  # a command sent by a button or the console: no slash-command group to check
ANY_MOMENT = object()  # a command typed, not sent by a button: no moment of the game to check

# a game button pressed under a message older than the game's moment (`Service._moment`)
BUTTON_OUTDATED = N_("This button was posted before the game moved on, so nothing was done: use the buttons of the "
                     "latest message, or the command.")
STORED_UNTOLD = N_("Done and stored, but telling the game's thread of it failed: the thread is told within a few "
                   "minutes, so do not send it again.")
STORED_NOT_TOLD = N_("Done and stored, but telling the game's thread of it failed, so do not send it again.")
ENGINE_FAILED = N_("The rules engine failed on this action, so nothing was stored: the game is as it was "
                   "before your command. The error was logged for the developers.")


@dataclass
class Picture:
    name: str
    data: bytes


@dataclass
class Reply:
    """Something to publish in a game's thread (or ephemerally to the caller)."""

    text: str
    game_id: int | None = None
    thread_id: int | None = None
    pictures: list[Picture] = field(default_factory=list)
    mention: list[int] = field(default_factory=list)     # member ids to ping (and only those)
    buttons: list[str] = field(default_factory=list)     # pass / payout / withhold / run_best / join / start
    dm: list[int] = field(default_factory=list)          # opted-in members to DM that it is their turn
    file: tuple[str, bytes] | None = None                # export
    edit: int | None = None                              # message id: edit that message in place instead
    also: list[Reply] = field(default_factory=list)      # further posts/edits published after this one
    guild_id: int | None = None                          # the game's server (links to its thread)
    language: str = DEFAULT                              # what it is written in (its buttons too)
    pinned: str | None = None                            # the thread's pinned summary, as it reads now
    private: bool = False                                # for the caller alone (a preview to confirm): never posted
    labels: dict[str, str] = field(default_factory=dict)  # a button's own words, where not its kind's (a move)
    told: tuple[int, int] | None = None                  # (moment, actions) of the game it tells of, once posted
    powers: frozenset[int] | None = None                 # seats holding moves out of turn in it (None: not looked)
    # (a button, `what:arg`; a time before that button's post): a message in the thread with that button, posted
    # since, is this post already (one with buttons: a ballot posted again), or the one it edits (one without: the
    # ballot's closing); none found, it is posted
    reuse: tuple[str, float] | None = None
    # awaited with its message's id as soon as Discord has taken it, before what follows it (`also`) is published
    on_posted: Callable[[int], Awaitable[None]] | None = field(default=None, repr=False, compare=False)
    # its post on its way once the game is free (its pictures drawn first, for an action: `Service._apply`), in
    # the game's line of posts (`Service._told`); what the command returns waits for it (`_told_in_full`)
    drawing: asyncio.Future | None = field(default=None, repr=False, compare=False)


@dataclass(eq=False)
class Copy:
    """The game at one version (`Live.version`) as bytes (`Session.frozen`), for the reads that need not hold
    its lock; `session`: those bytes thawed once a read needs them, used by one read at a time (`reading`)."""

    version: int
    frozen: bytes
    thaw: Callable[[bytes], Session]
    session: Session | None = None
    reading: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def read(self, work: Callable[[Session], Any]) -> Any:
        """`work(session)` in a worker thread, on the copy thawed (a copy of its own while another read uses it)."""
        if self.reading.locked():
            own = await asyncio.to_thread(self.thaw, self.frozen)
            return await asyncio.to_thread(work, own)
        async with self.reading:
            if self.session is None:
                self.session = await asyncio.to_thread(self.thaw, self.frozen)
            return await asyncio.to_thread(work, self.session)


@dataclass
class Live:
    row: GameRow
    seats: list[Seat]
    session: Session | None
    used_at: float = field(default_factory=time.monotonic)  # last used by a command (eviction)
    # moved on by every change of `session` (an action applied, an undo, the start): a copy of another version
    # is not the game as stored
    version: int = 0
    copy: Copy | None = None  # made when a read first needs it after a change (`Service._copy`)

    @property
    def game(self) -> Any:
        """The engine's own game object (None in the lobby)."""
        return self.session.game if self.session is not None else None

    @property
    def names(self) -> dict[int, str]:
        """The players' names as messages write them (`written_name`)."""
        return {s.player_id: written_name(s.name) for s in self.seats}

    @property
    def drawn_names(self) -> dict[int, str]:
        """The players' names as the pictures draw them: as given."""
        return {s.player_id: s.name for s in self.seats}

    def seat_of_member(self, member_id: int) -> Seat | None:
        return access.seat_of(self.seats, member_id)

    def member_of_player(self, player_id: Any) -> int | None:
        try:
            pid = int(player_id)
        except (TypeError, ValueError):
            return None
        return next((s.member_id for s in self.seats if s.player_id == pid), None)

    def reply(self, text: str, **kw: Any) -> Reply:
        return Reply(text, self.row.id, self.row.thread_id, guild_id=self.row.guild_id, language=self.row.language,
                     **kw)


@dataclass
class Undoing:
    """An undo worked out before its game is held (`Service._prepare_undo`: the replays take a second for a long
    1817 game): its words and the shorter game, used only if the game is still at `version` of `live` once
    held."""

    live: Live
    version: int
    players: list[dict]
    stored: list[dict]
    steps: int
    undone: str
    session: Session | None  # the game without the last `steps` actions (None: only told, for a vote)

    def holds(self, lv: Live, steps: int, players: list[dict], rebuilt: bool) -> bool:
        return self.live is lv and self.version == lv.version and self.steps == steps and \
            self.players == players and (self.session is not None or not rebuilt)


class LogPlayer(pydantic.BaseModel):
    id: int = pydantic.Field(ge=access.STORED_INT[0], le=access.STORED_INT[1])
    name: str = ""


class ImportedLog(pydantic.BaseModel):
    """The parts of a game log (18xx.games' format; Steam's is laid out alike) the bot reads; the engine
    checks the actions themselves."""

    model_config = pydantic.ConfigDict(extra="allow")
    title: str
    players: list[LogPlayer] = pydantic.Field(min_length=1)
    actions: list[dict[str, Any]] = pydantic.Field(default_factory=list)
    settings: dict[str, Any] | None = None


Publish = Callable[[Reply], Awaitable[Any]]


SQUARE_BRACKETS = bytes.maketrans(b"{}", b"[]")
NOT_QUOTE_OR_BRACKET = bytes(b for b in range(256) if b not in b'"[]{}')
A_STRING = re.compile(rb'"[^"]*"')


def brackets_of(text: bytes) -> bytes:
    """The brackets of the JSON `text` (UTF-8, valid JSON) outside its strings, `{}` written as `[]`: each list or
    object is a pair. A few passes of bytes operations over the text, never an object per value (walking the
    read data did that, seconds on millions of empty objects)."""
    # with the escaped backslashes, then the escaped quotes gone, the quotes left open and close strings in turn;
    # of the rest only quotes and brackets are kept, and the strings, emptied of all else, dropped ("" first:
    # most strings hold no bracket, and taking away two quotes side by side keeps them in turn)
    kept = text.replace(b"\\\\", b"").replace(b'\\"', b"").translate(SQUARE_BRACKETS, NOT_QUOTE_OR_BRACKET)
    return A_STRING.sub(b"", kept.replace(b'""', b""))


def nested_deeper_than(brackets: bytes, most: int) -> bool:
    """Whether lists or objects lie more than `most` deep (the outermost is 1 deep) in a text whose brackets
    are `brackets` (`brackets_of`)."""
    for _level in range(most):  # each pass takes away the innermost pairs: the deepest level
        if not brackets:
            return False
        brackets = brackets.replace(b"[]", b"")
    return bool(brackets)


def _lowest_priority() -> None:
    """Run the calling thread at the lowest priority (Linux sets it per thread), so its work waits for the rest."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except (AttributeError, OSError):  # not Linux, or not allowed: at the process's priority
        pass


def too_deep() -> UserError:
    return UserError(lazy("The file is not an 18xx.games game log: its lists or objects lie more than {most} deep.",
                          most=MAX_IMPORT_DEPTH))


def in_background(tasks: set[asyncio.Future], coro: Awaitable[Any]) -> asyncio.Future:
    """Run `coro` as a task kept in `tasks` until it ends. Whoever awaits it may be gone by then, so its failure
    is logged here (else it would only show, if ever, when the task is collected)."""
    task = asyncio.ensure_future(coro)
    tasks.add(task)

    def ended(done: asyncio.Future) -> None:
        tasks.discard(done)
        if not done.cancelled() and done.exception() is not None:
            log.error("a background task failed", exc_info=done.exception())

    task.add_done_callback(ended)
    return task


def _told_in_full(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """A command telling the thread returns once the game is free again and its reply is posted: its post is
    queued in the game's line with the game held and sent without it (`Service._told`), an action's pictures
    drawn from a copy of the game once the command lets the game go (`Service._apply`)."""

    @functools.wraps(method)
    async def run(*args: Any, **kwargs: Any) -> Reply | None:
        reply = await method(*args, **kwargs)
        if getattr(reply, "drawing", None) is not None:
            await asyncio.shield(reply.drawing)  # posted whatever becomes of the command
            reply.drawing = None
        return reply

    return run


def _as_stored(action: dict) -> dict:
    """An action as the log stores it (JSON), to compare one in memory with one read back after a restart."""
    return json.loads(json.dumps(action))


# what a name keeps of no letter: control characters, and the marks that set the direction of the text after them
# (a name ending in a right-to-left override would show the rest of its line backwards: `Next: …` spelt anew)
UNSEEN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _short(name: str) -> str:
    """A player's name as stored: on one line, without the characters that show nothing, at most `NAME_LIMIT`."""
    name = UNSEEN.sub("", " ".join(str(name).split()))
    return name[:NAME_LIMIT] or "?"


@contextlib.contextmanager
def _one_more(going: dict[int, int], member: int, most: int) -> Iterator[int | None]:
    """One more of a member's requests of a kind (`going`: member -> how many on their way) while the block runs;
    it gets None if they had `most` on their way already (not counted), else how many they had."""
    had = going.get(member, 0)
    if had >= most:
        yield None
        return
    going[member] = had + 1
    try:
        yield had
    finally:
        going[member] -= 1
        if not going[member]:
            del going[member]


def _heavy_read(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """A read that replays or draws in a worker thread (`status`, `history`, `export`): one member has at most
    `MAX_READS_AT_ONCE` on their way (a further one is refused), and all members' together run at most
    `MAX_READS_RUNNING` at once (a further one waits its turn), so reads cannot fill the worker threads every
    server's actions use."""

    @functools.wraps(method)
    async def run(self: Service, game_id: int, caller: Caller, *args: Any, **kwargs: Any) -> Any:
        with _one_more(self._reading, caller.member_id, MAX_READS_AT_ONCE) as had:
            if had is None:
                raise UserError(lazy_n("You have {n} read on its way (status, history, export): ask again once it "
                                       "is answered.", "You have {n} reads on their way (status, history, export): "
                                       "ask again once they are answered.", MAX_READS_AT_ONCE))
            async with self.reads.turn():
                return await method(self, game_id, caller, *args, **kwargs)

    return run


class Turns:
    """At most `most` at once; the others wait their turn, first come first served."""

    def __init__(self, most: int):
        self.most = most
        self.wanting = 0  # running or waiting
        self._free = asyncio.Semaphore(most)

    @property
    def waiting(self) -> int:
        return max(0, self.wanting - self.most)

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        self.wanting += 1
        try:
            async with self._free:
                yield
        finally:
            self.wanting -= 1


class Service:
    def __init__(self, db: Database, engine: Engine | Any | None = None, *, pictures: bool = True,
                 max_live: int = MAX_LIVE_GAMES, idle_after: float = IDLE_GAME_SECONDS,
                 read_copies: int = READ_COPIES, read_wait: float = READ_WAIT):
        self.db = db
        self.engine = engine or Engine()
        self.pictures = pictures
        self.max_live, self.idle_after = max_live, idle_after
        self.read_copies, self.read_wait = read_copies, read_wait
        self._live: OrderedDict[int, Live] = OrderedDict()  # least recently used first
        self._copied: OrderedDict[int, None] = OrderedDict()  # games holding a `Copy`, least recently read first
        self._loading: dict[int, asyncio.Future] = {}  # game id -> its build from the stored log, while it runs
        self._locks: dict[int, asyncio.Lock] = {}
        self.broken: dict[int, str] = {}   # game id -> why its stored log could not be replayed
        self._importing = asyncio.Semaphore(1)  # imports are the heaviest work: one at a time (`import_game`)
        self._tasks: set[asyncio.Future] = set()
        self._languages: dict[int, str] = {}  # member id -> their language as stored
        self._catch_up_tried: dict[int, tuple[int, float]] = {}  # game id -> (moment, when) of a refused catch-up
        self._posts: dict[int, asyncio.Future] = {}  # game id -> its last post in line (`_queue`), until posted
        self._ballots: dict[int, asyncio.Future] = {}  # game id -> its undo vote or offer being posted (`_ballot`)
        self._powers_told: dict[int, frozenset[int]] = {}  # game id -> `Reply.powers` of its last post that had them
        self._reading: dict[int, int] = {}  # member id -> their heavy reads on their way (`_heavy_read`)
        self.reads = Turns(MAX_READS_RUNNING)  # all members' heavy reads (`_heavy_read`)
        self._completing: dict[int, int] = {}  # member id -> their autocompletes on their way (`autocomplete`)
        self._importers: dict[int, int] = {}  # member id -> their imports on their way (`importing`)
        self._imported: dict[int, list[float]] = {}  # member id -> when they sent their imports of the last hour
        self._undoing: dict[int, int] = {}  # member id -> their undo requests and votes on their way (`_one_undo`)
        # when a ballot pinged (`_may_ping`: stored, so wall time), when a member imported (`importing`)
        self.clock: Callable[[], float] = time.time

    # ------------------------------------------------------------------ games in memory
    def lock(self, game_id: int) -> asyncio.Lock:
        lk = self._locks.get(game_id)
        if lk is None:
            lk = self._locks[game_id] = asyncio.Lock()
        return lk

    async def resolve(self, caller: Caller, *, thread_id: int | None = None, game_id: int | None = None) -> GameRow:
        """The game a command is about: the given number, else the game of the thread it was typed in;
        only games of the caller's server."""
        if game_id is not None:
            return access.check_scope(caller, await self.db.get_game(access.game_number(game_id)), game_id)
        if thread_id is not None:
            row = await self.db.game_by_thread(thread_id)
            if row is not None and access.in_scope(caller, row):
                return row
        raise UserError(lazy("Use this in a game's thread, or give the game number."))

    async def live(self, game_id: int, *, reload: bool = False) -> Live:
        """The game in memory, built from its stored log when needed (no scope check: internal use). A game is
        built once at a time: a caller finding it being built waits for that build, so it is never in memory
        twice (`reload`: built again, after any build in progress)."""
        while (loading := self._loading.get(game_id)) is not None:
            try:
                lv = await asyncio.shield(loading)
            except UserError:
                if not reload:
                    raise
                continue
            if not reload:
                return self._touched(game_id, lv)
        lv = self._live.get(game_id)
        if lv is not None and not reload:
            return self._touched(game_id, lv)
        loading = self._loading[game_id] = asyncio.ensure_future(self._build(game_id, reload))
        loading.add_done_callback(lambda f: f.cancelled() or f.exception())  # retrieved, whoever waits
        return await asyncio.shield(loading)

    async def _build(self, game_id: int, reload: bool) -> Live:
        try:
            row = await self.db.get_game(game_id)
            if row is None:
                raise UserError(lazy("There is no game #{game}.", game=game_id))
            if game_id in self.broken and not reload:
                raise UserError(self._cannot_load(game_id))
            seats = await self.db.seats(game_id)
            session = None
            if row.status in ("active", "finished"):
                stored = await self.db.actions(game_id)
                try:
                    session = await asyncio.to_thread(self.engine.replay, row.title, self._players(seats), row.seed,
                                                      row.setup, stored, game_id)
                except Exception as exc:
                    self._live.pop(game_id, None)
                    self.broken[game_id] = clip(str(exc) or type(exc).__name__, 200)
                    log.exception("game %s: its stored log (%d actions) does not replay", game_id, len(stored))
                    raise UserError(self._cannot_load(game_id)) from None
            await self._loads(row)
            lv = Live(row, seats, session)
            self._install(game_id, lv)
            return lv
        finally:
            self._loading.pop(game_id, None)

    def _touched(self, game_id: int, lv: Live) -> Live:
        lv.used_at = time.monotonic()
        if self._live.get(game_id) is lv:
            self._live.move_to_end(game_id)
        return lv

    def _install(self, game_id: int, lv: Live) -> None:
        """Keep `lv` as the game in memory (the most recently used), and make room (`evict`)."""
        self._live[game_id] = lv
        if lv.copy is None:
            self._copied.pop(game_id, None)
        self._touched(game_id, lv)
        self.evict(keep=game_id)

    def evict(self, now: float | None = None, keep: int | None = None) -> list[int]:
        """Drop from memory the games idle for `idle_after` seconds, then the least recently used beyond
        `max_live`; never one in use (its lock held: an action or a read in flight) or being built. Every
        accepted action is stored before its command ends, so the next command rebuilds a dropped game as it
        was (`keep`: a game just put in memory for a command about to use it). Returns the ids dropped."""
        now = time.monotonic() if now is None else now
        dropped = []
        for game_id, lv in list(self._live.items()):  # least recently used first
            if len(self._live) <= self.max_live and now - lv.used_at < self.idle_after:
                continue
            lock = self._locks.get(game_id)
            if game_id == keep or (lock is not None and lock.locked()) or game_id in self._loading:
                continue
            del self._live[game_id]
            self._copied.pop(game_id, None)
            dropped.append(game_id)
        if dropped:
            log.info("games %s left memory (%d kept)", dropped, len(self._live))
        return dropped

    def _changed(self, lv: Live) -> None:
        """The game in memory changed (an action applied, an undo, the start): its copy is no longer the game."""
        lv.version += 1
        lv.copy = None
        self._copied.pop(lv.row.id, None)

    async def _copy(self, lv: Live) -> Copy | None:
        """A copy of the game as stored now (`Copy`), made the first time a read needs one after a change (~10 ms
        for a long 1817 game, off the event loop). Called with the game held: no action is half applied, and
        the game in memory is the stored log. At most `read_copies` games keep theirs (the least recently read
        lose it). None if the family cannot copy its game (those reads then hold it)."""
        if lv.session is None:
            return None
        game_id = lv.row.id
        if lv.copy is None or lv.copy.version != lv.version:
            try:
                lv.copy = Copy(lv.version, await asyncio.to_thread(lv.session.frozen), lv.session.thawed)
            except Exception:
                log.exception("game %s: copying the game for reads failed", game_id)
                lv.copy = None
                return None
        copy = lv.copy
        self._copied[game_id] = None
        self._copied.move_to_end(game_id)
        while len(self._copied) > self.read_copies:
            dropped, _ = self._copied.popitem(last=False)
            if (other := self._live.get(dropped)) is not None:
                other.copy = None
        return copy

    @staticmethod
    def _copy_now(lv: Live) -> Copy | None:
        """The game's read copy if it is the game as it is now (asked with the game held): what it holds or found
        (its bytes for a preview, its legal actions) need not be made again."""
        return lv.copy if lv.copy is not None and lv.copy.version == lv.version else None

    def _forget(self, game_id: int) -> None:
        """Drop the game in memory: it may no longer match the stored log. The next command rebuilds it."""
        self._live.pop(game_id, None)
        self._copied.pop(game_id, None)

    async def _scoped(self, caller: Caller, game_id: int, *, fresh: bool = False) -> Live:
        """The game in memory, if the caller's server owns it (fresh: its row and seats read again)."""
        game_id = access.game_number(game_id)
        access.check_scope(caller, await self.db.get_game(game_id), game_id)
        lv = await self.live(game_id)
        lv = await self._refresh(game_id) if fresh else lv
        use(lv.row.language)  # the rest of the command speaks the game's language (see `_own_language`)
        return lv

    async def resume_all(self, limit: int | None = None) -> tuple[list[int], dict[int, str]]:
        """Replay the active games, the most recently played first (at most `limit`: those beyond would leave
        memory at once, and are built at their first command as a game that left memory is). A game whose log
        does not replay is reported (logged, and its commands say so) while the others resume. The bot runs it
        once connected, while commands are answered: a game a command built meanwhile is left as it is, and a
        command on one not built yet builds it (or waits for the build on its way). Returns (resumed ids,
        {broken id: why})."""
        resumed, broken = [], {}
        rows = await self.db.list_games(statuses=("active",), any_guild=True)
        rows.sort(key=lambda r: -(r.last_action_at or r.updated_at))
        for row in rows[:limit]:
            try:
                await self.live(row.id)
                resumed.append(row.id)
            except UserError:
                broken[row.id] = self.broken.get(row.id, "?")
        for game_id, why in broken.items():
            log.error("game %s was not resumed: %s", game_id, why)
        return resumed, broken

    async def _loads(self, row: GameRow) -> None:
        """The game's stored log replays (again): should it break again, its thread is told again."""
        self.broken.pop(row.id, None)
        if row.broken_told:
            await self.db.update_game(row.id, broken_told=0)

    def _cannot_load(self, game_id: int) -> Any:
        return lazy("Game #{game} cannot be loaded ({why}); its log is kept as it was. The bot's operator has been "
                    "told.", game=game_id, why=self.broken.get(game_id, "?"))

    async def tell_broken(self, broken: Iterable[int], publish: Publish) -> list[Reply]:
        """Tell each game's thread that its stored log does not replay (found at start-up: `resume_all`,
        `check_beyond`), in the game's language, once: not again at each start-up while it stays so."""
        told = []
        for game_id in sorted(broken):
            row = await self.db.get_game(game_id)
            if row is None or row.thread_id is None or row.broken_told or game_id not in self.broken:
                continue
            with speaking(row.language):
                reply = Reply(str(self._cannot_load(game_id)), game_id, row.thread_id, guild_id=row.guild_id,
                              language=row.language)
            if await self._publish(publish, reply) is not None:
                await self.db.update_game(game_id, broken_told=1)
                told.append(reply)
        return told

    async def check_beyond(self, built: set[int]) -> dict[int, str]:
        """At start-up, once the games memory keeps are built (`resume_all`): each other running game replayed, one
        at a time in a worker thread of its own at the lowest priority, and not kept (it would leave memory at
        once), so one whose log does not replay is found now rather than at its first command. It is reported as
        `python -m bot check` reports it (logged for the operator) and its commands say so at once (`broken`),
        unless a command built it or it moved on meanwhile. Returns {broken id: why}."""
        found: dict[int, str] = {}
        checking = ThreadPoolExecutor(max_workers=1, thread_name_prefix="roundhouse-check",
                                      initializer=_lowest_priority)
        try:
            for row in await self.db.list_games(statuses=("active",), any_guild=True):
                if row.id in built or row.id in self._live or row.id in self._loading or row.id in self.broken:
                    continue
                stored = await self.db.actions(row.id)
                replay = functools.partial(self.engine.replay, row.title, self._players(await self.db.seats(row.id)),
                                           row.seed, row.setup, stored, row.id)
                try:
                    await asyncio.get_running_loop().run_in_executor(checking, replay)
                    await self._loads(row)
                except Exception as exc:
                    if row.id in self._live or row.id in self._loading or \
                            await self.db.action_count(row.id) != len(stored):
                        continue  # built or moved on meanwhile: its own build tells
                    found[row.id] = self.broken[row.id] = clip(str(exc) or type(exc).__name__, 200)
                    log.error("game %s: the log does not replay: %s", row.id, found[row.id], exc_info=exc)
        finally:
            checking.shutdown(wait=False)  # (the bot closing: a replay on its way ends on its own)
        return found

    @staticmethod
    def _players(seats: list[Seat]) -> list[dict]:
        ordered = sorted(seats, key=lambda s: (s.position if s.position is not None else 1 << 30, s.joined_at))
        return [{"id": s.player_id, "name": s.name} for s in ordered]

    async def _refresh(self, game_id: int) -> Live:
        lv = self._live.get(game_id)
        if lv is None:
            return await self.live(game_id)
        row = await self.db.get_game(game_id)
        assert row is not None
        lv.row, lv.seats = row, await self.db.seats(game_id)
        use(row.language)  # as in `_scoped`
        return lv

    async def legal(self, lv: Live) -> list[dict]:
        assert lv.session is not None
        return await asyncio.to_thread(lv.session.legal)

    def _title(self, lv: Live) -> Title:
        return self.engine.title(lv.row.title)

    # ------------------------------------------------------------------ lobby
    async def new_game(self, caller: Caller, *, title: str, channel_id: int | None = None,
                       thread_id: int | None = None, seed: int | None = None,
                       settings: dict[str, Any] | None = None, language: str | None = None) -> GameRow:
        """A lobby for `title`, set up with the title's `settings` as given (`{"map": "rust_belt"}`, `{"rules":
        "delay_minor_close"}`): checked by the title's family. `language`: what its thread speaks (default:
        the caller's)."""
        t = self.engine.title(title)
        setup = t.family.check_setup(t, settings or {})
        if caller.guild_id is not None:
            hosted = await self.db.list_games(guild_id=caller.guild_id, statuses=("lobby",))
            if sum(r.created_by == caller.member_id for r in hosted) >= MAX_OPEN_LOBBIES:
                raise UserError(lazy_n("You already host {n} open lobby in this server: start or abort it first "
                                       "(`/game list` shows it).",
                                       "You already host {n} open lobbies in this server: start or abort one of them "
                                       "first (`/game list` shows them).", MAX_OPEN_LOBBIES))
        seed = seed if seed is not None else random.SystemRandom().randrange(1, 2**31 - 1)
        self._check_seed(seed)
        async with self.db.transaction():
            row = await self.db.create_game(title=t.name, seed=seed, created_by=caller.member_id,
                                            guild_id=caller.guild_id, channel_id=channel_id, thread_id=thread_id,
                                            optional_rules=setup.pop("optional_rules", []), settings=setup,
                                            language=normalize(language or caller.language))
            await self.db.add_seat(row.id, 1, caller.member_id, _short(caller.name))
        await self.live(row.id, reload=True)
        if self.pictures:  # draw the title's first pictures ahead, while players join
            self._background(asyncio.to_thread(self.engine.warm_pictures, t.name))
        return row

    @staticmethod
    def _check_seed(seed: int) -> None:
        if not access.STORED_INT[0] <= seed <= access.STORED_INT[1]:
            raise UserError(lazy("The seed {seed} is out of range.", seed=quote(seed)))

    def _background(self, coro: Awaitable[Any]) -> None:
        in_background(self._tasks, coro)

    async def close_unopened(self, game_id: int) -> None:
        """Close a game just opened or imported whose thread could not be made: aborted, no reminders."""
        async with self.lock(game_id):
            async with self.db.transaction():
                await self.db.update_game(game_id, status="aborted")
                await self.db.set_reminder(game_id, next_at=None)
            self._forget(game_id)

    async def close_threadless(self) -> list[tuple[int | None, Reply]]:
        """At start-up, before any command: close each server's game left with no thread (the process stopped
        between storing a new lobby or an import and opening its thread), as one whose thread Discord refused is
        closed. Returns what to tell its host, each with the channel where the game was asked for."""
        notes = []
        for row in await self.db.list_games(statuses=("lobby", "active"), any_guild=True):
            if row.guild_id is None or row.thread_id is not None:
                continue  # a console game has no thread; a server's game gets one before anyone may use it
            log.warning("game %s was left without a thread: closed", row.id)
            await self.close_unopened(row.id)
            with speaking(row.language):
                text = _("<@{host}> Game #{game} was not opened: the bot stopped before its thread was made. Open "
                         "it again with `/game new` (or `/game import`).", host=row.created_by, game=row.id)
            notes.append((row.channel_id, Reply(text, row.id, mention=[row.created_by], guild_id=row.guild_id,
                                                language=row.language)))
        return notes

    async def set_thread(self, game_id: int, thread_id: int, lobby_message_id: int | None = None) -> None:
        fields: dict[str, Any] = {"thread_id": thread_id}
        if lobby_message_id is not None:
            fields["lobby_message_id"] = lobby_message_id
        async with self.lock(game_id):  # built from its log, if it left memory, only while held
            async with self.db.transaction():
                await self.db.update_game(game_id, **fields)
                await self.db.thread_answered(game_id)
            await self._refresh(game_id)

    async def lobby_text(self, game_id: int) -> str:
        lv = await self._refresh(game_id)
        names = ", ".join(written_name(s.name) for s in lv.seats) or _("nobody yet")
        t = self._title(lv)
        setup = "; ".join(t.family.setup_words(t, lv.row.setup))
        return (_("**{title}** game #{game}{setup} — lobby ({seated}/{most}): {names}.", title=t.display_name,
                  game=lv.row.id, setup=f" ({setup})" if setup else "", seated=len(lv.seats), most=t.player_range[1],
                  names=names) + "\n" + _("Press **Join** or use `/game join`; the host starts with `/game start`."))

    async def lobby_reply(self, game_id: int, note: str = "") -> Reply:
        """The lobby message with its buttons: an edit of the posted one (a new post if there is none)."""
        lv = await self._refresh(game_id)
        text = await self.lobby_text(game_id) + (f"\n_{note}_" if note else "")
        return lv.reply(text, buttons=["join", "leave", "start"], edit=lv.row.lobby_message_id)

    @staticmethod
    def _lobby_closed(lv: Live, text: str) -> list[Reply]:
        """Edit the lobby message: its buttons go once the game started or was aborted."""
        if lv.row.lobby_message_id is None:
            return []
        return [lv.reply(text, edit=lv.row.lobby_message_id)]

    @staticmethod
    def _in_lobby(lv: Live, started: Any) -> None:
        """Refuse a lobby's command (join, leave, kick, start) unless the game is a lobby: `started` says why once
        it started; an aborted or finished one is over (a Join pressed under a closed lobby's message was told
        the game had started)."""
        if lv.row.status in ("aborted", "finished"):
            raise UserError(lazy("This game is already over."))
        if lv.row.status != "lobby":
            raise UserError(started)

    async def _leave_lobby(self, lv: Live, member_id: int) -> tuple[Seat, str]:
        """Take `member_id`'s seat away in the lobby. The host role passes to the next player; a lobby
        left empty is closed. Returns the seat and what happened to the host role ("" if nothing)."""
        seat = lv.seat_of_member(member_id)
        if seat is None:
            raise UserError(lazy("That member is not in this game."))
        self._in_lobby(lv, lazy("The game has started: {how}.", how=lazy("the host can `/game replace` a player")))
        note = ""
        async with self.db.transaction():
            await self.db.remove_seat(lv.row.id, member_id)
            if lv.row.created_by == member_id:
                heir = access.next_host(lv.seats, member_id)
                if heir is not None:
                    await self.db.update_game(lv.row.id, created_by=heir.member_id)
                    note = " " + _("{name} is now the host.", name=written_name(heir.name))
                else:
                    await self.db.update_game(lv.row.id, status="aborted")
                    note = " " + _("The lobby is empty and closed.")
        return seat, note

    # the commands that change the lobby or the seats queue their reply's post (if `publish`) in the game's line
    # while the game is held, and post it once it is free (`_told`): two members pressing Join at once edit the
    # lobby message in the order they joined, the game's first action is told after its start, and no action's
    # post comes in between a seat's hand-over and its words
    @_told_in_full
    async def join(self, game_id: int, caller: Caller, publish: Publish | None = None) -> Reply:
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id, fresh=True)
            self._in_lobby(lv, lazy("This game has already started."))
            if lv.seat_of_member(caller.member_id):
                raise UserError(lazy("You are already in this game."))
            if len(lv.seats) >= self._title(lv).player_range[1]:
                raise UserError(lazy("This game is full."))
            pid = max((s.player_id for s in lv.seats), default=0) + 1
            await self.db.add_seat(game_id, pid, caller.member_id, _short(caller.name))
            async with self._stored(game_id):
                return self._told(publish, await self.lobby_reply(game_id, _("{name} joins.",
                                                                             name=written_name(_short(caller.name)))))

    @_told_in_full
    async def leave(self, game_id: int, caller: Caller, publish: Publish | None = None) -> Reply:
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id, fresh=True)
            if lv.seat_of_member(caller.member_id) is None:
                raise UserError(lazy("You are not in this game."))
            seat, note = await self._leave_lobby(lv, caller.member_id)
            async with self._stored(game_id):
                return self._told(publish, await self._lobby_changed(game_id, _("{name} leaves.",
                                                                                name=written_name(seat.name)) + note))

    @_told_in_full
    async def kick(self, game_id: int, caller: Caller, member_id: int, publish: Publish | None = None) -> Reply:
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id, fresh=True)
            access.require_host(caller, lv.row, lv.seats, lazy("kick players"))
            seat, note = await self._leave_lobby(lv, member_id)
            async with self._stored(game_id):
                return self._told(publish, await self._lobby_changed(game_id, _("{name} was removed.",
                                                                                name=written_name(seat.name)) + note))

    async def _lobby_changed(self, game_id: int, note: str) -> Reply:
        lv = await self._refresh(game_id)
        if lv.row.status == "aborted":
            return lv.reply(_("Game #{game} was closed: nobody is left in its lobby.", game=game_id),
                            also=self._lobby_closed(lv, _("**{title}** game #{game} — closed: {why}",
                                                          title=self._title(lv).display_name, game=game_id, why=note)))
        return await self.lobby_reply(game_id, note)

    @_told_in_full
    async def replace(self, game_id: int, caller: Caller, old_member: int, new_member: int,
                      new_name: str, publish: Publish | None = None) -> Reply:
        """Hand a seat to another member (the host, a moderator, or the holder themself). An open undo
        vote stays with the seat: the new holder casts it. The host's seat carries the host role."""
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id, fresh=True)
            if not (access.is_host(caller, lv.row, lv.seats) or caller.member_id == old_member):
                raise UserError(lazy("Only the host (or the player themself) can hand a seat over."))
            seat = lv.seat_of_member(old_member)
            if seat is None:
                raise UserError(lazy("That member has no seat in this game."))
            return await self._hand_over(lv, seat, new_member, new_name, publish)

    @_told_in_full
    async def claim(self, game_id: int, caller: Caller, seat_number: int, publish: Publish | None = None) -> Reply:
        """Take an unclaimed seat of an imported game (seats in the log's order, 1 = first player)."""
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id, fresh=True)
            ordered = sorted(lv.seats, key=lambda s: (s.position if s.position is not None else 1 << 30,
                                                      s.player_id))
            if not 1 <= seat_number <= len(ordered) or ordered[seat_number - 1].member_id > 0:
                raise UserError(lazy("That seat is not free."))
            return await self._hand_over(lv, ordered[seat_number - 1], caller.member_id, caller.name, publish)

    async def _hand_over(self, lv: Live, seat: Seat, new_member: int, new_name: str, publish: Publish | None) -> Reply:
        if lv.seat_of_member(new_member):
            raise UserError(lazy("The new member already has a seat in this game."))
        new_name = _short(new_name)
        async with self.db.transaction():
            await self.db.replace_member(lv.row.id, seat.member_id, new_member, new_name)
            if lv.row.created_by == seat.member_id:
                await self.db.update_game(lv.row.id, created_by=new_member)
            if seat.member_id in lv.row.turn_members:  # the new holder is the one told it is their turn
                await self.db.update_game(lv.row.id, turn_members=[new_member if m == seat.member_id else m
                                                                   for m in lv.row.turn_members])
        async with self._stored(lv.row.id):
            lv = await self._refresh(lv.row.id)
            return self._told(publish, lv.reply(_("{new} takes over {old}'s seat.", new=written_name(new_name),
                                                  old=written_name(seat.name))))

    @_told_in_full
    async def start(self, game_id: int, caller: Caller, publish: Publish | None = None) -> Reply:
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id, fresh=True)
            self._in_lobby(lv, lazy("This game has already started."))
            access.require_host(caller, lv.row, lv.seats, lazy("start the game"))
            t = self._title(lv)
            if len(lv.seats) < t.player_range[0]:
                raise UserError(lazy_n("{title} needs at least {n} player.", "{title} needs at least {n} players.",
                                       t.player_range[0], title=t.display_name))
            order = [s.player_id for s in sorted(lv.seats, key=lambda s: s.player_id)]
            random.Random(lv.row.seed).shuffle(order)
            position = {pid: i for i, pid in enumerate(order)}
            seats = sorted(lv.seats, key=lambda s: position[s.player_id])
            players = [{"id": s.player_id, "name": s.name} for s in seats]
            try:
                session = await asyncio.to_thread(self.engine.create, lv.row.title, players, lv.row.seed,
                                                  lv.row.setup, game_id)
            except Exception as exc:
                if self.engine.is_game_error(exc):  # e.g. a map for more players
                    raise UserError(lazy("The game cannot start: {why}", why=Refusal(exc))) from None
                raise
            lv.session = session
            self._changed(lv)
            lv.seats = [Seat(s.game_id, s.player_id, s.member_id, s.name, position[s.player_id], s.joined_at)
                        for s in seats]
            try:
                turn = self._turn_members(lv)
                async with self.db.transaction():
                    await self.db.set_positions(game_id, order)
                    # told_moment -1: the start itself is told once its post is out (a lost one is made good)
                    await self.db.update_game(game_id, status="active", turn_members=turn, last_action_at=time.time(),
                                              told_moment=-1, told_count=0)
                    await self._schedule_reminder(game_id)
            except BaseException:  # not started: the game in memory (started above) is no longer the stored one
                self._forget(game_id)
                raise
            async with self._stored(game_id, caught_up=True):
                lv = await self._refresh(game_id)
                seating = ", ".join(f"{i + 1}. {written_name(p['name'])}" for i, p in enumerate(players))
                reply = lv.reply(_("**{title}** game #{game} starts. Seats: {seats}.", title=t.display_name,
                                   game=game_id, seats=seating))
                await self._finish_reply(lv, reply, None, set(), turn)
                reply.also = self._lobby_closed(lv, _("**{title}** game #{game} — started. Seats: {seats}.",
                                                      title=t.display_name, game=game_id, seats=seating))
                return await self._tell(lv, reply, set(session.start_pictures), None, publish)

    @_told_in_full
    async def abort(self, game_id: int, caller: Caller, publish: Publish | None = None) -> Reply:
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id, fresh=True)
            access.require_host(caller, lv.row, lv.seats, lazy("abort the game"))
            if lv.row.status in ("finished", "aborted"):
                raise UserError(lazy("This game is already over."))
            was_lobby = lv.row.status == "lobby"
            closing = self._vote_closed(lv, await self.db.undo_request(game_id), _("the game was aborted")) + \
                self._offer_closed(lv, await self.db.trade_offer(game_id), _("the game was aborted"))
            async with self.db.transaction():
                await self.db.update_game(game_id, status="aborted")
                await self.db.set_reminder(game_id, next_at=None)
                # closed with the game: an Agree completing the vote would bring it back as running, an Accept
                # would store a trade in it
                await self.db.delete_undo_request(game_id)
                await self.db.delete_trade_offer(game_id)
                await self._owe(closing)
            async with self._stored(game_id):
                await self._refresh(game_id)
                reply = lv.reply(_("Game #{game} was aborted.", game=game_id))
                reply.also = closing
                if not was_lobby:
                    reply.pinned = _("**{title}** game #{game} — aborted.", title=self._title(lv).display_name,
                                     game=game_id)
                if was_lobby:
                    reply.also = self._lobby_closed(lv, _("**{title}** game #{game} — aborted in the lobby.",
                                                          title=self._title(lv).display_name, game=game_id))
                return self._told(publish, reply)

    async def list_games(self, caller: Caller, mine: bool = False) -> Reply:
        rows = await self.db.list_games(guild_id=caller.guild_id, member_id=caller.member_id if mine else None)
        if not rows:
            return Reply(_("No open games."))
        lines = []
        for r in rows:
            seats = await self.db.seats(r.id)
            status = {"lobby": _("lobby"), "active": _("running"), "finished": _("finished")}.get(r.status, r.status)
            where = " " + _("in {thread}", thread=f"<#{r.thread_id}>") if r.thread_id else ""
            lines.append(f"#{r.id} {r.title} — {status}{where}: {', '.join(written_name(s.name) for s in seats)}")
        return Reply("\n".join(lines))

    # ------------------------------------------------------------------ turn
    def _turn_members(self, lv: Live) -> list[int]:
        if lv.session is None or lv.session.finished:
            return []
        out = []
        for pid in lv.session.active_players():
            m = lv.member_of_player(pid)
            if m is not None and m not in out:
                out.append(m)
        return out

    def turn_text(self, lv: Live, mention: bool) -> str:
        s = lv.session
        if s is None:
            return ""
        if s.finished:
            reason = f" ({self._words(lambda: s.reason_text(s.end_reason), 'end reason', lv)})" if s.end_reason else ""
            return _("**Game over**{reason}: {result}.", reason=reason,
                     result=self._words(lambda: s.result_text(lv.names), "result", lv))
        whom = []
        for pid in s.active_players():
            m = lv.member_of_player(pid)
            name = lv.names.get(int(pid), str(pid))
            whom.append(f"<@{m}>" if (mention and m is not None and m > 0) else f"**{name}**")
        hint = self._words(lambda: s.hint(lv.names), "hint", lv)
        if hint:
            return _("Next: {whom}{acting_for} — {hint}.", whom=", ".join(whom), acting_for=s.acting_for(), hint=hint)
        return _("Next: {whom}{acting_for}.", whom=", ".join(whom), acting_for=s.acting_for())

    def summary_text(self, lv: Live) -> str:
        """The thread's pinned message: the game, where it stands, the standings and whose turn it is (no
        pings: it is edited after every action)."""
        title = self._title(lv).display_name
        if lv.session is None:
            return _("**{title}** game #{game} — {status}.", title=title, game=lv.row.id, status=lv.row.status)
        where = self._words(lambda: lv.session.status_lines(lv.names)[0], "summary", lv).rstrip(".")
        lines = [_("**{title}** game #{game} — {status}.", title=title, game=lv.row.id, status=where)]
        if not lv.session.finished:
            standings = self._words(lambda: lv.session.result_text(lv.names), "standings", lv)
            if standings:
                lines.append(_("Standings: {standings}.", standings=standings))
        lines.append(self.turn_text(lv, mention=False))
        return "\n".join(lines)

    async def set_pinned_message(self, game_id: int, message_id: int | None) -> None:
        """Remember the thread's pinned summary message (posted anew when the old one was deleted)."""
        await self.db.update_game(game_id, pin_message_id=message_id)
        if game_id in self._live:
            self._live[game_id].row.pin_message_id = message_id

    async def pinned_message(self, game_id: int) -> int | None:
        row = await self.db.get_game(game_id)
        return row.pin_message_id if row is not None else None

    @staticmethod
    def _words(make: Callable[[], str], what: str, lv: Live) -> str:
        """Words for a message, best effort: never let them block a move."""
        try:
            return make()
        except Exception:
            log.exception("game %s: the %s failed", lv.row.id, what)
            return ""

    async def _schedule_reminder(self, game_id: int) -> None:
        rem = await self.db.reminder(game_id)
        await self.db.set_reminder(game_id, next_at=(time.time() + rem.first_after) if rem.enabled else None)

    # ------------------------------------------------------------------ pictures
    def _render(self, lv: Live, kinds: set[str], change: Change | None, stem: str,
                copy: tuple[Session, dict[int, str]] | None = None) -> list[Picture]:
        """The pictures of these kinds, best effort: a picture that fails to draw is left out (and logged),
        never reported as the command's failure (the action it shows is stored already). `copy`: a copy of the
        game and its players' names to draw instead of the game in memory (which may have moved on)."""
        session, names = copy if copy is not None else (lv.session, lv.drawn_names)
        if not self.pictures or session is None:
            return []
        out = []
        for kind in session.picture_kinds:
            if kind in kinds:
                try:
                    data = self.engine.picture(session, kind, change, names)
                except Exception:
                    log.exception("game %s: drawing the %s failed", lv.row.id, kind)
                    continue
                if data:
                    out.append(Picture(f"{stem}-{kind}.png", data))
        return out

    async def _finish_reply(self, lv: Live, reply: Reply, change: Change | None, previous_turn: set[int],
                            turn: list[int]) -> None:
        """Complete the reply telling of the game as stored now (every stored change is told by one), but for its
        pictures and the out-of-turn button (`_tell` adds them)."""
        changed = set(turn) != previous_turn
        reply.mention = [m for m in turn if m > 0] if changed else []
        reply.text = f"{reply.text}\n{self.turn_text(lv, mention=changed)}".strip()
        moment = await self._moment(lv)  # a button acts only at the moment it was posted for
        reply.told = (moment, len(lv.session.actions) if lv.session else 0)
        buttons = self._words_set(lambda: lv.session.buttons_for(change), lv) if lv.session is not None else []
        reply.buttons = [f"{b}:{moment}" for b in buttons]
        reply.pinned = self.summary_text(lv)
        if changed and turn:
            reply.dm = [m for m in turn if await self.db.dm_optin(m)]

    @staticmethod
    def _stem(lv: Live) -> str:
        """The start of the file names of the pictures of the game as it is now."""
        return f"game{lv.row.id}-{len(lv.session.actions) if lv.session else 0}"

    async def _moment(self, lv: Live) -> int:
        """Where the game is, as a number that every action and every undo moves forward (an undo of k
        actions: k fewer actions, 2k more undone), so a button posted at one moment acts at no other."""
        return (len(lv.session.actions) if lv.session is not None else 0) + 2 * await self._undone_steps(lv.row.id)

    async def _stored_moment(self, game_id: int) -> int:
        """The game's moment (`_moment`) read from the database, without the game in memory."""
        return await self.db.action_count(game_id) + 2 * await self._undone_steps(game_id)

    async def _undone_steps(self, game_id: int) -> int:
        return sum(ev.steps for ev in await self.db.undo_events(game_id))

    async def moment(self, game_id: int, caller: Caller) -> int:
        """The game's moment now (`_moment`), for a button asked for outside a reply (a confirmation)."""
        async with self.lock(game_id):
            return await self._moment(await self._scoped(caller, game_id))

    # ------------------------------------------------------------------ actions
    @_told_in_full
    async def act(self, game_id: int, caller: Caller, kind: str, options: dict[str, Any],
                  publish: Publish | None = None, *, group: str | None | object = ANY_GROUP,
                  confirmed: bool = False, moment: int | None | object = ANY_MOMENT) -> Reply:
        """Apply one action for the caller: `kind` is a command of the game's family (`group`: the slash
        command group it was typed in, checked against the family's). The reply is published after the action is
        committed, in the order of the game's changes (its pictures drawn once the game is free). Raises UserError (nothing changed) when it cannot be
        done. An action the family previews (`Session.confirmation`: a loan, a merger...) is not applied
        unless `confirmed`: the reply is then the preview, `private` to the caller, with Confirm and Cancel
        buttons (`confirm`). `moment`: sent by a button posted at that moment of the game (`_moment`), refused
        at any other."""
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            if lv.row.status != "active" or lv.session is None:
                raise UserError(lazy("This game is not running.") if lv.row.status != "lobby"
                                else lazy("This game has not started yet."))
            if moment is not ANY_MOMENT and moment != await self._moment(lv):
                raise UserError(lazy(BUTTON_OUTDATED))
            seat = lv.seat_of_member(caller.member_id)
            if seat is None:
                raise UserError(lazy("You have no seat in this game."))
            session = lv.session
            cmd = self._command(lv, kind, group)
            # whose turn first: a member out of turn hears that, not why the move would be illegal for them
            out_of_turn = seat.player_id not in session.active_players() and not cmd.any_time
            if out_of_turn and not cmd.out_of_turn(options):
                raise UserError(self._not_your_turn(lv))
            opts = cmd.given(options)
            legal = None
            if cmd.needs_legal(opts):
                twin = copy.session if (copy := self._copy_now(lv)) is not None else None

                def legal_for(player: int) -> list[dict]:
                    if twin is not None:  # what a read of this version found (a best run) is not sought again
                        session.take_legal(twin)
                    return session.legal_for(player)

                legal = await asyncio.to_thread(legal_for, seat.player_id)  # the copy (a pickle) made there too
            action = cmd.build(session, opts, seat.player_id, legal)
            if out_of_turn and not session.may_act_out_of_turn(seat.player_id, action):
                raise UserError(self._not_your_turn(lv))
            if action.get("entity_type") == "player" and action.get("entity") is None:
                action["entity"] = seat.player_id
            theirs = session.not_theirs(seat.player_id, action, lv.names)  # another seat's corporation, private...
            if theirs is not None:
                raise UserError(theirs)
            seller = session.needs_consent(seat.player_id, action)
            holder = lv.member_of_player(seller) if seller is not None else None
            if holder is not None and holder <= 0:  # an imported game's seat nobody took: nobody could answer
                raise UserError(lazy("{name}'s seat is not taken by anyone yet, so nobody can agree to this trade: "
                                     "nothing was offered. Offer it again once a member takes that seat with "
                                     "`/game claim`.", name=lv.names.get(seller, str(seller))))
            if holder is None:
                if not confirmed:
                    frozen = copy.frozen if (copy := self._copy_now(lv)) is not None else None
                    with speaking(caller.language):  # the preview is the member's alone, in their language
                        ask = await asyncio.to_thread(
                            self._words, lambda: session.confirmation(action, lv.names, frozen) or "", "preview", lv)
                    if ask:
                        return await self._ask(lv, caller, seat, action, cmd, ask)
                return await self._apply(lv, caller, action, publish, cmd)
            offered, posting = await self._offer(lv, caller, action, seller, publish)
        if not await asyncio.shield(posting):
            # its message is the seller's only way to answer: an offer nobody could answer is not kept (the one it
            # would replace stays open, its message untouched)
            raise UserError(lazy("The offer could not be posted in the game's thread (is it locked, or may the bot no "
                                 "longer post there?), so nothing was offered. Try again once it can."))
        return offered

    async def _ask(self, lv: Live, caller: Caller, seat: Seat, action: dict, cmd: Command, text: str) -> Reply:
        """Keep the action for the member's Confirm (stored: a restart does not lose it); the reply shows them
        its preview with the buttons."""
        assert lv.session is not None
        token = random.randrange(1, 2**31)
        actions = lv.session.actions
        await self.db.save_preview(PendingPreview(token, lv.row.id, caller.member_id, seat.player_id, len(actions),
                                                  dict(action), cmd.name, _as_stored(actions[-1]) if actions else None),
                                   keep=MAX_PREVIEWS)
        return Reply(text, lv.row.id, lv.row.thread_id, buttons=[f"confirm:{token}", f"cancel:{token}"],
                     guild_id=lv.row.guild_id, language=caller.language or lv.row.language, private=True)

    @_told_in_full
    async def confirm(self, game_id: int, caller: Caller, token: int, yes: bool,
                      publish: Publish | None = None) -> Reply | None:
        """The member's answer to a preview (`act`): Confirm applies exactly the action shown, once, if the
        game has not moved on since (a restart in between included; a crash while it is applied too, as it is
        marked answered with the action's commit); Cancel (None returned) drops it. Raises
        PreviewClosed, changing nothing, for a preview that is no longer open or shown before the game moved
        on (and when the engine refuses the action after all: the preview is then closed too); UserError for
        someone else's."""
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            shown = await self.db.preview(token)
            if shown is None or shown.game_id != game_id:
                raise PreviewClosed(lazy("This preview is no longer open: nothing was done."))
            if shown.member_id != caller.member_id:
                raise UserError(lazy("Only the member who asked for this preview may confirm it."))
            closed = PreviewClosed(lazy("This preview is no longer open: nothing was done."), answered=True)
            if shown.answered is not None:
                raise closed
            if not yes:
                if not await self.db.take_preview(token, "cancelled"):
                    raise closed
                return None
            seat = lv.seat_of_member(caller.member_id)
            actions = lv.session.actions if lv.session is not None else []
            if lv.row.status != "active" or len(actions) != shown.at_count or \
                    (_as_stored(actions[-1]) if actions else None) != shown.last or \
                    seat is None or seat.player_id != shown.player_id:
                await self.db.close_preview(token)
                raise PreviewClosed(lazy("The game moved on since this preview, so nothing was done: send the "
                                         "command again to see what it does now."))
            try:
                # marked answered in the transaction that stores the action: a crash before its commit leaves
                # the preview open and the game as it was (pressed again, it is applied then), one after it
                # leaves both done (pressed again, it is answered already)
                return await self._apply(lv, caller, dict(shown.action), publish, self._command(lv, shown.command),
                                         answering=token)
            except PreviewClosed:
                raise
            except UserError as e:
                await self.db.close_preview(token)
                raise PreviewClosed(e.args[0] if e.args else str(e)) from None

    async def _offer(self, lv: Live, caller: Caller, action: dict, seller: int, publish: Publish | None
                     ) -> tuple[Reply, asyncio.Future]:
        """Ask the seller's seat to agree to a trade; the buyer's turn waits for the answer. The offer is stored
        (it survives a restart) until answered or the game moves on, and posted once the game is free (`_ballot`:
        the future says whether it was)."""
        assert lv.session is not None
        count = len(lv.session.actions)
        buyer = lv.seat_of_member(caller.member_id)
        assert buyer is not None
        previous = await self.db.trade_offer(lv.row.id)
        made = TradeOffer(lv.row.id, buyer.player_id, seller, action, count, token=self._ballot_token(), posted=False)
        reply = await self._offer_reply(lv, made)
        reply.also = self._offer_closed(lv, previous, _("replaced by a new offer"))
        return reply, await self._ballot(made, previous, reply, publish)

    async def _offer_reply(self, lv: Live, made: TradeOffer) -> Reply:
        """An offer's post, with its buttons, pinging the seller (`_may_ping`)."""
        member = lv.member_of_player(made.seller)
        name = lv.names.get(made.seller, str(made.seller))
        offer = self._words(lambda: lv.session.offer_text(made.action, lv.names), "offer", lv)
        pinged = [member] if member is not None and member > 0 else []
        quiet = pinged and not await self._may_ping(lv.row.id, made.buyer, "trade_offers")
        return lv.reply(_("{offer}; the price is {name}'s to agree to.", offer=offer, name=name) + "\n" +
                        _("Next: {whom} — accept or decline the offer.",
                          whom=f"<@{member}>" if pinged and not quiet else name) +
                        (self._not_pinged_again(lv.names[made.buyer]) if quiet else ""),
                        mention=[] if quiet else pinged, buttons=[f"offer_yes:{made.token}", f"offer_no:{made.token}"])

    def _offer_closed(self, lv: Live, offer: TradeOffer | None, why: str) -> list[Reply]:
        """Edit an offer message that is no longer open: its buttons go (`_closing`)."""
        if offer is None:
            return []
        text = self._words(lambda: lv.session.offer_text(offer.action, lv.names), "offer", lv) if lv.session else ""
        return self._closing(lv, offer, _("{offer} — closed: {why}.", offer=text or _("The offer"), why=why),
                             f"offer_yes:{offer.token}")

    async def open_offer(self, game_id: int) -> TradeOffer | None:
        """The game's trade offer waiting for an answer, if any."""
        return await self.db.trade_offer(game_id)

    @_told_in_full
    async def answer_offer(self, game_id: int, caller: Caller, accept: bool, token: int,
                           publish: Publish | None = None, *, message_id: int | None = None) -> Reply:
        """The seller's answer to the trade offer `token` (the number on its buttons): accepted, the buyer's action
        is applied as theirs. `message_id`: the message whose button answered (see `_answered`)."""
        await self._ballot_settled(game_id)
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            offer = await self.db.trade_offer(game_id)
            if offer is None or lv.session is None or len(lv.session.actions) != offer.at_count or \
                    not await self._answered("trade_offers", offer, token, message_id):
                raise UserError(lazy("This offer is no longer open."))
            seat = lv.seat_of_member(caller.member_id)
            if seat is None or seat.player_id != offer.seller:
                raise UserError(lazy("Only {name} answers this offer.", name=lv.names.get(offer.seller, offer.seller)))
            buyer = lv.member_of_player(offer.buyer)
            if not accept or buyer is None:
                closing = self._offer_closed(lv, offer, _("{name} declined", name=lv.names[seat.player_id]))
                await self.db.close_ballot("trade_offers", game_id, self._edits(closing))
                async with self._stored(game_id):
                    reply = lv.reply(_("{name} declines: {offer}.", name=lv.names[seat.player_id],
                                       offer=self._words(lambda: lv.session.offer_text(offer.action, lv.names), "offer",
                                                         lv)),
                                     also=closing)
                    await self._finish_reply(lv, reply, None, set(lv.row.turn_members), lv.row.turn_members)
                    return await self._tell(lv, reply, set(), None, publish)
            try:  # the offer goes in the transaction that stores the trade (a crash before it leaves it open)
                return await self._apply(lv, Caller(buyer, "", caller.guild_id), dict(offer.action), publish,
                                         agreed_by=lv.names[seat.player_id])
            except UserError as refusal:  # refused after all: the offer is closed, its message saying why
                closing = self._offer_closed(lv, offer, _("the trade could not be made: {reason}",
                                                          reason=str(refusal).rstrip(".")))
                await self.db.close_ballot("trade_offers", game_id, self._edits(closing))
                for edit in closing:
                    self._in_line(publish, edit)
                raise

    def _command(self, lv: Live, name: str, group: str | None | object = ANY_GROUP) -> Command:
        """The game's command `name`; typed as a slash command of another family's group, a pointer to the
        right one."""
        session = type(lv.session) if lv.session is not None else self._title(lv).family
        if group is not ANY_GROUP and group != session.group:
            where = lazy("`{command} …`", command=CommandName(session.group)) if session.group else \
                lazy("the game commands (`/pass`, `/buy`, …)")
            raise UserError(lazy("Game #{game} is {title}: use {where}.", game=lv.row.id,
                                 title=self._title(lv).display_name, where=where))
        return session.command(name)

    async def press(self, game_id: int, caller: Caller, key: str, moment: int | None,
                    publish: Publish | None = None) -> Reply:
        """A game button (Pass, Pay out, Done building...) pressed: its family's command for the presser, if
        the game is still at the `moment` the button was posted for (None: a button of unknown moment). The
        out-of-turn buttons: `powers` (posted for everyone) lists the presser's own, `power` uses one."""
        if key == "powers":
            return await self.powers(game_id, caller)
        if key == "power":
            return await self.use_power(game_id, caller, moment or 0, publish)
        row = access.check_scope(caller, await self.db.get_game(access.game_number(game_id)), game_id)
        command, options = self.engine.title(row.title).family.button_action(key)
        return await self.act(game_id, caller, command, options, publish, moment=moment)

    # ------------------------------------------------------------------ out of turn
    # A post's buttons are everyone's, so what a seat may do out of its turn (a private's ability: 1830's MH
    # exchange, 1860's starting privates in a stock round) is one public `powers` button; its press answers the
    # presser alone with a button for each of theirs (`power`: the game's moment and the move's place in that
    # list, so it acts at no other moment). It is posted when the seats holding such moves (whether or not it is
    # their turn) change, not under every post while they hold some (`_publish`, in the order of the posts); its
    # press works out what is the presser's then, so an older post's button still serves.
    # Looked for only in games whose title has such moves at all (`Session.has_out_of_turn`), and for a post
    # whose pictures are drawn from a copy, on that copy once the game is free (`_tell`).
    @staticmethod
    def _powers_held(session: Session, seats: list[Seat], game_id: int) -> frozenset[int]:
        """The seats holding moves they may use out of turn (slow: called off the event loop)."""
        def theirs(player: int) -> list[dict]:
            try:
                return session.usable_out_of_turn(player)
            except Exception:
                log.exception("game %s: looking for moves out of turn failed", game_id)
                return []

        return frozenset(seat.player_id for seat in seats if theirs(seat.player_id))

    def _powers_button(self, reply: Reply) -> None:
        """Add the out-of-turn button to a post about to go out (its turn in the game's line come) if the seats
        holding such moves are not those its game's last post told (at the moment the reply tells)."""
        if reply.powers and reply.told is not None and reply.powers != self._powers_told.get(reply.game_id):
            reply.buttons.append(f"powers:{reply.told[0]}")

    async def _powers_posted(self, publish: Publish, reply: Reply, msg: Any) -> None:
        """A post telling who holds moves out of turn is out: if they changed (or are not known: after a restart),
        the last post with the out-of-turn button loses it (edited: its text and other buttons as posted), so only
        the latest shows it, and none once nobody holds such a move. That post is stored (`powers_posts`)."""
        game_id = reply.game_id
        assert game_id is not None and reply.powers is not None
        try:
            if reply.powers != self._powers_told.get(game_id) and (last := await self.db.powers_post(game_id)):
                message_id, old = last
                await self.db.set_powers_post(game_id, None)
                kept = [b for b in old["buttons"] if not b.startswith("powers:")]
                await publish(Reply(old["text"], game_id, reply.thread_id, buttons=kept, labels=old["labels"],
                                    guild_id=reply.guild_id, language=old["language"], edit=message_id))
        except Exception:
            log.exception("game %s: taking the out-of-turn button off an older post failed", game_id)
        self._powers_told[game_id] = reply.powers
        if any(b.startswith("powers:") for b in reply.buttons) and getattr(msg, "id", None) is not None:
            try:
                await self.db.set_powers_post(game_id, msg.id, {"text": reply.text, "buttons": reply.buttons,
                                                                "labels": reply.labels, "language": reply.language})
            except Exception:
                log.exception("game %s: keeping its post with the out-of-turn button failed", game_id)

    async def powers(self, game_id: int, caller: Caller) -> Reply:
        """The presser's moves out of turn, each a button for them alone (private); UserError if none."""
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            seat = lv.seat_of_member(caller.member_id)
            if lv.row.status != "active" or lv.session is None or seat is None:
                raise UserError(lazy("You have no seat in this game.") if seat is None else
                                lazy("This game is not running."))
            session = lv.session
            moves = await asyncio.to_thread(session.out_of_turn, seat.player_id)
            if not moves:
                raise UserError(lazy("Nothing of yours may be used out of turn now."))
            moment = await self._moment(lv)
            with speaking(caller.language):
                labels = [self._words(lambda a=a: session.label(a), "label", lv) for a in moves[:POWER_SLOTS]]
                text = _("Yours to use now, out of turn (for you alone):") + "".join(f"\n• {x}" for x in labels)
            buttons = [f"power:{moment * POWER_SLOTS + i}" for i in range(len(labels))]
            return Reply(text, lv.row.id, lv.row.thread_id, buttons=buttons, labels=dict(zip(buttons, labels, strict=True)),
                         guild_id=lv.row.guild_id, language=caller.language or lv.row.language, private=True)

    async def use_power(self, game_id: int, caller: Caller, arg: int, publish: Publish | None = None) -> Reply:
        """A `power` button pressed: the move it was posted for, sent by its member as the command would be (the
        same checks, a preview first where the move has one), if the game has not moved on since."""
        moment, index = divmod(arg, POWER_SLOTS)
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            seat = lv.seat_of_member(caller.member_id)
            if lv.session is None or seat is None or moment != await self._moment(lv):
                raise UserError(lazy(BUTTON_OUTDATED))
            moves = await asyncio.to_thread(lv.session.out_of_turn, seat.player_id)
            if not moves:  # (a button shown to another member)
                raise UserError(lazy("Nothing of yours may be used out of turn now."))
            if index >= len(moves):
                raise UserError(lazy(BUTTON_OUTDATED))
            kind, options = lv.session.command_for(moves[index])
        return await self.act(game_id, caller, kind, options, publish, moment=moment)

    def _not_your_turn(self, lv: Live) -> Any:
        active = lv.session.active_players() if lv.session else []
        waiting = ", ".join(lv.names.get(p, str(p)) for p in active)
        if not waiting:
            return lazy("It is not your turn: nobody can act now.")
        return lazy("It is not your turn: waiting for {names}.", names=waiting)

    async def _apply(self, lv: Live, caller: Caller, action: dict, publish: Publish | None,
                     cmd: Command | None = None, *, answering: int | None = None, agreed_by: str | None = None
                     ) -> Reply:
        """Apply, store, then describe: the action, then those the command sends after it (an end of turn
        passing what is left), each stored as it is applied. Until an action is stored, any failure drops the
        game in memory (the engine may have changed it half-way) and nothing is reported as done. `answering`:
        the preview whose Confirm sent the action, marked answered with the action's commit; `agreed_by`: the
        seller whose consent to the open trade offer sent it."""
        session = lv.session
        assert session is not None
        previous = set(lv.row.turn_members)
        offer = await self.db.trade_offer(lv.row.id)  # withdrawn by any action
        offer_closed = self._offer_closed(lv, offer, _("{name} agreed", name=agreed_by) if agreed_by is not None
                                          else _("withdrawn"))
        changes: list[Change] = []
        closing: list[Reply] = []
        while action is not None and len(changes) < MAX_FOLLOW_UPS:
            try:
                change, turn, closed_now = await self._apply_one(lv, caller, action,
                                                                 answering=None if changes else answering,
                                                                 closing=[] if changes else offer_closed)
            except UserError:
                if not changes:
                    raise
                break  # a follow-up refused: what was applied stands
            closing += closed_now
            changes.append(change)
            action = cmd.follow_up(session, changes[0], change) if cmd is not None else None
        async with self._stored(lv.row.id, caught_up=True):  # the actions are stored: what follows never says otherwise
            change = changes[-1]
            if self._live.get(lv.row.id) is not lv:  # a follow-up applied but not stored: the game is rebuilt, and
                lv = await self.live(lv.row.id)       # the reply tells it as stored (its turn, pictures, buttons)
                session = lv.session
                assert session is not None
            lv.row.turn_members = turn
            if session.finished:
                lv.row.status = "finished"
            text = self._words(lambda: session.describe_all(changes, lv.names), "description", lv) or \
                "; ".join(self._line(lv, c.action) for c in changes)
            if agreed_by is not None:
                text = _("{name} agrees.", name=agreed_by) + " " + text
            reply = lv.reply(text + ".")
            kinds = set().union(*(self._words_set(lambda c=c: session.pictures_for(c), lv) for c in changes))
            await self._finish_reply(lv, reply, change, previous, turn)
            reply.also = closing
            return await self._tell(lv, reply, kinds, change, publish)

    @contextlib.asynccontextmanager
    async def _stored(self, game_id: int, *, caught_up: bool = False) -> AsyncIterator[None]:
        """Around what follows a change once it is committed (an action, an undo, the start, a lobby or seat change,
        a vote, a declined offer, reminder settings, an abort): a failure there (a read of the database, the words)
        must not tell the member that nothing changed, who would send it again. The game is rebuilt from the
        database at its next command; `caught_up`: the catch-up tells its thread (an action, an undo, the start)."""
        try:
            yield
        except Exception:
            self._forget(game_id)
            log.exception("game %s: telling a stored change failed", game_id)
            raise UserError(lazy(STORED_UNTOLD if caught_up else STORED_NOT_TOLD)) from None

    async def _tell(self, lv: Live, reply: Reply, kinds: set[str], change: Change | None,
                    publish: Publish | None) -> Reply:
        """Post a reply telling of the game as stored now (`_finish_reply`) with its pictures of `kinds` and the
        out-of-turn button, in the game's line of posts (`_told`: `reply.drawing` gives what `publish` returned).
        They are worked out from a copy of the game once the next command may have it (the post keeps its place in
        line meanwhile), or now, with the game held, if there is nothing to draw, nowhere to post, or the game's
        family cannot copy it."""
        session = lv.session
        powers = session is not None and session.has_out_of_turn()
        held_by_none = frozenset() if session is not None else None  # no such moves now: none looked for
        copy = await self._copy(lv) if publish is not None and self.pictures and kinds else None
        if copy is None:
            reply.pictures = await asyncio.to_thread(self._render, lv, kinds, change, self._stem(lv))
            reply.powers = await asyncio.to_thread(self._powers_held, session, lv.seats, lv.row.id) if powers \
                else held_by_none
            return self._told(publish, reply)
        row, seats, stem, place = lv.row, list(lv.seats), self._stem(lv), self._queue(lv.row.id)

        def drawn(game: Session) -> tuple[list[Picture], frozenset[int] | None]:
            return (self._render(Live(row, seats, game), kinds, change, stem),
                    self._powers_held(game, seats, row.id) if powers else held_by_none)

        async def tell() -> Any:
            try:
                try:
                    reply.pictures, reply.powers = await copy.read(drawn)
                except Exception:
                    log.exception("game %s: drawing the pictures of a post failed", row.id)
                return await self._publish(publish, reply, place)
            finally:  # cancelled (the bot closing): the posts after it go on (the thread catches up after a restart)
                self._leave(row.id, place)

        reply.drawing = in_background(self._tasks, tell())
        return reply


    async def _apply_one(self, lv: Live, caller: Caller, action: dict, *, answering: int | None = None,
                         closing: list[Reply] | None = None) -> tuple[Change, list[int], list[Reply]]:
        """Apply one action and store it: (what changed, the members to act now, the edits closing the ballots it
        closed: the undo vote, and `closing`, owed with the action's commit). `answering`: the preview it
        confirms, marked answered in the same transaction (see `confirm`)."""
        game_id, session = lv.row.id, lv.session
        assert session is not None
        seq = len(session.actions) + 1
        self._changed(lv)  # from now until it is stored (or refused), no copy is the game as stored
        try:
            change = await asyncio.to_thread(session.apply, action)
        except Exception as exc:
            if self.engine.is_game_error(exc):  # refused: the engine left the game as it was
                raise UserError(lazy("Not allowed: {why}", why=Refusal(exc))) from None
            self._forget(game_id)
            log.exception("game %s: the engine failed on %s", game_id, clip(json.dumps(action), 300))
            raise UserError(lazy(ENGINE_FAILED)) from None
        except BaseException:  # cancelled while the engine ran
            self._forget(game_id)
            raise
        stored = change.action
        try:
            turn = self._turn_members(lv)
            fields: dict[str, Any] = {"turn_members": turn}
            if session.finished:
                fields.update(status="finished", result=session.result(), end_reason=session.end_reason)
            # an open undo vote ends with this action
            closing = self._vote_closed(lv, await self.db.undo_request(game_id), _("the game went on")) + \
                (closing or [])
            async with self.db.transaction():
                if answering is not None and not await self.db.take_preview(answering, "confirmed"):
                    raise PreviewGone(answering)
                await self.db.append_action(game_id, stored, caller.member_id, seq, fields)
                await self._owe(closing)
                if session.finished:
                    await self.db.set_reminder(game_id, next_at=None)
                else:
                    await self._schedule_reminder(game_id)
        except PreviewGone:  # answered (or dropped) since it was read: nothing stored
            self._forget(game_id)
            raise PreviewClosed(lazy("This preview is no longer open: nothing was done."), answered=True) from None
        except LogConflict:
            self._forget(game_id)
            log.error("game %s: the stored log moved on under the game in memory; rebuilt", game_id)
            raise UserError(lazy("The game changed while your command ran, so nothing was stored. "
                                 "Look at the game again and retry.")) from None
        except Exception:
            self._forget(game_id)
            log.exception("game %s: the action could not be stored", game_id)
            raise UserError(lazy("Your action could not be stored, so it did not happen. Please retry.")) from None
        except BaseException:
            self._forget(game_id)
            raise
        self._changed(lv)  # what a read copied while it was stored may be the game before it
        log.info("game %s: action %s (%s) by member %s stored as #%s", game_id, stored.get("id"),
                 stored.get("type"), caller.member_id, seq)
        return change, turn, closing

    def _line(self, lv: Live, action: dict) -> str:
        """`Ann: bid CA: $175 or more` — an action in a few words (history, fallbacks)."""
        s = lv.session
        if s is None:
            return str(action.get("type"))
        return self._words(lambda: s.line(action, lv.names), "history line", lv) or str(action.get("type"))

    @staticmethod
    def _words_set(make: Callable[[], Any], lv: Live) -> Any:
        """The pictures or buttons for a reply, best effort (none when choosing them fails)."""
        try:
            return make()
        except Exception:
            log.exception("game %s: choosing pictures or buttons failed", lv.row.id)
            return set()

    async def autocomplete(self, game_id: int, caller: Caller, kind: str, option: str, current: str,
                           filled: dict[str, Any], *, group: str | None | object = ANY_GROUP
                           ) -> list[tuple[str, Any]]:
        """The choices for an option being typed: the legal ones in the game as stored, read from its copy
        (`Copy`) once the game is free, so they hold up no action. An action in flight is waited for (up to
        `read_wait`): its member, typing their next command, is offered the moves after it, not the ones it
        took away. Should it take longer, the copy is read if the action has changed nothing yet, else no
        choices (never moves the engine will refuse). A member with `MAX_COMPLETIONS_AT_ONCE` on their way (each
        keystroke asks anew) gets none for a further one, and no work is done for it."""
        with _one_more(self._completing, caller.member_id, MAX_COMPLETIONS_AT_ONCE) as had:
            if had is None:
                return []
            return await self._autocomplete(game_id, caller, kind, option, current, filled, group=group)

    async def _autocomplete(self, game_id: int, caller: Caller, kind: str, option: str, current: str,
                            filled: dict[str, Any], *, group: str | None | object) -> list[tuple[str, Any]]:
        game_id = access.game_number(game_id)
        access.check_scope(caller, await self.db.get_game(game_id), game_id)
        use(caller.language)  # the choices are the member's own
        lock = self.lock(game_id)
        try:
            await asyncio.wait_for(lock.acquire(), self.read_wait)
        except TimeoutError:
            lv = self._live.get(game_id)
            if lv is None or lv.copy is None or lv.copy.version != lv.version:
                return []
            copy: Copy | None = lv.copy
        else:
            try:
                lv = await self.live(game_id)
                copy = await self._copy(lv)
                if copy is None and lv.session is not None:  # a game its family cannot copy: read while held
                    cmd, seat = self._command(lv, kind, group), lv.seat_of_member(caller.member_id)
                    return await asyncio.to_thread(self._choices, lv.session, cmd, option, current, filled, seat)
            finally:
                lock.release()
        self._touched(game_id, lv)
        if lv.session is None or copy is None:
            return []
        cmd, seat = self._command(lv, kind, group), lv.seat_of_member(caller.member_id)
        return await copy.read(lambda session: self._choices(session, cmd, option, current, filled, seat))

    @staticmethod
    def _choices(session: Session, cmd: Command, option: str, current: str, filled: dict[str, Any],
                 seat: Seat | None = None) -> list[tuple[str, Any]]:
        """The choices for an option (slow: choices may try moves on a copy of the game, e.g. 1817's loans and
        mergers; called off the event loop)."""
        if session.finished:
            return []
        # a seat's choices: the moves now, and what it may do out of its turn (its privates' abilities)
        legal = session.legal_for(seat.player_id) if seat is not None else session.legal()
        choices = cmd.choices(session.naming(session.player_names()), option, filled, legal)  # plain text
        return fit(choices, str(current) if current is not None else "")

    # ------------------------------------------------------------------ undo
    @_told_in_full
    async def undo(self, game_id: int, caller: Caller, steps: Any = 1, publish: Publish | None = None
                   ) -> Reply | UndoRequest:
        """Undo the caller's own last actions at once; further back opens a vote (stored in SQLite, so it
        survives a restart), published with Agree/Refuse buttons. Returns the undo reply or the request."""
        try:
            steps = int(steps)
        except (TypeError, ValueError):
            raise UserError(lazy("steps must be a number, not {value}.", value=quote(steps))) from None
        if not 1 <= steps <= MAX_UNDO_STEPS:
            raise UserError(lazy("steps: how many actions to take back, from 1 to {most}.", most=MAX_UNDO_STEPS))
        with self._one_undo(caller):
            return await self._undo(game_id, caller, steps, publish)

    @contextlib.contextmanager
    def _one_undo(self, caller: Caller) -> Iterator[None]:
        """One of the member's undo requests or votes on its way: each may replay the game in a worker thread (a
        second for a long 1817 game) before the game is held, so a member has at most `MAX_UNDOS_AT_ONCE` (a further
        one is refused at once, costing nothing), and cannot fill the worker threads every server's actions use."""
        with _one_more(self._undoing, caller.member_id, MAX_UNDOS_AT_ONCE) as had:
            if had is None:
                raise UserError(lazy("Your other undo request or vote is on its way: send this one once it is "
                                     "answered."))
            yield

    async def _undo(self, game_id: int, caller: Caller, steps: int, publish: Publish | None) -> Reply | UndoRequest:
        prepared = await self._prepare_undo(game_id, caller, steps)
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            if lv.row.status not in ("active", "finished") or lv.game is None:
                raise UserError(lazy("This game is not running."))
            seat = lv.seat_of_member(caller.member_id)
            if seat is None:
                raise UserError(lazy("You have no seat in this game."))
            count = await self.db.action_count(game_id)
            if steps > count:
                raise UserError(lazy_n("There is only {n} action to undo.", "There are only {n} actions to undo.", count))
            rows = await self.db.action_rows(game_id, limit=steps)
            previous = await self.db.undo_request(game_id)
            if all(m == caller.member_id for _, _, m, _ in rows):
                return await self._do_undo(lv, steps, seat.player_id, publish, prepared=prepared,
                                           closing=self._vote_closed(lv, previous, _("replaced by an undo")))
            req = UndoRequest(game_id, seat.player_id, steps, count, {seat.player_id}, token=self._ballot_token(),
                              posted=False)
            reply = await self._request_reply(lv, req, await self._undone(lv, steps, prepared))
            reply.also = self._vote_closed(lv, previous, _("replaced by a new request"))
            posting = await self._ballot(req, previous, reply, publish)
        if not await asyncio.shield(posting):
            # no message, no buttons to vote with: a request nobody could answer is not kept (the one it would
            # replace stays open, its message untouched)
            raise UserError(lazy("The undo request could not be posted in the game's thread (is it locked, or "
                                 "may the bot no longer post there?), so nothing was asked. Try again once it can."))
        return req

    async def _request_reply(self, lv: Live, req: UndoRequest, undone: str) -> Reply:
        """An undo request's post (`undone`: the actions it would take back), with its buttons, pinging the seats
        that must agree (`_may_ping`)."""
        voters = sorted(self._voters(lv, req))
        mentions = [self._member(lv, p) for p in voters]
        quiet = bool(mentions) and not await self._may_ping(lv.row.id, req.requester, "undo_votes")
        name = lv.names[req.requester]
        return lv.reply(ngettext("{name} asks to undo the last action: {actions}. Everyone must agree: {whom}",
                                 "{name} asks to undo the last {n} actions: {actions}. Everyone must agree: {whom}",
                                 req.steps, name=name, actions=undone,
                                 whom=", ".join(lv.names[p] for p in voters) if quiet else
                                 " ".join(f"<@{m}>" for m in mentions)) +
                        (self._not_pinged_again(name) if quiet else ""),
                        mention=[] if quiet else mentions, buttons=[f"undo_yes:{req.token}", f"undo_no:{req.token}"])

    async def _may_ping(self, game_id: int, seat: int, table: str) -> bool:
        """Whether a seat's new undo request (or trade offer: `table`) may ping the seats it asks: not within
        `BALLOT_PING_EVERY` of the last one that did (asking again and again must not ping them again and again;
        the ping before already brought them to the thread, where the newest is). When one pinged is stored once it
        is posted (`_ballot`), so a restart does not let the next ping at once."""
        last = await self.db.last_ping(game_id, seat, table)
        return last is None or not 0 <= self.clock() - last < BALLOT_PING_EVERY

    async def _pinged(self, made: UndoRequest | TradeOffer, table: str) -> None:
        """Note when the asking seat's ballot pinged (best effort: a failure only lets its next one ping)."""
        seat = made.requester if isinstance(made, UndoRequest) else made.buyer
        try:
            await self.db.note_ping(made.game_id, seat, table, self.clock())
        except Exception:
            log.exception("game %s: noting when seat %s pinged failed", made.game_id, seat)

    @staticmethod
    def _not_pinged_again(name: str) -> str:
        return "\n" + ngettext("(Nobody was pinged: {name} asked them less than {n} minute ago.)",
                                "(Nobody was pinged: {name} asked them less than {n} minutes ago.)",
                                int(BALLOT_PING_EVERY // 60), name=name)

    # An undo request's or a trade offer's message is its only ballot (the others answer with its buttons), and one
    # that could not be posted must not be kept; yet the game is not held while Discord answers. So it is stored
    # first, as not posted yet, with the game held, its post queued in the game's line; once posted it is confirmed
    # (with its message), or withdrawn if Discord refused it (the one it replaced put back). A press on its buttons
    # waits for that; after a restart in between, a press carrying its number (`token`) is proof it was posted.
    @staticmethod
    def _ballot_token() -> int:
        return random.randrange(BALLOT_TOKENS, 2**31)  # above any action count: never a ballot from before

    async def _ballot(self, made: UndoRequest | TradeOffer, previous: UndoRequest | TradeOffer | None, reply: Reply,
                      publish: Publish | None) -> asyncio.Future:
        """Store `made` (with the game held) and queue its post: the future says, once settled, whether it was
        posted (False: withdrawn). One closed while its post was on its way (its closing owed by its first button,
        `_closing`) has its closing made once that post is out."""
        table = "undo_votes" if isinstance(made, UndoRequest) else "trade_offers"
        button = reply.buttons[0]
        made.posted = publish is None  # nowhere to post: open at once
        async with self.db.transaction():
            if isinstance(made, UndoRequest):
                await self.db.save_undo_request(made)
            else:
                await self.db.save_trade_offer(made)
            await self._owe(reply.also)  # the one it replaces

        async def posted_as(message_id: int) -> None:
            try:
                await self.db.ballot_posted_as(table, made.game_id, made.token, message_id, button)
            except Exception:
                log.exception("game %s: keeping the message of a ballot just posted failed", made.game_id)

        reply.on_posted = posted_as
        unanswered: list[Exception] = []

        async def post(reply: Reply) -> Any:
            try:
                return await publish(reply)  # type: ignore[misc]
            except Exception as exc:  # no answer (the connection lost, the bot stopping): it may be out
                unanswered.append(exc)
                raise

        posting = self._in_line(post if publish is not None else None, reply)

        async def settle() -> bool:
            try:
                msg = await asyncio.shield(posting) if posting is not None else None
                message_id = getattr(msg, "id", None)
                if msg is None and unanswered:  # left not posted: the catch-up finds its message or posts it
                    return True
                async with self.lock(made.game_id):
                    if posting is None or msg is not None or reply.thread_id is None:
                        made.posted, made.message_id = True, message_id
                        if not await self.db.settle_ballot(table, made.game_id, made.token, message_id) and \
                                message_id is not None:  # closed meanwhile: its closing is owed by its button
                            await self.db.ballot_posted_as(table, made.game_id, made.token, message_id, button)
                            for closing in await self.db.ballots_closing(made.game_id):
                                if closing.message_id == message_id:
                                    self._in_line(publish, self._closing_edit(closing, reply))
                        if msg is not None and reply.mention:  # it pinged (`_may_ping`)
                            await self._pinged(made, table)
                        return True
                    await self.db.ballots_closed([], [button])  # closed meanwhile: not posted, nothing to close
                    if await self.db.withdraw_ballot(table, made.game_id, made.token) and previous is not None and \
                            previous.posted:
                        async with self.db.transaction():  # open again: its message is not to be closed
                            await (self.db.save_undo_request(previous) if isinstance(previous, UndoRequest)
                                   else self.db.save_trade_offer(previous))
                            await self.db.ballots_closed([r.edit for r in reply.also if r.edit is not None])
                    return False
            finally:
                if self._ballots.get(made.game_id) is settling:
                    del self._ballots[made.game_id]

        settling = self._ballots[made.game_id] = in_background(self._tasks, settle())
        return settling

    @staticmethod
    def _closing(lv: Live, ballot: UndoRequest | TradeOffer, text: str, button: str) -> list[Reply]:
        """The edit of a closed ballot's message to `text`: by its id; if it is not known yet (its post on its
        way, or Discord's answer cut short by a stop), by its first button (`button`, with when the ballot was
        stored: `Reply.reuse`), made once its post is out (`_ballot`) or by the catch-up (`_close_answered`). None
        for one posted nowhere (no thread)."""
        if ballot.message_id is not None:
            return [lv.reply(text, edit=ballot.message_id)]
        if ballot.posted:
            return []
        return [lv.reply(text, reuse=(button, ballot.stored_at))]

    async def _owe(self, closing: list[Reply]) -> None:
        """Store the edits closing ballot messages (`closing`) as owed, until a post carrying them is out
        (`_publish`) or the catch-up makes them (`_close_answered`): called in the transaction closing them."""
        await self.db.owe_closings(self._edits(closing))

    @staticmethod
    def _edits(closing: list[Reply]) -> list[Closing]:
        return [Closing(r.game_id, r.text, r.edit, *(r.reuse or (None, None))) for r in closing  # type: ignore[arg-type]
                if r.edit is not None or r.reuse is not None]

    async def _ballot_settled(self, game_id: int) -> None:
        """Wait until the game's undo vote or offer on its way is posted (or withdrawn): a press on its message
        may come before it is known to be posted."""
        settling = self._ballots.get(game_id)
        if settling is not None:
            await asyncio.wait([settling])

    async def _answered(self, table: str, open_now: UndoRequest | TradeOffer | None, token: int,
                        message_id: int | None) -> bool:
        """Whether an answer carrying `token` (pressed on message `message_id`; None: not a button) is for the
        game's open ballot. One stored but never confirmed as posted (the bot stopped in between) is confirmed by
        a press on its message."""
        if open_now is None or open_now.token != token:
            return False
        if not open_now.posted:
            if not message_id:
                return False
            await self.db.settle_ballot(table, open_now.game_id, token, message_id)
            open_now.posted, open_now.message_id = True, message_id
            return True
        # (a ballot open from before they had numbers of their own carries its action count: another one, replaced
        # by it at the same count, must not pass its answer on; one with its own number may be on two messages,
        # posted again after a restart where the thread's history could not be read: `_post_unposted`)
        return message_id is None or message_id == open_now.message_id or token >= BALLOT_TOKENS

    @staticmethod
    def _member(lv: Live, player_id: int) -> int:
        return next(s.member_id for s in lv.seats if s.player_id == player_id)

    @staticmethod
    def _voters(lv: Live, req: UndoRequest) -> set[int]:
        """Seats (player ids) that must agree: every other claimed seat, as held now."""
        return {s.player_id for s in lv.seats if s.player_id != req.requester and s.member_id > 0}

    def _told(self, publish: Publish | None, reply: Reply) -> Reply:
        """Queue the reply's post in the game's line now, with the game held (so it keeps its place among the
        game's posts), to go out once the posts before it are out: never with the game held, however slow
        Discord is. The command returns once it is posted (`_told_in_full`)."""
        reply.drawing = self._in_line(publish, reply)
        return reply

    async def post(self, publish: Publish, reply: Reply) -> Any:
        """Publish a reply the service made but did not post (a new game's lobby, an import's first post), in its
        game's line of posts: what `publish` returned (None: not posted)."""
        return await self._publish(publish, reply)

    def _in_line(self, publish: Publish | None, reply: Reply) -> asyncio.Future | None:
        """The reply's post, queued now (`_told`); the future gives what `publish` returned (None: not posted)."""
        if publish is None:
            return None
        return in_background(self._tasks, self._publish(publish, reply, self._queue(reply.game_id)))

    def _queue(self, game_id: int | None) -> tuple[asyncio.Future | None, asyncio.Future] | None:
        """A place in the game's line of posts, taken with the game held: its posts go out in the order of the
        changes they tell, those drawn once the game is free (`_apply`) included. (The post before, or None;
        this one's, done once posted.)"""
        if game_id is None:
            return None
        before = self._posts.get(game_id)
        mine = asyncio.get_running_loop().create_future()
        self._posts[game_id] = mine
        return before, mine

    async def _posted(self, game_id: int) -> None:
        """Wait until every post in the game's line is out."""
        last = self._posts.get(game_id)
        if last is not None:
            await asyncio.shield(last)

    async def _publish(self, publish: Publish | None, reply: Reply,
                       place: tuple[asyncio.Future | None, asyncio.Future] | None = None) -> Any:
        """Publish a reply about a change already stored, in its place in the game's line of posts (`_queue`;
        taken now if not given): a failure is logged, never reported as the command's (the member would hear
        that nothing changed and send it again). A reply telling where the game is, once posted, is stored as
        told (`catch_up` tells what a lost post left out)."""
        if publish is None:
            return None
        place = place or self._queue(reply.game_id)
        try:
            if place is not None and place[0] is not None:
                await asyncio.shield(place[0])
            self._powers_button(reply)
            # a ballot closed while its post was on its way: closed once that post is out (`_ballot`)
            reply.also = [r for r in reply.also if r.edit is not None or r.reuse is None]
            for edit in reply.also:  # an edit with it is owed until that edit itself is out
                if edit.edit is not None and edit.on_posted is None:
                    edit.on_posted = lambda _message_id, edit=edit: self._no_longer_owed(edit)
            try:
                msg = await publish(reply)
            except Exception:
                log.exception("game %s: publishing failed", reply.game_id)
                return None
            if msg is not None and reply.powers is not None and reply.game_id is not None:
                await self._powers_posted(publish, reply, msg)
            if msg is not None:
                await self._no_longer_owed(reply)
            if msg is not None and reply.told is not None and reply.game_id is not None:
                try:
                    await self.db.update_game(reply.game_id, told_moment=reply.told[0], told_count=reply.told[1])
                except Exception:
                    log.exception("game %s: keeping what its thread was told failed", reply.game_id)
            return msg
        finally:
            self._leave(reply.game_id, place)

    async def _no_longer_owed(self, edit: Reply) -> None:
        """A post is out: if it closed a ballot's message (its `edit`, or one found by its button: `Reply.reuse`),
        that edit is no longer owed (`_close_answered`)."""
        closed = [edit.edit] if edit.edit is not None else []
        found = [edit.reuse[0]] if edit.reuse is not None else []
        if closed or found:
            try:
                await self.db.ballots_closed(closed, found)
            except Exception:
                log.exception("game %s: noting a ballot's message closed failed", edit.game_id)

    def _leave(self, game_id: int | None, place: tuple[asyncio.Future | None, asyncio.Future] | None) -> None:
        """A post's place in line is left (posted, or given up): the next post may go."""
        if place is None:
            return
        if not place[1].done():
            place[1].set_result(None)
        if self._posts.get(game_id) is place[1]:  # type: ignore[arg-type]
            del self._posts[game_id]  # type: ignore[arg-type]

    CATCH_UP_RETRY = 3600.0  # seconds before a thread that refused a catch-up is tried again

    async def catch_up(self, publish: Publish, now: float | None = None) -> list[Reply]:
        """Post in each game's thread what it was not told (its post lost: the process killed after the action
        was stored, or Discord refusing it): the undos and actions since its last post, whose turn it is now
        (pinging them) and the map. A thread that refuses it is tried again after `CATCH_UP_RETRY`."""
        now = time.time() if now is None else now
        out = []
        for game_id in await self.db.games_untold():
            tried = self._catch_up_tried.get(game_id)
            if tried is not None and now - tried[1] < self.CATCH_UP_RETRY and \
                    tried[0] == await self._stored_moment(game_id):
                continue  # refused lately and nothing since: not rebuilt from its log (nor kept in memory) for it
            await self._posted(game_id)  # a post still on its way is not lost (nor held for)
            async with self.lock(game_id):
                if game_id in self._posts:  # another on its way since: it tells the game as it is (the next sweep
                    continue                # makes good what it does not)
                try:
                    lv = await self.live(game_id)
                except UserError:  # a broken game: reported at start-up
                    continue
                lv = await self._refresh(game_id)
                moment = await self._moment(lv)
                row = lv.row
                if row.told_moment is None or row.told_count is None or row.told_moment >= moment:
                    continue
                reply = await self._untold(lv, row.told_moment, row.told_count, moment, publish)
                posting = reply.drawing
            if posting is None or await asyncio.shield(posting) is None:
                self._catch_up_tried[game_id] = (moment, now)
                continue
            self._catch_up_tried.pop(game_id, None)
            out.append(reply)
        return out + await self._post_unposted(publish) + await self._close_answered(publish)

    @staticmethod
    def _closing_edit(closing: Closing, where: Reply) -> Reply:
        """The edit owed (`closing`) as a reply in the game's thread (that of `where`): by its message's id, or if
        it is not known, by its ballot's first button (`Reply.reuse`: a stop cut Discord's answer short)."""
        return Reply(closing.text, closing.game_id, where.thread_id, guild_id=where.guild_id, language=where.language,
                     edit=closing.message_id, reuse=None if closing.message_id is not None else
                     (closing.button, closing.since))

    async def _close_answered(self, publish: Publish) -> list[Reply]:
        """Edit to its closed form each message of an undo vote or a trade offer closed (answered, or ended by an
        action, an undo, the abort, another ballot) whose closing was stored but whose edit is not known to be out
        (`ballots_closing`: the post carrying it lost), so its buttons go. A game with posts on their way is left
        to them (the next sweep makes good what they do not)."""
        out = []
        for game_id in sorted({closing.game_id for closing in await self.db.ballots_closing()}):
            await self._posted(game_id)
            async with self.lock(game_id):
                row = await self.db.get_game(game_id)
                if game_id in self._posts or game_id in self._ballots or row is None or row.thread_id is None:
                    continue
                edits = [self._closing_edit(closing, Reply("", game_id, row.thread_id, guild_id=row.guild_id,
                                                           language=row.language))
                         for closing in await self.db.ballots_closing(game_id)]
                postings = [(edit, self._in_line(publish, edit)) for edit in edits]  # owed until out (`_publish`)
            out += [edit for edit, posting in postings if posting is not None and await asyncio.shield(posting) is not None]
        return out

    async def _post_unposted(self, publish: Publish) -> list[Reply]:
        """Post the undo requests and trade offers stored but never known to be posted (the process stopped
        between storing one and confirming its post): their message is their only ballot, and nobody saw one never
        posted. One Discord had taken before the stop is confirmed as its message, kept as soon as Discord answered
        (`Reply.on_posted`); one whose answer the stop cut short is looked for among the thread's messages posted
        since it was stored, by its button (`Reply.reuse`), and posted only if it is not there."""
        out = []
        for table, game_id in await self.db.unposted_ballots():
            if game_id in self._ballots:  # on its way now
                continue
            await self._posted(game_id)
            async with self.lock(game_id):
                made = await (self.db.undo_request if table == "undo_votes" else self.db.trade_offer)(game_id)
                if made is None or made.posted or game_id in self._ballots:
                    continue
                if made.message_id is not None:  # Discord had taken its post (`ballot_posted_as`): that message
                    await self.db.settle_ballot(table, game_id, made.token, made.message_id)
                    continue
                try:
                    lv = await self.live(game_id)
                except UserError:  # a broken game: reported at start-up
                    continue
                use(lv.row.language)
                if isinstance(made, UndoRequest):
                    reply = await self._request_reply(lv, made, await self._undone(lv, made.steps))
                else:
                    reply = await self._offer_reply(lv, made)
                reply.text += "\n" + _("(Posted after a restart of the bot.)")
                reply.reuse = (reply.buttons[0], made.stored_at)  # its post may be out (the stop came first)
                posting = await self._ballot(made, None, reply, publish)
            if await asyncio.shield(posting):
                out.append(reply)
        return out

    async def _untold(self, lv: Live, told_moment: int, told_count: int, moment: int, publish: Publish) -> Reply:
        """The post for a thread last told at `told_moment` (`told_count` actions): the undos since, then the
        actions in the log since (the latest few of many), and the turn with its pings (`_tell`)."""
        assert lv.session is not None
        count = len(lv.session.actions)
        undone = (moment - told_moment - (count - told_count)) // 2  # actions undone since
        undos: list[UndoEvent] = []
        for ev in reversed(await self.db.undo_events(lv.row.id)):
            if undone <= 0:
                break
            undos.insert(0, ev)
            undone -= ev.steps
        since = min([told_count, *(ev.kept for ev in undos)])
        lines = [_("Catching up: this thread was not told of the latest moves.")]
        lines += [f"↩ {self.undo_sentence(ev, lv.names)}" for ev in undos]
        new = count - since
        if new > 0:
            told = min(new, self.UNDO_TOLD)
            said = await asyncio.to_thread(self._sentences, lv, await self.db.actions(lv.row.id), told)
            if new > told:
                lines.append(ngettext("({n} earlier action)", "({n} earlier actions)", new - told))
            lines += [f"{count - told + i + 1}. {text}" for i, text in enumerate(said)]
        reply = lv.reply("\n".join(lines))
        kinds = {lv.session.picture_kinds[0]} if lv.session.picture_kinds else set()
        await self._finish_reply(lv, reply, None, set(), self._turn_members(lv))
        return await self._tell(lv, reply, kinds, None, publish)

    def _vote_closed(self, lv: Live, req: UndoRequest | None, why: str) -> list[Reply]:
        """Edit a vote message that is no longer open: its buttons go (`_closing`)."""
        if req is None:
            return []
        return self._closing(lv, req, ngettext("Undo vote on {n} action closed: {why}.",
                                               "Undo vote on {n} actions closed: {why}.", req.steps, why=why),
                             f"undo_yes:{req.token}")

    UNDO_TOLD = 8  # an undo tells this many of the actions it takes back, the latest ones

    async def _undone(self, lv: Live, steps: int, prepared: Undoing | None = None) -> str:
        """`Bob passes; NYC lays tile 57 on E19 Albany…` — the last `steps` actions as sentences (the latest
        few of a long undo, with how many more). Called with the game held (`prepared`: told before)."""
        if prepared is not None and prepared.holds(lv, steps, self._players(lv.seats), rebuilt=False):
            return prepared.undone
        said, _shorter = await asyncio.to_thread(self._undo_work, lv, await self.db.actions(lv.row.id), steps, False)
        return self._told_undone(steps, said)

    def _told_undone(self, steps: int, said: list[str]) -> str:
        told = min(steps, self.UNDO_TOLD)
        if steps > told:
            return ngettext("{n} earlier action, then {actions}", "{n} earlier actions, then {actions}", steps - told,
                            actions="; ".join(said))
        return "; ".join(said)

    def _undo_work(self, lv: Live, stored: list[dict], steps: int, rebuild: bool) -> tuple[list[str], Session | None]:
        """The sentences of the last actions an undo of `steps` takes back, and (`rebuild`) the game without them
        (slow: replays; in a worker thread). An undo telling all it takes back tells them from a copy of the
        shorter game rather than from a second replay."""
        told = min(steps, self.UNDO_TOLD)
        shorter = self.engine.replay(lv.row.title, self._players(lv.seats), lv.row.seed, lv.row.setup,
                                     stored[:len(stored) - steps], lv.row.id) if rebuild else None
        return self._sentences(lv, stored, told, shorter if told == steps else None), shorter

    async def _prepare_undo(self, game_id: int, caller: Caller, steps: int, *, rebuild: bool | None = None
                            ) -> Undoing | None:
        """An undo worked out before its game is held, so the replays hold up no other command (best effort:
        None when the game is not in memory or the caller could not undo; `_do_undo` checks it still holds).
        `rebuild`: the shorter game is made too (None: if the last `steps` actions are all the caller's, an undo
        done at once)."""
        lv = self._live.get(game_id)
        if lv is None or lv.session is None or not access.in_scope(caller, lv.row) or \
                lv.seat_of_member(caller.member_id) is None:
            return None
        version, players = lv.version, self._players(lv.seats)
        rows = await self.db.action_rows(game_id, limit=steps)
        if len(rows) < steps:
            return None
        if rebuild is None:
            rebuild = all(m == caller.member_id for _, _, m, _ in rows)
        stored = await self.db.actions(game_id)
        if self._live.get(game_id) is not lv or lv.version != version:  # moved on meanwhile
            return None
        said, shorter = await asyncio.to_thread(self._undo_work, lv, stored, steps, rebuild)
        return Undoing(lv, version, players, stored, steps, self._told_undone(steps, said), shorter)

    @_told_in_full
    async def vote_undo(self, game_id: int, caller: Caller, agree: bool, token: int,
                        publish: Publish | None = None, *, message_id: int | None = None) -> Reply:
        """A vote on the open undo request `token` (the number on its buttons; `message_id`: the message whose
        button voted, see `_answered`)."""
        with self._one_undo(caller):
            return await self._vote(game_id, caller, agree, token, publish, message_id)

    async def _vote(self, game_id: int, caller: Caller, agree: bool, token: int, publish: Publish | None,
                    message_id: int | None) -> Reply:
        await self._ballot_settled(game_id)
        prepared = await self._prepare_vote(game_id, caller, token) if agree else None
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            req = await self.db.undo_request(game_id)
            count = await self.db.action_count(game_id)
            if req is None or count != req.at_count or not await self._answered("undo_votes", req, token, message_id):
                raise UserError(lazy("This undo request is no longer open."))
            seat = lv.seat_of_member(caller.member_id)
            voters = self._voters(lv, req)
            if seat is None or (seat.player_id not in voters and seat.player_id != req.requester):
                raise UserError(lazy("Only the players of this game vote on undo."))
            name = lv.names[seat.player_id]
            if not agree:
                closing = self._vote_closed(lv, req, _("{name} refused", name=name))
                await self.db.close_ballot("undo_votes", game_id, self._edits(closing))
                async with self._stored(game_id):
                    return self._told(publish, lv.reply(_("{name} refused to undo. The game goes on.", name=name),
                                                        also=closing))
            req.agreed.add(seat.player_id)
            missing = voters - req.agreed
            if not missing:
                return await self._do_undo(lv, req.steps, req.requester, publish, req.agreed, prepared=prepared,
                                           closing=self._vote_closed(lv, req, _("everyone agreed")))
            await self.db.save_undo_request(req)
            async with self._stored(game_id):
                waiting = ", ".join(lv.names[p] for p in sorted(missing))
                return self._told(publish, lv.reply(ngettext("{name} agrees to undo {n} action; waiting for {names}.",
                                                             "{name} agrees to undo {n} actions; waiting for {names}.",
                                                             req.steps, name=name, names=waiting)))

    async def _prepare_vote(self, game_id: int, caller: Caller, token: int) -> Undoing | None:
        """The undo the caller's vote would complete (the last one missing), worked out before the game is held."""
        lv = self._live.get(game_id)
        req = await self.db.undo_request(game_id)
        seat = lv.seat_of_member(caller.member_id) if lv is not None else None
        if lv is None or req is None or seat is None or req.token != token or \
                self._voters(lv, req) - req.agreed - {seat.player_id}:
            return None
        return await self._prepare_undo(game_id, caller, req.steps, rebuild=True)

    async def _do_undo(self, lv: Live, steps: int, requester: int, publish: Publish | None,
                       agreed: set[int] | None = None, *, prepared: Undoing | None = None,
                       closing: list[Reply] | None = None) -> Reply:
        """Take back the last `steps` actions for the seat `requester` (with the votes of `agreed`): the shorter
        game is rebuilt first (before the game was held, if `prepared` still holds), then the log, the game row,
        the reminder and the record of the undo change in one transaction. Its post (`_tell`) closes `closing`
        too (the undo vote it ends or replaces)."""
        game_id = lv.row.id
        offer = await self.db.trade_offer(game_id)  # withdrawn with the undo
        if prepared is not None and prepared.holds(lv, steps, self._players(lv.seats), rebuilt=True):
            stored, undone, session = prepared.stored, prepared.undone, prepared.session
        else:
            stored = await self.db.actions(game_id)
            said, session = await asyncio.to_thread(self._undo_work, lv, stored, steps, True)
            undone = self._told_undone(steps, said)
        assert session is not None
        keep = len(stored) - steps
        seat_of = {s.member_id: s.player_id for s in lv.seats}
        takers = [seat_of.get(m) if m is not None else None
                  for _, _, m, _ in await self.db.action_rows(game_id, limit=steps)]
        event = UndoEvent(game_id, keep, requester, steps, takers, sorted((agreed or set()) - {requester}), undone)
        before = lv.session.summary() if lv.session else {}
        shorter = Live(lv.row, lv.seats, session)
        turn = self._turn_members(shorter)
        closing = [*self._offer_closed(lv, offer, _("undone")), *(closing or [])]
        try:
            async with self.db.transaction():
                await self.db.truncate_actions(game_id, keep, {"status": "active", "turn_members": turn,
                                                               "result": None, "end_reason": None})
                await self.db.add_undo_event(event)
                await self._schedule_reminder(game_id)
                await self._owe(closing)
        except BaseException:
            self._forget(game_id)
            raise
        async with self._stored(game_id, caught_up=True):  # the undo is stored: what follows never says otherwise
            previous = set(lv.row.turn_members)
            lv.session = session
            self._changed(lv)
            self._install(game_id, lv)
            lv2 = await self._refresh(game_id)
            log.info("game %s: %d action(s) undone, %d kept", game_id, steps, keep)
            reply = lv2.reply(self.undo_sentence(event, lv2.names), also=closing)
            change = Change({}, before, session.summary())
            kinds = self._words_set(lambda: session.pictures_for(change), lv2) | {session.picture_kinds[0]}
            await self._finish_reply(lv2, reply, None, previous, turn)
            return await self._tell(lv2, reply, kinds, None, publish)

    @staticmethod
    def undo_sentence(event: UndoEvent, names: dict[int, str]) -> str:
        """`Cid undid 1 action: Cid buys DH for $70.`; after a vote, who agreed, and whose actions they were
        when not only the requester's (the thread's message and the history alike)."""
        def listed(pids: list[int]) -> str:
            said = [names.get(p) or _("Player {n}", n=p) for p in pids]
            return _("{names} and {last}", names=", ".join(said[:-1]), last=said[-1]) if len(said) > 1 else said[0]

        facts = {"name": names.get(event.requester) or _("Player {n}", n=event.requester), "actions": written_text(event.told, event.version)}
        takers = list(dict.fromkeys(p for p in event.takers if p is not None))
        if takers and takers != [event.requester]:
            facts["takers"] = listed(takers)
        if event.agreed:
            facts["voters"] = listed(event.agreed)
        n = event.steps
        if "voters" in facts and "takers" in facts:
            return ngettext("With everyone's agreement ({voters}), {name} undid {n} action taken by {takers}: "
                            "{actions}.", "With everyone's agreement ({voters}), {name} undid {n} actions taken by "
                            "{takers}: {actions}.", n, **facts)
        if "voters" in facts:
            return ngettext("With everyone's agreement ({voters}), {name} undid {n} action: {actions}.",
                            "With everyone's agreement ({voters}), {name} undid {n} actions: {actions}.", n, **facts)
        if "takers" in facts:
            return ngettext("{name} undid {n} action taken by {takers}: {actions}.",
                            "{name} undid {n} actions taken by {takers}: {actions}.", n, **facts)
        return ngettext("{name} undid {n} action: {actions}.", "{name} undid {n} actions: {actions}.", n, **facts)

    # ------------------------------------------------------------------ read-only
    @_heavy_read
    async def status(self, game_id: int, caller: Caller, pictures: tuple[str, ...] | None = None,
                     place: str | None = None) -> Reply:
        """Where the game stands, with its pictures (all of them, or the kinds named; with `place`, the board
        around that place instead, legible on a phone): told and drawn from a copy of the game as it is now, once
        the next command may have the game (~0.4 s for a long 1817 game's four pictures)."""
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            if lv.session is None:
                return lv.reply(await self.lobby_text(game_id))
            kinds = set(pictures) if pictures is not None else set(lv.session.picture_kinds)
            copy = await self._copy(lv)
            if copy is None:  # a game its family cannot copy: told while held
                return await asyncio.to_thread(self._status, lv, kinds, place)
            row, seats = lv.row, list(lv.seats)
        return await copy.read(lambda session: self._status(Live(row, seats, session), kinds, place))

    def _status(self, lv: Live, kinds: set[str], place: str | None = None) -> Reply:
        """The status reply of a game (in a worker thread: the lines and pictures take a while)."""
        assert lv.session is not None
        area = lv.session.area(place, lv.drawn_names) if place else None  # or its UserError: no such place
        lines = self._words(lambda: "\n".join(lv.session.status_lines(lv.names)), "status", lv).split("\n")
        lines[0] = _("**{title}** game #{game} — {state}", title=self._title(lv).display_name, game=lv.row.id,
                     state=lines[0])
        lines.append(self.turn_text(lv, mention=False))
        reply = lv.reply("\n".join(lines))
        if place:
            reply.pictures = [Picture(f"game{lv.row.id}-status-area.png", area)] if area and self.pictures else []
        else:
            reply.pictures = self._render(lv, kinds, None, f"game{lv.row.id}-status")
        return reply

    @_heavy_read
    async def history(self, game_id: int, caller: Caller, n: Any = 10, page: Any = 1) -> Reply:
        """The game's log in sentences, `n` actions a page: page 1 the latest, 2 the ones before… Undos are
        told where they happened, after the last action they kept."""
        try:
            n, page = max(1, min(int(n), 50)), max(1, int(page))
        except (TypeError, ValueError):
            raise UserError(lazy("count and page are numbers, not {count} and {page}.", count=quote(n),
                                 page=quote(page))) from None
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            stored = await self.db.actions(game_id)
            undos = await self.db.undo_events(game_id)
            if not stored and not undos:
                return lv.reply(_("No actions yet."))
            end = len(stored) - (page - 1) * n
            if end < 0 or (end == 0 and page > 1):
                pages = max(1, -(-len(stored) // n))
                raise UserError(lazy("The log has {actions} actions: {pages} page(s) of {size}.", actions=len(stored),
                                     pages=pages, size=n))
        # told from the log as read (a replay of up to the whole game), once the next command may have the game
        said = await asyncio.to_thread(self._sentences, lv, stored[:end], min(n, end)) if end else []
        first = end - len(said) + 1
        pages = max(1, -(-len(stored) // n))
        # each undo is told after the last action it left that no later undo took back (every action after
        # that one was taken after it); on a page, after its actions, or before the first on the oldest page
        told: dict[int, list[str]] = {}
        at = len(stored)
        for ev in reversed(undos):
            at = min(at, ev.kept)
            if first - (first == 1) <= at <= end:
                told.setdefault(at, []).insert(0, f"↩ {self.undo_sentence(ev, lv.names)}")
        lines = list(told.get(first - 1, []))
        for i, text in enumerate(said):
            lines.append(f"{first + i}. {text}")
            lines.extend(told.get(first + i, []))
        if pages > 1:
            lines.append(_("(page {page} of {pages}; older: page {older})", page=page, pages=pages, older=page + 1)
                         if page < pages else _("(page {page} of {pages})", page=page, pages=pages))
        return lv.reply("\n".join(lines))

    def _sentences(self, lv: Live, stored: list[dict], n: int, before: Session | None = None) -> list[str]:
        """The sentences of the last `n` stored actions, as they were told when played: the game is rebuilt
        up to them (`before`: a copy of that game, not changed) and they are applied again (a plain line for
        each if that fails)."""
        try:
            session = before.thawed(before.frozen()) if before is not None else \
                self.engine.replay(lv.row.title, self._players(lv.seats), lv.row.seed, lv.row.setup,
                                   stored[:len(stored) - n], lv.row.id)
            return [session.describe(session.apply(dict(a)), lv.names) for a in stored[len(stored) - n:]]
        except Exception:
            log.exception("game %s: telling the last %d actions failed", lv.row.id, n)
            return [self._line(lv, a) for a in stored[len(stored) - n:]]

    @_heavy_read
    async def export(self, game_id: int, caller: Caller) -> tuple[str, bytes]:
        """The game's log (18xx.games' format for 18xx titles) whose `id` is this game's number."""
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            # the log as stored now (a new list of it: its actions are never changed once stored)
            exported = lv.session.export() if lv.session is not None else \
                self.engine.log_dict(lv.row.title, self._players(lv.seats), lv.row.seed, lv.row.setup, [], game_id)
        # ~40 ms of JSON for a long 1817 game: off the event loop, once the next command may have the game
        data = await asyncio.to_thread(lambda: json.dumps({**exported, "id": game_id}, indent=1).encode())
        return f"roundhouse-{lv.row.title}-{game_id}.json", data

    # ------------------------------------------------------------------ import
    @staticmethod
    def check_import_size(size: int) -> None:
        if size > MAX_IMPORT_BYTES:
            raise UserError(lazy("The log is {size} MB; the limit is {most} MB.", size=f"{size / 2**20:.1f}",
                                 most=MAX_IMPORT_BYTES // 2**20))

    def parse_log(self, data: bytes | str | dict) -> tuple[ImportedLog, dict]:
        """A game log (18xx.games' format, or Steam's laid out alike), checked for size and shape (the engine
        checks the actions): the parts the bot reads, and the whole log."""
        from engine.core.game import paused_gc

        try:
            if isinstance(data, (bytes, str)):
                self.check_import_size(len(data))
                text = data.decode(json.detect_encoding(data), "surrogatepass") if isinstance(data, bytes) else data
                # millions of lists would set off the cyclic collector over and over (1.7 s for 0.2 s of reading)
                with paused_gc():
                    data = json.loads(text)
            else:  # read already, by the program itself
                text = json.dumps(data)
        except (ValueError, TypeError):  # UnicodeDecodeError among them
            raise UserError(lazy("The file is not JSON: attach the game's log as 18xx.games exports it.")) from None
        except RecursionError:  # nested deeper than Python's parser goes
            raise too_deep() from None
        brackets = brackets_of(text.encode("utf-8", "surrogatepass"))
        if nested_deeper_than(brackets, MAX_IMPORT_DEPTH):  # before any work on it
            raise too_deep()
        if len(brackets) // 2 > MAX_IMPORT_VALUES:  # every copy of the game for a read or a preview would copy them
            raise UserError(lazy("The file is not an 18xx.games game log: it holds {count} lists or objects; a game "
                                 "log holds at most {most} (about 4 an action).", count=len(brackets) // 2,
                                 most=MAX_IMPORT_VALUES))
        if not isinstance(data, dict):
            raise UserError(lazy("The file is not an 18xx.games game log: it should be one JSON object with "
                                 "`title`, `players` and `actions`."))
        actions = data.get("actions")
        if isinstance(actions, list) and len(actions) > MAX_IMPORT_ACTIONS:  # before any work on each of them
            raise UserError(lazy("The log has {actions} actions; the limit is {most}.", actions=len(actions),
                                 most=MAX_IMPORT_ACTIONS))
        named = data.get("title")
        title = next((t for t in self.engine.titles.values()
                      if isinstance(named, str) and t.name.lower() == named.lower()), None)
        if title is not None:
            data = title.family.numbered(data)
        try:
            parsed = ImportedLog.model_validate(data)
        except pydantic.ValidationError as exc:
            from engine.core.errors import first_invalid  # the words a value's fault is told in

            where, reason, given = first_invalid(exc.errors())
            if not given:
                raise UserError(lazy("The file is not an 18xx.games game log: {field} {reason}.",
                                     field=quote(where or "log"), reason=reason)) from None
            raise UserError(lazy("The file is not an 18xx.games game log: {field} {reason}, not {value}.",
                                 field=quote(where or "log"), reason=reason, value=quote(exc.errors()[0]["input"]))) \
                from None
        if data.get("status") == "new":  # 18xx.games' game not started: players may still join or leave it
            raise UserError(lazy("The game has not started on 18xx.games yet: its players may still change. "
                                 "Import it once it has started."))
        if "actions" not in data or data.get("loaded") is False or \
                data.get("status") == "archived" and not data["actions"]:  # as 18xx.games lists it (or archives it)
            raise UserError(lazy("The file holds the game without its actions: export the game itself, with "
                                 "its actions."))
        if title is None:
            raise UserError(lazy("Cannot import a {title} game; playable: {titles}.", title=quote(parsed.title),
                                 titles=", ".join(self.engine.titles)))
        ids = [p.id for p in parsed.players]
        if len(set(ids)) != len(ids):
            raise UserError(lazy("The log names one player id twice."))
        if len(ids) > title.player_range[1]:
            raise UserError(lazy_n("The log has {players} players; {title} is for at most {n}.",
                                   "The log has {players} players; {title} is for at most {n}.", title.player_range[1],
                                   players=len(ids), title=title.display_name))
        if len(ids) < title.player_range[0]:
            raise UserError(lazy_n("The log has {n} player; {title} is for at least {least}.",
                                   "The log has {n} players; {title} is for at least {least}.", len(ids),
                                   title=title.display_name, least=title.player_range[0]))
        return parsed, data

    @contextlib.asynccontextmanager
    async def importing(self, caller: Caller) -> AsyncIterator[None]:
        """One of the member's imports on its way, from the download of its file to its post: a member has at most
        `MAX_IMPORTS_AT_ONCE` (a further one is refused at once, before its file is downloaded), as imports wait
        for each other (`import_game`) each holding its file of up to 12 MB; and sends at most `MAX_IMPORTS_AN_HOUR`
        (counted in memory: a restart forgets them), each a game every start-up replays (up to 20,000 actions)
        and whose post pings the members it seats."""
        now = self.clock()
        sent = self._imported.setdefault(caller.member_id, [])
        sent[:] = [t for t in sent if now - t < 3600]
        if len(sent) >= MAX_IMPORTS_AN_HOUR:
            raise UserError(lazy_n("You sent {n} import within the hour: send another later.",
                                   "You sent {n} imports within the hour: send another later.", len(sent)))
        with _one_more(self._importers, caller.member_id, MAX_IMPORTS_AT_ONCE) as had:
            if had is None:
                raise UserError(lazy("Your other import is on its way: import this one once it is answered."))
            sent.append(now)
            yield

    async def import_game(self, caller: Caller, data: bytes | str | dict, members: list[tuple[int, str] | None],
                          *, channel_id: int | None = None, thread_id: int | None = None,
                          language: str | None = None) -> tuple[GameRow, Reply]:
        """Create a game from an 18xx.games log in the caller's server. `members[i]`: (member id, name) for
        the log's i-th player, or None for a seat to be claimed later. The caller hosts if seated; otherwise
        the first seated member does. Imports run one at a time, from reading the file to storing the game: 12 MB
        of JSON may take about 25 times that in memory once read."""
        async with self._importing:
            return await self._import(caller, data, members, channel_id=channel_id, thread_id=thread_id,
                                      language=language)

    async def _import(self, caller: Caller, data: bytes | str | dict, members: list[tuple[int, str] | None],
                      *, channel_id: int | None, thread_id: int | None, language: str | None
                      ) -> tuple[GameRow, Reply]:
        parsed, raw = await asyncio.to_thread(self.parse_log, data)  # up to 12 MB of JSON: off the event loop
        taken = [m[0] for m in members if m is not None]
        if len(set(taken)) != len(taken):
            raise UserError(lazy("A member can only take one seat."))
        seated = [(p, members[i] if i < len(members) else None) for i, p in enumerate(parsed.players)]
        players = [{"id": p.id, "name": _short(m[1] if m else p.name or _("Player {n}", n=i + 1))}
                   for i, (p, m) in enumerate(seated)]
        try:
            session = await asyncio.to_thread(self.engine.load, {**raw, "players": players})
        except Exception as exc:
            if self.engine.is_game_error(exc):
                raise UserError(lazy("The log does not replay: {why}", why=Refusal(exc))) from None
            log.exception("import: the engine failed on a log")
            raise UserError(lazy("The rules engine failed on this log; nothing was imported. "
                                 "The error was logged for the developers.")) from None
        self._check_seed(session.seed)
        host = caller.member_id if caller.member_id in taken else (taken[0] if taken else caller.member_id)
        turn_names = {p["id"]: p["name"] for p in players}
        setup = session.setup()
        encoded = await asyncio.to_thread(self.db.encoded, session.actions)  # stored as is: no game holds it yet
        async with self.db.transaction():
            row = await self.db.create_game(title=session.title, seed=session.seed, created_by=host,
                                            guild_id=caller.guild_id, channel_id=channel_id, thread_id=thread_id,
                                            optional_rules=setup.pop("optional_rules", []), settings=setup,
                                            status="active", language=normalize(language or caller.language))
            for pos, (p, m) in enumerate(seated):
                member = m[0] if m else -(row.id * 100 + pos + 1)  # unclaimed: `/game claim` takes it
                await self.db.add_seat(row.id, p.id, member, turn_names[p.id], pos)
            await self.db.replace_actions(row.id, session.actions, encoded=encoded)
            seats = await self.db.seats(row.id)
            lv = Live(row, seats, session)
            turn = self._turn_members(lv)
            fields: dict[str, Any] = {"turn_members": turn, "last_action_at": time.time(),
                                      "told_moment": len(session.actions), "told_count": len(session.actions)}
            if session.finished:
                fields.update(status="finished", result=session.result(), end_reason=session.end_reason)
            await self.db.update_game(row.id, **fields)
            await self._schedule_reminder(row.id)
        log.info("game %s: imported %d actions", row.id, len(session.actions))
        async with self.lock(row.id):  # in memory from here: its first pictures are drawn with it held, as any are
            self._install(row.id, lv)
            lv = await self._refresh(row.id)
            name = self._title(lv).display_name
            if name[:1].lower() in "aeiou8" or name.startswith(("11", "18")):  # English: "an 1830 game"
                text = ngettext("Imported an {title} game with {n} action as game #{game}.",
                                "Imported an {title} game with {n} actions as game #{game}.", len(session.actions),
                                title=name, game=row.id)
            else:
                text = ngettext("Imported a {title} game with {n} action as game #{game}.",
                                "Imported a {title} game with {n} actions as game #{game}.", len(session.actions),
                                title=name, game=row.id)
            told = raw.get("result")
            if isinstance(told, dict) and told and (not session.finished or
                                                    {str(k): v for k, v in told.items()} != session.result()):
                # the site's result is stored as the game ended there; the game is what its actions make it
                said = self._told_result(told, lv.names)
                text += "\n" + (_("The log's result ({told}) is not what the game replays to here: the replayed "
                                  "result stands.", told=said) if session.finished else
                                _("The log gives a result ({told}), but replayed here the game is not over: it goes "
                                  "on from where the replay stands.", told=said))
            reply = lv.reply(text)
            await self._finish_reply(lv, reply, None, set(), turn)
            return lv.row, await self._tell(lv, reply, set(session.picture_kinds), None, None)  # posted by the caller

    @staticmethod
    def _told_result(told: dict, names: dict[int, str]) -> str:
        """The result an imported log gives, as its post tells it: each player by their name as written, each
        score a number; anything else the log holds there (it is the file's, not the game's) is quoted as member
        input is, and no more entries than the game has players are told."""
        def who(key: Any) -> str:
            try:
                return names[int(key)]
            except (KeyError, TypeError, ValueError):
                return quote(key)

        def score(value: Any) -> str:
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= 10**12:
                return str(value)
            return quote(value)

        said = [f"{who(k)} {score(v)}" for k, v in list(told.items())[:len(names)]]
        return ", ".join(said) + (", …" if len(told) > len(names) else "")

    # ------------------------------------------------------------------ reminders & DMs
    @_told_in_full
    async def set_remind(self, game_id: int, caller: Caller, hours: Any, every: Any = None,
                         publish: Publish | None = None) -> Reply:
        """Reminder settings: the players and the host only (published, if `publish`, in the game's line of posts:
        `_told`)."""
        try:
            hours = float(hours) if hours is not None else 0.0
            every = float(every) if every is not None else None
        except (TypeError, ValueError):
            raise UserError(lazy("hours and every are numbers of hours.")) from None
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            access.require_player_or_host(caller, lv.row, lv.seats, lazy("set its reminders"))
            if not hours > 0:  # 0, negative or NaN: off
                await self.db.set_reminder(game_id, enabled=0, next_at=None)
                async with self._stored(game_id):
                    return self._told(publish, lv.reply(_("Reminders are off for this game.")))
            for value in (hours, every):
                if value is not None and not MIN_REMINDER_HOURS <= value <= MAX_REMINDER_HOURS:
                    raise UserError(lazy("Reminders: from {least} to {most} hours.", least=f"{MIN_REMINDER_HOURS:g}",
                                         most=f"{MAX_REMINDER_HOURS:g}"))
            every_s = every * 3600 if every else DEFAULT_REMINDER_EVERY
            async with self.db.transaction():
                await self.db.set_reminder(game_id, enabled=1, first_after=hours * 3600, every=every_s)
                await self._schedule_reminder(game_id)
            async with self._stored(game_id):
                return self._told(publish, lv.reply(_("Reminders after {hours} h of idle time, then every {every} h.",
                                                      hours=f"{hours:g}", every=f"{every_s / 3600:g}")))

    async def note_language(self, member_id: int, language: str) -> None:
        """The member's Discord language, kept for their DMs (stored when it changes)."""
        if self._languages.get(member_id) != language:
            await self.db.set_member_language(member_id, language)
            self._languages[member_id] = language

    async def set_notify(self, caller: Caller, on: bool) -> Reply:
        await self.db.set_dm_optin(caller.member_id, on)
        return Reply(_("I will DM you when it is your turn.") if on else _("No more DMs about your turns."))

    async def due_reminders(self, now: float | None = None, publish: Publish | None = None) -> list[Reply]:
        """The reminders due now, each published (if `publish`) in its game's line of posts, its place taken
        while the game is held: no action's post slips in between its words and its post (it would ping a member
        who had just played), and a slow post does not hold the game."""
        now = time.time() if now is None else now
        out = []
        for rem in await self.db.due_reminders(now):
            posting = None
            async with self.lock(rem.game_id):
                await self.db.set_reminder(rem.game_id, next_at=now + rem.every, last_sent_at=now)
                try:
                    lv = await self.live(rem.game_id)
                except UserError:  # a broken game: reported at start-up
                    continue
                use(lv.row.language)
                turn = self._turn_members(lv)
                if not turn or lv.session is None:
                    continue
                idle = now - (lv.row.last_action_at or now)
                text = _("Reminder ({hours} h idle).", hours=f"{idle / 3600:.0f}") + " " + self.turn_text(lv, mention=True)
                reply = lv.reply(text, mention=[m for m in turn if m > 0],
                                 dm=[m for m in turn if await self.db.dm_optin(m)])
                posting = self._in_line(publish, reply)
                out.append(reply)
            if posting is not None:
                await asyncio.shield(posting)
        return out


def _own_language(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """Run a command in a copy of the caller's context: a game's language set inside it (`_scoped`) lasts
    until the command returns, and the caller's own replies (refusals included, whose `i18n.Msg` is
    rendered when shown) stay in the member's language."""

    @functools.wraps(method)
    async def run(*args: Any, **kwargs: Any) -> Any:
        return await asyncio.ensure_future(method(*args, **kwargs))  # a task runs in a copy of the context

    return run


for _name, _method in list(vars(Service).items()):
    if not _name.startswith("_") and inspect.iscoroutinefunction(_method):
        setattr(Service, _name, _own_language(_method))
