"""`legal_actions(player)` lists what a player may do now, out of turn too: the abilities of the privates they control
that may be used between turns or in another's turn (1830's MH exchanged for an NYC share, 1860's starting privates
for their company's share). Checked against what the engine accepts, across the states of a recorded game of each
title: every action listed for a player is accepted (on a copy of the game), and actions of their privates' abilities
that are not listed (another certificate, another hex or tile, a time the ability does not allow) are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.core.actions import resolve_undo
from engine.core.entities import Corporation, Player
from engine.core.errors import GameError
from engine.core.preview import copy_of
from engine.titles import load_18xx

FIXTURES = Path(__file__).parent / "fixtures"
GAMES = {"1830": "1830/26855.json", "1860": "1860/1860_game_end_bank.json", "1817": "1817/15528.json",
         "18MEX": "18MEX/13315.json"}
EVERY = {"1830": 4, "1860": 6, "1817": 25, "18MEX": 8}  # states looked at: one action in so many


def _states(title: str):
    log = json.loads((FIXTURES / GAMES[title]).read_text())
    actions = [a for a in resolve_undo(log["actions"]) if a["type"] != "message"]
    game = load_18xx({**log, "actions": []})
    game.generate_auto_actions = False
    for i, action in enumerate(actions):
        if game.finished:
            return
        if i % EVERY[title] == 0:
            yield game
        game.apply(action)


def _controls(game, player: Player, company) -> bool:
    owner = company.owner
    return owner is player or (isinstance(owner, Corporation) and owner.owner is player)


def _ability_tries(game, company) -> list[dict]:
    """Actions of the private's abilities a player might send, listed or not: an exchange for a certificate from
    each place its corporations' certificates are (IPO, market, a player, the president's), a tile lay of each
    of its tiles on each of its hexes, a bridge on each of its hexes, its station on its hex."""
    base = {"entity": company.sym, "entity_type": "company"}
    out = []
    for ability in company.abilities:
        kind = ability["type"]
        if kind == "exchange":
            for sym in ability["corporations"]:
                seen = set()
                for share in game.corporation(sym).shares:
                    where = (id(share.owner), share.president)
                    if where not in seen:
                        seen.add(where)
                        out.append({**base, "type": "buy_shares", "shares": [share.id], "percent": share.percent})
        elif kind in ("tile_lay", "teleport"):
            out += [{**base, "type": "lay_tile", "hex": h, "tile": f"{t}-0", "rotation": r}
                    for h in ability.get("hexes", [])[:2] for t in ability.get("tiles", [])[:2] for r in (0, 3)]
        elif kind == "assign_hexes":
            out += [{**base, "type": "assign", "target": h, "target_type": "hex"} for h in ability["hexes"]]
    return out


def _accepted(game, action: dict) -> bool:
    try:
        copy_of(game).apply(action)
    except GameError:
        return False
    return True


def _refused(game, action: dict) -> bool:
    """Tried on the game itself: `apply` is all or nothing, so a refusal leaves it as it was (and an action
    accepted by mistake fails the test anyway)."""
    try:
        game.apply(action)
    except GameError:
        return True
    return False


@pytest.mark.parametrize("title", sorted(GAMES))
def test_out_of_turn_abilities_are_listed_for_their_player_as_the_engine_accepts_them(title):
    listed = refused = 0
    for game in _states(title):
        acting = set(game.active_players())
        for player in game.players:
            own = game.company_actions(player.id)
            for action in own:  # every private's action listed for the player is theirs and is accepted
                assert _controls(game, player, game.company(action["entity"])), (title, action)
                assert _accepted(game, action), (title, len(game.actions), player.id, action)
            if player.id in acting:
                continue
            # out of turn: what the player may do is what their privates may
            assert game.legal_actions(player=player.id) == own, (title, len(game.actions), player.id)
            listed += len(own)
            for company in game.companies:
                if company.closed or not _controls(game, player, company):
                    continue
                for action in _ability_tries(game, company):
                    if action not in own and not any(_same(action, a) for a in own):
                        assert _refused(game, action), (title, len(game.actions), player.id, action)
                        refused += 1
    assert refused > 0, title
    if title in ("1830", "1860"):  # MH; the starting privates of 1860
        assert listed > 0, title


def _same(tried: dict, listed: dict) -> bool:
    """A lay tried with a tile's first copy is the listed lay of another copy of that tile."""
    if tried["type"] != "lay_tile" or listed.get("type") != "lay_tile":
        return False
    return (tried["entity"], tried["hex"], tried["rotation"], tried["tile"].rsplit("-", 1)[0]) == \
        (listed["entity"], listed["hex"], listed["rotation"], str(listed["tile"]).rsplit("-", 1)[0])


def test_mh_is_listed_for_its_owner_alone_between_turns():
    """1830: in the stock round where NYC has a par price, MH's owner may exchange it for an NYC share while
    another player is to act: listed for the owner (and accepted), for nobody else."""
    for game in _states("1830"):
        mh = game.company("MH")
        owner = mh.owner
        if mh.closed or not isinstance(owner, Player) or owner.id in game.active_players():
            continue
        mine = [a for a in game.legal_actions(player=owner.id) if a["entity"] == "MH"]
        if not mine:
            continue
        assert all(a["type"] == "buy_shares" and a["shares"][0].startswith("NYC_") for a in mine)
        assert not any(a.get("entity") == "MH" for a in game.legal_actions())
        for other in game.players:
            if other is not owner:
                assert not any(a.get("entity") == "MH" for a in game.legal_actions(player=other.id))
        return
    pytest.fail("MH was never exchangeable out of its owner's turn")


@pytest.mark.parametrize("title", sorted(GAMES))
def test_a_title_says_cheaply_whether_its_privates_act_out_of_turn(title):
    """`privates_act_out_of_turn` (the bot looks for moves out of turn only where it is True) holds whenever a
    player not to act has a private's move (and goes False once the privates that could are closed); 1817's and
    18MEX's privates never act out of turn, 1830's MH and 1860's do."""
    held = 0
    for game in _states(title):
        acting = set(game.active_players())
        if any(game.company_actions(p.id) for p in game.players if p.id not in acting):
            held += 1
            assert game.privates_act_out_of_turn(), (title, len(game.actions))
        if title in ("1817", "18MEX"):
            assert not game.privates_act_out_of_turn(), (title, len(game.actions))
    assert (held > 0) == (title in ("1830", "1860")), title
