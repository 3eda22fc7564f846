"""The Steam players as a PNG, phone-wide: the players in turn order in two tables (cash, income, VP,
locomotive; shares issued, complete links, action tile), the seven action tiles and who took them, and the
final scoring once the game is over.  Drawn from Game.summary() (plain data)."""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine.steam.labels import tile_name
from i18n import NP_, _, pgettext

from ..companies import wrap_words
from ..fonts import font
from ..png import to_png
from . import style as S

# ~640 px wide, as the 18xx companies picture: a phone showing it 400 px wide writes its 20/24 px letters
# 12.5/15 px high (at 1,220 px wide they were 7/9 px, unreadable until opened); so the players' table goes in
# two parts, each row led by the player: how each stands, then what each holds and took this round
W = 640
PAD = 18
ROW = 46
TEXT = 24
SMALL = 20
TITLE = 26
HEAD_BG = (60, 60, 60)
ZEBRA = ((255, 255, 255), (243, 241, 234))
ACTING = (255, 240, 190)

# the columns' headings are shown with pgettext("column", name); each part is W - 2 * PAD wide
STANDING = [("", 36), (NP_("column", "Player"), 196), (NP_("column", "Cash"), 84), (NP_("column", "Income"), 90),
            (NP_("column", "VP"), 104), (NP_("column", "Loco"), 94)]
HOLDING = [(NP_("column", "Player"), 196), (NP_("column", "Shares"), 86), (NP_("column", "Links"), 82),
           (NP_("column", "Tile"), 240)]
SCORING = [(NP_("column", "Rank"), 70), (NP_("column", "Player"), 196), (NP_("column", "VP"), 70),
           (NP_("column", "Income"), 120), (NP_("column", "Links"), 74), (NP_("column", "Total"), 74)]
TILE_ROW = 50  # an action tile's box, one under the other


def status_line(state: dict) -> str:
    """"Round 3 of 8: move goods, cycle 2, Ann to act", or "Game over after round 8: Bob wins"."""
    names = {p["id"]: p["name"] for p in state["players"]}
    if state.get("finished"):
        winner = names.get((state.get("scoring") or {}).get("winner"))
        if winner:
            return _("Game over after round {round}: {name} wins", round=state["round"], name=winner)
        return _("Game over after round {round}", round=state["round"])
    phase = _(state.get("phase_name", state.get("phase", "")))
    if state.get("cycle"):
        phase = _("{phase}, cycle {cycle}", phase=phase, cycle=state["cycle"])
    text = _("Round {round} of {rounds}: {phase}", round=state["round"], rounds=state["rounds"], phase=phase)
    if state.get("next") is not None:
        text = _("{status}, {name} to act", status=text, name=names.get(state["next"], state["next"]))
    return text


def _vp_text(p: dict) -> str:
    track = p.get("vp_track") or {}
    return f"{p['vp']}" + (f" (+{track['marker']})" if track.get("marker") else "")


class PlayersPainter:
    def __init__(self, summary: dict):
        self.s = summary
        self.seat = {p["id"]: i for i, p in enumerate(summary["players"])}
        self.names = {p["id"]: p["name"] for p in summary["players"]}
        self.d = ImageDraw.Draw(Image.new("RGB", (1, 1)))  # to measure until the picture is made

    def order(self) -> list[dict]:
        by_id = {p["id"]: p for p in self.s["players"]}
        ids = [i for i in self.s.get("turn_order") or [] if i in by_id]
        ids += [p["id"] for p in self.s["players"] if p["id"] not in ids and not p.get("bankrupt")]
        ids += [p["id"] for p in self.s["players"] if p["id"] not in ids]
        return [by_id[i] for i in ids]

    def title_lines(self) -> list[str]:
        return wrap_words(self.d, status_line(self.s).split(" "), " ", font(TITLE, "bold"), W - 2 * PAD)

    def paint(self) -> Image.Image:
        players = self.order()
        scoring = self.s.get("scoring")
        title = self.title_lines()
        height = PAD + 36 * len(title) + 10 + 2 * ROW * (len(players) + 1) + 14 + PAD + 40 + 7 * TILE_ROW + PAD
        if scoring:
            height += 50 + ROW * (len(scoring["ranking"]) + 1) + PAD
        img = Image.new("RGB", (W, height), S.BACKGROUND)
        self.d = ImageDraw.Draw(img)
        y = self.paint_title(PAD, title)
        y = self.paint_table(y, players, STANDING, self.standing)
        y = self.paint_table(y + 14, players, HOLDING, self.holding)
        y = self.paint_tiles(y + PAD)
        if scoring:
            self.paint_scoring(y + PAD, scoring)
        return img

    def paint_fitted(self, at: tuple[float, float], text: str, room: float, size: int = SMALL, least: int = 19,
                     style: str = "regular", fill=S.INK) -> None:
        """`text` from `at` (left, middle) within `room`: at `size`, else a little smaller (down to `least`),
        else on two lines (a Russian tile's name, `2 Первое перемещение`, ran past the picture's edge), else cut
        short with `…` (a long name)."""
        f = self.fitting(text, room, size, least, style)
        if self.d.textlength(text, font=f) > room and " " in text and \
                max(self.d.textlength(part, font=f) for part in text.rsplit(" ", 1)) <= room:
            self.d.multiline_text(at, "\n".join(text.rsplit(" ", 1)), font=f, fill=fill, anchor="lm", spacing=2)
            return
        while len(text) > 1 and self.d.textlength(text, font=f) > room:
            text = text[:-2] + "…"
        self.d.text(at, text, font=f, fill=fill, anchor="lm")

    def fitting(self, text: str, room: float, size: int, least: int, style: str):
        """The font of `size`, or a smaller one down to `least`, that writes `text` within `room`."""
        while size > least and self.d.textlength(text, font=font(size, style)) > room:
            size -= 1
        return font(size, style)

    def paint_title(self, y: int, lines: list[str]) -> int:
        for line in lines:
            self.d.text((PAD, y + 18), line, font=font(TITLE, "bold"), fill=S.INK, anchor="lm")
            y += 36
        return y + 10

    def _header(self, y: int, columns) -> None:
        self.d.rectangle((PAD, y, W - PAD, y + ROW), fill=HEAD_BG)
        x = PAD
        for name, width in columns:
            self.d.text((x + width / 2, y + ROW / 2), pgettext("column", name) if name else "", font=font(SMALL, "bold"),
                        fill=(255, 255, 255), anchor="mm")
            x += width

    def standing(self, k: int, p: dict) -> list[str]:
        return ["" if p.get("bankrupt") else str(k + 1), p["name"], f"${p['cash']}", str(p["income"]), _vp_text(p), ""]

    def holding(self, k: int, p: dict) -> list[str]:
        tile = p.get("tile")
        return [p["name"], str(p.get("shares", 0)), str(p.get("links", 0)), f"{tile} {tile_name(tile)}" if tile else ""]

    def paint_table(self, y: int, players: list[dict], columns, cells_of) -> int:
        self._header(y, columns)
        y += ROW
        for k, p in enumerate(players):
            acting = p["id"] == self.s.get("next") and not self.s.get("finished")
            bg = ACTING if acting else ZEBRA[k % 2]
            self.d.rectangle((PAD, y, W - PAD, y + ROW), fill=bg)
            x = PAD
            for (name, width), text in zip(columns, cells_of(k, p), strict=True):
                cx, cy = x + width / 2, y + ROW / 2
                if name == "Player":
                    colour = S.player_color(self.seat[p["id"]])
                    self.d.rounded_rectangle((x + 6, cy - 10, x + 38, cy + 10), radius=7, fill=colour,
                                             outline=S.CASING, width=2)
                    label = _("{name} (bankrupt)", name=text) if p.get("bankrupt") else text
                    self.paint_fitted((x + 46, cy), label, width - 50, TEXT, 18, "bold",
                                      S.GREY_TEXT if p.get("bankrupt") else S.INK)
                elif name == "Loco":
                    self.paint_loco(x + 8, cy, p.get("loco", 1))
                elif name == "Tile":
                    self.paint_fitted((x + 6, cy), text, width - 12, SMALL, 18)
                else:  # a VP total past the track's end, `112 (+100)`, a little smaller
                    colour = (170, 30, 30) if name == "Income" and p["income"] < 0 else S.INK
                    self.d.text((cx, cy), text, font=self.fitting(text, width - 8, TEXT, 19, "regular"), fill=colour,
                                anchor="mm")
                x += width
            y += ROW
        return y

    def paint_loco(self, x: float, cy: float, level: int) -> None:
        """Locomotive level as 6 pips, `level` of them filled, with the number."""
        for i in range(6):
            px = x + i * 10
            self.d.rectangle((px, cy - 9, px + 7, cy + 9), fill=S.INK if i < level else (215, 215, 215))
        self.d.text((x + 66, cy), str(level), font=font(SMALL, "bold"), fill=S.INK, anchor="lm")

    def paint_tiles(self, y: int) -> int:
        """The seven action tiles, one under the other: who took each this round (passed on, or still to do)."""
        taken = self.s.get("action_tiles") or {}
        self.d.text((PAD, y + 20), _("Action tiles this round"), font=font(SMALL, "bold"), fill=S.INK, anchor="lm")
        y += 40
        who_x = PAD + 340  # the taker's colour and name, after the tile's
        for t in range(1, 8):
            ty = y + (t - 1) * TILE_ROW
            info = taken.get(str(t))
            self.d.rounded_rectangle((PAD, ty + 3, W - PAD, ty + TILE_ROW - 3), radius=10,
                                     fill=(255, 255, 255) if info else (236, 236, 236), outline=(170, 170, 170), width=2)
            self.paint_fitted((PAD + 14, ty + TILE_ROW / 2), f"{t} {tile_name(t)}", who_x - PAD - 50, SMALL, 17, "bold")
            if info:
                who = self.names.get(info["player"], str(info["player"]))
                note = " " + _("(passed)") if info.get("passed") else " " + _("(to do)") if info.get("pending") else ""
                colour = S.player_color(self.seat.get(info["player"]))
                cy = ty + TILE_ROW / 2
                self.d.rounded_rectangle((who_x - 34, cy - 10, who_x - 8, cy + 10), radius=6, fill=colour,
                                         outline=S.CASING, width=2)
                self.paint_fitted((who_x, cy), who + note, W - PAD - 12 - who_x, SMALL, 17)
        return y + 7 * TILE_ROW

    def paint_scoring(self, y: int, scoring: dict) -> None:
        self.d.text((PAD, y + 22), _("Final scoring"), font=font(TEXT, "bold"), fill=S.INK, anchor="lm")
        y += 50
        self._header(y, SCORING)
        y += ROW
        for k, r in enumerate(scoring["ranking"]):
            self.d.rectangle((PAD, y, W - PAD, y + ROW), fill=ZEBRA[k % 2])
            if r.get("bankrupt"):
                cells = [str(r["rank"]), _("{name} (bankrupt)", name=r["name"]), "", "", "", ""]
            else:
                cells = [str(r["rank"]), r["name"], str(r["vp_before"]),
                         f"{r['income']} -> {r['income_vp']:+d}", f"+{r['links']}", str(r["vp"])]
            x = PAD
            for (name, width), text in zip(SCORING, cells, strict=True):
                style = "bold" if name in ("Player", "Total") else "regular"
                if name == "Player":
                    self.paint_fitted((x + 10, y + ROW / 2), text, width - 14, TEXT, 18, style)
                else:
                    self.d.text((x + width / 2, y + ROW / 2), text, font=font(TEXT, style), fill=S.INK, anchor="mm")
                x += width
            y += ROW


def draw_players(summary: dict) -> bytes:
    """PNG of the players' table from Game.summary() (plain data)."""
    return to_png(PlayersPainter(summary).paint())
