"""Companies picture: corporations and minors, players, privates, bank, phase and the train depot, as tables.

With the engine's facts (`game.facts()`: operators with their certificates and trains, certificate limits,
a title's merger state) it also shows what the trace summary cannot: obsolete trains (marked `*`),
certificates smaller than a share (18MEX's NdM 5%: `NdM 20+5`), reserved certificates, each player's
certificates against the limit, what a closed minor became, and the NdM merger.
"""

from __future__ import annotations

from typing import NamedTuple

from PIL import Image, ImageDraw

from engine.core import data
from i18n import N_, NP_, _, pgettext
from i18n.engine_words import end_reason_text, round_text, state_word

from . import colors as C
from .fonts import font
from .market import ZONE_ABBREVIATIONS
from .png import to_png

ROW_H = 34
# a part taller than a phone's screen is at its width (390 x 844 pt: 1,385 px tall at 640 wide) would be fitted
# to the screen by its height, its letters smaller: its rows are denser instead (1817 with all twenty
# corporations started: its shares part 1,646 -> 1,352 px, players 1,608 -> 1,335)
PHONE_SHAPE, DENSE_ROW_H = 844 / 390, 27
PAD = 10
HEAD_BG = (60, 60, 60)
ZEBRA = ((255, 255, 255), (242, 240, 234))
GREY = (140, 140, 140)
# the notes under the corporations (1817's loans and interest, who has not started, obsolete trains): as large
# as the header's lines and darker than a closed company's grey (16 px light grey read ~6 px on a phone)
NOTE_PX, NOTE_LINE, NOTE_INK = 18, 28, (70, 70, 70)
TROUBLE = (178, 0, 0)  # a corporation's state that changes how it plays (receivership, insolvent, bankrupt)
CALM_STATES = {"relaunched", "nationalised"}
UNLIMITED_CERTS = 999  # a certificate limit this high stands for none
# widest table: the picture is then ~640 px wide, so a phone showing it 400 px wide writes its 17 px letters
# ~10.5 px high (at ~1000 px they were ~7 px, unreadable until opened); a wider table is split or wrapped
PHONE_TABLE = 600
# a corporations' table too wide for a phone goes in parts, each row led by the company: how it runs, how it
# is held, and (1817) how it is financed
CORPORATION_PARTS = ((N_("Corporations"), ("President", "State", "Price", "Cash", "Trains", "Last run")),
                     (N_("Corporations: shares, stations, privates"), ("Par", "IPO", "Pool", "Tokens left", "Privates")),
                     (N_("Corporations: size, loans, shorts"), ("Size", "Loans", "Interest", "Shorts")))
# and the players' table: their money and turn, then what they hold, each row led by the player
PLAYER_PARTS = ((N_("Players"), ("Turn", "Cash", "Value", "Certs")),
                (N_("Players: certificates, privates"), ("Certificates (P: president)", "Privates")))
MANY_CORPORATIONS = 12  # more than this: those never started are named in a line, not given rows
TILE_COLOURS = (NP_("tiles", "yellow"), NP_("tiles", "green"), NP_("tiles", "brown"), NP_("tiles", "gray"))


def _player_names(summary: dict) -> dict:
    return {p["id"]: str(p.get("name") or _("Player {n}", n=p["id"])) for p in summary.get("players", [])}


def _owner_name(owner, names: dict) -> str:
    if owner is None:
        return _("bank")
    return names.get(owner, str(owner))


class _Money:
    """Money as the title writes it: the players' (`pounds`) and the companies' (`credits`: 1860's credits;
    elsewhere the same currency)."""

    def __init__(self, title_data: dict, facts: dict):
        meta = title_data.get("meta") or {}
        self.form = facts.get("currency") or meta.get("currency_format") or "$%s"
        self.company_form = facts.get("company_currency") or meta.get("company_currency_format_str") or self.form

    def __call__(self, v) -> str:
        return "" if v is None else self.form.replace("%s", str(v))

    def credits(self, v) -> str:
        return "" if v is None else self.company_form.replace("%s", str(v))


def _trains_text(ids: list[str], obsolete: set[str] = frozenset()) -> str:
    return " ".join(t.rsplit("-", 1)[0] + ("*" if t in obsolete else "") for t in ids)


def _obsolete(facts: dict) -> set[str]:
    return {t["id"] for op in (facts.get("operators") or {}).values() for t in op.get("trains") or []
            if t.get("obsolete")}


def _holdings(facts: dict, sym: str, pid, pct: int) -> str:
    """`NdM 20+5` where a player holds a certificate smaller than one share, else `NdM 25`."""
    op = (facts.get("operators") or {}).get(sym) or {}
    unit = op.get("share_percent") or 10
    held = sorted((c["percent"] for c in op.get("certificates") or [] if c.get("owner") == pid), reverse=True)
    if held and min(held) < unit and len(held) > 1 and min(held) > 0:
        return f"{sym} {'+'.join(str(p) for p in held)}"
    if pct < 0:  # shorts (1817)
        return _("{corporation} {percent} (short)", corporation=sym, percent=pct)
    return f"{sym} {pct}"


def _reserved(facts: dict, sym: str) -> int:
    op = (facts.get("operators") or {}).get(sym) or {}
    return sum(c["percent"] for c in op.get("certificates") or [] if c.get("reserved") and c.get("owner") == "ipo")


def _merger_text(facts: dict) -> str:
    merger = facts.get("merger")
    if not merger:
        return ""
    if merger.get("candidates"):
        return _("NdM merger: {candidates} may merge", candidates=", ".join(merger["candidates"]))
    if merger.get("merged"):
        return _("{corporation} merged into the NdM", corporation=merger["merged"])
    if merger.get("cert_limit_raised"):
        return _("No NdM merger: certificate limit +1")
    return ""


def _train_price(t: dict, money: _Money) -> str:
    """"$1100", or with a trade-in discount "$1100, or $800 trading in a 4/5/6"."""
    price = t.get("price")
    if price is None:
        return ""
    discount = t.get("discount") or {}
    by_price: dict[int, list[str]] = {}
    for name, off in discount.items():
        by_price.setdefault(price - int(off), []).append(str(name))
    offers = [_("{price} trading in a {trains}", price=money.credits(p), trains="/".join(names))
              for p, names in sorted(by_price.items())]
    return _(", or ").join([money.credits(price)] + offers)


def _next_text(summary: dict, names: dict) -> str:
    """`Next: Ann`, or for an operator the player who acts for it: `Next: NYNH (Ann)`."""
    nxt = summary["next"]
    operator = (summary.get("corporations") or {}).get(nxt) or (summary.get("minors") or {}).get(nxt) or {}
    acting = operator.get("pres", operator.get("owner"))
    if acting is None:
        return _("Next: {name}", name=names.get(nxt, nxt))
    return _("Next: {name} ({president})", name=nxt, president=_owner_name(acting, names))


def _next_to_go(summary: dict, trains: dict, upcoming: list[str]) -> list[str]:
    """`The first D-train rusts the 4-trains of B&O, ERIE.`: for each train still to come (in the depot's
    order) that rusts, or makes obsolete, trains the operators hold now, which and whose."""
    held: dict[str, list[str]] = {}  # train name -> its holders, in table order
    for group in ("corporations", "minors"):
        for sym, op in (summary.get(group) or {}).items():
            for name in dict.fromkeys(t.rsplit("-", 1)[0] for t in op.get("trains") or []):
                held.setdefault(name, []).append(sym)
    lines = []
    for coming in upcoming:
        for name, holders in held.items():
            t = trains.get(name) or {}
            words = dict(train=coming, rusted=name, holders=", ".join(holders))
            if str(t.get("rusts_on")) == coming:
                lines.append(_("The first {train}-train rusts the {rusted}-trains of {holders}.", **words))
            elif str(t.get("obsolete_on")) == coming:
                lines.append(_("The first {train}-train makes the {rusted}-trains of {holders} obsolete.", **words))
    return lines


def _bank_text(summary: dict, money: _Money, facts: dict) -> str:
    bank = summary.get("bank")
    if bank is None or facts.get("unlimited_bank"):
        return ""
    broken = bank <= 0 or summary.get("end_reason") == "bank"
    pounds = facts.get("bank_pounds_left")
    if pounds is not None and not broken:
        # 1860's table keeps the players' pounds apart from the companies' credits; 18xx.games counts one total
        return _("Bank £{pounds} left ({money} with credits, as 18xx.games counts)", pounds=pounds, money=money(bank))
    if not broken:
        return _("Bank {money}", money=money(bank))
    short = " " + _("({money} short)", money=money(-bank)) if bank < 0 else ""
    if summary.get("finished"):
        return _("Bank broken{short}", short=short)
    return _("Bank broken{short}: the game ends after this set of operating rounds", short=short)


class Emphasis(NamedTuple):
    """A table cell drawn bold in a colour of its own."""
    text: str
    colour: tuple[int, int, int]


class _Table:
    def __init__(self, title: str, columns: list[tuple[str, int, str]]):
        # column: (header, width, align); a column is as wide as its header at least (Russian ones are longer)
        head = font(15, "bold")
        self.columns = [(name, max(w, int(head.getlength(pgettext("column", name))) + 2 * PAD - 3), align)
                        for name, w, align in columns]
        self.title, self.rows, self.row_h = title, [], ROW_H

    def add(self, cells: list, style: dict | None = None):
        """A row; each column grows to hold its cells whole (Russian words are longer: `приоритет, ходит`,
        `100% (10 резерв)`), a phone-wide table being split or wrapped afterwards."""
        style = style or {}
        self.rows.append((cells, style))
        body = font(17, "bold" if style.get("bold") else "regular")
        for k, ((name, w, align), value) in enumerate(zip(self.columns, cells, strict=False)):
            bold = isinstance(value, Emphasis) or (k == 0 and style.get("entity"))
            text = value.text if isinstance(value, Emphasis) else str(value)
            f = font(17, "bold") if bold else body
            if len(text) * 0.9 * f.size > w - 2 * PAD + 4:  # no glyph is wider than 0.9 em: short texts fit
                need = int(f.getlength(text)) + 2 * PAD
                if need > w:
                    self.columns[k] = (name, need, align)

    @property
    def width(self) -> int:
        return sum(w for _, w, _ in self.columns)

    @property
    def height(self) -> int:
        return 30 + self.row_h * (len(self.rows) + 1) + 16

    def draw(self, d: ImageDraw.ImageDraw, x0: int, y0: int, title_entity) -> None:
        body, bold, head = font(17), font(17, "bold"), font(15, "bold")
        d.text((x0, y0), _(self.title), font=font(21, "bold"), fill=C.BLACK)
        y, h = y0 + 30, self.row_h
        d.rectangle((x0, y, x0 + self.width, y + h), fill=HEAD_BG)
        x = x0
        for name, w, align in self.columns:
            self._cell(d, x, y, w, h, pgettext("column", name), head, C.WHITE, align)
            x += w
        i = -1
        for cells, style in self.rows:
            y += h
            i += not style.get("more")  # a row that goes on from the one above keeps its shade
            d.rectangle((x0, y, x0 + self.width, y + h), fill=ZEBRA[i % 2])
            x = x0
            for k, ((_name, w, align), value) in enumerate(zip(self.columns, cells, strict=False)):
                if k == 0 and style.get("entity"):
                    fill, text = title_entity(style["entity"])
                    d.rounded_rectangle((x + 4, y + 4, x + w - 4, y + h - 4), radius=8, fill=fill,
                                        outline=C.BLACK)
                    self._cell(d, x, y, w, h, str(value), bold, text, "c")
                elif isinstance(value, Emphasis):
                    self._cell(d, x, y, w, h, value.text, bold, value.colour, align)
                else:
                    colour = GREY if style.get("dim") else C.BLACK
                    self._cell(d, x, y, w, h, str(value), bold if style.get("bold") else body, colour, align)
                x += w
        d.rectangle((x0, y0 + 30, x0 + self.width, y + h), outline=(120, 120, 120))

    def part(self, title: str, keep: list[int]) -> _Table:
        """The same rows with only the columns at `keep`."""
        out = _Table(title, [self.columns[k] for k in keep])
        for cells, style in self.rows:
            out.add([cells[k] if k < len(cells) else "" for k in keep], style)
        return out

    @staticmethod
    def _cell(d, x, y, w, h, text, f, fill, align):
        room = w - 2 * PAD + 4
        # no glyph of these fonts is wider than 0.9 em: short texts need no measuring
        while text and len(text) * 0.9 * f.size > room and d.textlength(text, font=f) > room:
            text = text[:-2] + "…"
        if align == "r":
            d.text((x + w - PAD, y + h / 2), text, font=f, fill=fill, anchor="rm")
        elif align == "c":
            d.text((x + w / 2, y + h / 2), text, font=f, fill=fill, anchor="mm")
        else:
            d.text((x + PAD, y + h / 2), text, font=f, fill=fill, anchor="lm")


# the companies picture in parts for a phone, each posted as a picture of its own: the corporations (with the
# header and the notes under them); where they come in three tables (1817's size and loans) their shares and
# loans; then the players, privates and train depot (each part under the title line alone). A phone's viewer
# fits a picture to its screen, width and height: a 640 × 2,880 one (1817 late) is shown ~190 pt wide on a
# 390 × 844 pt screen, its letters ~5 pt; 640 px wide and up to ~1,385 px tall (the screen's shape), ~375 pt
# wide and ~10 pt.
PARTS = ("corporations", "shares", "players")


def draw_companies(title: str, summary: dict, facts: dict | None = None, part: str | None = None) -> bytes | None:
    """The companies picture (640 px wide; 1,770-2,880 px tall late in a game), or one of its `PARTS` (None
    for the `shares` part of a title whose corporations fit one picture: 1830, 1860, 18MEX)."""
    sheet = _sheet(title, summary, facts or {})
    if part == "corporations":
        return to_png(sheet.paint(sheet.head_lines, sheet.corporations))
    if part == "shares":
        return to_png(sheet.paint([], sheet.shares)) if sheet.shares else None
    if part == "players":
        return to_png(sheet.paint([], sheet.holdings))
    if part is not None:
        raise ValueError(f"no companies part {part!r}; the parts are {', '.join(PARTS)}")
    return to_png(sheet.paint(sheet.head_lines, sheet.corporations + sheet.shares + sheet.holdings))


class _Sheet(NamedTuple):
    """The companies picture laid out: its width, title and header lines, and the blocks (height, how to draw
    it at a height) of the corporations, of their shares and loans where those have a picture of their own (else
    none), and of the players, privates and depot."""
    width: int
    title_line: str
    head_lines: list[str]
    corporations: list
    shares: list
    holdings: list

    def paint(self, head_lines: list[str], blocks: list) -> Image.Image:
        height = 20 + 40 + 32 * len(head_lines) + sum(h for h, _draw in blocks) + 10
        img = Image.new("RGB", (self.width, height), C.WHITE)
        d = ImageDraw.Draw(img)
        d.text((20, 14), self.title_line, font=font(22, "bold"), fill=C.BLACK)
        for i, line in enumerate(head_lines):
            d.text((20, 46 + 32 * i), line, font=font(18), fill=C.BLACK)
        y = 54 + 32 * len(head_lines)
        for h, draw in blocks:
            draw(d, y)
            y += h
        return img


def _sheet(title: str, summary: dict, facts: dict) -> _Sheet:
    d_ = data.load(title, tuple(facts.get("optional_rules") or ()))  # 1817's Volatility: its own privates
    money = _Money(d_, facts)
    names = _player_names(summary)
    corps = summary.get("corporations", {})
    obsolete = _obsolete(facts)
    reserved = {sym: _reserved(facts, sym) for sym in corps}
    show_rev = any("revenue" in c or "last_revenue" in c for c in corps.values())

    # a title whose corporations can be insolvent, in receivership... (1860) says which each is in
    states = {sym: (op.get("states") or []) for sym, op in (facts.get("operators") or {}).items()}
    show_states = bool(facts.get("operator_states")) or any(states.values())
    # headings shown with pgettext("column", ...), titles with _()
    cols = [(NP_("column", "Corp"), 90, "c"), (NP_("column", "President"), 110, "l")]
    if show_states:
        # wide enough for the longest state shown (receivership and insolvent at once), never cut short
        bold = font(17, "bold")
        longest = max((bold.getlength(", ".join(state_word(x) for x in s)) for s in states.values()), default=0)
        cols.append((NP_("column", "State"), max(130, int(longest) + 2 * PAD + 6), "l"))
    ops = facts.get("operators") or {}
    phase_limit = next((p.get("train_limit") for p in d_.get("phases", []) if p["name"] == str(summary.get("phase"))),
                       None)
    # a title with loans and corporations of several sizes (1817): size, loans against the limit, the
    # interest they cost a round, and the shorts against each
    loans = facts.get("loans") or {}
    if loans:
        notes_zone = _("Price: liq. / acq. in the liquidation or acquisition zone")
    # each column as wide as its header at least and grown to its longest cell
    cols += [(NP_("column", "Price"), 70, "r"), (NP_("column", "Par"), 60, "r")]
    if loans:
        cols += [(NP_("column", "Size"), 60, "r"), (NP_("column", "Loans"), 60, "r"),
                 (NP_("column", "Interest"), 70, "r"), (NP_("column", "Shorts"), 60, "r")]
    cols += [(NP_("column", "Cash"), 70, "r"), (NP_("column", "Trains"), 90, "l"),
             (NP_("column", "Tokens left"), 60, "r"), (NP_("column", "IPO"), 60, "r"),
             (NP_("column", "Pool"), 60, "r"), (NP_("column", "Privates"), 90, "l")]
    if show_rev:
        cols.append((NP_("column", "Last run"), 80, "r"))
    corp_t = _Table(N_("Corporations"), cols)
    # many corporations (1817's twenty): those never started are listed by name under the table
    hidden = [sym for sym, c in corps.items() if not (c.get("ipoed") or c.get("floated") or c.get("price"))
              and not c.get("closed") and not states.get(sym)] if len(corps) > MANY_CORPORATIONS else []
    for sym, c in corps.items():
        if sym in hidden:
            continue
        price = c.get("price")
        started = c.get("ipoed") or c.get("floated") or price
        row = [sym, _owner_name(c.get("pres"), names) if c.get("pres") is not None else ""]
        if show_states:
            shown = states.get(sym) or []
            words = ", ".join(state_word(x) for x in shown)
            row.append(Emphasis(words, TROUBLE) if set(shown) - CALM_STATES else words)
        zone = (ops.get(sym) or {}).get("zone")
        row += [(money(price[0]) if price else "") + (" " + pgettext("zone", ZONE_ABBREVIATIONS[zone])
                                                      if zone in ZONE_ABBREVIATIONS else ""),
                money(c.get("par"))]
        if loans:
            op = ops.get(sym) or {}
            shorts = sum((op.get("shorts") or {}).values())
            row += [op.get("total_shares", "") if started else "",
                    f"{op.get('loans', 0)}/{op.get('max_loans', '')}" if started else "",
                    money.credits(op.get("interest")) if op.get("loans") else "", shorts or ""]
        limit = (ops.get(sym) or {}).get("train_limit")
        own_limit = started and limit is not None and limit != phase_limit  # its own, not the phase's
        row += [money.credits(c.get("cash")),
                " ".join(filter(None, [_trains_text(c.get("trains", []), obsolete),
                                       _("(max {n})", n=limit) if own_limit else ""])),
                c.get("tokens_left", 0),
                f"{c.get('ipo', 0)}%" + (" " + _("({n} res.)", n=reserved[sym]) if reserved.get(sym) else ""),
                f"{c.get('pool', 0)}%", " ".join(c.get("companies", []))]
        if c.get("closed"):
            row[1] = _("closed")
        if show_rev:
            rev = c.get("last_revenue", c.get("revenue"))
            row.append(money.credits(rev) if rev is not None else "")
        corp_t.add(row, {"entity": sym, "dim": (not started or c.get("closed")) and not states.get(sym)})
    for sym, m in summary.get("minors", {}).items():
        op = (facts.get("operators") or {}).get(sym) or {}
        owner = m.get("owner", op.get("owner"))
        into = op.get("closes_into") or {}
        if m.get("closed"):
            who = _("closed → {percent}% {corporation}", **into) if into else _("closed")
        else:
            who = _("{name} (minor)", name=_owner_name(owner, names)) if op else _owner_name(owner, names)
        row = [sym, who, *([""] if show_states else []), "", "", *([""] * 4 if loans else []), money.credits(m.get("cash")),
               _trains_text(m.get("trains", []), obsolete), "", "", "",
               f"→ {into['percent']}% {into['corporation']}" if into and not m.get("closed") else ""]
        corp_t.add(row + ([""] if show_rev else []), {"entity": sym, "dim": m.get("closed")})

    certs = {int(k): v for k, v in (facts.get("players") or {}).items()}
    cols = [(NP_("column", "Player"), 110, "l"), (NP_("column", "Turn"), 90, "l"), (NP_("column", "Cash"), 70, "r"),
            (NP_("column", "Value"), 70, "r"), (NP_("column", "Certificates (P: president)"), 0, "l"),
            (NP_("column", "Privates"), 90, "l")]
    if certs:
        cols.insert(4, (NP_("column", "Certs"), 60, "r"))
    player_t = _Table(N_("Players"), cols)
    for p in summary.get("players", []):
        shares = "  ".join(_holdings(facts, sym, p["id"], pct) + ("P" if (corps.get(sym) or {}).get("pres") == p["id"] else "")
                           for sym, pct in p.get("shares", {}).items())
        marks = []
        if p["id"] == summary.get("priority"):
            marks.append(_("priority"))
        if p.get("bankrupt"):
            marks.append(_("bankrupt"))
        if p["id"] == summary.get("next"):
            marks.append(_("to act"))
        row = [names[p["id"]], ", ".join(marks), money(p.get("cash")), money(p.get("value")), shares,
               " ".join(p.get("privates", []))]
        if certs:
            c = certs.get(p["id"]) or {}
            limit = c.get("cert_limit", "")
            limit = "∞" if isinstance(limit, int) and limit >= UNLIMITED_CERTS else limit  # 1860's late phases
            row.insert(4, f"{c.get('certificates', '')}/{limit}" if c else "")
        player_t.add(row, {"bold": p["id"] == summary.get("next")})

    # none before a corporation has started (1817's twenty named in a line): no tables of headings alone
    corp_tables = [_wrap_column(t, "State", PHONE_TABLE) for t in _split(corp_t, CORPORATION_PARTS)] if corp_t.rows else []
    player_tables = _fit_players(player_t)

    companies = {c["sym"]: c for c in d_.get("companies", [])}
    # 1817's Volatility auction: the pyramid's row of each private for sale, 1 the bottom one (on sale now)
    rows = facts.get("auction_rows") or []
    row_of = {sym: len(rows) - i for i, row in enumerate(rows) for sym in row if sym}
    private_cols = [(NP_("column", "Sym"), 60, "l"), (NP_("column", "Name"), 150, "l"),
                    (NP_("column", "Owner"), 100, "l"), (NP_("column", "Value"), 60, "r"),
                    (NP_("column", "Income"), 60, "r")]
    if row_of:
        private_cols.append((NP_("column", "Row"), 70, "r"))
    private_t = _Table(N_("Private companies"), private_cols)
    open_companies = summary.get("companies", {})
    for sym, owner in open_companies.items():
        c = companies.get(sym, {})
        private_t.add([sym, c.get("name", ""), _owner_name(owner, names), money(c.get("value")),
                       money(c.get("revenue"))] + ([row_of.get(sym, "")] if row_of else []),
                      {"bold": row_of.get(sym) == 1})
    # the closed ones named in a line under the privates and depot, not given rows (in light grey, 18MEX's seven
    # at its end took 14 rows of names wrapped in two)
    closed = summary.get("closed_companies") or []
    closed_note = [_("Closed privates: {companies}", companies=", ".join(closed))] if closed else []

    trains = {t["name"]: t for t in d_.get("trains", [])}
    depot = summary.get("depot", {})
    upcoming = depot.get("upcoming", {})
    prices = {name: _train_price(trains.get(name, {}), money) for name in upcoming}
    train_t = _Table(N_("Train depot"), [(NP_("column", "Train"), 80, "l"), (NP_("column", "Left"), 60, "r"),
                                         (NP_("column", "Price"), 90, "r"), (NP_("column", "Rusts on"), 90, "l")])

    def ends(t: dict) -> str:
        return t.get("rusts_on") or (_("{train} (obsolete)", train=t["obsolete_on"]) if t.get("obsolete_on") else "")

    first = True
    for name, count in upcoming.items():
        t = trains.get(name, {})
        left = _("no limit") if t.get("num") == "unlimited" else count
        train_t.add([name, left, prices[name], ends(t)], {"bold": first})
        first = False
    # trains discarded to the open market: bought at their price from the pool
    pool: dict[str, int] = {}
    for tid in depot.get("pool", []):
        name = tid.rsplit("-", 1)[0]
        pool[name] = pool.get(name, 0) + 1
    for name, count in pool.items():
        t = trains.get(name, {})
        train_t.add([_("pool: {train}-train", train=name), count, money.credits(t.get("price")), ends(t)])

    # header line: round, phase, bank
    phases = {p["name"]: p for p in d_.get("phases", [])}
    phase = phases.get(str(summary.get("phase")), {})
    if phase:
        tiles = ", ".join(pgettext("tiles", t) for t in phase.get("tiles", []))
        phase_text = _("Phase {phase} (train limit {limit}, tiles {tiles})", phase=summary.get("phase", "?"),
                       limit=phase["train_limit"], tiles=tiles)
    else:
        phase_text = _("Phase {phase}", phase=summary.get("phase", "?"))
    head = [round_text(summary.get("round_desc") or summary.get("round") or ""), phase_text,
            _bank_text(summary, money, facts)]
    if summary.get("next") is not None:
        head.append(_next_text(summary, names))
    if summary.get("finished"):
        head.append(_("Game over ({why})", why=end_reason_text(summary.get("end_reason"))))
    head.append(_merger_text(facts))
    # what the next trains rust, under the header (a player weighs it before buying a train or spending)
    next_to_go = _next_to_go(summary, trains, list(upcoming))
    notes = [_("* obsolete: runs once more, then goes")] if obsolete else []
    loans_notes: list[str] = []
    if loans:
        terms = dict(value=money(loans.get("value")), out=loans.get("out"), total=loans.get("total"),
                     rate=money(loans.get("rate")))
        loans_note = _("Loans of {value}: {out} of {total} out, interest {rate} a loan (fixed for this operating "
                       "round).", **terms) if loans.get("fixed") else \
            _("Loans of {value}: {out} of {total} out, interest {rate} a loan.", **terms)
        loans_notes = [loans_note]
        notes.insert(0, notes_zone)
    if hidden:
        notes.append(_("Not started: {corporations}", corporations=", ".join(hidden)))

    # a long private's name, a price with trade-ins, go on over another row rather than widen the picture
    private_t = _wrap_column(private_t, "Name", PHONE_TABLE)
    train_t = _wrap_column(train_t, "Price", PHONE_TABLE)
    # privates and the depot side by side where they fit, else one under the other
    bottom = [private_t] if private_t.rows else []
    side_by_side = not bottom or private_t.width + 40 + train_t.width <= PHONE_TABLE
    bottom_w = private_t.width + 40 + train_t.width if bottom and side_by_side else max(t.width for t in bottom + [train_t])
    width = max([t.width for t in corp_tables + player_tables] + [bottom_w]) + 2 * 20
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    # the header's parts joined by dots, a part wider than the picture (Russian's phase, alone on its line)
    # over lines of its own
    head_lines = [piece for line in wrap_words(measure, [h for h in head[1:] if h], "  ·  ", font(18), width - 40)
                  for piece in (wrap_words(measure, line.split(" "), " ", font(18), width - 40)
                                if measure.textlength(line, font=font(18)) > width - 40 else [line])] + \
        [line for sentence in next_to_go for line in wrap_words(measure, sentence.split(" "), " ", font(18), width - 40)]
    ent = lambda sym: C.entity(title, sym)  # noqa: E731

    def table(t: _Table, x: int = 20):
        return t.height, lambda d, y: t.draw(d, x, y, ent)

    def note(text: str):
        return NOTE_LINE, lambda d, y: d.text((20, y - 10), text, font=font(NOTE_PX), fill=NOTE_INK)

    def noted(texts: list[str]) -> list:
        return [note(line) for text in texts for line in wrap_words(measure, text.split(" "), " ", font(NOTE_PX),
                                                                    width - 40)]

    def holdings() -> list:
        blocks = [table(t) for t in player_tables]
        if side_by_side:
            lefts = [20 + sum(t.width + 40 for t in (bottom + [train_t])[:k]) for k in range(len(bottom) + 1)]
            blocks.append((max(t.height for t in bottom + [train_t]),
                           lambda d, y: [t.draw(d, x, y, ent) for t, x in zip(bottom + [train_t], lefts, strict=True)]))
        else:
            blocks += [table(t) for t in bottom + [train_t]]
        return blocks + noted(closed_note)

    # 1817 (once a corporation has started): how each runs with the header; how each is held and financed apart
    split = len(corp_tables) > 2

    def corporations() -> list:
        return [table(corp_tables[0]), *noted(notes)] if split else [*map(table, corp_tables), *noted(loans_notes + notes)]

    def shares() -> list:
        return [*map(table, corp_tables[1:]), *noted(loans_notes)] if split else []

    parts = []
    for blocks_of, tables, head_h in ((corporations, corp_tables[:1] if split else corp_tables, 70 + 32 * len(head_lines)),
                                      (shares, corp_tables[1:] if split else [], 70),
                                      (holdings, player_tables + bottom + [train_t], 70)):
        blocks = blocks_of()
        if head_h + sum(h for h, _draw in blocks) > width * PHONE_SHAPE:  # denser rows where too tall for a phone
            for t in tables:
                t.row_h = DENSE_ROW_H
            blocks = blocks_of()
        parts.append(blocks)
    return _Sheet(width, f"{title} — {head[0]}", head_lines, *parts)


def wrap_words(d: ImageDraw.ImageDraw, words: list[str], sep: str, f, width: int) -> list[str]:
    """`words` joined by `sep` into lines no wider than `width` (a word wider than that has a line of its own)."""
    lines: list[str] = []
    for word in words:
        if lines and d.textlength(lines[-1] + sep + word, font=f) <= width:
            lines[-1] += sep + word
        else:
            lines.append(word)
    return lines


def _split(table: _Table, parts) -> list[_Table]:
    """The table, or where it is too wide for a phone its `parts` (title, column names) that have a column,
    each led by the table's first column (the company, the player)."""
    if table.width <= PHONE_TABLE:
        return [table]
    out = []
    for title, names in parts:
        keep = [k for k, c in enumerate(table.columns) if c[0] in names]
        if keep:
            out.append(table.part(title, [0, *keep]))
    return out


def _wrap_column(table: _Table, name: str, width: int, sep: str = " ") -> _Table:
    """The table no wider than `width` (or its column `name` no narrower than its header), the column's longer
    cells going on over rows of their own, every word (`sep`-separated) whole: a company's states (Russian's
    `под управлением банка` too), a player's certificates, a private's name, a train's price with its trade-ins."""
    k = next((k for k, c in enumerate(table.columns) if c[0] == name), None)
    if k is None or table.width <= width:
        return table
    head = font(15, "bold")
    col, w, align = table.columns[k]
    room = max(width - (table.width - w), int(head.getlength(pgettext("column", col))) + 2 * PAD)
    d, bold = ImageDraw.Draw(Image.new("RGB", (1, 1))), font(17, "bold")  # bold: the widest a cell is written
    out = _Table(table.title, [*table.columns[:k], (col, room, align), *table.columns[k + 1:]])
    for cells, style in table.rows:
        value = cells[k] if k < len(cells) else ""
        text = value.text if isinstance(value, Emphasis) else str(value)
        lines = wrap_words(d, text.split(sep), sep, bold, room - 2 * PAD - 6) or [""]
        again = [Emphasis(line, value.colour) if isinstance(value, Emphasis) else line for line in lines]
        out.add([*cells[:k], again[0], *cells[k + 1:]], style)
        for line in again[1:]:
            out.add([""] * k + [line], {"more": True, **{s: style[s] for s in ("dim", "bold") if s in style}})
    return out


def _fit_players(table: _Table) -> list[_Table]:
    """The players' table (a column no one has anything in left out: privates late in the game, certificates at
    its start) with its certificates wrapped to a phone's width, or where that leaves them too little room, in
    two parts."""
    keep = [k for k, c in enumerate(table.columns) if c[0] not in ("Privates", "Certificates (P: president)")
            or any(k < len(cells) and cells[k] for cells, _s in table.rows)]
    table = table.part(table.title, keep)
    certificates = next((w for name, w, _a in table.columns if name == "Certificates (P: president)"), 0)
    if table.width - certificates + 250 <= PHONE_TABLE:
        return [_wrap_column(table, "Certificates (P: president)", PHONE_TABLE, "  ")]
    return [_wrap_column(t, "Certificates (P: president)", PHONE_TABLE, "  ") for t in _split(table, PLAYER_PARTS)]
