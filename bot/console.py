"""Local console: the bot's commands as text lines, on the same engine and database, no Discord needed.

    python -m bot                      # without DISCORD_TOKEN; ROUNDHOUSE_DB overrides ./roundhouse.db
    python -m bot --lang ru            # the console in Russian (games opened here too, unless `lang=en`)
    echo "new 1830 Ann Bob Cid lang=ru" | python -m bot
    printf 'new steam Ann Bob Cid map=rust_belt mode=standard seed=5\nstart\nlegal\n' | python -m bot

Pictures are written to ./out/ (ROUNDHOUSE_OUT) and their paths printed.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import sys
import threading
from pathlib import Path
from typing import IO, Any

from bot.access import Caller
from bot.config import Config
from bot.db import Database
from bot.errors import UserError
from bot.names import base_name, option_names
from bot.service import Reply, Service, UndoRequest
from bot.session import Engine, Session
from i18n import LANGUAGES, N_, _, ngettext, normalize, speaking, use

CONSOLE_MEMBER_BASE = 1000  # console seats are members 1001, 1002, ... (stable per name within a game)

HELP = N_("""\
Roundhouse console. Commands (one per line; `#` starts a comment):
  help                                  this text
  new TITLE NAME [NAME ...] [seed=N] [lang=en|ru] [SETTING=VALUE ...]
                                        open a game with these players (the first one hosts), e.g.
                                        `new 1830 Ann Bob Cid`, `new 18MEX Ann Bob Cid rules=delay_minor_close`,
                                        `new steam Ann Bob Cid map=rust_belt mode=standard seed=5`
  join NAME | leave NAME | kick NAME    lobby seats (current game)
  start                                 start the current game (seat order shuffled from the game's seed)
  seats                                 the seats in play order, with the numbers `as SEAT` takes
  games                                 list open games
  use ID                                switch to game ID
  titles                                the games this bot hosts, with their settings
  status [PLACE] | history [N] [PAGE]   read-only views (history: N actions a page, 1 the latest;
                                        status PLACE: a Steam board around that city, town or hex)
  legal                                 what the acting seat may do, each as the command to type
  as SEAT ACTION ...                    act for a seat (its number, see `seats`, or its name); the game's commands:
                                        (1817's loans, conversions, mergers and offers show what they do
                                        first: `yes` sends it, `no` drops it; `--yes` sends it at once)
    18xx: as 1 bid CA 165        as 2 par PRR 67         as 3 buy PRR_2       as 1 sell PRR_1+PRR_2
          as 2 pass              as 1 lay E19 57-0 1     as 1 token 57-1-0#0  as 1 run best
          as 1 dividend payout   as 1 train 2-0 [PRICE] [VARIANT]             as 1 discard 2-0
          as 1 private DH 140    as 1 bankrupt           as 1 lay E19 57-0 1 using=CS
          as 1 merge MEX         as 1 assign I12         (run routes: as 1 run "3-0: E19,F20 | F20,G19")
          as 1 token E19 (a hex with one city; else its city and slot: 57-1-0#0)
          as 1 auto pass         as 1 auto pass-always   as 1 auto buy PRR 3 yes     as 1 auto off
                                 (standing orders for your stock-round turns: pass, or buy until N shares)
          as 1 auto auction private=MH max=150   as 1 auto auction private=SV buy_at=10 then_pass=yes
                                 (in the opening auction: bid on a private up to a sum, or buy it once cheap)
          1860: as 1 bid 55 (the first choice of the lots)   as 1 private YHC (sold to the bank)
                as 1 run "3+2-0 halts=1: F2,F4 | F4,G5" (how many halts count as stops)
    Steam: as 1 shares 2         as 1 bid 3              as 1 tile 4          as 1 build 5,3 lay:22:0
          as 1 urbanize 4,10 blue@E                     as 1 grow A 1,11     as 1 done
          as 1 deliver 0,19:blue 0,17:1-3 [income|vp]   as 1 loco            as 2 score vp
    (options may also be given as name=value; `legal` shows every move as its command)
  undo SEAT [N]                         take back actions (N>1 needs everyone: `agree SEAT` each)
  agree SEAT | refuse SEAT              vote on an undo request
  accept SEAT | decline SEAT            answer a trade offer for your company's train or private
  export [FILE]                         write the 18xx.games log (default: out/game<ID>.json)
  import FILE [NAME ...]                continue an 18xx.games game (names for its players, in order)
  remind HOURS [EVERY] | remind off     reminder settings of the current game
  quit                                  leave
""")


# The service words its replies for Discord; on the console they name the console's commands instead.
DISCORD_TERMS = (
    (N_("Press **Join** or use `/game join`; the host starts with `/game start`."),
     N_("More players: `join NAME`; then `start`.")),
    (N_("the host can `/game replace` a player"), N_("a seat can be handed over")),
)
SLASH_HINT = re.compile(r"\(/(?:\w+ )?(\w+)\)")  # `(/par)`, `(/steam shares)` in a hint: the command to type
BOLD = re.compile(r"\*\*(.+?)\*\*")


def plain(text: str) -> str:
    """A reply as the console shows it: no Discord markup, the console's commands."""
    for discord, console in DISCORD_TERMS:
        for lang in LANGUAGES:  # the game's language, whatever the console's
            with speaking(lang):
                text = text.replace(_(discord), _(console))
    return BOLD.sub(r"\1", SLASH_HINT.sub(r"(`as SEAT \1 …`)", text))


class Console:
    def __init__(self, service: Service, out_dir: str | Path = "out", stdout: IO[str] | None = None,
                 language: str = "en"):
        self.svc = service
        self.out = Path(out_dir)
        self.stdout = stdout or sys.stdout
        self.game_id: int | None = None
        self.preview: tuple[int, Caller, int] | None = None  # an action shown, waiting for `yes`: game, seat, token
        self.language = normalize(language)  # the console's own words, and new games' unless `lang=` says
        use(self.language)

    def caller(self, member_id: int, name: str = "") -> Caller:
        return Caller(member_id, name, language=self.language)

    def say(self, text: str) -> None:
        print(text, file=self.stdout, flush=True)

    async def seats_line(self, game_id: int) -> str:
        """`Seats: 1. Dee, 2. Ann, …` — the numbers `as`, `undo` and `agree` take."""
        seats = await self.svc.db.seats(game_id)
        return _("Seats: {seats}.", seats=", ".join(f"{i}. {s.name}" for i, s in enumerate(seats, start=1)))

    # ------------------------------------------------------------------ output
    def show(self, reply: Reply | None) -> None:
        if reply is None:
            return
        text = reply.text
        for m in reply.mention:  # console: show names instead of Discord mentions
            text = text.replace(f"<@{m}>", f"@{self._member_name(reply.game_id, m)}")
        self.say(plain(text))
        if reply.pictures:
            self.out.mkdir(parents=True, exist_ok=True)
            for p in reply.pictures:
                path = self.out / p.name
                path.write_bytes(p.data)
                self.say(_("  picture: {path}", path=path))
        if reply.file:
            self.out.mkdir(parents=True, exist_ok=True)
            path = self.out / reply.file[0]
            path.write_bytes(reply.file[1])
            self.say(_("  file: {path}", path=path))

    def _member_name(self, game_id: int | None, member: int) -> str:
        lv = self.svc._live.get(game_id) if game_id is not None else None
        if lv:
            s = lv.seat_of_member(member)
            if s:
                return s.name
        return str(member)

    # ------------------------------------------------------------------ helpers
    async def _current(self) -> int:
        if self.game_id is None:
            rows = await self.svc.db.list_games(statuses=("lobby", "active", "finished"))
            if not rows:
                raise UserError(_("No game yet: `new 1830 Ann Bob Cid`."))
            self.game_id = rows[-1].id
        return self.game_id

    async def _seat_member(self, who: str) -> int:
        gid = await self._current()
        seats = await self.svc.db.seats(gid)
        if who.isdigit() and 1 <= int(who) <= len(seats):
            return seats[int(who) - 1].member_id
        for s in seats:
            if s.name.lower() == who.lower():
                return s.member_id
        raise UserError(_("No seat `{who}` (use a seat number 1-{count} or a name).", who=who, count=len(seats)))

    @staticmethod
    def _member_for(game_id: int, index: int) -> int:
        return CONSOLE_MEMBER_BASE * game_id + index

    async def _seat(self, who: str) -> Caller:
        """The member of a seat (number or name) as a caller: the console plays every seat."""
        member = await self._seat_member(who)
        return self.caller(member)

    async def _host(self, game_id: int) -> Caller:
        row = await self.svc.db.get_game(game_id)
        assert row is not None
        return self.caller(row.created_by)

    # ------------------------------------------------------------------ commands
    async def run_line(self, line: str) -> bool:
        """Run one command line. Returns False on `quit`."""
        line = line.strip()
        if not line or line.startswith("#"):
            return True
        try:
            words = shlex.split(line)
        except ValueError as e:
            self.say(f"! {e}")
            return True
        cmd, args = words[0].lower(), words[1:]
        if cmd not in ("yes", "no"):
            self.preview = None  # a preview is answered by the next line or not at all
        try:
            if cmd in ("quit", "exit"):
                return False
            await self.dispatch(cmd, args)
        except UserError as e:
            self.say(plain(f"! {e}"))
        return True

    async def dispatch(self, cmd: str, args: list[str]) -> None:
        svc = self.svc
        if cmd == "help":
            self.say(_(HELP))
        elif cmd == "new":
            usage = "new TITLE NAME [NAME ...] [seed=N] [lang=en|ru] [SETTING=VALUE ...]"
            if len(args) < 2:
                raise UserError(usage)
            seed, language = None, self.language
            settings = {}
            for w in [w for w in args if "=" in w]:
                key, value = w.split("=", 1)
                if key.lower() == "seed":
                    if not value.isdigit():
                        raise UserError(_("seed=N takes a whole number."))
                    seed = int(value)
                elif key.lower() == "lang":
                    if value.lower() not in LANGUAGES:
                        raise UserError(_("lang= takes one of {languages}.", languages=", ".join(LANGUAGES)))
                    language = value.lower()
                else:
                    settings[key.lower()] = value
                args.remove(w)
            if len(args) < 2:
                raise UserError(usage)
            title, names = args[0], args[1:]
            row = await svc.new_game(self.caller(0, names[0]), title=title, seed=seed, settings=settings,
                                     language=language)
            # seats are members game*1000+1, +2 ...; the host's seat goes to the first of them
            await svc.replace(row.id, self.caller(0), 0, self._member_for(row.id, 1), names[0])
            for i, name in enumerate(names[1:], start=2):
                await svc.join(row.id, self.caller(self._member_for(row.id, i), name))
            self.game_id = row.id
            self.say(plain(await svc.lobby_text(row.id)))
        elif cmd == "join":
            gid = await self._current()
            n = len(await svc.db.seats(gid)) + 1
            self.show(await svc.join(gid, self.caller(self._member_for(gid, n + 50),
                                                      " ".join(args) or _("Player {n}", n=n))))
        elif cmd == "leave":
            gid = await self._current()
            self.show(await svc.leave(gid, await self._seat(" ".join(args))))
        elif cmd == "kick":
            gid = await self._current()
            self.show(await svc.kick(gid, await self._host(gid), await self._seat_member(" ".join(args))))
        elif cmd == "start":
            gid = await self._current()
            self.show(await svc.start(gid, await self._host(gid)))
        elif cmd == "titles":
            anything = _("any")
            for t in svc.engine.titles.values():
                extra = "; ".join(
                    f"{st.name}: {', '.join(v for _n, v in st.choices) or anything}"
                    + (_(" (default {value})", value=st.default) if st.default else "") for st in t.settings)
                self.say(_("  {name} — {title}, {least}-{most} players", name=t.name, title=t.display_name,
                           least=t.player_range[0], most=t.player_range[1]) + (f"; {extra}" if extra else ""))
        elif cmd in ("games", "list"):
            self.show(await svc.list_games(self.caller(0)))
        elif cmd == "use":
            if not args or not args[0].isdigit():
                raise UserError("use ID")
            row = await svc.resolve(self.caller(0), game_id=int(args[0]))
            self.game_id = row.id
            self.say(_("Using game #{game}.", game=row.id))
        elif cmd == "status":
            gid = await self._current()
            self.show(await svc.status(gid, await self._host(gid), place=" ".join(args) or None))
            self.say(await self.seats_line(gid))
        elif cmd == "seats":
            self.say(await self.seats_line(await self._current()))
        elif cmd == "history":
            gid = await self._current()
            self.show(await svc.history(gid, self.caller(0), args[0] if args else 10,
                                        args[1] if len(args) > 1 else 1))
        elif cmd == "legal":
            gid = await self._current()
            lv = await svc.live(gid)
            if lv.session is None:
                raise UserError(_("The game has not started."))
            for line in await asyncio.to_thread(self.legal_lines, lv.session):
                self.say(f"  {line}")
        elif cmd == "as":
            if len(args) < 2:
                raise UserError("as SEAT ACTION ...")
            who = await self._seat(args[0])
            gid = await self._current()
            confirmed = "--yes" in args[2:]  # sent without showing its preview first
            kind, opts = self.parse_action(await self._family(gid), args[1], [w for w in args[2:] if w != "--yes"])
            reply = await svc.act(gid, who, kind, opts, publish=self._publish, confirmed=confirmed)
            if reply.private:  # its preview: `yes` sends it, `no` (or any other command) drops it
                self.preview = (gid, who, int(reply.buttons[0].split(":")[1]))
                self.say(plain(reply.text))
                self.say(_("Send it? `yes` or `no`."))
        elif cmd in ("yes", "no"):
            if self.preview is None:
                raise UserError(_("Nothing is waiting for a yes or no."))
            gid, who, token = self.preview
            self.preview = None
            if await svc.confirm(gid, who, token, cmd == "yes", publish=self._publish) is None:
                self.say(_("Cancelled: nothing was done."))
        elif cmd == "undo":
            if not args:
                raise UserError("undo SEAT [N]")
            gid = await self._current()
            who = await self._seat(args[0])
            res = await svc.undo(gid, who, args[1] if len(args) > 1 else 1, publish=self._publish)
            if isinstance(res, UndoRequest):
                self.say(ngettext("Undo of {n} action requested; the others must `agree SEAT`.",
                                  "Undo of {n} actions requested; the others must `agree SEAT`.", res.steps))
        elif cmd in ("agree", "refuse"):
            if not args:
                raise UserError(f"{cmd} SEAT")
            gid = await self._current()
            who = await self._seat(args[0])
            req = await svc.db.undo_request(gid)
            if req is None:
                raise UserError(_("No undo request is open."))
            await svc.vote_undo(gid, who, cmd == "agree", req.token, publish=self._publish)
        elif cmd in ("accept", "decline"):
            if not args:
                raise UserError(f"{cmd} SEAT")
            gid = await self._current()
            offer = await svc.open_offer(gid)
            if offer is None:
                raise UserError(_("No trade offer is open."))
            await svc.answer_offer(gid, await self._seat(args[0]), cmd == "accept", offer.token,
                                   publish=self._publish)
        elif cmd == "export":
            gid = await self._current()
            name, data = await svc.export(gid, self.caller(0))
            path = Path(args[0]) if args else self.out / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            self.say(_("Exported to {path}", path=path))
        elif cmd == "import":
            if not args:
                raise UserError("import FILE [NAME ...]")
            try:
                data = Path(args[0]).read_bytes()
            except OSError as e:
                raise UserError(_("Cannot read {file}: {why}.", file=args[0], why=e.strerror)) from None
            parsed, _raw = svc.parse_log(data)
            names = args[1:]
            row_id_guess = (await svc.db.list_games(statuses=("lobby", "active", "finished", "aborted")))
            nxt = (row_id_guess[-1].id + 1) if row_id_guess else 1
            members: list[tuple[int, str] | None] = [
                (self._member_for(nxt, i), names[i - 1] if i <= len(names) else (p.name or _("Player {n}", n=i)))
                for i, p in enumerate(parsed.players, start=1)]
            row, reply = await svc.import_game(self.caller(self._member_for(nxt, 1)), data, members)
            self.game_id = row.id
            self.show(reply)
        elif cmd == "remind":
            gid = await self._current()
            host = await self._host(gid)
            if not args or args[0] == "off":
                self.show(await svc.set_remind(gid, host, None))
            else:
                self.show(await svc.set_remind(gid, host, args[0], args[1] if len(args) > 1 else None))
        else:
            raise UserError(_("Unknown command `{command}`; try `help`.", command=cmd))

    async def _publish(self, reply: Reply) -> None:
        self.show(reply)

    async def _family(self, game_id: int) -> type[Session]:
        row = await self.svc.db.get_game(game_id)
        assert row is not None
        return self.svc.engine.title(row.title).family

    @staticmethod
    def command_words(session: Session, kind: str, opts: dict[str, Any]) -> str:
        """The options as typed: in the command's order while none is left out, then as name=value (a bid
        for 1860's first choice names a price and no company)."""
        cmd = session.commands.get(kind)
        names = [o.name for o in cmd.options] if cmd is not None else list(opts)
        words, gap = [], False
        for name in names + [n for n in opts if n not in names]:
            if name not in opts:
                gap = True
                continue
            value = shlex.quote(str(opts[name]))
            words.append(f"{name}={value}" if gap else value)
        return " ".join(words)

    @staticmethod
    def legal_lines(session: Session) -> list[str]:
        """Each legal action as the command that sends it, with its label."""
        out = []
        for a, label in session.legal_labels():
            try:
                kind, opts = session.command_for(a)
            except ValueError:
                continue
            out.append(f"{kind} {Console.command_words(session, kind, opts)}".rstrip() + f"    # {label}")
        return out

    @staticmethod
    def parse_action(family: type[Session], kind: str, words: list[str]) -> tuple[str, dict[str, Any]]:
        kind = base_name(kind)  # the names of the commands (and options) in every language
        if kind not in family.commands:
            raise UserError(_("Unknown action `{action}`; actions: {actions}.", action=kind,
                              actions=", ".join(family.commands)))
        names = [o.name for o in family.commands[kind].options]
        types = {o.name: o.kind for o in family.commands[kind].options}
        command = " ".join(x for x in (family.group, kind) if x)
        typed = option_names(names, command)
        opts: dict[str, Any] = {}
        positional = []
        for w in words:
            if "=" in w and w.split("=", 1)[0] in typed:
                k, v = w.split("=", 1)
                opts[typed[k]] = v
            else:
                positional.append(w)
        if len(names) == 1 and positional:  # a single option takes the whole rest (e.g. routes as text)
            opts.setdefault(names[0], " ".join(positional))
            positional = []
        free = [n for n in names if n not in opts]
        for n, v in zip(free, positional, strict=False):
            opts[n] = v
        if len(positional) > len(free):
            raise UserError(_("Too many values for {action}.", action=kind))
        for k, v in list(opts.items()):
            if types.get(k) is int:
                try:
                    opts[k] = int(str(v).lstrip("$£"))
                except ValueError:
                    raise UserError(_("{option} must be a number.", option=k)) from None
        return kind, opts


def _lines(stdin: IO[str]) -> asyncio.Queue[str]:
    """Lines of `stdin` ("" at its end), read by a daemon thread: Ctrl-C never waits for a pending read."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str] = asyncio.Queue()

    def read() -> None:
        while True:
            line = stdin.readline()
            loop.call_soon_threadsafe(queue.put_nowait, line)
            if not line:
                return

    threading.Thread(target=read, name="console-stdin", daemon=True).start()
    return queue


async def run_console(config: Config, stdin: IO[str] | None = None, stdout: IO[str] | None = None,
                      engine: Any | None = None) -> None:
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    async with Database(config.db_path) as db:
        svc = Service(db, engine or Engine(), pictures=config.pictures, **config.memory())
        _, broken = await svc.resume_all()
        console = Console(svc, config.out_dir, stdout, language=config.language)
        for game_id, why in broken.items():
            console.say(_("! game #{game} cannot be loaded: {why}", game=game_id, why=why))
        interactive = stdin.isatty()
        if interactive:
            console.say(_("Roundhouse console on {path} — `help` lists commands.", path=config.db_path))
        lines = _lines(stdin)
        while True:
            if interactive:
                print("> ", end="", file=stdout, flush=True)
            line = await lines.get()
            if not line:
                break
            if not await console.run_line(line):
                break


def main(config: Config) -> None:
    asyncio.run(run_console(config))
