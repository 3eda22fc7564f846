"""Random legal games, checking the game's invariants after every action.

    python -m engine.selfplay 1830 --games N --seed S [--players P] [--max-actions M]
        [--optional-rules RULE ... | --optional-rules random] [--export DIR] [--style NAME]
    python -m engine.selfplay steam --map NAME --mode basic|standard --players P --games N --seed S

The last line printed is one JSON object {"games", "actions", "seconds", "failures"}; each failure is
also printed with the seed and the action log that reproduce it. With --export, each game is written as
an 18xx.games log, DIR/<seed>.json (for checking against the reference engine).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

from engine.core.errors import GameError
from engine.core.rounds import Round
from engine.core.steps.operating import BuyTrain, Track, priced_lays
from engine.titles import REGISTRY, rules_class


def check_invariants(game, total_money: int | None) -> str | None:
    """The first broken invariant, or None."""
    money = game.bank.cash + sum(p.cash for p in game.players) + sum(c.cash for c in game.corporations + game.minors)
    if total_money is not None and money != total_money:
        return f"money is {money}, not {total_money}"
    for p in game.players:
        if p.cash < 0 and not game.PLAYER_DEBT:
            return f"{p.name} has negative cash {p.cash}"
    for c in game.corporations:
        if c.cash < 0:
            return f"{c.sym} has negative cash {c.cash}"
        held = c.ipo_percent + game.pool.percent_of(c) + sum(p.percent_of(c) for p in game.players)
        if held != 100:
            return f"{c.sym}'s certificates add up to {held}%"
        # a sale is held to the limit by its nominal size; a presidency swap with certificates of mixed sizes
        # (the 18MEX NdM's 5% ones) may then leave the market up to one small certificate over it, as on 18xx.games
        sizes = {s.percent for s in c.shares if not s.president}
        if game.pool.percent_of(c) > game.rules.market_share_limit + max(sizes, default=0) - min(sizes, default=0):
            return f"the market holds {game.pool.percent_of(c)}% of {c.sym}"
        pres = c.presidents_share.owner
        # a president's certificate sold to the market that no player holds enough to take (18MEX: a sale the
        # NdM's holdings ledger lets go) leaves the seller president without it, as on 18xx.games
        # (1817: which the corporation may then buy back, as on 18xx.games)
        stranded = pres in (game.pool, c) and all(p.percent_of(c) < c.presidents_share.percent for p in game.players)
        if c.ipoed and not c.receivership and not game.presided_by_nobody(c) and not stranded and \
                (c.owner is None or pres is not c.owner):
            return f"{c.sym}'s president's certificate is not with its president"
        if c.tokens_left < 0:
            return f"{c.sym} placed more tokens than it has"
    if not game.over_train_limit():  # a corporation still to discard (1860: in its next turn) is over
        for c in game.corporations:
            if game.trains_counted_for_limit(c) > game.train_limit(c):
                return f"{c.sym} has {len(c.trains)} trains over the limit"
    return None


# how likely the random player is to pick each kind of action when it has several: enough of everything
# to reach the rare corners, while games still end (mostly by the bank breaking)
WEIGHTS = {
    "pass": 0.8, "bid": 1.0, "par": 1.0, "buy_shares": 1.5, "sell_shares": 0.4, "buy_company": 0.25,
    "lay_tile": 3.0, "place_token": 2.0, "run_routes": 5.0, "dividend": 5.0, "buy_train": 2.0,
    "discard_train": 1.0, "bankrupt": 0.3,
}
# where a title's rare corners need a push: 1817's mergers (a merger needs two corporations of a size, both
# in the normal zone, in the merger round of one of them)
TITLE_WEIGHTS = {"1817": {"merge": 6.0}}
# a title's styles of play, one per game (by its seed): 1817's "wild" players borrow, sell short and go
# bankrupt at every turn, which reaches the rare corners but ruins most games within a few sets (often all
# corporations gone and nobody able to start one: 18xx.games then stops the game at turn 100, "dnf");
# "steady" ones start one corporation each, borrow mostly to buy a train, keep a train in each corporation
# and repay, so that games also reach the last phase and end there
# 1830's "wild" players reach the corners plain random play seldom does: they dump shares (presidencies
# too), buy privates and other corporations' trains at the ends of the price range, buy trains until their
# corporations' treasuries are empty (so that presidents pay for the next one, selling shares for it), use
# their privates whenever they may (MH's exchange in an operating round, DH's station, CS's tile) and go
# bankrupt whenever they may, not only when nothing else is left
WILD_1830 = {"sell_shares": 2.0, "buy_company": 3.0, "buy_train": 6.0, "pass": 0.5, "bankrupt": 3.0,
             "bankrupt_among_others": 0.5, "private_acts": 0.25, "from_bank": 0.5, "extreme_prices": True}
# "reckless" ones play as wild ones but go bankrupt less eagerly, so that games reach the later phases (and the
# Diesels' prices) before someone does, still holding shares for the bankruptcy's sales; in the auction of the
# privates they mostly pass (the cheapest private's price falls, down to nothing), and they keep their
# privates' abilities for late (MH exchanged for a certificate from the market)
RECKLESS_1830 = {**WILD_1830, "bankrupt_among_others": 0.02, "auction_pass": 25.0,
                 "private_acts": 0.01}
# "heirs" play as reckless ones, but: their corporations buy no private from a player (so that players still
# hold them when the first 5-train closes them), MH is exchanged only between turns, at a random moment (mostly
# in an operating round, sometimes never), their stock-round buys go mostly into corporations other players
# preside, and they go bankrupt only while buying a train, so that the forced sales hand presidencies on
# (private_acts above 0.005: below it, the roll goes to a random standing order)
HEIRS_1830 = {**RECKLESS_1830, "bankrupt_among_others": 0.0, "bankrupt_buying_train": 0.3, "sell_shares": 0.3,
              "private_acts": 0.012, "corporations_buy_privates": 0.0, "exchange_in_turn": 0.0, "others_shares": 0.9}
# "hoarders" (by name only) start corporations and buy certificates, seldom sell, pass or buy privates and
# hardly ever go bankrupt, so that the players' certificates reach the limit (plain random players run out of
# money long before): purchases the limit forbids, players over it who must sell (a presidency handed to
# them, a price leaving the yellow zone), standing orders stopped by it
HOARDERS_1830 = {"sell_shares": 0.02, "buy_shares": 10.0, "par": 0.3, "pass": 0.1, "buy_company": 0.1,
                 "bankrupt": 0.01, "buy_train": 1.0, "dividend": 5.0}
TITLE_STYLES = {"1817": (
    {},
    {"take_loan": 0.02, "payoff_loan": 2.0, "short": 0.3, "bankrupt": 0.05, "pass": 0.5, "buy_train": 1.5,
     "keep_a_train": True, "presidencies": 1},
), "1830": ({}, WILD_1830, RECKLESS_1830)}
# styles chosen by name (--style), not by seed: 1817's "modern" players are steady ones who keep their
# corporations' trains up to date (a corporation buys a train only when it is bigger than its best one, the
# newest it can, borrowing for it), so that most games run the 7- and 8-trains (the modern trains' bonus)
# before they end
NAMED_STYLES = {"1817": {
    "modern": {**TITLE_STYLES["1817"][1], "newest_trains": True},
}, "1830": {"wild": WILD_1830, "reckless": RECKLESS_1830, "heirs": HEIRS_1830, "hoarders": HOARDERS_1830}}


def random_program(game, rng: random.Random) -> dict | None:
    """A standing order from any player, at any moment (18xx.games accepts them whenever they come)."""
    if not game.PROGRAMS:
        return None
    player = rng.choice([p for p in game.players if not p.bankrupt])
    base = {"entity": player.id, "entity_type": "player"}
    if "program_merger_pass" in game.PROGRAM_TYPES and (game.round.merger or rng.random() < 0.2):
        # 1817: pass in merger rounds for some of the corporations the player presides, for each kind of round
        own = [c.sym for c in game.corporations if c.owner is player]
        by_round = {name: [sym for sym in own if rng.random() < 0.9] for name in ("MR", "AR") if rng.random() < 0.8}
        options = ["disable_others"] if rng.random() < 0.5 else []
        return {**base, "type": "program_merger_pass", "corporations_by_round": by_round, "options": options}
    kind = rng.random()
    if kind < 0.5:
        return {**base, "type": "program_share_pass", "unconditional": rng.random() < 0.3,
                "indefinite": rng.random() < 0.3}
    ipoed = [c for c in game.corporations if c.ipoed]
    if kind < 0.9 and ipoed:
        corp = rng.choice(ipoed)
        until = "float" if rng.random() < 0.6 else rng.randint(1, 6)
        return {**base, "type": "program_buy_shares", "corporation": corp.sym, "until_condition": until,
                "from_market": rng.random() < 0.25, "auto_pass_after": rng.random() < 0.6}
    return {**base, "type": "program_disable", "reason": "user"}


def random_auction_program(game, rng: random.Random) -> dict | None:
    """An auction program (1830, 18MEX), mostly from the player to act so that it plays at once: for a private on
    sale now and then for one already sold, any mix of buying, bidding and passing on, its amounts given as
    numbers or as text, as 18xx.games' form may send them. Amounts stay within what the player has free, and
    one player at least is left without one, so that the programs never pass among themselves for ever."""
    step = game.round.active_step()
    if not hasattr(step, "may_purchase") or not step.active_entities():
        return None
    players = [p for p in game.players if not p.bankrupt]
    player = step.active_entities()[0] if rng.random() < 0.7 else rng.choice(players)
    base = {"entity": player.id, "entity_type": "player"}
    if rng.random() < 0.1:
        return {**base, "type": "program_disable", "reason": "user"}
    programmed = {pid for pid, p in game.programs.by_player.items() if p["type"] == "program_auction_bid"}
    if all(p.id in programmed for p in players if p is not player):
        return None
    on_sale = rng.random() < 0.85 or len(step.companies) == len(game.companies)
    target = rng.choice(step.companies if on_sale else [c for c in game.companies if c not in step.companies])
    free = max(0, step.max_bid(player, target))
    price = step.min_bid(target)

    def amount(enabled: bool) -> int | str:
        value = rng.randint(min(free, max(0, price - 20)), min(free, price + 60)) if enabled or rng.random() < 0.5 \
            else 0
        roll = rng.random()
        return str(value) if roll < 0.2 else "" if roll < 0.25 and not enabled else value

    enable_maximum_bid, enable_buy_price = rng.random() < 0.6, rng.random() < 0.6
    return {**base, "type": "program_auction_bid", "bid_target": target.sym,
            "enable_maximum_bid": enable_maximum_bid, "maximum_bid": amount(enable_maximum_bid),
            "enable_buy_price": enable_buy_price, "buy_price": amount(enable_buy_price),
            "auto_pass_after": rng.random() < 0.5}


def legal_actions(game, rng: random.Random) -> list[dict]:
    """The legal actions, with a track step's tile lays only on one hex, taken at random among the hexes
    where the corporation may lay: the same kinds of action as game.legal_actions(), without checking every
    lay on the map (for 1860, whose upgrades must each be traced for reach, that check was half of a game)."""
    rnd = game.round
    if game.finished or getattr(type(rnd), "legal_actions", None) is not Round.legal_actions:
        return game.legal_actions()
    entity, steps = rnd.steps_open_to_actor()
    out: list[dict] = []
    for step in steps:
        if type(step).legal is not Track.legal:
            out.extend(a for a in step.legal(entity) if rnd.offered_by(step, a))
            continue
        by_hex: dict[str, list] = {}
        for lay in priced_lays(game, entity):
            by_hex.setdefault(lay[0], []).append(lay)
        hexes = sorted(by_hex)
        rng.shuffle(hexes)
        for coord in hexes:
            lays = step.lay_actions(entity, by_hex[coord])
            if lays:
                out.extend(a for a in lays if rnd.offered_by(step, a))
                break
        out.extend(a for a in [step.action(entity, "pass")] if rnd.offered_by(step, a))
    unique = {}
    for action in out:
        unique.setdefault(repr(sorted(action.items())), action)
    return list(unique.values())


def choose(game, rng: random.Random, turns_in_round: int = 0, style: dict | None = None) -> dict | None:
    style = style or {}
    legal = legal_actions(game, rng)
    if "exchange_in_turn" in style and rng.random() >= style["exchange_in_turn"]:
        # a private's exchange (1830's MH) not among its owner's choices in his own turn (it may still come
        # between turns), as long as something else may be done
        legal = [a for a in legal if not (a["type"] == "buy_shares" and a["entity_type"] == "company")] or legal
    if not legal:
        return None
    roll = rng.random()
    if game.round.stock and turns_in_round and any(a["type"] == "pass" for a in legal) \
            and rng.random() < min(0.9, 0.1 + 0.04 * turns_in_round / len(game.players)):
        # stock rounds come to an end: the longer one lasts, the likelier a player is done
        return next(a for a in legal if a["type"] == "pass")
    if game.round.auction and roll < 0.08 and "program_auction_bid" in game.PROGRAM_TYPES:
        program = random_auction_program(game, rng)
        if program is not None:
            return program
    if roll < (0.08 if game.round.merger else 0.03 if game.round.stock else 0) and game.PROGRAMS:
        return random_program(game, rng)
    if roll < 0.005 and game.PROGRAMS:
        return random_program(game, rng)
    if roll < style.get("private_acts", 0.08):
        # now and then a private acts out of its owner's turn, where its ability allows
        extra = game.company_actions()
        if extra:
            return rng.choice(extra)
    by_type: dict[str, list[dict]] = {}
    for action in legal:
        by_type.setdefault(action["type"], []).append(action)
    if style.get("keep_a_train") and game.round.operating:
        # a corporation without a train buys one, borrowing for it if it must
        corp = game.corporation(legal[0]["entity"]) if legal[0].get("entity_type") == "corporation" else None
        if corp is not None and not corp.trains and isinstance(game.round.active_step(), BuyTrain):
            for kind in ("buy_train", "take_loan"):
                if kind in by_type:
                    return rng.choice(by_type[kind])
    if style.get("newest_trains") and game.round.operating:
        newest = newest_train_choice(game, by_type, rng)
        if newest is not None or not by_type:
            return newest or rng.choice(legal)
    if style.get("presidencies") and game.round.stock and "bid" in by_type and len(by_type) > 1:
        # no more corporations started (or bid for) by a player who presides enough of them
        player = game.player(legal[0]["entity"]) if legal[0].get("entity_type") == "player" else None
        if player is not None and sum(c.owner is player for c in game.corporations) >= style["presidencies"]:
            del by_type["bid"]
    if "buy_company" in by_type and len(by_type) > 1 and "corporations_buy_privates" in style and \
            rng.random() >= style["corporations_buy_privates"]:
        # privates stay with the players (no corporation buys one now)
        by_type["buy_company"] = [a for a in by_type["buy_company"] if a["entity_type"] != "corporation"]
        if not by_type["buy_company"]:
            del by_type["buy_company"]
    kinds = list(by_type)
    weights = [style.get(k, TITLE_WEIGHTS.get(game.TITLE, {}).get(k, WEIGHTS.get(k, 1.0))) for k in kinds]
    if "pass" in by_type and "auction_pass" in style and not (game.round.stock or game.round.operating):
        weights[kinds.index("pass")] = style["auction_pass"]
    if "bankrupt" in by_type and set(kinds) - {"bankrupt", "sell_shares"}:
        # bankruptcy while there is still something else to do: rarely (18xx.games allows it whenever
        # the president can't raise the cheapest train's price)
        among = style.get("bankrupt_among_others", 0.001)
        if isinstance(game.round.active_step(), BuyTrain):
            # while buying a train, a bankruptcy sells what the president may still sell
            among = style.get("bankrupt_buying_train", among)
        weights[kinds.index("bankrupt")] = among
    kind = rng.choices(kinds, weights=weights)[0]
    options = by_type[kind]
    if kind == "run_routes" and options[0]["routes"] and rng.random() < 0.15:
        # now and then a train doesn't run (a run need not be the best one), where the title lets it
        routes = list(options[0]["routes"])
        routes.pop(rng.randrange(len(routes)))
        corp = game.corporation(options[0]["entity"]) if options[0].get("entity_type") == "corporation" else None
        if corp is None or (game.may_run_nothing(corp) if not routes else _run_ok(game, corp, routes)):
            return {**options[0], "routes": routes}
    if kind in ("buy_company", "buy_train") and style.get("extreme_prices"):
        # a private or another corporation's train at the lowest or the highest price allowed
        item = "company" if kind == "buy_company" else "train"
        prices: dict[str, list[int]] = {}
        for a in options:
            prices.setdefault(a[item], []).append(a["price"])
        options = [a for a in options if "exchange" in a or a["price"] in (min(prices[a[item]]), max(prices[a[item]]))]
    if kind == "buy_shares" and game.round.stock and "others_shares" in style and rng.random() < style["others_shares"]:
        # into a corporation another player presides
        buyer = options[0]["entity"]
        theirs = [a for a in options if a["entity_type"] == "player" and
                  getattr(game.share(a["shares"][0]).corporation.owner, "id", buyer) != buyer]
        options = theirs or options
    if kind == "buy_train" and rng.random() < style.get("from_bank", 0.85):
        # mostly from the bank, so that games move through the phases to the last trains
        from_bank = [a for a in options if game.train(a["train"]).owner is None]
        options = from_bank or options
    return rng.choice(options)


def newest_train_choice(game, by_type: dict[str, list[dict]], rng: random.Random) -> dict | None:
    """A corporation buying trains buys only a train bigger than its best one: the biggest the bank sells it,
    or, if it can't pay for the next one, a loan towards it. Its other purchases are dropped from `by_type`."""
    step = game.round.active_step()
    own = [a for kind in ("buy_train", "take_loan") for a in by_type.get(kind, []) if a["entity_type"] == "corporation"]
    if not own or not isinstance(step, BuyTrain):
        return None
    corp = game.corporation(own[0]["entity"])
    best = max((t.price for t in corp.trains), default=0)
    # room is kept for the last two kinds of train: one of the others is bought only with room to spare
    last_kinds = list(game.depot.data_by_name)[-2:]
    spare = game.trains_counted_for_limit(corp) + 1 < game.train_limit(corp)
    bigger = [a for a in by_type.get("buy_train", []) if game.train(a["train"]).price > best and
              (spare or game.train(a["train"]).name in last_kinds)]
    upgrades = [a for a in bigger if game.train(a["train"]).owner is None and "exchange" not in a]
    if upgrades and rng.random() < 0.9:
        return max(upgrades, key=lambda a: game.train(a["train"]).price)
    if bigger:
        by_type["buy_train"] = bigger
    else:
        by_type.pop("buy_train", None)
    next_kind = min(step.depot_trains(), key=lambda t: t.price, default=None)
    if next_kind is not None and next_kind.price > max(best, corp.cash) and step.room(corp) and \
            (spare or next_kind.name in last_kinds) and "take_loan" in by_type and \
            game.buying_power(corp) >= next_kind.price and rng.random() < 0.9:
        return by_type["take_loan"][0]
    return None


def _run_ok(game, corp, routes: list[dict]) -> bool:
    """Whether the routes may run together (1860's routes must meet: one left out may part the others)."""
    from engine.core.autoroute import check_routes

    try:
        check_routes(game, corp, routes)
    except GameError:
        return False
    return True


def play_one(title: str, players: int, seed: int, max_actions: int,
             optional_rules=(), style_name: str | None = None) -> tuple[int, str | None, list[dict], object]:
    rng = random.Random(seed)
    game = rules_class(title)([{"id": i + 1, "name": f"Player {i + 1}"} for i in range(players)], seed=seed,
                              optional_rules=optional_rules, game_id=seed)
    total = game.bank.cash + sum(p.cash for p in game.players)  # an unlimited bank counts down from 0
    applied = 0
    styles = TITLE_STYLES.get(title)
    style = styles[seed % len(styles)] if styles else None
    if style_name:
        style = NAMED_STYLES[title][style_name]
    current_round, turns_in_round = None, 0
    while not game.finished and applied < max_actions:
        if game.round is not current_round:
            current_round, turns_in_round = game.round, 0
        turns_in_round += 1
        choice = choose(game, rng, turns_in_round, style)
        if choice is None:
            return applied, "no legal action but the game is not over", game.actions, game
        try:
            game.apply(choice)
        except GameError as e:
            return applied, f"a legal action was refused: {choice}: {e}", game.actions + [choice], game
        applied += 1
        problem = check_invariants(game, total)
        if problem:
            return applied, problem, game.actions, game
    return applied, None, game.actions, game


def random_rules(title: str, players: int, rule_names: list[str], rng: random.Random) -> tuple[str, ...]:
    """A random choice of optional rules that the title accepts together."""
    while True:
        rules = tuple(r for r in rule_names if rng.random() < 0.4)
        try:
            rules_class(title)([{"id": i + 1} for i in range(players)], optional_rules=rules)
        except GameError:
            continue
        return rules


def run(title: str, games: int, seed: int, players: int | None = None, max_actions: int = 4000,
        optional_rules=None, export: str | None = None, style: str | None = None) -> dict:
    start = time.perf_counter()
    total_actions = 0
    failures = []
    finished = 0
    rng = random.Random(seed)
    entry = REGISTRY[title]
    # the rules built so far, even of a title not offered to players yet
    rule_names = [sym for sym, _ in entry.optional_rules if sym not in entry.game_class.UNSUPPORTED_OPTIONAL_RULES]
    low, high = entry.player_range
    for i in range(games):
        game_seed = rng.randrange(1 << 30)
        n = players or (low + i % (high - low + 1))
        rules = optional_rules or ()
        if list(rules) == ["random"]:
            rules = random_rules(title, n, rule_names, rng)
        applied, problem, log, game = play_one(title, n, game_seed, max_actions, rules, style)
        if export:
            path = Path(export) / f"{game_seed}.json"
            path.write_text(json.dumps(game.to_18xx()))
        total_actions += applied
        finished += bool(game.finished)
        if problem:
            failures.append({"seed": game_seed, "players": n, "problem": problem, "actions": log})
    return {"games": games, "finished": finished, "actions": total_actions,
            "seconds": round(time.perf_counter() - start, 3), "failures": failures}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0].lower() == "steam":
        from engine.steam.selfplay import main as steam_main

        return steam_main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m engine.selfplay")
    parser.add_argument("title")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--max-actions", type=int, default=4000)
    parser.add_argument("--optional-rules", nargs="*", default=None,
                        help="optional rules of every game, or 'random' for a random choice per game")
    parser.add_argument("--export", default=None)
    parser.add_argument("--style", default=None,
                        help="one style of play for every game (1817: modern; 1830: wild, reckless, heirs, hoarders), else the "
                             "title's styles by seed")
    args = parser.parse_args(argv)
    if args.style and args.style not in NAMED_STYLES.get(args.title, {}):
        parser.error(f"{args.title} has no style {args.style!r}")
    if args.export:
        Path(args.export).mkdir(parents=True, exist_ok=True)
    out = run(args.title, args.games, args.seed, args.players, args.max_actions, args.optional_rules, args.export,
              args.style)
    for failure in out["failures"]:
        print(json.dumps(failure))
    print(json.dumps({"games": out["games"], "actions": out["actions"], "seconds": out["seconds"],
                      "failures": len(out["failures"]), "finished": out["finished"]}))
    return 1 if out["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
