"""Hypothesis fuzz of the bot's commands and of engine actions, through the service with the real engine.

Members of the game, an outsider, a moderator and an administrator of another server send commands with
options drawn from the legal moves, mutated moves and garbage; the bot restarts now and then. Whatever
happens, a command either works or is refused with a message for the member (UserError): nothing else
escapes. After every command the game in memory is the game its stored log replays to, and at the end
the database passes the integrity check."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from fakediscord.play import GUILD, OTHER_GUILD, state
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from bot.access import Caller
from bot.db import Database
from bot.errors import UserError
from bot.families import G18xx, Steam
from bot.integrity import check
from bot.service import ENGINE_FAILED, Service
from bot.session import Engine, Session

FIGURES = {"cases": 0, "commands": 0, "refused": 0, "engine_failures_contained": 0}
THREAD = 9001

garbage = st.one_of(
    st.none(), st.booleans(), st.integers(-10**12, 10**12), st.floats(allow_nan=True),
    st.text(max_size=30), st.text(alphabet="+@$,;:|#-_ 0123456789ABCDEFPRNYCO&", max_size=12),
    st.sampled_from(["", "+", "@", "best", "PRR", "PRR_1", "B&O_0@20", "57-0", "E19", "2-0", "D", "payout",
                     "9" * 400, "x" * 2000, "pass-always", "buy", "float", "-3", "NdM_7", "MEX",
                     "lay:22:0", "upgrade:x:9@1,1", "0,11", "-1,-1", "Chicago", "0,19:blue", "0,17:1-3+x", "A",
                     "red@Z", "5-skip", "vp", "income"]),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


class BotFuzz(RuleBasedStateMachine):
    """An 1830 game; SteamFuzz below plays Steam the same way."""

    FAMILY: type[Session] = G18xx
    TITLE, SETTINGS, MIN_PLAYERS = "1830", {}, 2

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.dir = Path(tempfile.mkdtemp(prefix="rh-fuzz-"))
        self.db: Database | None = None
        FIGURES["cases"] += 1

    def run(self, coro):
        return self.loop.run_until_complete(coro)

    def call(self, coro) -> object:
        FIGURES["commands"] += 1
        try:
            return self.run(coro)
        except UserError as e:
            FIGURES["refused"] += 1
            FIGURES["engine_failures_contained"] += str(e) == ENGINE_FAILED
            assert len(str(e)) < 600, str(e)[:100]
            return None

    @initialize(seed=st.integers(1, 10_000), players=st.integers(2, 4))
    def start(self, seed: int, players: int) -> None:
        self.db = self.run(Database(self.dir / "fuzz.db").open())
        self.svc = Service(self.db, Engine(), pictures=False)
        names = ["Ann", "Bob", "Cid", "Dan"][:max(players, self.MIN_PLAYERS)]
        self.seated = [Caller(11 + i, n, GUILD, THREAD) for i, n in enumerate(names)]
        self.others = [Caller(70, "Eve", GUILD, THREAD),                                  # no seat
                       Caller(71, "Mod", GUILD, THREAD, manages_threads=True),            # moderator here
                       Caller(72, "Root", OTHER_GUILD, 7000, manages_threads=True),       # another server
                       Caller(11, "Ann", OTHER_GUILD, 7000)]                              # a player, elsewhere
        row = self.run(self.svc.new_game(self.seated[0], title=self.TITLE, seed=seed, channel_id=8000, thread_id=THREAD,
                                         settings=self.SETTINGS))
        self.gid = row.id
        for c in self.seated[1:]:
            self.run(self.svc.join(self.gid, c))
        self.run(self.svc.start(self.gid, self.seated[0]))

    def anyone(self, data) -> Caller:
        return data.draw(st.sampled_from(self.seated + self.others))

    def acting(self, game) -> Caller:
        """The member holding the acting seat now."""
        seats = self.run(self.db.seats(self.gid))
        seat = next(s for s in seats if s.player_id == int(game.active_players()[0]))
        return Caller(seat.member_id, seat.name, GUILD, THREAD)

    def game(self):
        return self.svc._live[self.gid].game if self.gid in self.svc._live else None

    # ------------------------------------------------------------------ rules
    @rule(data=st.data())
    def legal_move(self, data) -> None:
        """Progress: the acting member sends a legal move as a command."""
        game = self.game()
        if game is None or game.finished:
            return
        legal = [a for a in game.legal_actions() if self.FAMILY.command_of(a) is not None and a["type"] != "bankrupt"]
        if not legal:
            return
        kind, options = self.FAMILY.command_for(data.draw(st.sampled_from(legal)))
        self.call(self.svc.act(self.gid, self.acting(game), kind, options))

    @rule(data=st.data(), pick=st.integers(0, 99))
    def command(self, data, pick: int) -> None:
        """Any action command with options drawn from a legal move's, mutated, or garbage."""
        kind = sorted(self.FAMILY.commands)[pick % len(self.FAMILY.commands)]
        game = self.game()
        options = {}
        legal = [a for a in (game.legal_actions() if game and not game.finished else [])
                 if getattr(self.FAMILY.command_of(a), "name", None) == kind]
        if legal and data.draw(st.booleans()):
            options = dict(self.FAMILY.command_for(data.draw(st.sampled_from(legal)))[1])
        for name in [o.name for o in self.FAMILY.commands[kind].options]:
            if data.draw(st.integers(0, 3)) == 0:
                options[name] = data.draw(garbage)
        self.call(self.svc.act(self.gid, self.anyone(data), kind, options))

    @rule(data=st.data())
    def mutated_engine_action(self, data) -> None:
        """A legal engine action with one field replaced by garbage, applied as the bot applies actions."""
        game = self.game()
        if game is None or game.finished:
            return
        legal = game.legal_actions()
        if not legal:
            return
        action = dict(data.draw(st.sampled_from(legal)))
        key = data.draw(st.sampled_from(sorted(action) + ["exchange", "variant", "shares", "routes", "id"]))
        action[key] = data.draw(garbage)
        acting = self.acting(game)

        async def apply():
            async with self.svc.lock(self.gid):
                lv = await self.svc.live(self.gid)
                if lv.game is not None and not lv.game.finished:
                    await self.svc._apply(lv, acting, action, None)
        self.call(apply())

    @rule(data=st.data(), which=st.sampled_from(["status", "history", "export", "remind", "undo", "vote",
                                                 "autocomplete", "list", "replace", "claim", "kick", "join",
                                                 "leave", "start", "abort"]))
    def game_command(self, data, which: str) -> None:
        svc, gid, who = self.svc, self.gid, self.anyone(data)
        member = data.draw(st.sampled_from([c.member_id for c in self.seated + self.others] + [-5, 0]))
        calls = {
            "status": lambda: svc.status(gid, who, pictures=()),
            "history": lambda: svc.history(gid, who, data.draw(garbage)),
            "export": lambda: svc.export(gid, who),
            "remind": lambda: svc.set_remind(gid, who, data.draw(garbage), data.draw(garbage)),
            "undo": lambda: svc.undo(gid, who, data.draw(st.one_of(st.integers(-5, 8), garbage))),
            "vote": lambda: svc.vote_undo(gid, who, data.draw(st.booleans()), data.draw(st.integers(-1, 60))),
            "autocomplete": lambda: svc.autocomplete(gid, who, data.draw(st.sampled_from(sorted(self.FAMILY.commands))),
                                                     data.draw(st.sampled_from(["company", "price", "share",
                                                                                "hex", "tile", "train", "x", "track",
                                                                                "cube", "path", "city", "town",
                                                                                "reserve", "amount"])),
                                                     data.draw(st.text(max_size=10)), {}),
            "list": lambda: svc.list_games(who),
            "replace": lambda: svc.replace(gid, who, member, data.draw(st.integers(60, 65)), "New"),
            "claim": lambda: svc.claim(gid, who, data.draw(st.integers(-2, 6))),
            "kick": lambda: svc.kick(gid, who, member),
            "join": lambda: svc.join(gid, who),
            "leave": lambda: svc.leave(gid, who),
            "start": lambda: svc.start(gid, who),
            "abort": lambda: svc.abort(gid, who) if data.draw(st.integers(0, 9)) == 0 else svc.status(gid, who, ()),
        }
        self.call(calls[which]())
        if which == "replace":  # keep playing with whoever holds the seats now
            seats = self.run(self.db.seats(gid))
            self.seated = [Caller(s.member_id, s.name, GUILD, THREAD) for s in seats] or self.seated

    @rule()
    def restart(self) -> None:
        self.svc = Service(self.db, Engine(), pictures=False)
        self.run(self.svc.resume_all())

    # ------------------------------------------------------------------ invariants
    @invariant()
    def memory_matches_the_stored_log(self) -> None:
        if self.db is None or self.gid not in self.svc._live or self.game() is None:
            return
        live = state(self.game())
        rebuilt = self.run(Service(self.db, Engine(), pictures=False).live(self.gid)).game
        if rebuilt is not None:  # None: aborted (its log is kept, nobody plays it)
            assert state(rebuilt) == live

    def teardown(self) -> None:
        try:
            if self.db is not None:
                assert self.run(check(self.db)) == []
                self.run(self.db.close())
        finally:
            self.loop.close()
            shutil.rmtree(self.dir, ignore_errors=True)


class SteamFuzz(BotFuzz):
    FAMILY = Steam
    TITLE, SETTINGS, MIN_PLAYERS = "steam", {"map": "rust_belt", "mode": "standard"}, 3


# no shrinking unless asked (ROUNDHOUSE_FUZZ_SHRINK=1): a failure is reported in seconds, not minutes
PHASES = [p for p in Phase if p != Phase.shrink or os.environ.get("ROUNDHOUSE_FUZZ_SHRINK")]
EXAMPLES = int(os.environ.get("ROUNDHOUSE_FUZZ_EXAMPLES", "20"))
for machine, examples in ((BotFuzz, EXAMPLES), (SteamFuzz, max(1, EXAMPLES // 2))):
    machine.TestCase.settings = settings(max_examples=examples, stateful_step_count=20, phases=PHASES,
                                         deadline=None, derandomize=True, database=None,
                                         suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("machine", [BotFuzz, SteamFuzz], ids=["1830", "steam"])
def test_bot_fuzz(caplog, machine):
    caplog.set_level(logging.CRITICAL, logger="bot.service")  # contained engine failures are logged
    start = FIGURES["commands"]
    machine.TestCase("runTest").runTest()
    print(f"\nfuzz: {json.dumps(FIGURES)}")
    assert FIGURES["commands"] - start > 50
