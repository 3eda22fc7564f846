"""What the bot does, independent of Discord: lobby, seats, actions, undo, reminders, import/export.

The Discord cogs and the local console both call this. Each game has an asyncio.Lock so its commands run
one at a time; engine calls and rendering run in worker threads. An action is committed to SQLite before
anything is published about it.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bot import actions as acts
from bot.db import Database, GameRow, Seat, UndoRequest
from bot.describe import describe, entity_name, next_hint
from bot.engine_adapter import Engine, GameLike
from bot.errors import UserError

MAX_PLAYERS = {"1830": 6}
MIN_PLAYERS = {"1830": 2}
DEFAULT_FIRST_REMINDER = 12 * 3600.0
DEFAULT_REMINDER_EVERY = 24 * 3600.0


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
        return next((s for s in self.seats if s.member_id == member_id), None)

    def member_of_player(self, player_id: Any) -> int | None:
        try:
            pid = int(player_id)
        except (TypeError, ValueError):
            return None
        return next((s.member_id for s in self.seats if s.player_id == pid), None)


Publish = Callable[[Reply], Awaitable[Any]]


class Service:
    def __init__(self, db: Database, engine: Engine | Any | None = None, *, pictures: bool = True):
        self.db = db
        self.engine = engine or Engine()
        self.pictures = pictures
        self._live: dict[int, Live] = {}
        self._locks: dict[int, asyncio.Lock] = {}

    # ------------------------------------------------------------------ helpers
    def lock(self, game_id: int) -> asyncio.Lock:
        lk = self._locks.get(game_id)
        if lk is None:
            lk = self._locks[game_id] = asyncio.Lock()
        return lk

    async def resolve(self, *, thread_id: int | None = None, game_id: int | None = None) -> GameRow:
        if game_id is not None:
            row = await self.db.get_game(int(game_id))
            if row is None:
                raise UserError(f"There is no game #{game_id}.")
            return row
        if thread_id is not None:
            row = await self.db.game_by_thread(thread_id)
            if row is not None:
                return row
        raise UserError("Use this in a game's thread, or give the game number.")

    async def live(self, game_id: int, *, reload: bool = False) -> Live:
        lv = self._live.get(game_id)
        if lv is not None and not reload:
            return lv
        row = await self.db.get_game(game_id)
        if row is None:
            raise UserError(f"There is no game #{game_id}.")
        seats = await self.db.seats(game_id)
        game = None
        if row.status in ("active", "finished"):
            log = await self.db.actions(game_id)
            players = self._players(seats)
            game = await asyncio.to_thread(self.engine.replay, row.title, players, row.seed, row.optional_rules, log)
        lv = Live(row, seats, game)
        self._live[game_id] = lv
        return lv

    async def resume_all(self) -> list[int]:
        """Replay every active game (at start-up). Returns their ids."""
        ids = []
        for row in await self.db.list_games(statuses=("active",)):
            await self.live(row.id, reload=True)
            ids.append(row.id)
        return ids

    @staticmethod
    def _players(seats: list[Seat]) -> list[dict]:
        ordered = sorted(seats, key=lambda s: (s.position if s.position is not None else 1 << 30, s.joined_at))
        return [{"id": s.player_id, "name": s.name} for s in ordered]

    async def _refresh(self, game_id: int) -> Live:
        lv = self._live.get(game_id)
        row = await self.db.get_game(game_id)
        seats = await self.db.seats(game_id)
        if lv is None:
            return await self.live(game_id)
        lv.row, lv.seats = row, seats  # type: ignore[assignment]
        return lv

    def _is_host(self, lv: Live, member_id: int, is_admin: bool) -> bool:
        return is_admin or lv.row.created_by == member_id

    async def legal(self, lv: Live) -> list[dict]:
        assert lv.game is not None
        n = len(lv.game.actions)
        if lv.legal_cache and lv.legal_cache[0] == n:
            return lv.legal_cache[1]
        legal = await asyncio.to_thread(lv.game.legal_actions)
        lv.legal_cache = (n, legal)
        return legal

    # ------------------------------------------------------------------ lobby
    async def new_game(self, *, title: str, creator_id: int, creator_name: str, guild_id: int | None = None,
                       channel_id: int | None = None, thread_id: int | None = None, seed: int | None = None,
                       optional_rules: list[str] | None = None) -> GameRow:
        if title not in self.engine.titles:
            raise UserError(f"Unknown title `{title}`. Available: {', '.join(self.engine.titles)}.")
        seed = seed if seed is not None else random.SystemRandom().randrange(1, 2**31 - 1)
        row = await self.db.create_game(title=title, seed=seed, created_by=creator_id, guild_id=guild_id,
                                        channel_id=channel_id, thread_id=thread_id, optional_rules=optional_rules)
        await self.db.add_seat(row.id, 1, creator_id, creator_name)
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
        return Reply(text, game_id, lv.row.thread_id, buttons=["join", "leave", "start"],
                     edit=lv.row.lobby_message_id)

    def _lobby_closed(self, lv: Live, text: str) -> list[Reply]:
        """Edit the lobby message: its buttons go once the game started or was aborted."""
        if lv.row.lobby_message_id is None:
            return []
        return [Reply(text, lv.row.id, lv.row.thread_id, edit=lv.row.lobby_message_id)]

    async def _lobby_seat(self, game_id: int, member_id: int, *, by: int | None = None,
                          is_admin: bool = False) -> Seat:
        """Checks for taking `member_id`'s seat away in the lobby (by themself, or by the host when `by`)."""
        lv = await self._refresh(game_id)
        if by is not None and not self._is_host(lv, by, is_admin):
            raise UserError("Only the host can kick players.")
        seat = lv.seat_of_member(member_id)
        if seat is None:
            raise UserError("You are not in this game." if by is None else "That member is not in this game.")
        if lv.row.status != "lobby":
            raise UserError("The game has started: " + ("ask the host to `/game replace` you." if by is None
                                                         else "use `/game replace` to give the seat to someone else."))
        await self.db.remove_seat(game_id, member_id)
        return seat

    async def join(self, game_id: int, member_id: int, name: str) -> Reply:
        async with self.lock(game_id):
            lv = await self._refresh(game_id)
            if lv.row.status != "lobby":
                raise UserError("This game has already started.")
            if lv.seat_of_member(member_id):
                raise UserError("You are already in this game.")
            if len(lv.seats) >= MAX_PLAYERS.get(lv.row.title, 6):
                raise UserError("This game is full.")
            pid = max((s.player_id for s in lv.seats), default=0) + 1
            await self.db.add_seat(game_id, pid, member_id, name)
            return await self.lobby_reply(game_id, f"{name} joins.")

    async def leave(self, game_id: int, member_id: int) -> Reply:
        async with self.lock(game_id):
            seat = await self._lobby_seat(game_id, member_id)
            return await self.lobby_reply(game_id, f"{seat.name} leaves.")

    async def kick(self, game_id: int, by: int, member_id: int, *, is_admin: bool = False) -> Reply:
        async with self.lock(game_id):
            seat = await self._lobby_seat(game_id, member_id, by=by, is_admin=is_admin)
            return await self.lobby_reply(game_id, f"{seat.name} was removed.")

    async def replace(self, game_id: int, by: int, old_member: int, new_member: int, new_name: str, *,
                      is_admin: bool = False) -> Reply:
        async with self.lock(game_id):
            lv = await self._refresh(game_id)
            if not (self._is_host(lv, by, is_admin) or by == old_member):
                raise UserError("Only the host (or the player themself) can hand a seat over.")
            seat = lv.seat_of_member(old_member)
            if seat is None:
                raise UserError("That member has no seat in this game.")
            if lv.seat_of_member(new_member):
                raise UserError("The new member already has a seat in this game.")
            await self.db.replace_member(game_id, old_member, new_member, new_name)
            await self._refresh(game_id)
            return Reply(f"{new_name} takes over {seat.name}'s seat.", game_id, lv.row.thread_id)

    async def start(self, game_id: int, by: int, *, is_admin: bool = False) -> Reply:
        async with self.lock(game_id):
            lv = await self._refresh(game_id)
            if lv.row.status != "lobby":
                raise UserError("This game has already started.")
            if not self._is_host(lv, by, is_admin):
                raise UserError("Only the host can start the game.")
            if len(lv.seats) < MIN_PLAYERS.get(lv.row.title, 2):
                raise UserError(f"{lv.row.title} needs at least {MIN_PLAYERS.get(lv.row.title, 2)} players.")
            order = [s.player_id for s in sorted(lv.seats, key=lambda s: s.player_id)]
            random.Random(lv.row.seed).shuffle(order)
            await self.db.set_positions(game_id, order)
            lv = await self._refresh(game_id)
            players = self._players(lv.seats)
            game = await asyncio.to_thread(self.engine.create, lv.row.title, players, lv.row.seed,
                                           lv.row.optional_rules)
            lv.game = game
            turn = self._turn_members(lv)
            await self.db.update_game(game_id, status="active", turn_members=turn, last_action_at=time.time())
            await self._schedule_reminder(game_id)
            lv = await self._refresh(game_id)
            seating = ", ".join(f"{i + 1}. {p['name']}" for i, p in enumerate(players))
            reply = Reply(f"**{lv.row.title}** game #{game_id} starts. Seats: {seating}.", game_id, lv.row.thread_id)
            await self._finish_reply(lv, reply, None, game.summary(), set(), turn, kinds={"map", "companies"})
            reply.also = self._lobby_closed(lv, f"**{lv.row.title}** game #{game_id} — started. Seats: {seating}.")
            return reply

    async def abort(self, game_id: int, by: int, *, is_admin: bool = False) -> Reply:
        async with self.lock(game_id):
            lv = await self._refresh(game_id)
            if not self._is_host(lv, by, is_admin):
                raise UserError("Only the host can abort the game.")
            if lv.row.status in ("finished", "aborted"):
                raise UserError("This game is already over.")
            was_lobby = lv.row.status == "lobby"
            await self.db.update_game(game_id, status="aborted")
            await self.db.set_reminder(game_id, next_at=None)
            await self._refresh(game_id)
            reply = Reply(f"Game #{game_id} was aborted.", game_id, lv.row.thread_id)
            if was_lobby:
                reply.also = self._lobby_closed(lv, f"**{lv.row.title}** game #{game_id} — aborted in the lobby.")
            return reply

    async def list_games(self, guild_id: int | None = None, member_id: int | None = None) -> Reply:
        rows = await self.db.list_games(guild_id=guild_id, member_id=member_id)
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
        if g.acting_entity().get("entity_type") == "corporation":
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
    async def act(self, game_id: int, member_id: int, kind: str, options: dict[str, Any],
                  publish: Publish | None = None) -> Reply:
        """Apply one action for `member_id`. The reply is published (under the game's lock) after the
        action is committed. Raises UserError (nothing changed) when it cannot be done."""
        async with self.lock(game_id):
            lv = await self.live(game_id)
            if lv.row.status != "active" or lv.game is None:
                raise UserError("This game is not running." if lv.row.status != "lobby"
                                else "This game has not started yet.")
            seat = lv.seat_of_member(member_id)
            if seat is None:
                raise UserError("You have no seat in this game.")
            game = lv.game
            acting = game.acting_entity()
            legal = await self.legal(lv) if acts.needs_legal(kind, options) else None
            action = acts.build(kind, options, acting, legal)
            active = [int(p) for p in game.active_players()]
            standing_order = kind == "auto"  # a member sets their own standing orders at any time
            if seat.player_id not in active and not standing_order and not self._owns(lv, seat.player_id, action):
                waiting = ", ".join(lv.names.get(p, str(p)) for p in active) or "nobody"
                raise UserError(f"It is not your turn: waiting for {waiting}.")
            if action.get("entity_type") == "player":
                action["entity"] = seat.player_id
            before = game.summary()
            cheapest_before = self._turn_info(game).get("cheapest")
            try:
                stored = await asyncio.to_thread(game.apply, action)
            except Exception as exc:
                if self.engine.is_game_error(exc):
                    raise UserError(f"Not allowed: {exc}") from None
                raise
            after = game.summary()
            turn = self._turn_members(lv)
            fields: dict[str, Any] = {"turn_members": turn}
            if game.finished:
                fields.update(status="finished", result=game.result(), end_reason=game.end_reason)
            vote = await self.db.undo_request(game_id)  # an open undo vote ends with this action
            try:
                await self.db.append_action(game_id, stored, member_id, fields)
            except BaseException:
                await asyncio.to_thread(game.undo)
                raise
            previous = set(lv.row.turn_members)
            lv.row.turn_members = turn
            if game.finished:
                lv.row.status = "finished"
                await self.db.set_reminder(game_id, next_at=None)
            else:
                await self._schedule_reminder(game_id)
            text = describe(stored, before, after, lv.names, self._facts(lv, stored, cheapest_before)) + "."
            reply = Reply(text, game_id, lv.row.thread_id)
            await self._finish_reply(lv, reply, stored, after, previous, turn,
                                     self._picture_kinds(stored, before, after))
            reply.also = self._vote_closed(lv, vote, "the game went on")
            await self._publish(publish, reply)
            return reply

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
        owner = (lv.game.summary().get("companies") or {}).get(action.get("entity"))
        if owner == player_id:
            return True
        corp = (lv.game.summary().get("corporations") or {}).get(owner) if isinstance(owner, str) else None
        return bool(corp and corp.get("pres") == player_id)

    async def autocomplete(self, game_id: int, kind: str, option: str, current: str,
                           filled: dict[str, Any]) -> list[tuple[str, Any]]:
        lv = await self.live(game_id)
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
    async def undo(self, game_id: int, member_id: int, steps: int = 1, publish: Publish | None = None
                   ) -> Reply | UndoRequest:
        """Undo the caller's own last actions at once; further back opens a vote (stored in SQLite, so it
        survives a restart), published with Agree/Refuse buttons. Returns the undo reply or the request."""
        async with self.lock(game_id):
            lv = await self.live(game_id)
            if lv.row.status not in ("active", "finished") or lv.game is None:
                raise UserError("This game is not running.")
            if lv.seat_of_member(member_id) is None:
                raise UserError("You have no seat in this game.")
            steps = max(1, int(steps))
            count = await self.db.action_count(game_id)
            if steps > count:
                raise UserError(f"There are only {count} actions to undo.")
            rows = await self.db.action_rows(game_id, limit=steps)
            previous = await self.db.undo_request(game_id)
            if all(m == member_id for _, _, m, _ in rows):
                reply = await self._do_undo(lv, steps, member_id)
                reply.also = self._vote_closed(lv, previous, "replaced by an undo")
                await self._publish(publish, reply)
                return reply
            # unclaimed seats of an imported game (member id <= 0) cannot vote
            others = {s.member_id for s in lv.seats if s.member_id != member_id and s.member_id > 0}
            req = UndoRequest(game_id, member_id, steps, count, others, {member_id})
            mentions = sorted(others)
            who = lv.seat_of_member(member_id).name  # type: ignore[union-attr]
            reply = Reply(f"{who} asks to undo the last {steps} action(s): {self._labels(rows)}. "
                          f"Everyone must agree: {' '.join(f'<@{m}>' for m in mentions)}",
                          game_id, lv.row.thread_id, mention=mentions,
                          buttons=[f"undo_yes:{count}", f"undo_no:{count}"],
                          also=self._vote_closed(lv, previous, "replaced by a new request"))
            msg = await self._publish(publish, reply)
            req.message_id = getattr(msg, "id", None)
            await self.db.save_undo_request(req)
            return req

    @staticmethod
    async def _publish(publish: Publish | None, reply: Reply) -> Any:
        return await publish(reply) if publish is not None else None

    @staticmethod
    def _vote_closed(lv: Live, req: UndoRequest | None, why: str) -> list[Reply]:
        """Edit a vote message that is no longer open: its buttons go."""
        if req is None or req.message_id is None:
            return []
        return [Reply(f"Undo vote on {req.steps} action(s) closed: {why}.", lv.row.id, lv.row.thread_id,
                      edit=req.message_id)]

    @staticmethod
    def _labels(rows: list[tuple[int, dict, int | None, float]]) -> str:
        return "; ".join(acts.label(a) if a.get("type") != "pass" else "pass" for _, a, _, _ in rows)

    async def vote_undo(self, game_id: int, member_id: int, agree: bool, at_count: int,
                        publish: Publish | None = None) -> Reply:
        async with self.lock(game_id):
            lv = await self.live(game_id)
            req = await self.db.undo_request(game_id)
            count = await self.db.action_count(game_id)
            if req is None or req.at_count != at_count or count != at_count:
                raise UserError("This undo request is no longer open.")
            if member_id not in req.needed and member_id != req.requester:
                raise UserError("Only the players of this game vote on undo.")
            seat = lv.seat_of_member(member_id)
            name = seat.name if seat else str(member_id)
            if not agree:
                await self.db.delete_undo_request(game_id)
                reply = Reply(f"{name} refused to undo. The game goes on.", game_id, lv.row.thread_id,
                              also=self._vote_closed(lv, req, f"{name} refused"))
            else:
                req.agreed.add(member_id)
                missing = req.needed - req.agreed
                if missing:
                    await self.db.save_undo_request(req)
                    waiting = ", ".join(lv.seat_of_member(m).name for m in missing if lv.seat_of_member(m))
                    reply = Reply(f"{name} agrees to undo {req.steps} action(s); waiting for {waiting}.",
                                  game_id, lv.row.thread_id)
                else:
                    reply = await self._do_undo(lv, req.steps, req.requester)
                    reply.also = self._vote_closed(lv, req, "everyone agreed")
            await self._publish(publish, reply)
            return reply

    async def _do_undo(self, lv: Live, steps: int, member_id: int) -> Reply:
        game_id = lv.row.id
        rows = await self.db.action_rows(game_id, limit=steps)
        before = lv.game.summary() if lv.game else {}
        count = await self.db.action_count(game_id)
        await self.db.truncate_actions(game_id, count - steps)
        lv2 = await self.live(game_id, reload=True)
        turn = self._turn_members(lv2)
        await self.db.update_game(game_id, status="active", turn_members=turn, result=None, end_reason=None)
        lv2.row.status = "active"
        previous = set(lv.row.turn_members)
        lv2.row.turn_members = turn
        await self._schedule_reminder(game_id)
        seat = lv2.seat_of_member(member_id)
        what = self._labels(rows)
        reply = Reply(f"{seat.name if seat else member_id} undid {steps} action(s): {what}.", game_id,
                      lv2.row.thread_id)
        after = lv2.game.summary() if lv2.game else {}
        kinds = self._picture_kinds(None, before, after) | {"map"}
        await self._finish_reply(lv2, reply, None, after, previous, turn, kinds)
        return reply

    # ------------------------------------------------------------------ read-only
    async def status(self, game_id: int, pictures: tuple[str, ...] = ("map", "market", "companies")) -> Reply:
        lv = await self.live(game_id)
        if lv.game is None:
            return Reply(await self.lobby_text(game_id), game_id, lv.row.thread_id)
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
        reply = Reply("\n".join(lines), game_id, lv.row.thread_id)
        reply.pictures = await asyncio.to_thread(self._render, lv, set(pictures), None, f"game{game_id}-status")
        return reply

    async def history(self, game_id: int, n: int = 10) -> Reply:
        lv = await self.live(game_id)
        rows = await self.db.action_rows(game_id, limit=max(1, min(int(n), 50)))
        if not rows:
            return Reply("No actions yet.", game_id, lv.row.thread_id)
        names = lv.names
        lines = []
        for seq, a, _, _ in rows:
            who = entity_name(a.get("entity"), a.get("entity_type"), names)
            lines.append(f"{seq}. {who}: {a.get('type')} {acts.label(a) if a.get('type') != 'pass' else ''}".rstrip())
        return Reply("\n".join(lines), game_id, lv.row.thread_id)

    async def export(self, game_id: int) -> tuple[str, bytes]:
        lv = await self.live(game_id)
        if lv.game is not None:
            log = await asyncio.to_thread(lv.game.to_18xx)
        else:
            log = self.engine.log_dict(lv.row.title, self._players(lv.seats), lv.row.seed, lv.row.optional_rules,
                                       [], game_id)
        log = dict(log)
        log.setdefault("id", game_id)
        return f"roundhouse-{lv.row.title}-{game_id}.json", json.dumps(log, indent=1).encode()

    # ------------------------------------------------------------------ import
    async def import_game(self, log: dict, *, creator_id: int, mapping: dict[int, tuple[int, str]],
                          guild_id: int | None = None, channel_id: int | None = None,
                          thread_id: int | None = None) -> tuple[GameRow, Reply]:
        """Create an active game from an 18xx.games log. mapping: log player id -> (member id, name)."""
        title = str(log.get("title", ""))
        if title not in self.engine.titles:
            raise UserError(f"Cannot import a `{title}` game.")
        players = log.get("players") or []
        if not players:
            raise UserError("The log has no players.")
        seed = (log.get("settings") or {}).get("seed")
        if seed is None:
            import re
            m = re.search(r"\d+", str(log.get("id", "")))
            seed = int(m.group(0)) if m else 0
        rules = list((log.get("settings") or {}).get("optional_rules") or [])
        try:
            game = await asyncio.to_thread(self.engine.load, log)
        except Exception as exc:
            if self.engine.is_game_error(exc):
                raise UserError(f"The log does not replay: {exc}") from None
            raise
        members = [mapping.get(int(p["id"]), (None, p.get("name")))[0] for p in players]
        if len({m for m in members if m is not None}) != len([m for m in members if m is not None]):
            raise UserError("A member can only take one seat.")
        row = await self.db.create_game(title=title, seed=int(seed), created_by=creator_id, guild_id=guild_id,
                                        channel_id=channel_id, thread_id=thread_id, optional_rules=rules,
                                        status="active")
        for pos, p in enumerate(players):
            member, name = mapping.get(int(p["id"]), (None, None))
            if member is None:
                member = -(row.id * 100 + pos + 1)   # unclaimed seat: `/game replace` gives it to someone
            await self.db.add_seat(row.id, int(p["id"]), member, name or p.get("name") or f"Player {pos + 1}", pos)
        await self.db.replace_actions(row.id, list(game.actions))
        lv = await self.live(row.id, reload=True)
        turn = self._turn_members(lv)
        fields: dict[str, Any] = {"turn_members": turn, "last_action_at": time.time()}
        if lv.game is not None and lv.game.finished:
            fields.update(status="finished", result=lv.game.result(), end_reason=lv.game.end_reason)
        await self.db.update_game(row.id, **fields)
        await self._schedule_reminder(row.id)
        lv = await self._refresh(row.id)
        reply = Reply(f"Imported a {title} game with {len(game.actions)} actions as game #{row.id}.", row.id,
                      lv.row.thread_id)
        s = lv.game.summary() if lv.game else {}
        await self._finish_reply(lv, reply, None, s, set(), turn, {"map", "market", "companies"})
        return lv.row, reply

    # ------------------------------------------------------------------ reminders & DMs
    async def set_remind(self, game_id: int, hours: float | None, every: float | None = None) -> Reply:
        lv = await self.live(game_id)
        if hours is None or hours <= 0:
            await self.db.set_reminder(game_id, enabled=0, next_at=None)
            return Reply("Reminders are off for this game.", game_id, lv.row.thread_id)
        every_s = float(every) * 3600 if every and every > 0 else DEFAULT_REMINDER_EVERY
        await self.db.set_reminder(game_id, enabled=1, first_after=float(hours) * 3600, every=every_s)
        await self._schedule_reminder(game_id)
        return Reply(f"Reminders after {hours:g} h of idle time, then every {every_s / 3600:g} h.", game_id,
                     lv.row.thread_id)

    async def set_notify(self, member_id: int, on: bool) -> Reply:
        await self.db.set_dm_optin(member_id, on)
        return Reply("I will DM you when it is your turn." if on else "No more DMs about your turns.")

    async def due_reminders(self, now: float | None = None) -> list[Reply]:
        now = time.time() if now is None else now
        out = []
        for rem in await self.db.due_reminders(now):
            async with self.lock(rem.game_id):
                lv = await self.live(rem.game_id)
                turn = self._turn_members(lv)
                await self.db.set_reminder(rem.game_id, next_at=now + rem.every, last_sent_at=now)
                if not turn or lv.game is None:
                    continue
                idle = now - (lv.row.last_action_at or now)
                text = f"Reminder ({idle / 3600:.0f} h idle). " + self.turn_text(lv, mention=True)
                out.append(Reply(text, rem.game_id, lv.row.thread_id, mention=[m for m in turn if m > 0],
                                 dm=[m for m in turn if await self.db.dm_optin(m)]))
        return out
