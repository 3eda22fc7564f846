"""A scripted stand-in for the rules engine (tests only): it knows one recorded fixture and its trace.

It accepts exactly the fixture's next action (undo/redo resolved) and reports the trace's state. It lets
the bot tests run while the real engine is missing; with `engine.titles` importable the tests use the
real engine instead.
"""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

IGNORED = {"id", "created_at", "user", "skip", "auto_actions", "original_id"}


class FakeGameError(Exception):
    pass


def resolve_undo(actions: list[dict]) -> list[dict]:
    """FORMAT.md section 3."""
    kept: list[dict | None] = []
    stack: list[list[int]] = []
    for a in actions:
        t = a.get("type")
        if t == "undo":
            if a.get("action_id") is not None:
                target = a["action_id"]
                idx = -1
                for i, k in enumerate(kept):
                    if k is not None and k.get("id") == target:
                        idx = i
                group = [i for i in range(idx + 1, len(kept)) if kept[i] is not None and kept[i]["type"] != "message"]
            else:
                group = []
                for i in range(len(kept) - 1, -1, -1):
                    if kept[i] is not None and kept[i]["type"] != "message":
                        group = [i]
                        break
            for i in group:
                kept[i] = None
            stack.append(group)
            kept.append(None)
        elif t == "redo":
            if stack:
                for i in stack.pop():
                    kept[i] = actions[i]
            kept.append(None)
        else:
            if t != "message":
                stack.clear()
            kept.append(a)
    return [k for k in kept if k is not None]


def _norm(a: dict) -> dict:
    out = {k: v for k, v in a.items() if k not in IGNORED}
    if out.get("type") == "run_routes":
        out["routes"] = [{"train": r["train"], "connections": r["connections"]} for r in out.get("routes", [])]
        out.pop("extra_revenue", None)
        out.pop("subsidy", None)
    if out.get("type") in ("buy_shares", "sell_shares"):
        out.pop("percent", None)
    if out.get("type") == "place_token":
        out.pop("tokener", None)
    return out


class Fixture:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.log = json.loads(self.path.read_text())
        self.applied = resolve_undo(self.log["actions"])
        trace_path = self.path.with_suffix(".trace.jsonl")
        lines = [json.loads(x) for x in trace_path.read_text().splitlines() if x.strip()]
        self.states = lines  # states[k] = after k applied actions (this fixture has no auto actions)


def tiny_png(text: str = "x") -> bytes:
    """A valid 1x1 PNG (the fake renderer's picture)."""
    raw = b"\x00\xff\xff\xff"
    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"tEXt", b"c\x00" + text.encode()) + chunk(b"IEND", b""))


class ScriptedGame:
    def __init__(self, fixture: Fixture, players: list[dict]):
        self.fx = fixture
        self.players = players
        # the bot may seat different ids: map the fixture's player ids to ours by seat order
        self.to_ours = {int(p["id"]): int(q["id"]) for p, q in zip(fixture.log["players"], players, strict=True)}
        self.to_fx = {v: k for k, v in self.to_ours.items()}
        self.actions: list[dict] = []

    # --- engine API
    @property
    def finished(self) -> bool:
        return len(self.actions) >= len(self.fx.applied)

    @property
    def end_reason(self) -> str | None:
        return self.fx.log.get("game_end_reason") if self.finished else None

    def result(self) -> dict[str, int]:
        return {str(self.to_ours[int(k)]): v for k, v in self.fx.log["result"].items()}

    def _expected(self) -> dict:
        if self.finished:
            raise FakeGameError("The game is over.")
        return self.fx.applied[len(self.actions)]

    def apply(self, action: dict) -> dict:
        exp = self._expected()
        mine = dict(action)
        if mine.get("entity_type") == "player":
            mine["entity"] = self.to_fx.get(int(mine["entity"]), mine["entity"])
        if _norm(mine) != _norm(exp):
            raise FakeGameError(f"not the recorded action (expected {_norm(exp)}, got {_norm(mine)})")
        stored = dict(exp)
        stored.pop("skip", None)
        if stored.get("entity_type") == "player":
            stored["entity"] = self.to_ours[int(stored["entity"])]
        self.actions.append(stored)
        return stored

    def undo(self) -> None:
        self.actions.pop()

    def to_18xx(self) -> dict:
        return {"title": "1830", "players": self.players,
                "settings": {"seed": self.fx.log["settings"].get("seed"),
                             "optional_rules": self.fx.log["settings"].get("optional_rules", [])},
                "actions": list(self.actions)}

    def summary(self) -> dict:
        s = json.loads(json.dumps(self.fx.states[len(self.actions)]))
        for p in s.get("players", []):
            p["id"] = self.to_ours.get(int(p["id"]), p["id"])
        for c in s.get("corporations", {}).values():
            if isinstance(c.get("pres"), int):
                c["pres"] = self.to_ours.get(c["pres"], c["pres"])
        s["companies"] = {k: (self.to_ours.get(v, v) if isinstance(v, int) else v)
                          for k, v in (s.get("companies") or {}).items()}
        if isinstance(s.get("next"), int):
            s["next"] = self.to_ours.get(s["next"], s["next"])
        return s

    def acting_entity(self) -> dict:
        nxt = self.summary().get("next")
        if isinstance(nxt, int):
            return {"entity": nxt, "entity_type": "player"}
        return {"entity": nxt, "entity_type": "corporation"}

    def active_players(self) -> list[int]:
        if self.finished:
            return []
        s = self.summary()
        nxt = s.get("next")
        if isinstance(nxt, int):
            return [nxt]
        pres = (s.get("corporations", {}).get(nxt) or {}).get("pres")
        exp = self._expected()   # the scripted entity's controller (covers odd cases)
        if pres is None and exp.get("entity_type") == "player":
            return [self.to_ours[int(exp["entity"])]]
        return [pres] if pres is not None else []

    def legal_actions(self) -> list[dict]:
        if self.finished:
            return []
        exp = {k: v for k, v in self._expected().items() if k not in IGNORED}
        if exp.get("entity_type") == "player":
            exp["entity"] = self.to_ours[int(exp["entity"])]
        return [exp]


class FakeEngine:
    """Drop-in for bot.engine_adapter.Engine backed by ScriptedGame."""

    titles = ("1830",)

    def __init__(self, fixture: Fixture):
        self.fixture = fixture
        self.renders = 0

    def create(self, title: str, players: list[dict], seed: int, optional_rules: list[str]) -> ScriptedGame:
        return ScriptedGame(self.fixture, players)

    def load(self, log: dict) -> ScriptedGame:
        g = ScriptedGame(self.fixture, log["players"])
        for a in resolve_undo(log.get("actions", [])):
            g.apply(a)
        return g

    @staticmethod
    def log_dict(title: str, players: list[dict], seed: int, optional_rules: list[str], actions: list[dict],
                 game_id: Any = None) -> dict:
        return {"id": game_id or seed, "title": title, "players": players,
                "settings": {"seed": seed, "optional_rules": optional_rules}, "actions": actions}

    def replay(self, title, players, seed, optional_rules, actions):
        return self.load(self.log_dict(title, players, seed, optional_rules, actions))

    def is_game_error(self, exc: BaseException) -> bool:
        return isinstance(exc, FakeGameError)

    def draw_map(self, game, routes=None) -> bytes:
        self.renders += 1
        return tiny_png("map")

    def draw_market(self, game, title) -> bytes:
        self.renders += 1
        return tiny_png("market")

    def draw_companies(self, game, title) -> bytes:
        self.renders += 1
        return tiny_png("companies")
