"""What the bot does, independent of Discord: lobby, seats, actions, undo, reminders, import/export.

The Discord cogs and the local console both call this, naming the caller (`bot.access.Caller`): every
game command is scoped to the caller's server and judged by `bot.access`. Each game has an asyncio.Lock
so its commands (reads included) run one at a time; engine calls and rendering run in worker threads.
An action is committed to SQLite before anything is published about it, and the game in memory is only
trusted while it matches the stored log: whatever goes wrong between applying an action and storing it,
the game in memory is dropped and rebuilt from the log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pydantic

from bot import access
from bot import actions as acts
from bot.access import Caller
from bot.db import Database, GameRow, LogConflict, Seat, UndoRequest
from bot.describe import describe, entity_name, next_hint
from bot.engine_adapter import Engine, GameLike
from bot.errors import UserError, clip, quote

log = logging.getLogger(__name__)

MAX_PLAYERS = {"1830": 6}
MIN_PLAYERS = {"1830": 2}
DEFAULT_FIRST_REMINDER = 12 * 3600.0
DEFAULT_REMINDER_EVERY = 24 * 3600.0
MIN_REMINDER_HOURS = 1.0
MAX_REMINDER_HOURS = 24 * 30.0
MAX_UNDO_STEPS = 500
NAME_LIMIT = 40
# an imported log: a long real 1830 game is ~2,000 actions and well under 2 MB
MAX_IMPORT_BYTES = 12 * 1024 * 1024
MAX_IMPORT_ACTIONS = 20_000

ENGINE_FAILED = ("The rules engine failed on this action, so nothing was stored: the game is as it was "
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


@dataclass
class Live:
    row: GameRow
    seats: list[Seat]
    game: GameLike | None
    legal_cache: tuple[int, list[dict]] | None = None

    @property
    def names(self) -> dict[int, str]:
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
        return Reply(text, self.row.id, self.row.thread_id, guild_id=self.row.guild_id, **kw)


class LogPlayer(pydantic.BaseModel):
    id: int
    name: str = ""


class ImportedLog(pydantic.BaseModel):
    """The parts of an 18xx.games game log the bot reads; the engine checks the actions themselves."""

    model_config = pydantic.ConfigDict(extra="allow")
    title: str
    players: list[LogPlayer] = pydantic.Field(min_length=1)
    actions: list[dict[str, Any]] = pydantic.Field(default_factory=list)
    settings: dict[str, Any] | None = None


Publish = Callable[[Reply], Awaitable[Any]]


def _short(name: str) -> str:
    name = " ".join(str(name).split())
    return name[:NAME_LIMIT] or "?"


class Service:
    def __init__(self, db: Database, engine: Engine | Any | None = None, *, pictures: bool = True):
        self.db = db
        self.engine = engine or Engine()
        self.pictures = pictures
        self._live: dict[int, Live] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self.broken: dict[int, str] = {}   # game id -> why its stored log could not be replayed
        self._importing = asyncio.Semaphore(1)  # imports are the heaviest work: one at a time

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
            return access.check_scope(caller, await self.db.get_game(int(game_id)), game_id)
        if thread_id is not None:
            row = await self.db.game_by_thread(thread_id)
            if row is not None and access.in_scope(caller, row):
                return row
        raise UserError("Use this in a game's thread, or give the game number.")

    async def live(self, game_id: int, *, reload: bool = False) -> Live:
        """The game in memory, built from its stored log when needed (no scope check: internal use)."""
        lv = self._live.get(game_id)
        if lv is not None and not reload:
            return lv
        row = await self.db.get_game(game_id)
        if row is None:
            raise UserError(f"There is no game #{game_id}.")
        if game_id in self.broken and not reload:
            raise UserError(f"Game #{game_id} cannot be loaded ({self.broken[game_id]}); its log is kept as it "
                            "was. The bot's operator has been told.")
        seats = await self.db.seats(game_id)
        game = None
        if row.status in ("active", "finished"):
            stored = await self.db.actions(game_id)
            try:
                game = await asyncio.to_thread(self.engine.replay, row.title, self._players(seats), row.seed,
                                               row.optional_rules, stored, game_id)
            except Exception as exc:
                self._live.pop(game_id, None)
                self.broken[game_id] = clip(str(exc) or type(exc).__name__, 200)
                log.exception("game %s: its stored log (%d actions) does not replay", game_id, len(stored))
                raise UserError(f"Game #{game_id} cannot be loaded ({self.broken[game_id]}); its log is kept as "
                                "it was. The bot's operator has been told.") from None
        self.broken.pop(game_id, None)
        lv = Live(row, seats, game)
        self._live[game_id] = lv
        return lv

    def _forget(self, game_id: int) -> None:
        """Drop the game in memory: it may no longer match the stored log. The next command rebuilds it."""
        self._live.pop(game_id, None)

    async def _scoped(self, caller: Caller, game_id: int, *, fresh: bool = False) -> Live:
        """The game in memory, if the caller's server owns it (fresh: its row and seats read again)."""
        access.check_scope(caller, await self.db.get_game(int(game_id)), game_id)
        lv = await self.live(int(game_id))
        return await self._refresh(int(game_id)) if fresh else lv

    async def resume_all(self) -> tuple[list[int], dict[int, str]]:
        """Replay every active game (at start-up). A game whose log does not replay is reported (logged,
        and its commands say so) while the others resume. Returns (resumed ids, {broken id: why})."""
        resumed, broken = [], {}
        for row in await self.db.list_games(statuses=("active",), any_guild=True):
            try:
                await self.live(row.id, reload=True)
                resumed.append(row.id)
            except UserError:
                broken[row.id] = self.broken.get(row.id, "?")
        for game_id, why in broken.items():
            log.error("game %s was not resumed: %s", game_id, why)
        return resumed, broken

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
        return lv

    async def legal(self, lv: Live) -> list[dict]:
        assert lv.game is not None
        n = len(lv.game.actions)
        if lv.legal_cache and lv.legal_cache[0] == n:
            return lv.legal_cache[1]
        legal = await asyncio.to_thread(lv.game.legal_actions)
        lv.legal_cache = (n, legal)
        return legal

    # ------------------------------------------------------------------ lobby
    async def new_game(self, caller: Caller, *, title: str, channel_id: int | None = None,
                       thread_id: int | None = None, seed: int | None = None,
                       optional_rules: list[str] | None = None) -> GameRow:
        if title not in self.engine.titles:
            raise UserError(f"Unknown title {quote(title)}. Available: {', '.join(self.engine.titles)}.")
        seed = seed if seed is not None else random.SystemRandom().randrange(1, 2**31 - 1)
        async with self.db.transaction():
            row = await self.db.create_game(title=title, seed=seed, created_by=caller.member_id,
                                            guild_id=caller.guild_id, channel_id=channel_id, thread_id=thread_id,
                                            optional_rules=optional_rules)
            await self.db.add_seat(row.id, 1, caller.member_id, _short(caller.name))
        await self.live(row.id, reload=True)
        return row

    async def set_thread(self, game_id: int, thread_id: int, lobby_message_id: int | None = None) -> None:
        fields: dict[str, Any] = {"thread_id": thread_id}
        if lobby_message_id is not None:
            fields["lobby_message_id"] = lobby_message_id
        await self.db.update_game(game_id, **fields)
        await self._refresh(game_id)

    async def lobby_text(self, game_id: int) -> str:
        lv = await self._refresh(game_id)
        names = ", ".join(s.name for s in lv.seats) or "nobody yet"
        mx = MAX_PLAYERS.get(lv.row.title, 6)
        return (f"**{lv.row.title}** game #{lv.row.id} — lobby ({len(lv.seats)}/{mx}): {names}.\n"
                f"Press **Join** or use `/game join`; the host starts with `/game start`.")

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

    async def _leave_lobby(self, lv: Live, member_id: int) -> tuple[Seat, str]:
        """Take `member_id`'s seat away in the lobby. The host role passes to the next player; a lobby
        left empty is closed. Returns the seat and what happened to the host role ("" if nothing)."""
        seat = lv.seat_of_member(member_id)
        if seat is None:
            raise UserError("That member is not in this game.")
        if lv.row.status != "lobby":
            raise UserError("The game has started: the host can `/game replace` a player.")
        note = ""
        async with self.db.transaction():
            await self.db.remove_seat(lv.row.id, member_id)
            if lv.row.created_by == member_id:
                heir = access.next_host(lv.seats, member_id)
                if heir is not None:
                    await self.db.update_game(lv.row.id, created_by=heir.member_id)
                    note = f" {heir.name} is now the host."
                else:
                    await self.db.update_game(lv.row.id, status="aborted")
                    note = " The lobby is empty and closed."
        return seat, note

    async def join(self, game_id: int, caller: Caller) -> Reply:
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id, fresh=True)
            if lv.row.status != "lobby":
                raise UserError("This game has already started.")
            if lv.seat_of_member(caller.member_id):
                raise UserError("You are already in this game.")
            if len(lv.seats) >= MAX_PLAYERS.get(lv.row.title, 6):
                raise UserError("This game is full.")
            pid = max((s.player_id for s in lv.seats), default=0) + 1
            await self.db.add_seat(game_id, pid, caller.member_id, _short(caller.name))
            return await self.lobby_reply(game_id, f"{_short(caller.name)} joins.")

    async def leave(self, game_id: int, caller: Caller) -> Reply:
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id, fresh=True)
            if lv.seat_of_member(caller.member_id) is None:
                raise UserError("You are not in this game.")
            seat, note = await self._leave_lobby(lv, caller.member_id)
            return await self._lobby_changed(game_id, f"{seat.name} leaves.{note}")

    async def kick(self, game_id: int, caller: Caller, member_id: int) -> Reply:
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id, fresh=True)
            access.require_host(caller, lv.row, lv.seats, "kick players")
            seat, note = await self._leave_lobby(lv, member_id)
            return await self._lobby_changed(game_id, f"{seat.name} was removed.{note}")

    async def _lobby_changed(self, game_id: int, note: str) -> Reply:
        lv = await self._refresh(game_id)
        if lv.row.status == "aborted":
            return lv.reply(f"Game #{game_id} was closed: nobody is left in its lobby.",
                            also=self._lobby_closed(lv, f"**{lv.row.title}** game #{game_id} — closed: {note}"))
        return await self.lobby_reply(game_id, note)

    async def replace(self, game_id: int, caller: Caller, old_member: int, new_member: int,
                      new_name: str) -> Reply:
        """Hand a seat to another member (the host, a moderator, or the holder themself). An open undo
        vote stays with the seat: the new holder casts it. The host's seat carries the host role."""
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id, fresh=True)
            if not (access.is_host(caller, lv.row, lv.seats) or caller.member_id == old_member):
                raise UserError("Only the host (or the player themself) can hand a seat over.")
            seat = lv.seat_of_member(old_member)
            if seat is None:
                raise UserError("That member has no seat in this game.")
            return await self._hand_over(lv, seat, new_member, new_name)

    async def claim(self, game_id: int, caller: Caller, seat_number: int) -> Reply:
        """Take an unclaimed seat of an imported game (seats in the log's order, 1 = first player)."""
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id, fresh=True)
            ordered = sorted(lv.seats, key=lambda s: (s.position if s.position is not None else 1 << 30,
                                                      s.player_id))
            if not 1 <= seat_number <= len(ordered) or ordered[seat_number - 1].member_id > 0:
                raise UserError("That seat is not free.")
            return await self._hand_over(lv, ordered[seat_number - 1], caller.member_id, caller.name)

    async def _hand_over(self, lv: Live, seat: Seat, new_member: int, new_name: str) -> Reply:
        if lv.seat_of_member(new_member):
            raise UserError("The new member already has a seat in this game.")
        new_name = _short(new_name)
        async with self.db.transaction():
            await self.db.replace_member(lv.row.id, seat.member_id, new_member, new_name)
            if lv.row.created_by == seat.member_id:
                await self.db.update_game(lv.row.id, created_by=new_member)
            if seat.member_id in lv.row.turn_members:  # the new holder is the one told it is their turn
                await self.db.update_game(lv.row.id, turn_members=[new_member if m == seat.member_id else m
                                                                   for m in lv.row.turn_members])
        lv = await self._refresh(lv.row.id)
        return lv.reply(f"{new_name} takes over {seat.name}'s seat.")

    async def start(self, game_id: int, caller: Caller) -> Reply:
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id, fresh=True)
            if lv.row.status != "lobby":
                raise UserError("This game has already started.")
            access.require_host(caller, lv.row, lv.seats, "start the game")
            if len(lv.seats) < MIN_PLAYERS.get(lv.row.title, 2):
                raise UserError(f"{lv.row.title} needs at least {MIN_PLAYERS.get(lv.row.title, 2)} players.")
            order = [s.player_id for s in sorted(lv.seats, key=lambda s: s.player_id)]
            random.Random(lv.row.seed).shuffle(order)
            position = {pid: i for i, pid in enumerate(order)}
            seats = sorted(lv.seats, key=lambda s: position[s.player_id])
            players = [{"id": s.player_id, "name": s.name} for s in seats]
            game = await asyncio.to_thread(self.engine.create, lv.row.title, players, lv.row.seed,
                                           lv.row.optional_rules, game_id)
            lv.game = game
            lv.seats = [Seat(s.game_id, s.player_id, s.member_id, s.name, position[s.player_id], s.joined_at)
                        for s in seats]
            turn = self._turn_members(lv)
            async with self.db.transaction():
                await self.db.set_positions(game_id, order)
                await self.db.update_game(game_id, status="active", turn_members=turn, last_action_at=time.time())
                await self._schedule_reminder(game_id)
            lv = await self._refresh(game_id)
            seating = ", ".join(f"{i + 1}. {p['name']}" for i, p in enumerate(players))
            reply = lv.reply(f"**{lv.row.title}** game #{game_id} starts. Seats: {seating}.")
            await self._finish_reply(lv, reply, None, game.summary(), set(), turn, kinds={"map", "companies"})
            reply.also = self._lobby_closed(lv, f"**{lv.row.title}** game #{game_id} — started. Seats: {seating}.")
            return reply

    async def abort(self, game_id: int, caller: Caller) -> Reply:
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id, fresh=True)
            access.require_host(caller, lv.row, lv.seats, "abort the game")
            if lv.row.status in ("finished", "aborted"):
                raise UserError("This game is already over.")
            was_lobby = lv.row.status == "lobby"
            async with self.db.transaction():
                await self.db.update_game(game_id, status="aborted")
                await self.db.set_reminder(game_id, next_at=None)
            await self._refresh(game_id)
            reply = lv.reply(f"Game #{game_id} was aborted.")
            if was_lobby:
                reply.also = self._lobby_closed(lv, f"**{lv.row.title}** game #{game_id} — aborted in the lobby.")
            return reply

    async def list_games(self, caller: Caller, mine: bool = False) -> Reply:
        rows = await self.db.list_games(guild_id=caller.guild_id, member_id=caller.member_id if mine else None)
        if not rows:
            return Reply("No open games.")
        lines = []
        for r in rows:
            seats = await self.db.seats(r.id)
            where = f" in <#{r.thread_id}>" if r.thread_id else ""
            lines.append(f"#{r.id} {r.title} — {r.status}{where}: {', '.join(s.name for s in seats)}")
        return Reply("\n".join(lines))

    # ------------------------------------------------------------------ turn
    def _turn_members(self, lv: Live) -> list[int]:
        if lv.game is None or lv.game.finished:
            return []
        out = []
        for pid in lv.game.active_players():
            m = lv.member_of_player(pid)
            if m is not None and m not in out:
                out.append(m)
        return out

    def turn_text(self, lv: Live, mention: bool) -> str:
        g = lv.game
        if g is None:
            return ""
        if g.finished:
            res = g.result()
            ranking = sorted(res.items(), key=lambda kv: -kv[1])
            names = lv.names
            score = ", ".join(f"{entity_name(int(k), 'player', names)} ${v}" for k, v in ranking)
            return f"**Game over**{f' ({g.end_reason})' if g.end_reason else ''}: {score}."
        acting = g.acting_entity() or {}
        whom = []
        for pid in g.active_players():
            m = lv.member_of_player(pid)
            name = lv.names.get(int(pid), str(pid))
            whom.append(f"<@{m}>" if (mention and m is not None and m > 0) else f"**{name}**")
        corp = str(acting.get("entity")) if acting.get("entity_type") not in (None, "player") else None
        what = f" for {corp}" if corp else ""
        turn_info = getattr(self.engine, "turn_info", None)
        hint = next_hint(turn_info(g), lv.names, corp) if turn_info else ""
        return f"Next: {', '.join(whom)}{what}" + (f" — {hint}." if hint else ".")

    def _buttons(self, lv: Live, last: dict | None) -> list[str]:
        g = lv.game
        if g is None or g.finished:
            return []
        if last and last.get("type") == "run_routes":
            return ["payout", "withhold"]
        if (g.acting_entity() or {}).get("entity_type") == "corporation":
            return ["run_best", "pass"]
        return ["pass"]

    async def _schedule_reminder(self, game_id: int) -> None:
        rem = await self.db.reminder(game_id)
        await self.db.set_reminder(game_id, next_at=(time.time() + rem.first_after) if rem.enabled else None)

    # ------------------------------------------------------------------ pictures
    @staticmethod
    def _picture_kinds(action: dict | None, before: dict, after: dict) -> set[str]:
        kinds: set[str] = set()
        t = (action or {}).get("type")
        if t in ("lay_tile", "place_token", "run_routes"):
            kinds.add("map")
        bc, ac = before.get("corporations") or {}, after.get("corporations") or {}
        for sym, c in ac.items():
            b = bc.get(sym) or {}
            if c.get("price") != b.get("price") or c.get("par") != b.get("par"):
                kinds.add("market")
            if c.get("trains") != b.get("trains") or c.get("companies") != b.get("companies") or \
                    c.get("ipo") != b.get("ipo") or c.get("pool") != b.get("pool"):
                kinds.add("companies")
        if (before.get("companies") or {}) != (after.get("companies") or {}) or \
                before.get("closed_companies") != after.get("closed_companies"):
            kinds.add("companies")
        if t in ("bid", "buy_company", "bankrupt"):
            kinds.add("companies")
        if t in ("par", "sell_shares", "dividend"):
            kinds.add("market")
        if after.get("finished"):
            kinds |= {"market", "companies"}
        return kinds

    def _render(self, lv: Live, kinds: set[str], ran: str | None, stem: str) -> list[Picture]:
        if not self.pictures or lv.game is None:
            return []
        out = []
        if "map" in kinds:
            data = self.engine.draw_map(lv.game, ran=ran)
            if data:
                out.append(Picture(f"{stem}-map.png", data))
        if "market" in kinds:
            data = self.engine.draw_market(lv.game, lv.row.title)
            if data:
                out.append(Picture(f"{stem}-market.png", data))
        if "companies" in kinds:
            data = self.engine.draw_companies(lv.game, lv.row.title)
            if data:
                out.append(Picture(f"{stem}-companies.png", data))
        return out

    async def _finish_reply(self, lv: Live, reply: Reply, action: dict | None, after: dict,
                            previous_turn: set[int], turn: list[int], kinds: set[str]) -> None:
        changed = set(turn) != previous_turn
        reply.mention = [m for m in turn if m > 0] if changed else []
        reply.text = f"{reply.text}\n{self.turn_text(lv, mention=changed)}".strip()
        ran = str(action["entity"]) if action and action.get("type") == "run_routes" else None
        stem = f"game{lv.row.id}-{len(lv.game.actions) if lv.game else 0}"
        reply.pictures = await asyncio.to_thread(self._render, lv, kinds, ran, stem)
        reply.buttons = self._buttons(lv, action)
        if changed and turn:
            reply.dm = [m for m in turn if await self.db.dm_optin(m)]

    # ------------------------------------------------------------------ actions
    async def act(self, game_id: int, caller: Caller, kind: str, options: dict[str, Any],
                  publish: Publish | None = None) -> Reply:
        """Apply one action for the caller. The reply is published (under the game's lock) after the
        action is committed. Raises UserError (nothing changed) when it cannot be done."""
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            if lv.row.status != "active" or lv.game is None:
                raise UserError("This game is not running." if lv.row.status != "lobby"
                                else "This game has not started yet.")
            seat = lv.seat_of_member(caller.member_id)
            if seat is None:
                raise UserError("You have no seat in this game.")
            game = lv.game
            # whose turn first: a member out of turn hears that, not why the move would be illegal for them
            standing_order = kind == "auto"  # a member sets their own standing orders at any time
            out_of_turn = seat.player_id not in [int(p) for p in game.active_players()] and not standing_order
            if out_of_turn and not options.get("using"):
                raise UserError(self._not_your_turn(lv))
            legal = await self.legal(lv) if acts.needs_legal(kind, options) else None
            corporations = set(game.summary().get("corporations") or {}) if standing_order else None
            action = acts.build(kind, options, game.acting_entity() or {}, legal, corporations)
            if out_of_turn and not self._owns(lv, seat.player_id, action):
                raise UserError(self._not_your_turn(lv))
            if action.get("entity_type") == "player":
                action["entity"] = seat.player_id
            return await self._apply(lv, caller, action, publish)

    def _not_your_turn(self, lv: Live) -> str:
        active = [int(p) for p in lv.game.active_players()] if lv.game else []
        waiting = ", ".join(lv.names.get(p, str(p)) for p in active) or "nobody"
        return f"It is not your turn: waiting for {waiting}."

    async def _apply(self, lv: Live, caller: Caller, action: dict, publish: Publish | None) -> Reply:
        """Apply, store, then describe. Until the action is stored, any failure drops the game in memory
        (the engine may have changed it half-way) and nothing is reported as done."""
        game_id, game = lv.row.id, lv.game
        assert game is not None
        before = game.summary()
        cheapest_before = self._turn_info(game).get("cheapest")
        seq = len(game.actions) + 1
        try:
            stored = await asyncio.to_thread(game.apply, action)
        except Exception as exc:
            if self.engine.is_game_error(exc):  # refused: the engine left the game as it was
                raise UserError(f"Not allowed: {clip(str(exc))}") from None
            self._forget(game_id)
            log.exception("game %s: the engine failed on %s", game_id, clip(json.dumps(action), 300))
            raise UserError(ENGINE_FAILED) from None
        except BaseException:  # cancelled while the engine ran
            self._forget(game_id)
            raise
        try:
            after = game.summary()
            turn = self._turn_members(lv)
            fields: dict[str, Any] = {"turn_members": turn}
            if game.finished:
                fields.update(status="finished", result=game.result(), end_reason=game.end_reason)
            vote = await self.db.undo_request(game_id)  # an open undo vote ends with this action
            async with self.db.transaction():
                await self.db.append_action(game_id, stored, caller.member_id, seq, fields)
                if game.finished:
                    await self.db.set_reminder(game_id, next_at=None)
                else:
                    await self._schedule_reminder(game_id)
        except LogConflict:
            self._forget(game_id)
            log.error("game %s: the stored log moved on under the game in memory; rebuilt", game_id)
            raise UserError("The game changed while your command ran, so nothing was stored. "
                            "Look at the game again and retry.") from None
        except Exception:
            self._forget(game_id)
            log.exception("game %s: the action could not be stored", game_id)
            raise UserError("Your action could not be stored, so it did not happen. Please retry.") from None
        except BaseException:
            self._forget(game_id)
            raise
        log.info("game %s: action %s (%s) by member %s stored as #%s", game_id, stored.get("id"),
                 stored.get("type"), caller.member_id, seq)
        previous = set(lv.row.turn_members)
        lv.row.turn_members = turn
        if game.finished:
            lv.row.status = "finished"
        reply = lv.reply(self._describe(lv, stored, before, after, cheapest_before) + ".")
        await self._finish_reply(lv, reply, stored, after, previous, turn, self._picture_kinds(stored, before, after))
        reply.also = self._vote_closed(lv, vote, "the game went on")
        await self._publish(publish, reply)
        return reply

    def _describe(self, lv: Live, action: dict, before: dict, after: dict, cheapest_before: Any) -> str:
        """The sentence for a stored action; a plain one if describing fails (the action happened)."""
        try:
            return describe(action, before, after, lv.names, self._facts(lv, action, cheapest_before))
        except Exception:
            log.exception("game %s: describing %s failed", lv.row.id, action.get("type"))
            who = entity_name(action.get("entity"), action.get("entity_type"), lv.names)
            return f"{who}: {action.get('type')} {acts.label(action)}".rstrip()

    def _turn_info(self, game: GameLike) -> dict:
        fn = getattr(self.engine, "turn_info", None)
        return fn(game) if fn else {}

    def _facts(self, lv: Live, action: dict, cheapest_before: Any) -> dict:
        """What describe() needs beyond the summaries: place names, phases, a laid tile's exits, the revenue
        a dividend is for, the auction's cheapest private before and after."""
        game = lv.game
        if game is None:
            return {}
        facts_fn = getattr(self.engine, "map_facts", None)
        facts: dict[str, Any] = dict(facts_fn(game)) if facts_fn else {}
        t = action.get("type")
        if t == "lay_tile" and hasattr(self.engine, "tile_exits"):
            facts["exits"] = self.engine.tile_exits(game, str(action.get("tile")), int(action.get("rotation") or 0))
        if t == "dividend":
            for a in reversed(game.actions[:-1]):
                if a.get("type") == "run_routes" and a.get("entity") == action.get("entity"):
                    facts["revenue"] = acts.route_revenue(a.get("routes") or [])
                    break
        if t == "pass":
            facts["cheapest_before"] = cheapest_before
            facts["cheapest_after"] = self._turn_info(game).get("cheapest")
        return facts

    def _owns(self, lv: Live, player_id: int, action: dict) -> bool:
        """A private company's ability may be used by its owner out of turn (the engine still checks)."""
        if action.get("entity_type") != "company" or lv.game is None:
            return False
        summary = lv.game.summary()
        owner = (summary.get("companies") or {}).get(action.get("entity"))
        if owner == player_id:
            return True
        corp = (summary.get("corporations") or {}).get(owner) if isinstance(owner, str) else None
        return bool(corp and corp.get("pres") == player_id)

    async def autocomplete(self, game_id: int, caller: Caller, kind: str, option: str, current: str,
                           filled: dict[str, Any]) -> list[tuple[str, Any]]:
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            if lv.game is None or lv.game.finished:
                return []
            legal = await self.legal(lv)
            return acts.autocomplete(kind, option, current, filled, legal, self._choice_facts(lv))

    def _choice_facts(self, lv: Live) -> dict:
        """Place names, tile directions and the auction's cheapest private for autocomplete labels."""
        game = lv.game
        facts_fn = getattr(self.engine, "map_facts", None)
        facts: dict[str, Any] = dict(facts_fn(game)) if facts_fn and game is not None else {}
        if game is not None and hasattr(self.engine, "tile_exits"):
            facts["exits"] = lambda tile, rotation: self.engine.tile_exits(game, tile, rotation)
        if game is not None and hasattr(self.engine, "city_hex"):
            facts["city_hex"] = lambda city: self.engine.city_hex(game, city)
        if game is not None:
            facts["cheapest"] = self._turn_info(game).get("cheapest")
        return facts

    # ------------------------------------------------------------------ undo
    async def undo(self, game_id: int, caller: Caller, steps: Any = 1, publish: Publish | None = None
                   ) -> Reply | UndoRequest:
        """Undo the caller's own last actions at once; further back opens a vote (stored in SQLite, so it
        survives a restart), published with Agree/Refuse buttons. Returns the undo reply or the request."""
        try:
            steps = int(steps)
        except (TypeError, ValueError):
            raise UserError(f"steps must be a number, not {quote(steps)}.") from None
        if not 1 <= steps <= MAX_UNDO_STEPS:
            raise UserError(f"steps: how many actions to take back, from 1 to {MAX_UNDO_STEPS}.")
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            if lv.row.status not in ("active", "finished") or lv.game is None:
                raise UserError("This game is not running.")
            seat = lv.seat_of_member(caller.member_id)
            if seat is None:
                raise UserError("You have no seat in this game.")
            count = await self.db.action_count(game_id)
            if steps > count:
                raise UserError(f"There are only {count} actions to undo.")
            rows = await self.db.action_rows(game_id, limit=steps)
            previous = await self.db.undo_request(game_id)
            if all(m == caller.member_id for _, _, m, _ in rows):
                reply = await self._do_undo(lv, steps, seat.name)
                reply.also = self._vote_closed(lv, previous, "replaced by an undo")
                await self._publish(publish, reply)
                return reply
            req = UndoRequest(game_id, seat.player_id, steps, count, {seat.player_id})
            mentions = [self._member(lv, p) for p in sorted(self._voters(lv, req))]
            reply = lv.reply(f"{seat.name} asks to undo the last {steps} action(s): {self._labels(rows)}. "
                             f"Everyone must agree: {' '.join(f'<@{m}>' for m in mentions)}",
                             mention=mentions, buttons=[f"undo_yes:{count}", f"undo_no:{count}"],
                             also=self._vote_closed(lv, previous, "replaced by a new request"))
            msg = await self._publish(publish, reply)
            req.message_id = getattr(msg, "id", None)
            await self.db.save_undo_request(req)
            return req

    @staticmethod
    def _member(lv: Live, player_id: int) -> int:
        return next(s.member_id for s in lv.seats if s.player_id == player_id)

    @staticmethod
    def _voters(lv: Live, req: UndoRequest) -> set[int]:
        """Seats (player ids) that must agree: every other claimed seat, as held now."""
        return {s.player_id for s in lv.seats if s.player_id != req.requester and s.member_id > 0}

    @staticmethod
    async def _publish(publish: Publish | None, reply: Reply) -> Any:
        return await publish(reply) if publish is not None else None

    @staticmethod
    def _vote_closed(lv: Live, req: UndoRequest | None, why: str) -> list[Reply]:
        """Edit a vote message that is no longer open: its buttons go."""
        if req is None or req.message_id is None:
            return []
        return [lv.reply(f"Undo vote on {req.steps} action(s) closed: {why}.", edit=req.message_id)]

    @staticmethod
    def _labels(rows: list[tuple[int, dict, int | None, float]]) -> str:
        return "; ".join(acts.label(a) if a.get("type") != "pass" else "pass" for _, a, _, _ in rows)

    async def vote_undo(self, game_id: int, caller: Caller, agree: bool, at_count: int,
                        publish: Publish | None = None) -> Reply:
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            req = await self.db.undo_request(game_id)
            count = await self.db.action_count(game_id)
            if req is None or req.at_count != at_count or count != at_count:
                raise UserError("This undo request is no longer open.")
            seat = lv.seat_of_member(caller.member_id)
            voters = self._voters(lv, req)
            if seat is None or (seat.player_id not in voters and seat.player_id != req.requester):
                raise UserError("Only the players of this game vote on undo.")
            if not agree:
                await self.db.delete_undo_request(game_id)
                reply = lv.reply(f"{seat.name} refused to undo. The game goes on.",
                                 also=self._vote_closed(lv, req, f"{seat.name} refused"))
            else:
                req.agreed.add(seat.player_id)
                missing = voters - req.agreed
                if missing:
                    await self.db.save_undo_request(req)
                    waiting = ", ".join(lv.names[p] for p in sorted(missing))
                    reply = lv.reply(f"{seat.name} agrees to undo {req.steps} action(s); waiting for {waiting}.")
                else:
                    requester = lv.names.get(req.requester, str(req.requester))
                    reply = await self._do_undo(lv, req.steps, requester)
                    reply.also = self._vote_closed(lv, req, "everyone agreed")
            await self._publish(publish, reply)
            return reply

    async def _do_undo(self, lv: Live, steps: int, who: str) -> Reply:
        """Take back the last `steps` actions: the shorter game is rebuilt first, then the log, the game row
        and the reminder change in one transaction."""
        game_id = lv.row.id
        rows = await self.db.action_rows(game_id, limit=steps)
        stored = await self.db.actions(game_id)
        keep = len(stored) - steps
        before = lv.game.summary() if lv.game else {}
        game = await asyncio.to_thread(self.engine.replay, lv.row.title, self._players(lv.seats), lv.row.seed,
                                       lv.row.optional_rules, stored[:keep], game_id)
        shorter = Live(lv.row, lv.seats, game)
        turn = self._turn_members(shorter)
        try:
            async with self.db.transaction():
                await self.db.truncate_actions(game_id, keep, {"status": "active", "turn_members": turn,
                                                               "result": None, "end_reason": None})
                await self._schedule_reminder(game_id)
        except BaseException:
            self._forget(game_id)
            raise
        previous = set(lv.row.turn_members)
        lv.game, lv.legal_cache = game, None
        self._live[game_id] = lv
        lv2 = await self._refresh(game_id)
        log.info("game %s: %d action(s) undone, %d kept", game_id, steps, keep)
        reply = lv2.reply(f"{who} undid {steps} action(s): {self._labels(rows)}.")
        after = game.summary()
        kinds = self._picture_kinds(None, before, after) | {"map"}
        await self._finish_reply(lv2, reply, None, after, previous, turn, kinds)
        return reply

    # ------------------------------------------------------------------ read-only
    async def status(self, game_id: int, caller: Caller,
                     pictures: tuple[str, ...] = ("map", "market", "companies")) -> Reply:
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            if lv.game is None:
                return lv.reply(await self.lobby_text(game_id))
            s = lv.game.summary()
            lines = [f"**{lv.row.title}** game #{game_id} — {s.get('round_desc') or s.get('round', '')}, "
                     f"phase {s.get('phase', '?')}, bank ${s.get('bank', '?')}."]
            names = lv.names
            for p in s.get("players", []) or []:
                shares = ", ".join(f"{k} {v}%" for k, v in (p.get("shares") or {}).items())
                priv = ", ".join(p.get("privates") or [])
                extra = "; ".join(x for x in (shares, priv) if x)
                lines.append(f"• {names.get(p.get('id'), p.get('id'))}: ${p.get('cash')}"
                             f"{' — ' + extra if extra else ''}")
            for sym, c in (s.get("corporations") or {}).items():
                if not c.get("ipoed"):
                    continue
                price = c.get("price")
                price = price[0] if isinstance(price, list) else price
                trains = ", ".join(c.get("trains") or []) or "no trains"
                lines.append(f"• {sym}: ${c.get('cash')} — share ${price}, {trains}")
            for sym, bids in ((s.get("auction") or {}).get("bids") or {}).items():
                offers = ", ".join(f"{names.get(pid, pid)} ${price}" for pid, price in bids)
                lines.append(f"• bids on {sym}: {offers}")
            lines.append(self.turn_text(lv, mention=False))
            reply = lv.reply("\n".join(lines))
            reply.pictures = await asyncio.to_thread(self._render, lv, set(pictures), None, f"game{game_id}-status")
            return reply

    async def history(self, game_id: int, caller: Caller, n: Any = 10) -> Reply:
        try:
            n = max(1, min(int(n), 50))
        except (TypeError, ValueError):
            raise UserError(f"count must be a number, not {quote(n)}.") from None
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            rows = await self.db.action_rows(game_id, limit=n)
        if not rows:
            return lv.reply("No actions yet.")
        names = lv.names
        lines = []
        for seq, a, _, _ in rows:
            who = entity_name(a.get("entity"), a.get("entity_type"), names)
            lines.append(f"{seq}. {who}: {a.get('type')} {acts.label(a) if a.get('type') != 'pass' else ''}".rstrip())
        return lv.reply("\n".join(lines))

    async def export(self, game_id: int, caller: Caller) -> tuple[str, bytes]:
        """The game as an 18xx.games log whose `id` is this game's number."""
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            if lv.game is not None:
                exported = await asyncio.to_thread(lv.game.to_18xx)
            else:
                exported = self.engine.log_dict(lv.row.title, self._players(lv.seats), lv.row.seed,
                                                lv.row.optional_rules, [], game_id)
        exported = {**exported, "id": game_id}
        return f"roundhouse-{lv.row.title}-{game_id}.json", json.dumps(exported, indent=1).encode()

    # ------------------------------------------------------------------ import
    @staticmethod
    def check_import_size(size: int) -> None:
        if size > MAX_IMPORT_BYTES:
            raise UserError(f"The log is {size / 2**20:.1f} MB; the limit is {MAX_IMPORT_BYTES // 2**20} MB.")

    def parse_log(self, data: bytes | str | dict) -> tuple[ImportedLog, dict]:
        """An 18xx.games log, checked for size and shape (the engine checks the actions): the parts the
        bot reads, and the whole log."""
        if isinstance(data, (bytes, str)):
            self.check_import_size(len(data))
            try:
                data = json.loads(data)
            except (ValueError, UnicodeDecodeError):
                raise UserError("The file is not JSON: attach the game's log as 18xx.games exports it.") from None
        if not isinstance(data, dict):
            raise UserError("The file is not an 18xx.games game log: it should be one JSON object with "
                            "`title`, `players` and `actions`.")
        try:
            parsed = ImportedLog.model_validate(data)
        except pydantic.ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(x) for x in err["loc"]) or "the log"
            raise UserError(f"The file is not an 18xx.games game log: {quote(where)}: {err['msg']}.") from None
        if parsed.title not in self.engine.titles:
            raise UserError(f"Cannot import a {quote(parsed.title)} game; playable: {', '.join(self.engine.titles)}.")
        if len(parsed.actions) > MAX_IMPORT_ACTIONS:
            raise UserError(f"The log has {len(parsed.actions)} actions; the limit is {MAX_IMPORT_ACTIONS}.")
        ids = [p.id for p in parsed.players]
        if len(set(ids)) != len(ids):
            raise UserError("The log names one player id twice.")
        if len(ids) > MAX_PLAYERS.get(parsed.title, 6):
            raise UserError(f"The log has {len(ids)} players; {parsed.title} is for at most "
                            f"{MAX_PLAYERS.get(parsed.title, 6)}.")
        return parsed, data

    async def import_game(self, caller: Caller, data: bytes | str | dict, members: list[tuple[int, str] | None],
                          *, channel_id: int | None = None, thread_id: int | None = None) -> tuple[GameRow, Reply]:
        """Create a game from an 18xx.games log in the caller's server. `members[i]`: (member id, name) for
        the log's i-th player, or None for a seat to be claimed later. The caller hosts if seated; otherwise
        the first seated member does."""
        parsed, raw = self.parse_log(data)
        taken = [m[0] for m in members if m is not None]
        if len(set(taken)) != len(taken):
            raise UserError("A member can only take one seat.")
        seated = [(p, members[i] if i < len(members) else None) for i, p in enumerate(parsed.players)]
        players = [{"id": p.id, "name": _short(m[1] if m else p.name or f"Player {i + 1}")}
                   for i, (p, m) in enumerate(seated)]
        try:
            async with self._importing:
                game = await asyncio.to_thread(self.engine.load, {**raw, "players": players})
        except Exception as exc:
            if self.engine.is_game_error(exc):
                raise UserError(f"The log does not replay: {clip(str(exc))}") from None
            log.exception("import: the engine failed on a log")
            raise UserError("The rules engine failed on this log; nothing was imported. "
                            "The error was logged for the developers.") from None
        host = caller.member_id if caller.member_id in taken else (taken[0] if taken else caller.member_id)
        turn_names = {p["id"]: p["name"] for p in players}
        async with self.db.transaction():
            row = await self.db.create_game(title=parsed.title, seed=int(getattr(game, "seed", 0)), created_by=host,
                                            guild_id=caller.guild_id, channel_id=channel_id, thread_id=thread_id,
                                            optional_rules=list(getattr(game, "optional_rules", ()) or ()),
                                            status="active")
            for pos, (p, m) in enumerate(seated):
                member = m[0] if m else -(row.id * 100 + pos + 1)  # unclaimed: `/game claim` takes it
                await self.db.add_seat(row.id, p.id, member, turn_names[p.id], pos)
            await self.db.replace_actions(row.id, list(game.actions))
            seats = await self.db.seats(row.id)
            lv = Live(row, seats, game)
            turn = self._turn_members(lv)
            fields: dict[str, Any] = {"turn_members": turn, "last_action_at": time.time()}
            if game.finished:
                fields.update(status="finished", result=game.result(), end_reason=game.end_reason)
            await self.db.update_game(row.id, **fields)
            await self._schedule_reminder(row.id)
        self._live[row.id] = lv
        lv = await self._refresh(row.id)
        log.info("game %s: imported %d actions", row.id, len(game.actions))
        reply = lv.reply(f"Imported a {parsed.title} game with {len(game.actions)} actions as game #{row.id}.")
        await self._finish_reply(lv, reply, None, game.summary(), set(), turn, {"map", "market", "companies"})
        return lv.row, reply

    # ------------------------------------------------------------------ reminders & DMs
    async def set_remind(self, game_id: int, caller: Caller, hours: Any, every: Any = None) -> Reply:
        """Reminder settings: the players and the host only."""
        try:
            hours = float(hours) if hours is not None else 0.0
            every = float(every) if every is not None else None
        except (TypeError, ValueError):
            raise UserError("hours and every are numbers of hours.") from None
        async with self.lock(game_id):
            lv = await self._scoped(caller, game_id)
            access.require_player_or_host(caller, lv.row, lv.seats, "set its reminders")
            if not hours > 0:  # 0, negative or NaN: off
                await self.db.set_reminder(game_id, enabled=0, next_at=None)
                return lv.reply("Reminders are off for this game.")
            for value in (hours, every):
                if value is not None and not MIN_REMINDER_HOURS <= value <= MAX_REMINDER_HOURS:
                    raise UserError(f"Reminders: from {MIN_REMINDER_HOURS:g} to {MAX_REMINDER_HOURS:g} hours.")
            every_s = every * 3600 if every else DEFAULT_REMINDER_EVERY
            async with self.db.transaction():
                await self.db.set_reminder(game_id, enabled=1, first_after=hours * 3600, every=every_s)
                await self._schedule_reminder(game_id)
            return lv.reply(f"Reminders after {hours:g} h of idle time, then every {every_s / 3600:g} h.")

    async def set_notify(self, caller: Caller, on: bool) -> Reply:
        await self.db.set_dm_optin(caller.member_id, on)
        return Reply("I will DM you when it is your turn." if on else "No more DMs about your turns.")

    async def due_reminders(self, now: float | None = None) -> list[Reply]:
        now = time.time() if now is None else now
        out = []
        for rem in await self.db.due_reminders(now):
            async with self.lock(rem.game_id):
                await self.db.set_reminder(rem.game_id, next_at=now + rem.every, last_sent_at=now)
                try:
                    lv = await self.live(rem.game_id)
                except UserError:  # a broken game: reported at start-up
                    continue
                turn = self._turn_members(lv)
                if not turn or lv.game is None:
                    continue
                idle = now - (lv.row.last_action_at or now)
                text = f"Reminder ({idle / 3600:.0f} h idle). " + self.turn_text(lv, mention=True)
                out.append(lv.reply(text, mention=[m for m in turn if m > 0],
                                    dm=[m for m in turn if await self.db.dm_optin(m)]))
        return out
