"""SQLite storage (aiosqlite, WAL): migrations runner and the repository the bot talks to.

Every write is committed before the caller returns, so a reply saying something happened is only sent
after it is on disk. Writes that belong together run in one `transaction()`: a kill at any point leaves
either all of them or none. One process owns a database: `open()` takes an exclusive lock on a file
beside it, which a second process cannot take (`DatabaseInUse`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import os
import re
import sqlite3
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import aiosqlite

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no owner lock
    fcntl = None  # type: ignore[assignment]


def _migrations_dir() -> Path:
    env = os.environ.get("ROUNDHOUSE_MIGRATIONS")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent.parent / "migrations"
    return here if here.is_dir() else Path.cwd() / "migrations"


MIGRATIONS_DIR = _migrations_dir()
_MIGRATION_RE = re.compile(r"^(\d+)_([\w-]+)\.sql$")


def migration_files(directory: Path = MIGRATIONS_DIR) -> list[tuple[int, str, Path]]:
    out = []
    for path in sorted(directory.glob("*.sql")):
        m = _MIGRATION_RE.match(path.name)
        if m:
            out.append((int(m.group(1)), m.group(2), path))
    out.sort()
    return out


class DatabaseInUse(RuntimeError):
    """Another process owns this database."""


class LogConflict(RuntimeError):
    """The stored log moved on since the game in memory was built from it (nothing was stored)."""


class PreviewGone(RuntimeError):
    """The preview a Confirm answers is no longer open (answered, or dropped as one of the oldest)."""


class MigrationFailed(RuntimeError):
    pass


def lock_path(db_path: str | Path) -> Path:
    return Path(f"{db_path}.lock")


def take_owner_lock(db_path: str | Path) -> IO[str] | None:
    """An exclusive lock on `<db>.lock`, held while the returned file stays open (the OS drops it when the
    process ends, even by kill -9). Raises DatabaseInUse naming the owner's pid."""
    if fcntl is None or str(db_path) == ":memory:":
        return None
    path = lock_path(db_path)
    handle = open(path, "a+")  # noqa: SIM115 - held open for the life of the Database
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        pid = handle.read().strip() or "?"
        handle.close()
        raise DatabaseInUse(f"{db_path} is in use by another Roundhouse process (pid {pid}); "
                            "only one bot or console may use a database at a time.") from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


# the task running the open transaction (a task started inside it inherits the variable, not the transaction)
_TRANSACTION_TASK: contextvars.ContextVar[asyncio.Task | None] = contextvars.ContextVar("transaction_task",
                                                                                        default=None)


@dataclass
class GameRow:
    id: int
    title: str
    status: str
    seed: int
    optional_rules: list[str]
    guild_id: int | None
    channel_id: int | None
    thread_id: int | None
    lobby_message_id: int | None
    created_by: int
    created_at: float
    updated_at: float
    last_action_at: float | None
    turn_members: list[int] = field(default_factory=list)
    result: dict[str, int] | None = None
    end_reason: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)  # the family's own set-up (Steam: map, mode)
    language: str = "en"  # what its thread speaks (i18n.LANGUAGES)
    pin_message_id: int | None = None  # the thread's pinned summary message
    told_moment: int | None = None  # the moment its thread was last told of (-1: not its start yet; None: unknown)
    told_count: int | None = None  # actions in the log then
    broken_told: bool = False  # its thread was told its log does not replay (`Service.tell_broken`)

    @property
    def setup(self) -> dict[str, Any]:
        """Everything the game is set up with besides its title, seed and players."""
        return {**self.settings, "optional_rules": list(self.optional_rules)}

    @classmethod
    def from_row(cls, r: aiosqlite.Row) -> GameRow:
        return cls(
            id=r["id"], title=r["title"], status=r["status"], seed=r["seed"],
            optional_rules=json.loads(r["optional_rules"] or "[]"), guild_id=r["guild_id"],
            channel_id=r["channel_id"], thread_id=r["thread_id"], lobby_message_id=r["lobby_message_id"],
            created_by=r["created_by"], created_at=r["created_at"], updated_at=r["updated_at"],
            last_action_at=r["last_action_at"], turn_members=json.loads(r["turn_members"] or "[]"),
            result=json.loads(r["result"]) if r["result"] else None, end_reason=r["end_reason"],
            settings=json.loads(r["settings"] or "{}"), language=r["language"],
            pin_message_id=r["pin_message_id"], told_moment=r["told_moment"], told_count=r["told_count"],
            broken_told=bool(r["broken_told"]),
        )


@dataclass
class Seat:
    game_id: int
    player_id: int
    member_id: int
    name: str
    position: int | None
    joined_at: float


@dataclass
class Reminder:
    game_id: int
    enabled: bool
    first_after: float
    every: float
    next_at: float | None
    last_sent_at: float | None


@dataclass
class UndoRequest:
    """An open vote to take back `steps` actions, asked when the log had `at_count` actions. Votes belong
    to seats (player ids): a seat handed to another member keeps its vote, and the new holder casts it."""

    game_id: int
    requester: int               # player id
    steps: int
    at_count: int
    agreed: set[int] = field(default_factory=set)   # player ids
    message_id: int | None = None
    token: int = 0        # the number its buttons carry (0: its action count, as before they had one of their own)
    posted: bool = True   # False: stored before its message is posted, until the post is confirmed (`settle_ballot`)
    stored_at: float = 0.0  # when it was first stored (0: not yet), so before its message was posted

    def __post_init__(self) -> None:
        self.token = self.token or self.at_count


@dataclass
class TradeOffer:
    """An action waiting for another seat's consent (a trade between two players' companies), offered when the
    log had `at_count` actions. Kept until the seller answers or the game moves on (any action, an undo)."""

    game_id: int
    buyer: int            # player id (seat) that offered
    seller: int           # player id (seat) that must agree
    action: dict
    at_count: int
    message_id: int | None = None
    token: int = 0        # as `UndoRequest`'s
    posted: bool = True
    stored_at: float = 0.0

    def __post_init__(self) -> None:
        self.token = self.token or self.at_count


@dataclass
class Closing:
    """A closed ballot's message owed its edit to its closed form (`text`): message `message_id`, or, not known yet
    (its post on its way, or Discord's answer lost to a stop), the message with its first button `button` posted
    since `since` (when the ballot was stored)."""

    game_id: int
    text: str
    message_id: int | None = None
    button: str | None = None
    since: float | None = None


@dataclass
class PendingPreview:
    """An action shown to the member who sent it, waiting for their Confirm (`token`: the number on its
    buttons): applied only while the game is where it was when shown (`at_count` actions, `last` the log's
    last action then: an undo and a new action may restore the count), and only once. `answered`: None while
    open, then how it was answered (`confirmed`, `cancelled`, `closed`: refused after all or too late)."""

    token: int
    game_id: int
    member_id: int
    player_id: int
    at_count: int
    action: dict
    command: str
    last: dict | None = None
    answered: str | None = None


UNDO_RECORD_VERSION = 1  # an undo's sentences name members as messages write them (`bot.session.written_name`)


@dataclass
class UndoEvent:
    """Actions taken back: after action `kept` of the log, the seat `requester` undid `steps` actions, taken by
    the seats `takers` (None: an imported action), with the agreement of the seats `agreed` (empty: its own
    actions, no vote). `told`: the undone actions as sentences, naming members as `version` says (None: stored
    before records had one, see `bot.session.written_text`)."""

    game_id: int
    kept: int
    requester: int
    steps: int
    takers: list[int | None]
    agreed: list[int]
    told: str
    created_at: float = 0.0
    version: int | None = UNDO_RECORD_VERSION


class Database:
    """Repository over one SQLite file. One connection; aiosqlite serialises statements on its thread."""

    def __init__(self, path: str | Path, *, owner: bool = True):
        """owner=False: open without the owner lock (read-only tools: integrity check, backup)."""
        self.path = str(path)
        self.owner = owner
        self.conn: aiosqlite.Connection | None = None
        self._owner_lock: IO[str] | None = None
        self._write_lock = asyncio.Lock()

    async def open(self) -> Database:
        if self.owner:
            self._owner_lock = take_owner_lock(self.path)
        try:
            self.conn = await aiosqlite.connect(self.path)
            self.conn.row_factory = aiosqlite.Row
            await self.conn.execute("PRAGMA journal_mode=WAL")
            # FULL: a commit survives power loss too, not only the process being killed
            await self.conn.execute("PRAGMA synchronous=FULL")
            await self.conn.execute("PRAGMA foreign_keys=ON")
            await self.conn.execute("PRAGMA busy_timeout=5000")
            if self.owner:
                await self.migrate()
        except BaseException:
            await self.close()
            raise
        return self

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()
            self.conn = None
        if self._owner_lock is not None:
            self._owner_lock.close()
            self._owner_lock = None

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """Writes in the block are committed together at its end, or rolled back if it raises (or is
        cancelled). Nested blocks join the outer one. Transactions of different games run one at a time:
        they share the connection."""
        task = asyncio.current_task()
        if task is not None and _TRANSACTION_TASK.get() is task:
            yield
            return
        async with self._write_lock:
            token = _TRANSACTION_TASK.set(task)
            try:
                yield
            except BaseException:
                await asyncio.shield(self._db.rollback())
                raise
            else:
                try:
                    await self._db.commit()
                except BaseException:
                    # a COMMIT that fails (disk full, I/O error, busy) may leave the transaction open: the next
                    # commit, of anything, would then store what the caller was told did not happen
                    await asyncio.shield(self._rolled_back())
                    raise
            finally:
                _TRANSACTION_TASK.reset(token)

    async def _rolled_back(self) -> None:
        """Roll back after a failed commit (SQLite may have rolled it back already: then there is nothing to do)."""
        try:
            await self._db.rollback()
        except sqlite3.Error:
            pass

    async def __aenter__(self) -> Database:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ---------------------------------------------------------------- migrations
    async def migrate(self, directory: Path = MIGRATIONS_DIR) -> list[int]:
        """Apply the numbered SQL files not applied yet, in order; record each. Returns the versions applied."""
        db = self._db
        await db.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
        )
        await db.commit()
        async with db.execute("SELECT version FROM schema_migrations") as cur:
            done = {r[0] for r in await cur.fetchall()}
        applied = []
        for version, name, path in migration_files(directory):
            if version in done:
                continue
            script = path.read_text()
            try:
                await db.executescript(
                    "BEGIN;\n" + script + "\nINSERT INTO schema_migrations(version, name, applied_at) "
                    f"VALUES ({version}, '{name}', {time.time()});\nCOMMIT;"
                )
            except sqlite3.Error as exc:
                await db.rollback()
                raise MigrationFailed(f"migration {path.name} failed: {exc}; the database is unchanged") from exc
            applied.append(version)
        return applied

    async def schema_version(self) -> int:
        async with self._db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") as cur:
            return (await cur.fetchone())[0]

    async def applied_migrations(self) -> list[tuple[int, str]]:
        async with self._db.execute("SELECT version, name FROM schema_migrations ORDER BY version") as cur:
            return [(r[0], r[1]) for r in await cur.fetchall()]

    @property
    def _db(self) -> aiosqlite.Connection:
        if self.conn is None:
            raise RuntimeError("database not open")
        return self.conn

    # ---------------------------------------------------------------- games
    async def create_game(self, *, title: str, seed: int, created_by: int, guild_id: int | None = None,
                          channel_id: int | None = None, thread_id: int | None = None,
                          optional_rules: list[str] | None = None, settings: dict[str, Any] | None = None,
                          status: str = "lobby", language: str = "en") -> GameRow:
        now = time.time()
        async with self.transaction():
            cur = await self._db.execute(
                "INSERT INTO games(title, status, seed, optional_rules, settings, guild_id, channel_id, thread_id,"
                " created_by, created_at, updated_at, language) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (title, status, seed, json.dumps(optional_rules or []), json.dumps(settings or {}), guild_id,
                 channel_id, thread_id, created_by, now, now, language),
            )
            game_id = cur.lastrowid
            await self._db.execute("INSERT INTO reminders(game_id) VALUES (?)", (game_id,))
            row = await self.get_game(game_id)
        assert row is not None
        return row

    async def get_game(self, game_id: int) -> GameRow | None:
        async with self._db.execute("SELECT * FROM games WHERE id = ?", (game_id,)) as cur:
            r = await cur.fetchone()
        return GameRow.from_row(r) if r else None

    async def game_by_thread(self, thread_id: int) -> GameRow | None:
        async with self._db.execute("SELECT * FROM games WHERE thread_id = ?", (thread_id,)) as cur:
            r = await cur.fetchone()
        return GameRow.from_row(r) if r else None

    async def list_games(self, *, guild_id: int | None = None, statuses: tuple[str, ...] = ("lobby", "active"),
                         member_id: int | None = None, any_guild: bool = False) -> list[GameRow]:
        """Games of one server (`guild_id`; None: the console's games), or of every server with any_guild."""
        sql = "SELECT * FROM games WHERE status IN ({})".format(",".join("?" * len(statuses)))
        args: list[Any] = list(statuses)
        if not any_guild:
            sql += " AND guild_id IS ?"
            args.append(guild_id)
        if member_id is not None:
            sql += " AND id IN (SELECT game_id FROM seats WHERE member_id = ?)"
            args.append(member_id)
        sql += " ORDER BY id"
        async with self._db.execute(sql, args) as cur:
            return [GameRow.from_row(r) for r in await cur.fetchall()]

    async def games_untold(self) -> list[int]:
        """Games with a thread that has not been told of their latest actions or undos (see `told_moment`)."""
        async with self._db.execute(
            "SELECT g.id FROM games g WHERE g.status IN ('active', 'finished') AND g.thread_id IS NOT NULL"
            " AND g.told_moment IS NOT NULL AND g.told_moment <"
            " (SELECT COUNT(*) FROM actions a WHERE a.game_id = g.id)"
            " + 2 * (SELECT COALESCE(SUM(u.steps), 0) FROM undo_events u WHERE u.game_id = g.id)"
            " ORDER BY g.id") as cur:
            return [r[0] for r in await cur.fetchall()]

    async def ask_thread(self, game_id: int, parent_id: int, name: str) -> None:
        """A thread named `name` is about to be asked of Discord for the game, in channel `parent_id`."""
        async with self.transaction():
            await self._db.execute("INSERT OR REPLACE INTO threads_asked(game_id, parent_id, name, asked_at) "
                                   "VALUES (?, ?, ?, ?)", (game_id, parent_id, name, time.time()))

    async def thread_answered(self, game_id: int) -> None:
        """The game's thread asked for is settled: it is the game's, Discord refused it, or it was deleted."""
        async with self.transaction():
            await self._db.execute("DELETE FROM threads_asked WHERE game_id = ?", (game_id,))

    async def threads_asked(self) -> list[tuple[int, int | None, int, str, float]]:
        """(game id, its server, the channel asked in, the thread's name, when it was asked) of each thread asked of
        Discord and not settled (`thread_answered`)."""
        async with self._db.execute("SELECT t.game_id, g.guild_id, t.parent_id, t.name, t.asked_at FROM threads_asked t "
                                    "JOIN games g ON g.id = t.game_id ORDER BY t.game_id") as cur:
            return [(r[0], r[1], r[2], r[3], r[4]) for r in await cur.fetchall()]

    @staticmethod
    def _game_columns(fields: dict[str, Any]) -> dict[str, Any]:
        out = dict(fields)
        for key in ("optional_rules", "settings", "turn_members", "result"):
            if key in out and out[key] is not None:
                out[key] = json.dumps(out[key])
        out["updated_at"] = time.time()
        return out

    async def update_game(self, game_id: int, **fields: Any) -> None:
        if not fields:
            return
        cols = self._game_columns(fields)
        async with self.transaction():
            await self._db.execute(f"UPDATE games SET {', '.join(f'{k} = ?' for k in cols)} WHERE id = ?",
                                   (*cols.values(), game_id))

    # ---------------------------------------------------------------- seats
    async def seats(self, game_id: int) -> list[Seat]:
        async with self._db.execute(
            "SELECT * FROM seats WHERE game_id = ? ORDER BY COALESCE(position, 1000000), joined_at, player_id",
            (game_id,),
        ) as cur:
            return [Seat(r["game_id"], r["player_id"], r["member_id"], r["name"], r["position"], r["joined_at"])
                    for r in await cur.fetchall()]

    async def add_seat(self, game_id: int, player_id: int, member_id: int, name: str,
                       position: int | None = None) -> None:
        async with self.transaction():
            await self._db.execute(
                "INSERT INTO seats(game_id, player_id, member_id, name, position, joined_at) VALUES (?,?,?,?,?,?)",
                (game_id, player_id, member_id, name, position, time.time()),
            )

    async def remove_seat(self, game_id: int, member_id: int) -> None:
        async with self.transaction():
            await self._db.execute("DELETE FROM seats WHERE game_id = ? AND member_id = ?", (game_id, member_id))

    async def set_positions(self, game_id: int, order: list[int]) -> None:
        """order: player ids in seat order."""
        async with self.transaction():
            await self._db.executemany("UPDATE seats SET position = ? WHERE game_id = ? AND player_id = ?",
                                       [(pos, game_id, pid) for pos, pid in enumerate(order)])

    async def replace_member(self, game_id: int, old_member: int, new_member: int, name: str) -> None:
        async with self.transaction():
            await self._db.execute(
                "UPDATE seats SET member_id = ?, name = ? WHERE game_id = ? AND member_id = ?",
                (new_member, name, game_id, old_member))

    # ---------------------------------------------------------------- actions
    async def actions(self, game_id: int) -> list[dict]:
        """The game's log, decoded off the event loop (~15 ms of JSON for 1,700 actions)."""
        async with self._db.execute("SELECT action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)) as cur:
            texts = [r[0] for r in await cur.fetchall()]
        return await asyncio.to_thread(lambda: [json.loads(t) for t in texts])

    async def action_rows(self, game_id: int, limit: int | None = None) -> list[tuple[int, dict, int | None, float]]:
        """(seq, action, member_id, created_at), newest last; with limit: the last `limit` rows."""
        sql = "SELECT seq, action, member_id, created_at FROM actions WHERE game_id = ? ORDER BY seq DESC"
        args: tuple = (game_id,)
        if limit is not None:
            sql += " LIMIT ?"
            args = (game_id, limit)
        async with self._db.execute(sql, args) as cur:
            rows = await cur.fetchall()
        return [(r[0], json.loads(r[1]), r[2], r[3]) for r in reversed(rows)]

    async def action_count(self, game_id: int) -> int:
        async with self._db.execute("SELECT COUNT(*) FROM actions WHERE game_id = ?", (game_id,)) as cur:
            return (await cur.fetchone())[0]

    @staticmethod
    def encoded(actions: list[dict]) -> list[str]:
        """Actions as the log stores them (JSON): ~190 ms for 20,000 actions, so called off the event loop."""
        return [json.dumps(a, separators=(",", ":")) for a in actions]

    @staticmethod
    def _action_row(game_id: int, seq: int, action: dict, member_id: int | None, now: float,
                    text: str | None = None) -> tuple:
        return (game_id, seq, text if text is not None else Database.encoded([action])[0], action.get("id"),
                member_id, now)

    _INSERT_ACTION = "INSERT INTO actions(game_id, seq, action, action_id, member_id, created_at) VALUES (?,?,?,?,?,?)"

    async def append_action(self, game_id: int, action: dict, member_id: int | None, seq: int,
                            game_fields: dict[str, Any] | None = None) -> int:
        """Store one applied action as number `seq` of the log (with optional game-row changes). `seq` is
        where the game in memory puts it: if the stored log holds another number of actions (someone else
        wrote to it), nothing is stored and LogConflict is raised."""
        now = time.time()
        async with self.transaction():
            if seq != await self.action_count(game_id) + 1:
                raise LogConflict(f"game {game_id}: the stored log does not end at action {seq - 1}")
            await self._db.execute(self._INSERT_ACTION, self._action_row(game_id, seq, action, member_id, now))
            await self.update_game(game_id, **{**(game_fields or {}), "last_action_at": now})
            await self.delete_undo_request(game_id)  # the log moved on
            await self.delete_trade_offer(game_id)
        return seq

    async def replace_actions(self, game_id: int, actions: list[dict], member_id: int | None = None,
                              encoded: list[str] | None = None) -> None:
        """The game's whole log (an import). `encoded`: the actions as `encoded` gives them, if the caller
        encoded them already (off the event loop, before its transaction); else they are encoded here, off it."""
        now = time.time()

        def stored() -> list[tuple]:
            texts = encoded if encoded is not None else self.encoded(actions)
            return [self._action_row(game_id, i + 1, a, member_id, now, t)
                    for i, (a, t) in enumerate(zip(actions, texts, strict=True))]

        rows = await asyncio.to_thread(stored)
        async with self.transaction():
            await self._db.execute("DELETE FROM actions WHERE game_id = ?", (game_id,))
            await self._db.executemany(self._INSERT_ACTION, rows)

    async def truncate_actions(self, game_id: int, keep: int, game_fields: dict[str, Any] | None = None) -> None:
        """Drop every action after the first `keep` ones (undo), with optional game-row changes."""
        async with self.transaction():
            await self._db.execute("DELETE FROM actions WHERE game_id = ? AND seq > ?", (game_id, keep))
            await self.delete_undo_request(game_id)
            await self.delete_trade_offer(game_id)
            if game_fields:
                await self.update_game(game_id, **game_fields)

    # ---------------------------------------------------------------- undo votes
    async def undo_request(self, game_id: int) -> UndoRequest | None:
        async with self._db.execute("SELECT * FROM undo_votes WHERE game_id = ?", (game_id,)) as cur:
            r = await cur.fetchone()
        if r is None:
            return None
        return UndoRequest(r["game_id"], r["requester"], r["steps"], r["at_count"], set(json.loads(r["agreed"])),
                           r["message_id"], r["token"] or 0, bool(r["posted"]), r["created_at"])

    async def save_undo_request(self, req: UndoRequest) -> None:
        """Open (replacing any open one) or update the game's undo vote."""
        req.stored_at = req.stored_at or time.time()
        async with self.transaction():
            await self._db.execute(
                "INSERT OR REPLACE INTO undo_votes(game_id, requester, steps, at_count, agreed, message_id,"
                " token, posted, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                (req.game_id, req.requester, req.steps, req.at_count, json.dumps(sorted(req.agreed)),
                 req.message_id, req.token, int(req.posted), req.stored_at),
            )

    async def last_ping(self, game_id: int, player_id: int, ballot: str) -> float | None:
        """When the seat's last undo request or trade offer (`ballot`: its table) that pinged was stored."""
        async with self._db.execute("SELECT pinged_at FROM ballot_pings WHERE game_id = ? AND player_id = ? AND "
                                    "ballot = ?", (game_id, player_id, ballot)) as cur:
            row = await cur.fetchone()
        return row[0] if row else None

    async def note_ping(self, game_id: int, player_id: int, ballot: str, at: float) -> None:
        async with self.transaction():
            await self._db.execute("INSERT OR REPLACE INTO ballot_pings(game_id, player_id, ballot, pinged_at) "
                                   "VALUES (?,?,?,?)", (game_id, player_id, ballot, at))

    async def delete_undo_request(self, game_id: int) -> None:
        async with self.transaction():
            await self._db.execute("DELETE FROM undo_votes WHERE game_id = ?", (game_id,))

    # ---------------------------------------------------------------- trade offers
    async def trade_offer(self, game_id: int) -> TradeOffer | None:
        async with self._db.execute("SELECT * FROM trade_offers WHERE game_id = ?", (game_id,)) as cur:
            r = await cur.fetchone()
        if r is None:
            return None
        return TradeOffer(r["game_id"], r["buyer"], r["seller"], json.loads(r["action"]), r["at_count"],
                          r["message_id"], r["token"] or 0, bool(r["posted"]), r["created_at"])

    async def save_trade_offer(self, offer: TradeOffer) -> None:
        """Open (replacing any open one) or update the game's trade offer."""
        offer.stored_at = offer.stored_at or time.time()
        async with self.transaction():
            await self._db.execute(
                "INSERT OR REPLACE INTO trade_offers(game_id, buyer, seller, action, at_count, message_id, token,"
                " posted, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                (offer.game_id, offer.buyer, offer.seller, json.dumps(offer.action), offer.at_count,
                 offer.message_id, offer.token, int(offer.posted), offer.stored_at))

    async def delete_trade_offer(self, game_id: int) -> None:
        async with self.transaction():
            await self._db.execute("DELETE FROM trade_offers WHERE game_id = ?", (game_id,))

    # ---------------------------------------------------------------- an undo vote or trade offer being posted
    BALLOTS = ("undo_votes", "trade_offers")

    async def settle_ballot(self, table: str, game_id: int, token: int, message_id: int | None) -> bool:
        """The undo vote or trade offer `token` (`table`) is posted, as message `message_id`: False if it is no
        longer the game's open one (closed or replaced while its post was on its way)."""
        assert table in self.BALLOTS
        async with self.transaction():
            cur = await self._db.execute(f"UPDATE {table} SET posted = 1, message_id = ? WHERE game_id = ? AND token = ?",
                                         (message_id, game_id, token))
            return cur.rowcount > 0

    async def ballot_posted_as(self, table: str, game_id: int, token: int, message_id: int, button: str) -> None:
        """The undo vote or trade offer `token` (first button `button`), not yet confirmed as posted, is out as
        message `message_id`: kept as soon as Discord answers, so a restart before its confirmation finds that
        message (`settle_ballot`), and so does its closing if it was closed meanwhile."""
        assert table in self.BALLOTS
        async with self.transaction():
            await self._db.execute(f"UPDATE {table} SET message_id = ? WHERE game_id = ? AND token = ? AND posted = 0",
                                   (message_id, game_id, token))
            await self._db.execute("UPDATE OR IGNORE ballots_closing SET message_id = ? WHERE button = ? AND "
                                   "message_id IS NULL", (message_id, button))

    async def unposted_ballots(self) -> list[tuple[str, int]]:
        """(table, game id) of each undo vote and trade offer stored but not known to be posted."""
        out = []
        for table in self.BALLOTS:
            async with self._db.execute(f"SELECT game_id FROM {table} WHERE posted = 0 ORDER BY game_id") as cur:
                out += [(table, r["game_id"]) for r in await cur.fetchall()]
        return out

    async def withdraw_ballot(self, table: str, game_id: int, token: int) -> bool:
        """The undo vote or trade offer `token`, not posted, is dropped (its post was refused): False if it is no
        longer there."""
        assert table in self.BALLOTS
        async with self.transaction():
            cur = await self._db.execute(f"DELETE FROM {table} WHERE game_id = ? AND token = ? AND posted = 0",
                                         (game_id, token))
            return cur.rowcount > 0

    async def close_ballot(self, table: str, game_id: int, closing: list[Closing]) -> None:
        """The game's undo vote or trade offer (`table`) answered and closed; its message's edit to its closed form
        (message id, text) is owed until `ballots_closed`."""
        assert table in self.BALLOTS
        async with self.transaction():
            await self._db.execute(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
            await self.owe_closings(closing)

    async def owe_closings(self, closing: list[Closing]) -> None:
        """Ballot messages to edit to their closed form, owed until `ballots_closed`: stored with whatever closed
        them (an answer, an action, an undo, the abort, a ballot replacing them)."""
        if not closing:
            return
        async with self.transaction():
            await self._db.executemany(
                "INSERT OR REPLACE INTO ballots_closing(message_id, game_id, text, button, since) VALUES (?,?,?,?,?)",
                [(c.message_id, c.game_id, c.text, c.button if c.message_id is None else None, c.since)
                 for c in closing])

    async def ballots_closing(self, game_id: int | None = None) -> list[Closing]:
        """Each closed ballot's edit (of one game, or of all) not known to be out, the oldest first."""
        async with self._db.execute("SELECT * FROM ballots_closing WHERE ? IS NULL OR game_id = ? ORDER BY id",
                                    (game_id, game_id)) as cur:
            return [Closing(r["game_id"], r["text"], r["message_id"], r["button"], r["since"])
                    for r in await cur.fetchall()]

    async def ballots_closed(self, message_ids: list[int], buttons: list[str] = ()) -> None:
        """These messages (or those not known yet, by their first button) are closed: no edit is owed for them."""
        async with self.transaction():
            await self._db.executemany("DELETE FROM ballots_closing WHERE message_id = ?", [(m,) for m in message_ids])
            await self._db.executemany("DELETE FROM ballots_closing WHERE button = ?", [(b,) for b in buttons])

    async def powers_post(self, game_id: int) -> tuple[int, dict] | None:
        """The game's latest post with the out-of-turn button: (message id, its words and buttons as posted)."""
        async with self._db.execute("SELECT message_id, post FROM powers_posts WHERE game_id = ?", (game_id,)) as cur:
            r = await cur.fetchone()
        return (r["message_id"], json.loads(r["post"])) if r else None

    async def set_powers_post(self, game_id: int, message_id: int | None, post: dict | None = None) -> None:
        """Keep the game's latest post with the out-of-turn button (None: it has none now)."""
        async with self.transaction():
            if message_id is None:
                await self._db.execute("DELETE FROM powers_posts WHERE game_id = ?", (game_id,))
            else:
                await self._db.execute("INSERT OR REPLACE INTO powers_posts(game_id, message_id, post) VALUES (?, ?, ?)",
                                       (game_id, message_id, json.dumps(post)))

    # ---------------------------------------------------------------- previews waiting for a Confirm
    async def save_preview(self, shown: PendingPreview, keep: int) -> None:
        """Keep a preview, replacing the member's other one in that game; beyond `keep` previews over all
        games, the oldest are dropped."""
        async with self.transaction():
            await self._db.execute("DELETE FROM previews WHERE game_id = ? AND member_id = ?",
                                   (shown.game_id, shown.member_id))
            await self._db.execute(
                "INSERT OR REPLACE INTO previews(token, game_id, member_id, player_id, at_count, action, command,"
                " last_action, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                (shown.token, shown.game_id, shown.member_id, shown.player_id, shown.at_count,
                 json.dumps(shown.action), shown.command, json.dumps(shown.last), time.time()))
            await self._db.execute(
                "DELETE FROM previews WHERE token NOT IN (SELECT token FROM previews ORDER BY created_at DESC,"
                " rowid DESC LIMIT ?)", (keep,))

    async def preview(self, token: int) -> PendingPreview | None:
        async with self._db.execute("SELECT * FROM previews WHERE token = ?", (token,)) as cur:
            r = await cur.fetchone()
        if r is None:
            return None
        return PendingPreview(r["token"], r["game_id"], r["member_id"], r["player_id"], r["at_count"],
                              json.loads(r["action"]), r["command"], json.loads(r["last_action"]), r["answered"])

    async def take_preview(self, token: int, how: str) -> bool:
        """Close a preview, kept as answered `how` (so a second press of its buttons is known for one); False
        if it was already answered."""
        async with self.transaction():
            cur = await self._db.execute("UPDATE previews SET answered = ? WHERE token = ? AND answered IS NULL",
                                         (how, token))
            return cur.rowcount > 0

    async def close_preview(self, token: int) -> None:
        """A preview confirmed too late or refused after all: kept as answered `closed`."""
        async with self.transaction():
            await self._db.execute("UPDATE previews SET answered = 'closed' WHERE token = ?", (token,))

    # ---------------------------------------------------------------- undo events
    async def add_undo_event(self, ev: UndoEvent) -> None:
        async with self.transaction():
            await self._db.execute(
                "INSERT INTO undo_events(game_id, kept, requester, steps, takers, agreed, told, created_at, version)"
                " VALUES (?,?,?,?,?,?,?,?,?)",
                (ev.game_id, ev.kept, ev.requester, ev.steps, json.dumps(ev.takers), json.dumps(ev.agreed), ev.told,
                 ev.created_at or time.time(), ev.version))

    async def undo_events(self, game_id: int) -> list[UndoEvent]:
        """The game's undos, oldest first."""
        async with self._db.execute("SELECT * FROM undo_events WHERE game_id = ? ORDER BY id", (game_id,)) as cur:
            return [UndoEvent(r["game_id"], r["kept"], r["requester"], r["steps"], json.loads(r["takers"]),
                              json.loads(r["agreed"]), r["told"], r["created_at"], r["version"])
                    for r in await cur.fetchall()]

    # ---------------------------------------------------------------- reminders
    @staticmethod
    def _reminder(r: aiosqlite.Row) -> Reminder:
        return Reminder(r["game_id"], bool(r["enabled"]), r["first_after"], r["every"], r["next_at"],
                        r["last_sent_at"])

    async def reminder(self, game_id: int) -> Reminder:
        async with self._db.execute("SELECT * FROM reminders WHERE game_id = ?", (game_id,)) as cur:
            r = await cur.fetchone()
        if r is None:
            async with self.transaction():
                await self._db.execute("INSERT OR IGNORE INTO reminders(game_id) VALUES (?)", (game_id,))
            return await self.reminder(game_id)
        return self._reminder(r)

    async def set_reminder(self, game_id: int, **fields: Any) -> None:
        await self.reminder(game_id)
        cols = ", ".join(f"{k} = ?" for k in fields)
        async with self.transaction():
            await self._db.execute(f"UPDATE reminders SET {cols} WHERE game_id = ?", (*fields.values(), game_id))

    async def due_reminders(self, now: float) -> list[Reminder]:
        async with self._db.execute(
            "SELECT r.* FROM reminders r JOIN games g ON g.id = r.game_id"
            " WHERE r.enabled = 1 AND r.next_at IS NOT NULL AND r.next_at <= ? AND g.status = 'active'"
            " ORDER BY r.next_at",
            (now,),
        ) as cur:
            rows = await cur.fetchall()
        return [self._reminder(r) for r in rows]

    # ---------------------------------------------------------------- DM opt-ins
    async def set_dm_optin(self, member_id: int, enabled: bool) -> None:
        async with self.transaction():
            await self._db.execute(
                "INSERT INTO dm_optins(member_id, enabled, updated_at) VALUES (?,?,?)"
                " ON CONFLICT(member_id) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at",
                (member_id, int(enabled), time.time()),
            )

    async def set_member_language(self, member_id: int, language: str) -> None:
        async with self.transaction():
            await self._db.execute(
                "INSERT INTO member_languages(member_id, language, updated_at) VALUES (?,?,?)"
                " ON CONFLICT(member_id) DO UPDATE SET language = excluded.language, updated_at = excluded.updated_at",
                (member_id, language, time.time()),
            )

    async def member_language(self, member_id: int) -> str | None:
        """The language of the member's Discord client when last seen (None: never seen)."""
        async with self._db.execute("SELECT language FROM member_languages WHERE member_id = ?",
                                    (member_id,)) as cur:
            r = await cur.fetchone()
        return r[0] if r else None

    async def dm_optin(self, member_id: int) -> bool:
        async with self._db.execute("SELECT enabled FROM dm_optins WHERE member_id = ?", (member_id,)) as cur:
            r = await cur.fetchone()
        return bool(r and r[0])
