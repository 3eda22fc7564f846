"""The 18xx family: every title of engine.titles (1830, 18MEX, ...) through one session and one command set.

The titles, their player ranges and optional rules come from the engine's registry (`engine.titles`).
What a player must do now and the facts about places, phases, operators and certificates come from the
engine (`game.turn_info()`, `game.facts()`), so a title's own steps and entities (18MEX's minors, merger
offer and 5% certificates) reach the messages without code here knowing them. Commands: `commands.py`;
shared phrases: `words.py`. Pictures: the map, the stock market and the companies (render/).
"""

from __future__ import annotations

import logging
import pickle
from typing import Any

from bot.commands import Button, clean
from bot.families.g18xx.commands import COMMANDS, describe_auto
from bot.families.g18xx.previews import acquired_terms, settled_text
from bot.families.g18xx.words import (
    Words,
    aftermath,
    cash_of,
    company_payments,
    corps_of,
    next_hint,
    operators_of,
    owner_of,
    owner_word,
    passed_over,
    route_revenue,
    train_owner,
    won_privates,
)
from bot.session import Change, Session, Setting, Title, written_name
from i18n import N_, _
from i18n.engine_words import end_reason_text, round_text
from render.chart import ValueHistory

log = logging.getLogger(__name__)


class G18xx(Session):
    family = "18xx"
    group = None
    commands = {c.name: c for c in COMMANDS}
    buttons = {
        "payout": Button(N_("Pay out"), "success", "dividend", (("kind", "payout"),), when="dividend"),
        "withhold": Button(N_("Withhold"), "secondary", "dividend", (("kind", "withhold"),), when="dividend"),
        "run_best": Button(N_("Run best routes"), "primary", "run", (("routes", "best"),), when="run_routes"),
        "pass": Button(N_("Pass"), "secondary", "pass", when="pass"),
        "end_turn": Button(N_("End turn"), "secondary", "done", when="pass"),
        "bankrupt": Button(N_("Yes, go bankrupt"), "danger", "bankrupt"),
    }
    # the companies picture in parts (render.companies.PARTS) for a phone's viewer, posted together: "companies"
    # its corporations, "shares" (1817 only: none drawn elsewhere) their shares and loans, "players" its players,
    # privates and train depot
    picture_kinds = ("map", "market", "companies", "shares", "players", "chart")
    start_pictures = ("map", "companies", "shares", "players")

    def __init__(self, title: str, game: Any, values: ValueHistory | None = None):
        super().__init__(title, game)
        game.generate_auto_actions = True  # standing orders act after each new action
        # the chart's points, kept as the game goes (so drawing it replays nothing); a game made elsewhere,
        # already under way, has none: its chart replays its log
        self.values: ValueHistory | None = values if values is not None else \
            (ValueHistory() if not game.actions else None)
        self._seen()
        self._facts: tuple[int, dict] | None = None
        self._turn: tuple[int, dict] | None = None
        self._previews: tuple[int, dict[str, Change | None]] = (-1, {})
        self._legal_for: tuple[int, dict[int, list[dict]]] = (-1, {})

    # ---------------------------------------------------------------- making games
    @classmethod
    def titles(cls) -> list[Title]:
        from engine.titles import REGISTRY

        out = []
        for t in REGISTRY.values():
            if not t.playable:
                continue
            rules = tuple((short, sym) for sym, short in t.optional_rules)
            settings = (Setting("rules", N_("optional rules (comma-separated)"), rules,
                                label=N_("optional rules")),) if rules else ()
            out.append(Title(t.name, t.display_name, cls, t.player_range, settings, multiple=("rules",)))
        return out

    @classmethod
    def check_setup(cls, title: Title, given: dict[str, str]) -> dict:
        setup = super().check_setup(title, given)
        setup["optional_rules"] = list(setup.pop("rules", []) or [])
        return setup

    @classmethod
    def setting_values(cls, setup: dict) -> dict:
        return {"rules": list(setup.get("optional_rules") or [])}

    @classmethod
    def new_game(cls, title, players, seed, setup, game_id=None):
        from engine.titles import create_game

        return create_game(title, players=players, seed=seed, optional_rules=list(setup.get("optional_rules") or ()),
                           game_id=game_id)

    @classmethod
    def load_game(cls, log_dict):
        from engine.titles import load_18xx

        return load_18xx(log_dict)

    def frozen(self) -> bytes:
        return pickle.dumps((self.game, self.values), protocol=pickle.HIGHEST_PROTOCOL)  # the chart's points too

    def thawed(self, frozen: bytes) -> G18xx:
        game, values = self.unpickled(frozen)
        return type(self)(self.title, game, values)

    def game_of(self, frozen: bytes) -> Any:
        return self.unpickled(frozen)[0]

    @classmethod
    def loaded(cls, title, log_dict):
        from engine.titles import load_18xx

        values = ValueHistory()
        return cls(title, load_18xx(log_dict, before_each=values.seen), values)

    @classmethod
    def numbered(cls, log_dict):
        from engine.core.game import with_numbered_players

        return with_numbered_players(log_dict)

    @classmethod
    def log(cls, title, players, seed, setup, actions, game_id=None):
        return {"id": game_id if game_id is not None else seed, "title": title, "players": players,
                "settings": {"seed": seed, "optional_rules": list(setup.get("optional_rules") or ())},
                "actions": actions}

    def setup(self) -> dict:
        return {"optional_rules": list(getattr(self.game, "optional_rules", ()) or ())}

    @classmethod
    def warm(cls, title: str) -> None:
        import render

        render.warm(title)

    # ---------------------------------------------------------------- what the engine tells
    def facts(self) -> dict:
        """Places, phases, operators with their certificates and trains... (`game.facts()`, per state)."""
        n = len(self.actions)
        if self._facts is None or self._facts[0] != n:
            try:
                self._facts = (n, self.game.facts())
            except Exception:  # messages are best effort: never let them block a move
                log.exception("facts failed")
                self._facts = (n, {})
        return self._facts[1]

    def turn_info(self) -> dict:
        """What the acting entity may do now (`game.turn_info()`): types, step and the step's facts."""
        n = len(self.actions)
        if self._turn is None or self._turn[0] != n:
            try:
                self._turn = (n, self.game.turn_info() or {})
            except Exception:
                log.exception("turn_info failed")
                self._turn = (n, {})
        return self._turn[1]

    def words(self, names: dict[int, str] | None = None) -> Words:
        if names is None:
            names = self.names if self.names is not None else self.written_names()
        return Words(self.facts(), names)

    def written_names(self) -> dict[int, str]:
        """The players' names as messages write them (`written_name`)."""
        return {p.id: written_name(p.name) for p in self.game.players}

    def corporations(self) -> set[str]:
        return set(self.summary().get("corporations") or {})

    def company_sym(self, name: str) -> str:
        """A private's name as the game spells it (18MEX's CdB), typed in any case."""
        name = name.strip().upper()
        return next((c for c in self.summary().get("companies") or {} if c.upper() == name), name)

    def tile_exits(self, tile: str, rotation: int) -> list[int] | None:
        """The edges a tile (a copy id like `57-0` or a name) leaves by at a rotation; None if unknown."""
        try:
            manifest = self.game.hexmap._manifest
            name = tile if tile in manifest else tile.rsplit("-", 1)[0]
            rec = manifest.get(name)
            if rec is None:
                return None
            return sorted({(e + rotation) % 6 for p in rec.get("paths", ()) for e in (p.get("a"), p.get("b"))
                           if isinstance(e, int)})
        except Exception:
            log.exception("tile_exits failed")
            return None

    def city_hex(self, city: str) -> str | None:
        """The hex of a city id (`57-0-0`), None if unknown."""
        try:
            h = self.game.hexmap.city(city).hex
            return h.coord if h is not None else None
        except Exception:
            return None

    def train_price(self, train: str) -> int | None:
        """A train's face price, None if there is no such train."""
        try:
            return int(self.game.train(train).price)
        except Exception:
            return None

    def cities_in(self, coord: str) -> list[str]:
        """The ids of the cities on a hex (`57-0-0`), empty if it has none or there is no such hex."""
        try:
            h = self.game.hexmap.hexes.get(coord.upper())
            return [c.id for c in h.tile.cities] if h is not None and h.tile is not None else []
        except Exception:
            return []

    # ---------------------------------------------------------------- applying
    def apply(self, action: dict) -> Change:
        change = super().apply(action)
        self._seen()  # the state before the next action
        return change

    def _seen(self) -> None:
        """The chart's points told of the game now; should that fail, the chart replays the log instead (it must
        never stop a move)."""
        if self.values is None:
            return
        try:
            self.values.seen(self.game)
        except Exception:
            log.exception("keeping the chart's points failed: the chart will replay the log")
            self.values = None

    def notes_before(self, action: dict) -> dict:
        info = self.turn_info()
        notes = {"cheapest_before": info.get("cheapest"), "merge_before": info.get("merge"),
                 "facts_before": self.facts(), "turn_before": info}
        if action.get("type") == "run_routes" and action.get("routes") and \
                not any("revenue" in r for r in action["routes"]):  # typed routes: what the best run earns
            best = next((a for a in self.legal() if a.get("type") == "run_routes"), None)
            notes["best_run"] = route_revenue((best or {}).get("routes") or [])
            notes["trains"] = [t.get("id") for t in self.words().operator(action.get("entity")).get("trains") or []]
        return notes

    def preview(self, action: dict) -> Change | None:
        """What a legal action would change, applied to a copy of the game (the live game is untouched): for
        the words shown before a member sends it (a loan's terms, a merger's holders). None if it fails."""
        key = repr(sorted(action.items()))
        if self._previews[0] != len(self.actions):
            self._previews = (len(self.actions), {})
        if key in self._previews[1]:
            return self._previews[1][key]
        from engine.core.preview import copy_of

        change = None
        try:
            game = copy_of(self.game)
            game.generate_auto_actions = False
            game.apply(clean(action))
            change = Change(action, self.summary(), game.summary(),
                            {"facts_before": self.facts(), "facts_after": game.facts()})
        except Exception:
            log.debug("preview of %s failed", action, exc_info=True)
        self._previews[1][key] = change
        return change

    def confirmation(self, action: dict, names: dict[int, str], frozen: bytes | None = None) -> str | None:
        """A loan, a repayment, a conversion, a merger, a buyer named or an offer for sale is shown before it
        is sent, and a pass or a standing order to pass at once that ends a round (bot/families/g18xx/previews.py),
        from the engine's preview of it; None for other actions,
        and for one the engine refuses (applying it then says why)."""
        from bot.families.g18xx.previews import preview_text, wanted
        from engine.core.preview import preview

        if not wanted(action, self.turn_info()):
            return None
        try:
            said = preview(self.game, clean(action), None if frozen is None else self.game_of(frozen))
        except Exception:
            log.debug("preview of %s refused", action, exc_info=True)
            return None
        return preview_text(self.words(names), action, said, self.turn_info())

    def notes_after(self, change: Change) -> None:
        a = change.action
        change.notes["cheapest_after"] = self.turn_info().get("cheapest")
        change.notes["passed_over"] = self.turn_info().get("passed_over") or []
        change.notes["company_payments"] = list(getattr(self.game, "company_payments", ()))
        change.notes["outcomes"] = list(getattr(self.game, "outcomes", ()))
        if a.get("type") in ("run_routes", "dividend"):  # the run's revenue per train, as the engine reckoned it
            ran = (getattr(self.game, "last_routes", None) or {}).get(a.get("entity")) or []
            change.notes["run"] = [(train, revenue) for train, revenue, _ in ran]
            change.notes["revenue"] = sum(revenue for _, revenue, _ in ran) if ran else None

    def trade_amount(self, change: Change, percent: int, price: int | None, sale: bool = False) -> int | None:
        """What a player paid or got for certificates: the change in their cash when nothing else moved it
        (no standing order acted and no new round paid the privates), else `percent` at `price`."""
        a, before, after = change.action, change.before, change.after
        same_round = (before.get("round_desc") or before.get("round")) == (after.get("round_desc") or after.get("round"))
        if a.get("entity_type") == "player" and not a.get("auto_actions") and same_round:
            cb, ca = cash_of(before, a.get("entity"), "player"), cash_of(after, a.get("entity"), "player")
            if cb is not None and ca is not None and cb != ca:
                return abs(ca - cb)
        if price is None:
            return None
        unit = self.words().unit(a.get("shares", ["?_0"])[0].rsplit("_", 1)[0])
        return -(-price * percent // unit) if sale else price * percent // unit

    def needs_consent(self, player: int, action: dict) -> int | None:
        """A train bought from another player's corporation, or a private bought from another player (or
        their corporation), changes hands at the price both sides agree: the seller's president agrees."""
        summary = self.summary()
        if action.get("type") == "buy_train":
            seller = train_owner(summary, str(action.get("train")))
        elif action.get("type") == "buy_company":
            seller = owner_of(summary, action.get("company"))
        else:
            return None
        if not isinstance(seller, int):
            seller = (corps_of(summary).get(seller) or {}).get("pres") if isinstance(seller, str) else None
        if not isinstance(seller, int) or seller == player:
            return None
        key = "train" if action["type"] == "buy_train" else "company"
        offered = [a["price"] for a in self.legal() if a.get("type") == action["type"] and a.get(key) == action.get(key)]
        if not offered or not min(offered) <= (action.get("price") or 0) <= max(offered):
            return None  # no trade to agree to: the engine refuses it as it stands
        return seller

    def offer_text(self, action: dict, names: dict[int, str]) -> str:
        """`NYC offers $300 for train 3-1 of PRR`."""
        w = self.words(names)
        buyer = w.who(action.get("entity"), action.get("entity_type"))
        summary = self.summary()
        if action.get("type") == "buy_train":
            what = _("train {train} of {owner}", train=action.get("train"),
                     owner=owner_word(train_owner(summary, str(action.get("train")))))
        else:
            what = _("{company} (owned by {owner})", company=action.get("company"),
                     owner=w.who(owner_of(summary, action.get("company"))))
        return _("{buyer} offers {money} for {what}", buyer=buyer, money=w.money(action.get("price")), what=what)

    def legal_for(self, player: int) -> list[dict]:
        """The legal moves now, with the privates' abilities the seat may use out of its turn (the engine's
        `company_actions`: 1830's MH exchanged for an NYC share between turns, 1860's starting privates in a
        stock round) and no other seat's privates' (cached until the log changes)."""
        n = len(self.actions)
        if self._legal_for[0] != n:
            self._legal_for = (n, {})
        found = self._legal_for[1].get(player)
        if found is None:
            try:
                if self.acting(player) != self.acting():  # the seat's own among several to act (over the train limit)
                    found = self.game.legal_actions(player)
                else:
                    found = [a for a in self.legal()
                             if a.get("entity_type") != "company" or self._owns(player, a.get("entity"))]
                    found += [a for a in self.game.company_actions(player) if a not in found]
            except Exception:  # an id that is no player of this game: only what everyone sees
                log.debug("legal moves of %s failed", player, exc_info=True)
                found = [a for a in self.legal() if a.get("entity_type") != "company"]
            self._legal_for[1][player] = found
        return found

    def has_out_of_turn(self) -> bool:
        """The engine's `privates_act_out_of_turn`: 1830's MH, 1860's privates; never in 1817 nor 18MEX."""
        return bool(self.game.privates_act_out_of_turn())

    def usable_out_of_turn(self, player: int) -> list[dict]:
        """Only the privates' abilities the engine offers between turns (`company_actions`): the acting entity's
        moves are not looked for (they are the acting seat's, and listing them is the slow part)."""
        try:
            found = self.game.company_actions(player)
        except Exception:  # an id that is no player of this game: nothing
            log.debug("company actions of %s failed", player, exc_info=True)
            return []
        return [a for a in found if self.may_act_out_of_turn(player, a)]

    def may_act_out_of_turn(self, player: int, action: dict) -> bool:
        """A private company's ability may be used by its owner out of turn (the engine still checks)."""
        return action.get("entity_type") == "company" and self._owns(player, action.get("entity"))

    def acting(self, player: int | None = None) -> dict:
        """The entity to act: {"entity", "entity_type"}; with `player` (a seat), the one of those to act that the
        seat decides for (several corporations over their train limit at once), else the first."""
        return self.game.acting_entity(player) or {}

    def decider(self, action: dict) -> int | None:
        """The engine's `player_of`: a player, a corporation's or minor's president, a private's owner (or the
        president of the corporation owning it)."""
        game = self.game
        lookup = {"player": game.player, "corporation": game.corporation, "minor": game.minor,
                  "company": game.company}.get(action.get("entity_type", "player"))
        entity = action.get("entity")
        if lookup is None:
            raise KeyError(entity)
        try:
            found = lookup(entity if action.get("entity_type", "player") == "player" else str(entity))
        except Exception:  # (the engine's GameError: no such entity)
            raise KeyError(entity) from None
        if found is None:
            raise KeyError(entity)
        player = game.player_of(found)
        return int(player.id) if player is not None else None

    def _owns(self, player: int, company: Any) -> bool:
        """Whether `company` is the player's, or a corporation's they preside."""
        try:
            return self.decider({"entity": company, "entity_type": "company"}) == player
        except KeyError:
            return False

    # ---------------------------------------------------------------- words
    def describe(self, change: Change, names: dict[int, str]) -> str:
        a = change.action
        w = self.words(names)
        text = super().describe(change, names)
        won = won_privates(w, a, change.before, change.after) + self.won_auctions(change, w)
        if won:
            text += "; " + "; ".join(won)
        # what the engine settled (1817: a sale or a liquidation and what each holder got, the liquidation zone)
        outcomes = change.notes.get("outcomes") or []
        settled = settled_text(w, outcomes, bool(won))
        if settled:
            text += "; " + settled
        automatic = [describe_auto(w, x) for x in a.get("auto_actions") or []]
        if automatic:
            text += "; " + _("automatically: {actions}", actions=", ".join(automatic))
        # the action's own words say how its price moved
        own_move = ("dividend", "take_loan", "payoff_loan", "convert") + (("merge",) if a.get("entity_type") == "corporation" else ())
        skip = {str(a.get("entity"))} if a.get("type") in own_move else set()
        skip |= {e["corporation"] for e in outcomes if e.get("event") == "liquidation_zone"}
        if a.get("type") == "sell_shares":
            skip |= {x.rsplit("_", 1)[0] for x in a.get("shares", [])}
        ran = str(a.get("entity")) if a.get("type") == "run_routes" else None
        text += aftermath(w, change.before, change.after, change.notes.get("facts_before"), skip, ran)
        if any(e.get("event") == "round_ended" and e.get("kind") == "stock" for e in outcomes):
            # the stock round's end dealt the priority for the next one
            text += "".join("; " + _("{name} gets the priority deal", name=w.who(e["player"], "player"))
                            for e in outcomes if e.get("event") == "priority")
        text += company_payments(w, change.notes.get("company_payments") or [])
        text += passed_over(w, change.notes.get("passed_over") or [])
        return text

    def won_auctions(self, change: Change, w: Words) -> list[str]:
        """A corporation's auction won by this action, from what the engine told of it before and after (1817:
        `Ann wins H for $200` to start it; `Ann wins WT for $450, GT buying it` in the acquisition round)."""
        before, after = change.notes.get("turn_before") or {}, self.turn_info()
        actor = after.get("actor") or {}
        sale_b, sale_a = before.get("acquisition") or {}, after.get("acquisition") or {}
        if sale_a.get("price") is not None and sale_b.get("price") is None and \
                sale_a.get("corporation") == sale_b.get("corporation"):
            winner = actor.get("entity") if actor.get("entity_type") == "player" else \
                (corps_of(change.after).get(actor.get("entity")) or {}).get("pres")
            buyer = after.get("buyer")
            if winner is None:
                return []
            won = dict(name=w.who(winner, "player"), corporation=sale_a["corporation"], money=w.money(sale_a["price"]))
            if not buyer:
                return [_("{name} wins {corporation} for {money}", **won)]
            bought = [e for e in change.notes.get("outcomes") or []
                      if e.get("event") == "acquired" and e.get("corporation") == sale_a["corporation"]]
            return [_("{name} wins {corporation} for {money}, {buyer} buying it", buyer=buyer, **won) +
                    (acquired_terms(w, bought[0]) if bought else "")]
        auction = before.get("auction") or {}
        item = auction.get("item")
        pres = (corps_of(change.after).get(item) or {}).get("pres")
        started = pres is not None and (corps_of(change.before).get(item) or {}).get("pres") is None
        if item in corps_of(change.after) and (after.get("forming") == item or started):  # a corporation to start
            winner = actor.get("entity") if after.get("forming") == item else pres
            bids = [price for _, price in auction.get("bids") or []]
            if change.action.get("type") == "bid" and change.action.get("corporation") == item:
                bids.append(change.action.get("price"))
            return [_("{name} wins {corporation} for {money}", name=w.who(winner, "player"), corporation=item,
                      money=w.money(max(bids)))] if bids else []
        return []

    def describe_all(self, changes: list[Change], names: dict[int, str]) -> str:
        """Several passes of one entity (an end of turn): `NYC ends its turn (passing on 2 steps) — …`."""
        if len(changes) < 2 or any(c.action.get("type") != "pass" for c in changes):
            return super().describe_all(changes, names)
        a = changes[0].action
        who = self.words(names).who(a.get("entity"), a.get("entity_type"))
        said = [self.describe(c, names) for c in changes]
        rest = [x.removeprefix(_("{name} passes", name=who)) for x in said]
        if a.get("entity_type") != "player":
            return _("{name} ends its turn", name=who) + "".join(rest)
        return _("{name} ends their turn", name=who) + "".join(rest)

    def acting_for(self) -> str:
        """` for NYC`; where several act at once (corporations over their train limit): ` for NYC, B&O`."""
        acting = self.turn_info().get("acting") or [self.acting()]
        operators = [a["entity"] for a in acting if a.get("entity_type") not in (None, "player")]
        return " " + _("for {operator}", operator=", ".join(operators)) if operators else ""

    def hint(self, names: dict[int, str]) -> str:
        acting = self.acting()
        operator = str(acting.get("entity")) if acting.get("entity_type") not in (None, "player") else None
        return next_hint(self.turn_info(), self.words(names), operator)

    def status_lines(self, names: dict[int, str]) -> list[str]:
        s = self.summary()
        w = self.words(names)
        lines = [_("{round}, phase {phase}, bank {money}.", round=round_text(s.get("round_desc") or s.get("round", "")),
                   phase=s.get("phase", "?"), money=w.money(s.get("bank", "?")))]
        seats = w.facts.get("players") or {}
        corps = s.get("corporations") or {}
        for p in s.get("players", []) or []:
            president = " " + _("(president)")
            shares = ", ".join(f"{k} {v}%" + (president if (corps.get(k) or {}).get("pres") == p.get("id") else "")
                               for k, v in (p.get("shares") or {}).items())
            extra = "; ".join(x for x in (shares, ", ".join(p.get("privates") or [])) if x)
            seat = seats.get(p.get("id")) or {}
            notes = [_("worth {money}", money=w.money(p.get("value")))] if p.get("value") is not None else []
            if seat.get("cert_limit"):
                notes.append(_("{held}/{limit} certificates", held=seat.get("certificates", 0), limit=seat["cert_limit"]))
            if p.get("id") == s.get("priority"):
                notes.append(_("priority deal"))
            lines.append(f"• {w.who(p.get('id'), 'player')}: {w.money(p.get('cash'))}"
                         + (f" ({', '.join(notes)})" if notes else "") + (f" — {extra}" if extra else ""))
        for sym, m in (s.get("minors") or {}).items():
            if m.get("closed"):
                continue
            owner = w.operator(sym).get("owner")
            trains = ", ".join(m.get("trains") or []) or _("no trains")
            minor = _("minor {name}", name=sym) + (f" ({w.who(owner, 'player')})" if owner is not None else "")
            lines.append(f"• {minor}: {w.credits(m.get('cash'))} — {trains}")
        for sym, c in (s.get("corporations") or {}).items():
            if not c.get("ipoed"):
                continue
            price = c.get("price")
            price = price[0] if isinstance(price, list) else price
            obsolete = {t["id"] for t in w.operator(sym).get("trains") or [] if t.get("obsolete")}
            trains = ", ".join(_("{train} (obsolete)", train=t) if t in obsolete else t for t in c.get("trains") or []) \
                or _("no trains")
            lines.append(_("• {corporation}: {money} — share {price}, {trains}", corporation=sym,
                           money=w.credits(c.get("cash")), price=w.money(price), trains=trains))
        for sym, bids in ((s.get("auction") or {}).get("bids") or {}).items():
            offers = ", ".join(f"{w.who(pid, 'player')} {w.money(price)}" for pid, price in bids)
            lines.append(_("• bids on {company}: {bids}", company=sym, bids=offers))
        return lines

    @staticmethod
    def reason_text(reason: Any) -> str:
        return end_reason_text(reason)

    def result_text(self, names: dict[int, str]) -> str:
        w = self.words(names)
        ranking = sorted((self.result() or {}).items(), key=lambda kv: -kv[1])
        return ", ".join(f"{i}. {w.who(int(k), 'player')} {w.money(v)}" for i, (k, v) in enumerate(ranking, start=1))

    # ---------------------------------------------------------------- pictures and buttons
    def pictures_for(self, change: Change) -> set[str]:
        kinds = super().pictures_for(change)
        before, after = change.before, change.after
        bc, ac = corps_of(before), corps_of(after)
        for sym, c in ac.items():
            b = bc.get(sym) or {}
            if c.get("price") != b.get("price") or c.get("par") != b.get("par"):
                kinds.add("market")
            if c.get("ipo") != b.get("ipo") or c.get("pool") != b.get("pool") or c.get("companies") != b.get("companies"):
                kinds.add("companies")
        bo, ao = operators_of(before), operators_of(after)
        if any((c.get("trains") != (bo.get(sym) or {}).get("trains")) or (c.get("closed") != (bo.get(sym) or {}).get("closed"))
               for sym, c in ao.items()):
            kinds.add("companies")
        if (before.get("companies") or {}) != (after.get("companies") or {}) or \
                before.get("closed_companies") != after.get("closed_companies"):
            kinds.add("companies")
        if after.get("finished"):
            kinds |= {"market", "companies", "chart"}  # the end-of-game post: the ranking over the game
        if "companies" in kinds:
            kinds |= {"shares", "players"}
        return kinds

    def named_summary(self, names: dict[int, str] | None) -> dict:
        """The summary with the players' names, so pictures say "Ann" rather than "Player 1"."""
        summary = self.summary()
        names = names or self.player_names()
        for p in summary.get("players", []) or []:
            if p.get("id") in names and not p.get("name"):
                p["name"] = names[p["id"]]
        return summary

    def draw(self, kind: str, change: Change | None = None, names: dict[int, str] | None = None) -> bytes | None:
        import render

        if kind == "map":
            ran = change.action.get("entity") if change and change.action.get("type") == "run_routes" else None
            routes = self.game.last_routes.get(ran) if ran else None
            caption = None
            if routes:
                total = self.words().credits(sum(revenue for _train, revenue, _path in routes))
                caption = _("{operator} ran {money}:", operator=ran, money=total)
            elif change is not None and (cmd := self.command_of(change.action)) is not None:
                caption = cmd.caption(self, change)
            return render.draw_map(self.game.map_view(), routes=routes, caption=caption)
        if kind == "market":
            return render.draw_market(self.title, self.named_summary(names), self.facts())
        if kind in ("companies", "shares", "players"):
            part = "corporations" if kind == "companies" else kind
            return render.draw_companies(self.title, self.named_summary(names), self.facts(), part)
        if kind == "chart":
            return render.draw_chart(self.title, self.value_history(names))
        return None

    def value_history(self, names: dict[int, str] | None = None) -> dict:
        """The chart's history (render.chart) with the players' names: from the points kept as the game went,
        or, for a game that kept none, by replaying its log."""
        from render.chart import log_names, value_history

        log = self.game.to_18xx() if self.values is None else {"players": self.game.settings_players}
        names = {**log_names(log), **(names or {})}
        if self.values is None:
            return value_history({**log, "players": [{**p, "name": names[p["id"]]} for p in log["players"]]})
        return self.values.history(self.game, self.title, names)

    def legal_labels(self) -> list[tuple[dict, str]]:
        """The legal moves as a player reads them: one line per corporation to par (its prices listed), one per
        private or train whose price is free (its range), one per way of laying a tile (rotations giving the
        same track are one lay)."""
        w = self.words()
        groups: dict[tuple, list[dict]] = {}
        for a in self.legal():
            t = a.get("type")
            if t == "par":
                key: tuple = (t, a.get("corporation"), a.get("entity"))
            elif t in ("buy_company", "buy_train"):
                key = (t, a.get("company") or a.get("train"), a.get("variant"), a.get("exchange"), a.get("entity"))
            elif t == "lay_tile":
                key = (t, a.get("hex"), str(a.get("tile")), a.get("entity"),
                       tuple(self.tile_exits(str(a["tile"]), int(a["rotation"])) or (a["rotation"],)))
            else:
                key = (id(a),)
            groups.setdefault(key, []).append(a)
        out = []
        for key, acts in groups.items():
            first = acts[0]
            if len(acts) == 1 or key[0] == "lay_tile":
                out.append((first, self.label(first)))
            elif key[0] == "par":
                prices = [w.money(p) for p in sorted({int(str(a["share_price"]).split(",")[0]) for a in acts})]
                out.append(({**first, "share_price": "PRICE"},
                            _("{corporation} at {prices} or {last}", corporation=first["corporation"],
                              prices=", ".join(prices[:-1]), last=prices[-1])))
            else:
                low, high = min(a["price"] for a in acts), max(a["price"] for a in acts)
                label = self.label(first).rsplit(" for ", 1)[0]
                out.append(({**first, "price": "PRICE"}, _("{what} for {low} to {high}", what=label, low=w.money(low),
                                                           high=w.money(high))))
        return out

    def action_types(self) -> list[str]:
        return list(self.turn_info().get("types") or [])


__all__ = ["G18xx"]
