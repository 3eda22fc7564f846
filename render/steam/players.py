"""The Steam players as a PNG: one row per player in turn order (cash, income, VP, locomotive, shares
issued, complete links, action tile), the seven action tiles and who took them, and the final scoring
once the game is over.  Drawn from Game.summary() (plain data)."""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine.steam.labels import tile_name
from i18n import NP_, _, pgettext

from ..fonts import font
from ..png import to_png
from . import style as S

W = 1220
PAD = 18
ROW = 52
TEXT = 27
SMALL = 22
HEAD_BG = (60, 60, 60)
ZEBRA = ((255, 255, 255), (243, 241, 234))
ACTING = (255, 240, 190)

# the columns' headings are shown with pgettext("column", name)
COLUMNS = [("", 50), (NP_("column", "Player"), 250), (NP_("column", "Cash"), 100), (NP_("column", "Income"), 110),
           (NP_("column", "VP"), 120), (NP_("column", "Loco"), 110), (NP_("column", "Shares"), 100),
           (NP_("column", "Links"), 90), (NP_("column", "Tile"), 254)]


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

    def order(self) -> list[dict]:
        by_id = {p["id"]: p for p in self.s["players"]}
        ids = [i for i in self.s.get("turn_order") or [] if i in by_id]
        ids += [p["id"] for p in self.s["players"] if p["id"] not in ids and not p.get("bankrupt")]
        ids += [p["id"] for p in self.s["players"] if p["id"] not in ids]
        return [by_id[i] for i in ids]

    def paint(self) -> Image.Image:
        players = self.order()
        scoring = self.s.get("scoring")
        height = PAD + 60 + ROW * (len(players) + 1) + PAD + 44 + 4 * 56 + PAD
        if scoring:
            height += 50 + ROW * (len(scoring["ranking"]) + 1)
        img = Image.new("RGB", (W, height), S.BACKGROUND)
        self.d = ImageDraw.Draw(img)
        y = self.paint_title(PAD)
        y = self.paint_table(y, players)
        y = self.paint_tiles(y + PAD)
        if scoring:
            self.paint_scoring(y + PAD, scoring)
        return img

    def paint_fitted(self, at: tuple[float, float], text: str, room: float) -> None:
        """`text` from `at` (left, middle) within `room`: at SMALL, else a little smaller (down to 19 px), else
        on two lines (a Russian tile's name, `2 Первое перемещение`, ran past the picture's edge)."""
        size = SMALL
        while size > 19 and self.d.textlength(text, font=font(size, "regular")) > room:
            size -= 1
        f = font(size, "regular")
        if self.d.textlength(text, font=f) > room and " " in text:
            self.d.multiline_text(at, "\n".join(text.rsplit(" ", 1)), font=f, fill=S.INK, anchor="lm", spacing=2)
        else:
            self.d.text(at, text, font=f, fill=S.INK, anchor="lm")

    def paint_title(self, y: int) -> int:
        self.d.text((PAD, y + 24), status_line(self.s), font=font(30, "bold"), fill=S.INK, anchor="lm")
        return y + 60

    def _header(self, y: int, columns) -> None:
        self.d.rectangle((PAD, y, W - PAD, y + ROW), fill=HEAD_BG)
        x = PAD
        for name, width in columns:
            self.d.text((x + width / 2, y + ROW / 2), pgettext("column", name) if name else "", font=font(SMALL, "bold"),
                        fill=(255, 255, 255), anchor="mm")
            x += width

    def paint_table(self, y: int, players: list[dict]) -> int:
        self._header(y, COLUMNS)
        y += ROW
        f, fb = font(TEXT, "regular"), font(TEXT, "bold")
        for k, p in enumerate(players):
            acting = p["id"] == self.s.get("next") and not self.s.get("finished")
            bg = ACTING if acting else ZEBRA[k % 2]
            self.d.rectangle((PAD, y, W - PAD, y + ROW), fill=bg)
            tile = p.get("tile")
            cells = ["" if p.get("bankrupt") else str(k + 1), p["name"], f"${p['cash']}", str(p["income"]),
                     _vp_text(p), "", str(p.get("shares", 0)), str(p.get("links", 0)),
                     f"{tile} {tile_name(tile)}" if tile else ""]
            x = PAD
            for (name, width), text in zip(COLUMNS, cells, strict=True):
                cx, cy = x + width / 2, y + ROW / 2
                if name == "Player":
                    colour = S.player_color(self.seat[p["id"]])
                    self.d.rounded_rectangle((x + 8, cy - 11, x + 44, cy + 11), radius=8, fill=colour,
                                             outline=S.CASING, width=2)
                    label = _("{name} (bankrupt)", name=text) if p.get("bankrupt") else text
                    self.d.text((x + 54, cy), label, font=fb, fill=S.GREY_TEXT if p.get("bankrupt") else S.INK,
                                anchor="lm")
                elif name == "Loco":
                    self.paint_loco(x + 10, cy, p.get("loco", 1))
                elif name == "Tile":
                    self.paint_fitted((x + 6, cy), text, width - 12)
                else:
                    colour = (170, 30, 30) if name == "Income" and p["income"] < 0 else S.INK
                    self.d.text((cx, cy), text, font=f, fill=colour, anchor="mm")
                x += width
            y += ROW
        return y

    def paint_loco(self, x: float, cy: float, level: int) -> None:
        """Locomotive level as 6 pips, `level` of them filled, with the number."""
        for i in range(6):
            px = x + i * 11
            self.d.rectangle((px, cy - 9, px + 8, cy + 9), fill=S.INK if i < level else (215, 215, 215))
        self.d.text((x + 72, cy), str(level), font=font(SMALL, "bold"), fill=S.INK, anchor="lm")

    def paint_tiles(self, y: int) -> int:
        """The seven action tiles: who took each this round (passed on: struck through)."""
        taken = self.s.get("action_tiles") or {}
        self.d.text((PAD, y + 20), _("Action tiles this round"), font=font(SMALL, "bold"), fill=S.INK, anchor="lm")
        y += 44
        col_w = (W - 2 * PAD) / 2
        for t in range(1, 8):
            col, row = (t - 1) // 4, (t - 1) % 4
            x, ty = PAD + col * col_w, y + row * 56
            info = taken.get(str(t))
            box = (x, ty + 4, x + col_w - 12, ty + 50)
            self.d.rounded_rectangle(box, radius=10, fill=(255, 255, 255) if info else (236, 236, 236),
                                     outline=(170, 170, 170), width=2)
            self.d.text((x + 14, ty + 27), f"{t} {tile_name(t)}", font=font(SMALL, "bold"), fill=S.INK, anchor="lm")
            if info:
                who = self.names.get(info["player"], str(info["player"]))
                note = " " + _("(passed)") if info.get("passed") else " " + _("(to do)") if info.get("pending") else ""
                colour = S.player_color(self.seat.get(info["player"]))
                nx = x + col_w - 200
                self.d.rounded_rectangle((nx - 34, ty + 17, nx - 8, ty + 37), radius=6, fill=colour,
                                         outline=S.CASING, width=2)
                self.d.text((nx, ty + 27), who + note, font=font(SMALL, "regular"), fill=S.INK, anchor="lm")
        return y + 4 * 56

    def paint_scoring(self, y: int, scoring: dict) -> None:
        self.d.text((PAD, y + 22), _("Final scoring"), font=font(TEXT, "bold"), fill=S.INK, anchor="lm")
        y += 50
        cols = [(NP_("column", "Rank"), 90), (NP_("column", "Player"), 300), (NP_("column", "VP"), 110),
                (NP_("column", "Income"), 170), (NP_("column", "Links"), 110), (NP_("column", "Total"), 140)]
        self._header(y, cols)
        y += ROW
        for k, r in enumerate(scoring["ranking"]):
            self.d.rectangle((PAD, y, W - PAD, y + ROW), fill=ZEBRA[k % 2])
            if r.get("bankrupt"):
                cells = [str(r["rank"]), _("{name} (bankrupt)", name=r["name"]), "", "", "", ""]
            else:
                cells = [str(r["rank"]), r["name"], str(r["vp_before"]),
                         f"{r['income']} -> {r['income_vp']:+d}", f"+{r['links']}", str(r["vp"])]
            x = PAD
            for (name, width), text in zip(cols, cells, strict=True):
                style = "bold" if name in ("Player", "Total") else "regular"
                anchor, tx = ("lm", x + 10) if name == "Player" else ("mm", x + width / 2)
                self.d.text((tx, y + ROW / 2), text, font=font(TEXT, style), fill=S.INK, anchor=anchor)
                x += width
            y += ROW


def draw_players(summary: dict) -> bytes:
    """PNG of the players' table from Game.summary() (plain data)."""
    return to_png(PlayersPainter(summary).paint())
