"""A fake Discord on loopback for driving the real discord.py client in tests.

An aiohttp server on 127.0.0.1 implements the gateway websocket (HELLO, IDENTIFY, READY, GUILD_CREATE,
heartbeats, INTERACTION_CREATE dispatch) and the REST routes the bot calls (login, application info,
command sync, interaction callbacks, webhook followups with multipart attachments, channel messages
posted and edited in place, threads (a server's active ones listed), DMs, CDN downloads). Every request is recorded; tests send
interactions and wait for the bot's final answer to each.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import WSMsgType, web

API = "/api/v10"
TS = "2024-01-01T00:00:00.000000+00:00"
ALL_PERMS = str((1 << 50) - 1)
MEMBER_PERMS = str(discord.Permissions(send_messages=True, use_application_commands=True,
                                       send_messages_in_threads=True, read_messages=True).value)


@dataclass
class Message:
    id: int
    channel_id: int
    content: str
    attachments: list[tuple[str, bytes]]
    allowed_mentions: dict | None
    components: list
    flags: int
    via: str                       # "channel" | "followup" | "original"
    token: str | None
    at: float
    raw: dict = field(default_factory=dict)
    edits: int = 0                 # times edited in place (PATCH)
    pinned: bool = False
    deleted: bool = False          # deleted by a member (`FakeDiscord.delete_message`) or the bot

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & 64)

    @property
    def custom_ids(self) -> list[str]:
        out = []
        for row in self.components or []:
            for c in row.get("components", []):
                if c.get("custom_id"):
                    out.append(c["custom_id"])
        return out


@dataclass
class InteractionRecord:
    id: int
    token: str
    kind: int
    sent_at: float
    callbacks: list[dict] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)     # followups / original edits
    channel_messages: list[Message] = field(default_factory=list)  # channel posts while it was open
    done: asyncio.Event = field(default_factory=asyncio.Event)
    done_at: float | None = None
    message: Message | None = None  # the message whose button was pressed (a deferred update edits it)

    @property
    def final(self) -> Message | None:
        return self.messages[-1] if self.messages else None

    @property
    def choices(self) -> list[dict]:
        for cb in self.callbacks:
            if cb.get("type") == 8:
                return cb.get("data", {}).get("choices", [])
        return []


class FakeDiscord:
    def __init__(self) -> None:
        self._last_id = 0
        self.app_id = self.new_id()
        self.bot_user = {"id": str(self.app_id), "username": "roundhouse", "discriminator": "0000",
                         "global_name": "Roundhouse", "avatar": None, "bot": True, "flags": 0}
        self.guilds: list[int] = []
        self.channels: dict[int, dict] = {}
        self.guild_id, self.channel_id = self.add_guild()
        self.users: dict[int, dict] = {}
        self.locales: dict[int, str] = {}     # member id -> their Discord client's language
        self.guild_locale = "en-US"           # the servers' preferred language
        self.messages: list[Message] = []
        self.requests: list[tuple[str, str]] = []
        self.commands: dict[str, dict] = {}
        self.interactions: dict[str, InteractionRecord] = {}
        self.open_interactions: list[InteractionRecord] = []
        self.unknown: list[tuple[str, str]] = []
        self.ws: web.WebSocketResponse | None = None
        self.ready = asyncio.Event()
        self.identified = 0
        self._seq = 0
        self.runner: web.AppRunner | None = None
        self.port = 0
        self.changed = asyncio.Condition()
        self.attachments: dict[str, bytes] = {}
        self.downloads: list[str] = []            # attachments the bot downloaded, in order
        self.too_long: list[tuple[str, str, str]] = []  # requests refused as Discord does: (method, path, what)
        self.archived: set[int] = set()
        self.closed: set[int] = set()             # channels where the bot may not post or open threads
        self.hung: set[int] = set()               # channels where opening a thread gets no answer until `unhang`
        self.unedited: set[int] = set()           # messages Discord refuses to edit
        self.unlisted: dict[int, int] = {}        # thread -> how many more listings of active threads leave it out
        self.unanswered: set[int] = set()         # channels where a message is posted, answered only at `unhung`
        self.unhung = asyncio.Event()
        self.deleted_channels: list[int] = []     # channels (threads) the bot deleted
        self.unarchived: list[int] = []
        self.edits: list[tuple[int, str]] = []    # (message id, new content) of every message edit
        self.admin_of: dict[int, bool | int] = {}
        self.manages: dict[int, set[int]] = {}

    def new_id(self) -> int:
        """A snowflake of now, as Discord's ids are (a message's id tells when it was posted), each unique."""
        self._last_id = max(self._last_id + 1, discord.utils.time_snowflake(datetime.now(UTC)))
        return self._last_id

    def add_guild(self, channel_name: str = "games") -> tuple[int, int]:
        """Another server with the bot in it (announced at the next connection): (guild id, text channel)."""
        guild_id = self.new_id()
        self.guilds.append(guild_id)
        return guild_id, self.add_channel(guild_id, channel_name)

    def add_channel(self, guild_id: int, name: str = "general") -> int:
        cid = self.new_id()
        self.channels[cid] = {"id": str(cid), "type": 0, "name": name, "guild_id": str(guild_id), "position": 0,
                              "permission_overwrites": [], "parent_id": None, "nsfw": False, "topic": None,
                              "last_message_id": None, "rate_limit_per_user": 0}
        return cid

    def guild_of(self, channel_id: int) -> int:
        ch = self.channels.get(channel_id)
        return int(ch["guild_id"]) if ch and ch.get("guild_id") else self.guild_id

    def add_dm(self, uid: int) -> int:
        """The member's direct messages with the bot: an interaction sent there comes from no server."""
        dm_id = self.new_id()
        self.channels[dm_id] = {"id": str(dm_id), "type": 1, "last_message_id": None, "recipients": [self.user(uid)]}
        return dm_id

    def _in_dm(self, channel_id: int) -> bool:
        return (self.channels.get(channel_id) or {}).get("type") == 1

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> FakeDiscord:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway/", self.gateway)
        app.router.add_get("/cdn/{name}", self.cdn)
        app.router.add_route("*", API + "/{tail:.*}", self.rest)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.patch()
        return self

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def patch(self) -> None:
        """Point discord.py at this server."""
        discord.http.Route.BASE = self.base + API
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{self.port}/gateway/")

    async def stop(self) -> None:
        if self.ws is not None and not self.ws.closed:
            await self.ws.close()
        if self.runner:
            await self.runner.cleanup()

    # ------------------------------------------------------------------ users
    def add_user(self, name: str, *, admin: bool | int = False, manages: tuple[int, ...] = (),
                 locale: str = "en-US") -> int:
        """A member of every server. admin=True: an administrator everywhere; admin=<guild id>: in that
        server only; manages: channels where they have Manage Threads; locale: their Discord client's language."""
        uid = self.new_id()
        self.locales[uid] = locale
        self.users[uid] = {"id": str(uid), "username": name.lower(), "discriminator": "0", "global_name": name,
                           "avatar": None}
        self.admin_of[uid] = admin
        self.manages[uid] = set(manages)
        return uid

    def user(self, uid: int) -> dict:
        return dict(self.users[uid])

    def permissions(self, uid: int, channel_id: int | None = None) -> str:
        """The member's permissions in a channel, as Discord sends them with an interaction."""
        admin = self.admin_of.get(uid, False)
        guild = self.guild_of(channel_id) if channel_id is not None else self.guild_id
        if admin is True or (admin and admin == guild):
            return ALL_PERMS
        if channel_id is not None and self._channel_and_parents(channel_id) & self.manages.get(uid, set()):
            return str(int(MEMBER_PERMS) | discord.Permissions(manage_threads=True).value)
        return MEMBER_PERMS

    def _channel_and_parents(self, channel_id: int) -> set[int]:
        parent = (self.channels.get(channel_id) or {}).get("parent_id")
        return {channel_id} | ({int(parent)} if parent else set())

    def member(self, uid: int, channel_id: int | None = None) -> dict:
        return {"user": self.user(uid), "roles": [], "joined_at": TS, "deaf": False, "mute": False, "flags": 0,
                "nick": None, "avatar": None, "pending": False, "permissions": self.permissions(uid, channel_id)}

    # ------------------------------------------------------------------ gateway
    def _guild(self, guild_id: int) -> dict:
        return {
            "id": str(guild_id), "name": f"Test Guild {self.guilds.index(guild_id) + 1}", "icon": None, "splash": None, "discovery_splash": None,
            "owner_id": str(self.new_id()), "afk_channel_id": None, "afk_timeout": 300, "verification_level": 0,
            "default_message_notifications": 0, "explicit_content_filter": 0, "features": [], "mfa_level": 0,
            "application_id": None, "system_channel_id": None, "system_channel_flags": 0, "rules_channel_id": None,
            "vanity_url_code": None, "description": None, "banner": None, "premium_tier": 0,
            "preferred_locale": "en-US", "public_updates_channel_id": None, "nsfw_level": 0,
            "premium_progress_bar_enabled": False, "large": False, "unavailable": False, "member_count": 2,
            "joined_at": TS, "emojis": [], "stickers": [], "voice_states": [], "presences": [],
            "stage_instances": [], "guild_scheduled_events": [], "soundboard_sounds": [],
            "roles": [{"id": str(guild_id), "name": "@everyone", "permissions": MEMBER_PERMS, "position": 0,
                       "color": 0, "hoist": False, "managed": False, "mentionable": False, "flags": 0}],
            "members": [{"user": self.bot_user, "roles": [], "joined_at": TS, "deaf": False, "mute": False,
                         "flags": 0}],
            "channels": [c for c in self.channels.values() if c.get("type") == 0
                         and c.get("guild_id") == str(guild_id)],
            "threads": [],
        }

    async def _send(self, op: int, d: Any, t: str | None = None) -> None:
        assert self.ws is not None
        payload: dict[str, Any] = {"op": op, "d": d}
        if op == 0:
            self._seq += 1
            payload["s"] = self._seq
            payload["t"] = t
        await self.ws.send_str(json.dumps(payload))

    async def gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self.ws = ws
        self._seq = 0
        await self._send(10, {"heartbeat_interval": 41250})
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            data = json.loads(msg.data)
            op = data.get("op")
            if op == 1:
                await ws.send_str(json.dumps({"op": 11}))
            elif op in (2, 6):
                self.identified += 1
                shard = (data.get("d") or {}).get("shard")
                ready = {"v": 10, "user": self.bot_user,
                         "guilds": [{"id": str(g), "unavailable": True} for g in self.guilds],
                         "session_id": f"session{self.identified}", "private_channels": [], "relationships": [],
                         "resume_gateway_url": f"ws://127.0.0.1:{self.port}/gateway/",
                         "application": {"id": str(self.app_id), "flags": 0}}
                if shard:
                    ready["shard"] = shard
                await self._send(0, ready, "READY")
                for g in self.guilds:
                    await self._send(0, self._guild(g), "GUILD_CREATE")
                self.ready.set()
        if self.ws is ws:
            self.ws = None
            self.ready.clear()
        return ws

    async def wait_connected(self, timeout: float = 15) -> None:
        await asyncio.wait_for(self.ready.wait(), timeout)

    # ------------------------------------------------------------------ REST
    def _json(self, data: Any, status: int = 200) -> web.Response:
        # discord.py only parses JSON when the content-type is exactly application/json
        return web.Response(body=json.dumps(data).encode(), status=status,
                            headers={"Content-Type": "application/json"})

    def _message_json(self, m: Message) -> dict:
        return {
            "id": str(m.id), "channel_id": str(m.channel_id), "type": 0, "content": m.content,
            "author": self.bot_user, "attachments": [
                {"id": str(self.new_id()), "filename": n, "size": len(b), "url": f"{self.base}/cdn/{n}",
                 "proxy_url": f"{self.base}/cdn/{n}"} for n, b in m.attachments],
            "embeds": [], "mentions": [], "mention_roles": [], "mention_everyone": False, "pinned": m.pinned,
            "tts": False, "timestamp": TS, "edited_timestamp": None, "flags": m.flags,
            "components": m.components or [],
            **({"webhook_id": str(self.app_id)} if m.via != "channel" else {}),
        }

    async def _payload(self, request: web.Request) -> tuple[dict, list[tuple[str, bytes]]]:
        ctype = request.headers.get("Content-Type", "")
        if ctype.startswith("multipart/"):
            payload: dict = {}
            files: list[tuple[str, bytes]] = []
            reader = await request.multipart()
            async for part in reader:
                if part.name == "payload_json":
                    payload = json.loads(await part.text())
                else:
                    files.append((part.filename or part.name or "file", bytes(await part.read())))
            return payload, files
        if request.can_read_body:
            try:
                return await request.json(), []
            except ValueError:
                return {}, []
        return {}, []

    async def _record(self, m: Message) -> None:
        self.messages.append(m)
        if m.via == "channel":
            for rec in self.open_interactions:
                rec.channel_messages.append(m)
        async with self.changed:
            self.changed.notify_all()

    def _edit(self, m: Message, payload: dict) -> None:
        """A message edited in place: what the edit names changes (components absent or null: none left)."""
        for key in ("content", "components", "allowed_mentions"):
            if key in payload:
                setattr(m, key, payload[key] if payload[key] is not None else ([] if key == "components" else ""))
        m.raw = {**m.raw, **payload}
        m.edits += 1
        self.edits.append((m.id, m.content))

    def _finish(self, rec: InteractionRecord) -> None:
        if not rec.done.is_set():
            rec.done_at = time.perf_counter()
            rec.done.set()
            if rec in self.open_interactions:
                self.open_interactions.remove(rec)

    @staticmethod
    def _too_long(payload: Any) -> str | None:
        """What in a message or an interaction's answer is longer than Discord takes (a message's text 2,000
        characters, a choice's name or value 100, a button's label 80), or None."""
        data = payload.get("data") if isinstance(payload, dict) and isinstance(payload.get("data"), dict) else payload
        if not isinstance(data, dict):
            return None
        if len(data.get("content") or "") > 2000:
            return "content"
        if any(len(str(c.get(k, ""))) > 100 for c in data.get("choices") or [] for k in ("name", "value")):
            return "choices"
        if any(len(b.get("label") or "") > 80 for row in data.get("components") or [] for b in row.get("components", [])):
            return "components"
        return None

    async def rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        method = request.method
        self.requests.append((method, path))
        parts = path.strip("/").split("/")
        payload, files = await self._payload(request)
        if (too_long := self._too_long(payload)) is not None:  # Discord refuses the whole request
            self.too_long.append((method, path, too_long))
            return self._json({"message": "Invalid Form Body", "code": 50035,
                               "errors": {too_long: {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH"}]}}}, 400)

        if method == "GET" and path == "/users/@me":
            return self._json(self.bot_user)
        if method == "GET" and path == "/oauth2/applications/@me":
            return self._json({"id": str(self.app_id), "name": "Roundhouse", "icon": None, "description": "",
                               "rpc_origins": [], "bot_public": True, "bot_require_code_grant": False,
                               "owner": self.bot_user, "summary": "", "verify_key": "00", "team": None,
                               "flags": 0, "bot": self.bot_user})
        if method == "GET" and path in ("/gateway/bot", "/gateway"):
            return self._json({"url": f"ws://127.0.0.1:{self.port}/gateway/", "shards": 1,
                               "session_start_limit": {"total": 1000, "remaining": 1000, "reset_after": 0,
                                                       "max_concurrency": 1}})
        # command sync: PUT /applications/{app}/commands, /applications/{app}/guilds/{g}/commands
        if parts[0] == "applications" and parts[-1] == "commands":
            if method == "PUT":
                out = []
                for cmd in payload:
                    cmd = dict(cmd)
                    cmd.update(id=str(self.new_id()), application_id=str(self.app_id), version="1")
                    if len(parts) == 5:
                        cmd["guild_id"] = parts[3]
                    self.commands[cmd["name"]] = cmd
                    out.append(cmd)
                return self._json(out)
            return self._json(list(self.commands.values()))
        # interaction callback
        if parts[0] == "interactions" and parts[-1] == "callback":
            rec = self.interactions.get(parts[2])
            if rec is None:
                return self._json({"message": "Unknown interaction", "code": 10062}, 404)
            rec.callbacks.append(payload)
            typ = payload.get("type")
            resp: dict[str, Any] = {"interaction": {"id": parts[1], "type": rec.kind,
                                                    "response_message_loading": typ == 5,
                                                    "response_message_ephemeral": bool(
                                                        (payload.get("data") or {}).get("flags", 0) & 64)}}
            if typ == 7 and rec.message is not None:  # the pressed button's message updated in place
                self._edit(rec.message, payload.get("data") or {})
                rec.messages.append(rec.message)
                resp["resource"] = {"type": typ, "message": self._message_json(rec.message)}
                self._finish(rec)
            elif typ in (4, 7):
                data = payload.get("data") or {}
                m = Message(self.new_id(), 0, data.get("content", ""), files, data.get("allowed_mentions"),
                            data.get("components", []), data.get("flags", 0), "original", rec.token,
                            time.perf_counter(), data)
                rec.messages.append(m)
                await self._record(m)
                resp["resource"] = {"type": typ, "message": self._message_json(m)}
                self._finish(rec)
            elif typ in (8, 9):
                resp["resource"] = {"type": typ}
                self._finish(rec)
            else:
                resp["resource"] = {"type": typ}
            return self._json(resp)
        # webhooks: followups and original edits
        if parts[0] == "webhooks" and len(parts) >= 3:
            token = parts[2]
            rec = self.interactions.get(token)
            if method == "PATCH" and parts[-1] == "@original" and rec is not None and rec.message is not None \
                    and any(cb.get("type") == 6 for cb in rec.callbacks):  # after a deferred update
                self._edit(rec.message, payload)
                rec.messages.append(rec.message)
                self._finish(rec)
                return self._json({**self._message_json(rec.message), "edited_timestamp": TS})
            if method == "POST" and len(parts) == 3 or (method == "PATCH" and parts[-1] == "@original"):
                via = "followup" if method == "POST" else "original"
                m = Message(self.new_id(), 0, payload.get("content") or "", files, payload.get("allowed_mentions"),
                            payload.get("components", []), payload.get("flags", 0) or 0, via, token,
                            time.perf_counter(), payload)
                if rec is not None:
                    rec.messages.append(m)
                await self._record(m)
                if rec is not None:
                    self._finish(rec)
                return self._json(self._message_json(m))
            if method == "DELETE":
                return web.Response(status=204)
            return self._json({"message": "?", "code": 0}, 404)
        # channels
        if parts[0] == "channels":
            cid = int(parts[1])
            if method == "POST" and len(parts) == 3 and parts[2] == "messages":
                if cid in self.closed:
                    return self._json({"message": "Missing Access", "code": 50001}, 403)
                m = Message(self.new_id(), cid, payload.get("content") or "", files, payload.get("allowed_mentions"),
                            payload.get("components", []), payload.get("flags", 0) or 0, "channel", None,
                            time.perf_counter(), payload)
                await self._record(m)
                if cid in self.unanswered:
                    await self.unhung.wait()  # the poster stops first: the answer never reaches it
                return self._json(self._message_json(m))
            if len(parts) == 5 and parts[2:4] == ["messages", "pins"] and method in ("PUT", "DELETE"):
                m = self._channel_message(cid, int(parts[4]))
                if m is None:
                    return self._json({"message": "Unknown Message", "code": 10008}, 404)
                m.pinned = method == "PUT"
                return web.Response(status=204)
            if method == "GET" and len(parts) == 3 and parts[2] == "messages":  # history: the latest first
                if cid in self.closed:
                    return self._json({"message": "Missing Access", "code": 50001}, 403)
                limit = int(request.query.get("limit", 50))
                if "after" in request.query:  # the first `limit` after it, the latest first
                    later = [m for m in self.channel_messages(cid) if m.id > int(request.query["after"])][:limit]
                    return self._json([self._message_json(m) for m in reversed(later)])
                before = int(request.query.get("before", 1 << 62))
                latest = [m for m in reversed(self.channel_messages(cid)) if m.id < before]
                return self._json([self._message_json(m) for m in latest[:limit]])
            if method == "GET" and len(parts) == 4 and parts[2:4] == ["messages", "pins"]:
                return self._json({"items": [{"pinned_at": TS, "message": self._message_json(m)}
                                             for m in self.pinned_messages(cid)], "has_more": False})
            if method == "DELETE" and len(parts) == 4 and parts[2] == "messages":
                m = self._channel_message(cid, int(parts[3]))
                if m is None:
                    return self._json({"message": "Unknown Message", "code": 10008}, 404)
                self.delete_message(m)
                return web.Response(status=204)
            if method == "PATCH" and len(parts) == 4 and parts[2] == "messages":
                m = self._channel_message(cid, int(parts[3]))
                if m is None:
                    return self._json({"message": "Unknown Message", "code": 10008}, 404)
                if m.id in self.unedited:
                    return self._json({"message": "Missing Permissions", "code": 50013}, 403)
                self._edit(m, payload)
                async with self.changed:
                    self.changed.notify_all()
                return self._json({**self._message_json(m), "edited_timestamp": TS})
            if method == "POST" and parts[-1] == "threads":
                if cid in self.closed:
                    return self._json({"message": "Missing Permissions", "code": 50013}, 403)
                if cid in self.hung:
                    await self.unhung.wait()
                tid = self.new_id()
                parent = cid
                thread = {"id": str(tid), "type": payload.get("type", 11), "name": payload.get("name", "thread"),
                          "guild_id": str(self.guild_of(parent)), "parent_id": str(parent), "owner_id": str(self.app_id),
                          "last_message_id": None, "rate_limit_per_user": 0, "message_count": 0,
                          "member_count": 1, "flags": 0,
                          "thread_metadata": {"archived": False, "auto_archive_duration": 10080,
                                              "archive_timestamp": TS, "locked": False}}
                self.channels[tid] = thread
                return self._json(thread, 201)
            if method == "PATCH" and len(parts) == 2:
                ch = self.channels.get(cid)
                if ch is None:
                    return self._json({"message": "Unknown Channel", "code": 10003}, 404)
                if "archived" in payload and ch.get("thread_metadata"):
                    ch["thread_metadata"]["archived"] = payload["archived"]
                    if not payload["archived"]:
                        self.unarchived.append(cid)
                        self.archived.discard(cid)
                return self._json(ch)
            if method == "DELETE" and len(parts) == 2:
                ch = self.channels.pop(cid, None)
                if ch is None:
                    return self._json({"message": "Unknown Channel", "code": 10003}, 404)
                self.deleted_channels.append(cid)
                async with self.changed:
                    self.changed.notify_all()
                return self._json(ch)
            if method == "GET" and len(parts) == 2:
                ch = self.channels.get(cid)
                return self._json(ch) if ch else self._json({"message": "Unknown Channel", "code": 10003}, 404)
        if method == "GET" and len(parts) == 4 and parts[0] == "guilds" and parts[2:] == ["threads", "active"]:
            threads = [ch for ch in self.channels.values() if ch.get("type") == 11 and ch.get("guild_id") == parts[1]
                       and not ch["thread_metadata"]["archived"] and not self.unlisted.get(int(ch["id"]))]
            for tid, left in self.unlisted.items():
                self.unlisted[tid] = max(0, left - 1)
            return self._json({"threads": threads, "members": []})
        if method == "POST" and path == "/users/@me/channels":
            rid = int(payload["recipient_id"])
            dm_id = self.new_id()
            ch = {"id": str(dm_id), "type": 1, "last_message_id": None,
                  "recipients": [self.user(rid) if rid in self.users else {"id": str(rid), "username": "x",
                                                                          "discriminator": "0", "avatar": None}]}
            self.channels[dm_id] = ch
            return self._json(ch)
        self.unknown.append((method, path))
        return self._json({"message": f"fake discord: no route {method} {path}", "code": 0}, 404)

    async def cdn(self, request: web.Request) -> web.Response:
        data = self.attachments.get(request.match_info["name"])
        if data is None:
            return web.Response(status=404)
        self.downloads.append(request.match_info["name"])
        async with self.changed:
            self.changed.notify_all()
        return web.Response(body=data, content_type="application/octet-stream")

    # ------------------------------------------------------------------ driving the bot
    def thread_channel(self, tid: int) -> dict:
        ch = self.channels[tid]
        return ch

    def _channel_payload(self, channel_id: int) -> dict:
        ch = self.channels.get(channel_id)
        return ch if ch else {"id": str(channel_id), "type": 0, "guild_id": str(self.guild_of(channel_id))}

    async def _dispatch(self, kind: int, uid: int, channel_id: int, data: dict,
                        message: dict | None = None, pressed: Message | None = None) -> InteractionRecord:
        await self.wait_connected()
        iid = self.new_id()
        token = f"tok{iid}"
        rec = InteractionRecord(iid, token, kind, time.perf_counter(), message=pressed)
        self.interactions[token] = rec
        self.open_interactions.append(rec)
        guild = self.guild_of(channel_id)
        payload = {
            "id": str(iid), "application_id": str(self.app_id), "type": kind, "token": token, "version": 1,
            "guild_id": str(guild), "channel_id": str(channel_id),
            "channel": self._channel_payload(channel_id), "member": self.member(uid, channel_id),
            "app_permissions": ALL_PERMS, "locale": self.locales.get(uid, "en-US"),
            "guild_locale": self.guild_locale, "entitlements": [],
            "authorizing_integration_owners": {"0": str(guild)}, "context": 0, "data": data,
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if self._in_dm(channel_id):  # from no server: the user alone, in the bot's DM context
            del payload["guild_id"], payload["member"], payload["guild_locale"]
            payload.update(user=self.user(uid), context=1, authorizing_integration_owners={"0": "0"})
        if message is not None:
            payload["message"] = message
        await self._send(0, payload, "INTERACTION_CREATE")
        return rec

    @staticmethod
    def _opt_type(v: Any) -> int:
        if isinstance(v, bool):
            return 5
        if isinstance(v, int):
            return 4
        if isinstance(v, float):
            return 10
        return 3

    def _options(self, options: dict[str, Any], focused: str | None, resolved: dict,
                 channel_id: int | None = None) -> list[dict]:
        out = []
        for name, v in options.items():
            if v is None:
                continue
            if isinstance(v, UserRef):
                out.append({"name": name, "type": 6, "value": str(v.id)})
                resolved.setdefault("users", {})[str(v.id)] = self.user(v.id)
                m = self.member(v.id, channel_id)
                m.pop("user")
                resolved.setdefault("members", {})[str(v.id)] = m
                continue
            if isinstance(v, AttachmentRef):
                aid = str(self.new_id())
                fname = f"{aid}-{v.filename}"
                self.attachments[fname] = v.data
                out.append({"name": name, "type": 11, "value": aid})
                resolved.setdefault("attachments", {})[aid] = {
                    "id": aid, "filename": v.filename, "size": len(v.data), "url": f"{self.base}/cdn/{fname}",
                    "proxy_url": f"{self.base}/cdn/{fname}", "content_type": "application/json"}
                continue
            o = {"name": name, "type": self._opt_type(v), "value": v}
            if name == focused:
                o["focused"] = True
                o["type"] = 3 if isinstance(v, str) else o["type"]
            out.append(o)
        return out

    def _command_data(self, name: str, options: dict[str, Any], sub: str | None, focused: str | None,
                      channel_id: int | None = None) -> dict:
        resolved: dict = {}
        opts = self._options(options, focused, resolved, channel_id)
        if sub:
            opts = [{"name": sub, "type": 1, "options": opts}]
        cmd = self.commands.get(name, {})
        data = {"id": cmd.get("id", str(self.new_id())), "name": name, "type": 1, "options": opts,
                "guild_id": str(self.guild_of(channel_id) if channel_id is not None else self.guild_id)}
        if channel_id is not None and self._in_dm(channel_id):
            del data["guild_id"]
        if resolved:
            data["resolved"] = resolved
        return data

    async def command(self, uid: int, channel_id: int, name: str, options: dict[str, Any] | None = None, *,
                      sub: str | None = None, timeout: float = 30) -> InteractionRecord:
        """Run a slash command as member `uid` and wait for the bot's final answer to it."""
        rec = await self._dispatch(2, uid, channel_id, self._command_data(name, options or {}, sub, None, channel_id))
        await asyncio.wait_for(rec.done.wait(), timeout)
        return rec

    async def autocomplete(self, uid: int, channel_id: int, name: str, options: dict[str, Any], focused: str, *,
                           sub: str | None = None, timeout: float = 30) -> list[dict]:
        rec = await self._dispatch(4, uid, channel_id, self._command_data(name, options, sub, focused, channel_id))
        await asyncio.wait_for(rec.done.wait(), timeout)
        return rec.choices

    async def click(self, uid: int, message: Message, custom_id: str, *, timeout: float = 30) -> InteractionRecord:
        """Press a button of a message the bot sent."""
        data = {"custom_id": custom_id, "component_type": 2}
        rec = await self._dispatch(3, uid, message.channel_id or self.channel_id, data,
                                   message=self._message_json(message), pressed=message)
        await asyncio.wait_for(rec.done.wait(), timeout)
        return rec

    def channel_messages(self, channel_id: int) -> list[Message]:
        """The messages posted in a channel and not deleted, oldest first."""
        return [m for m in self.messages if m.via == "channel" and m.channel_id == channel_id and not m.deleted]

    def _channel_message(self, channel_id: int, message_id: int) -> Message | None:
        return next((m for m in self.channel_messages(channel_id) if m.id == message_id), None)

    def pinned_messages(self, channel_id: int) -> list[Message]:
        return [m for m in self.channel_messages(channel_id) if m.pinned]

    def delete_message(self, message: Message) -> None:
        """A member deletes a message (it is unpinned with it)."""
        message.deleted, message.pinned = True, False

    def unpin(self, message: Message) -> None:
        """A member unpins a message."""
        message.pinned = False

    async def wait_for_change(self, done, timeout: float = 10) -> None:
        """Until `done()` holds, checked at each change the fake notes (a message posted or edited, a channel
        deleted, an attachment downloaded)."""
        async def _wait():
            async with self.changed:
                await self.changed.wait_for(done)
        await asyncio.wait_for(_wait(), timeout)

    async def wait_for_message(self, pred, timeout: float = 10) -> Message:
        async def _wait():
            async with self.changed:
                while True:
                    for m in self.messages:
                        if pred(m):
                            return m
                    await self.changed.wait()
        return await asyncio.wait_for(_wait(), timeout)


@dataclass
class UserRef:
    id: int


@dataclass
class AttachmentRef:
    filename: str
    data: bytes
