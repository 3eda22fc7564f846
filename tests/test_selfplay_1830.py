"""Random legal 1830 games: every offered action is accepted and the invariants hold after each one."""

import pytest

from engine.selfplay import check_invariants, play_one, run
from engine.titles import create_game


@pytest.mark.parametrize("chunk", range(4))
def test_random_games_keep_invariants(chunk):
    out = run("1830", games=6, seed=1000 + chunk, max_actions=1500, optional_rules=["random"])
    assert out["failures"] == [], out["failures"][0]["problem"] if out["failures"] else ""
    assert out["actions"] > 6 * 300


def test_random_games_reach_the_end():
    finished = sum(bool(play_one("1830", 4, seed, 4000)[3].finished) for seed in range(5))
    assert finished >= 4


def test_invariant_check_catches_lost_money():
    game = create_game("1830", [{"id": i, "name": str(i)} for i in range(1, 5)])
    total = game.bank.cash + sum(p.cash for p in game.players)
    assert check_invariants(game, total) is None
    game.players[0].cash -= 1
    assert "money" in check_invariants(game, total)


def test_exported_logs_replay_to_the_same_game():
    import json

    from engine.titles import load_18xx

    for seed in (11, 12, 13):
        _, problem, _, game = play_one("1830", 3 + seed % 4, seed, 1500)
        assert problem is None
        again = load_18xx(json.loads(json.dumps(game.to_18xx())))
        assert again.summary() == game.summary()
        assert again.actions == game.actions


@pytest.mark.parametrize("seed", [2, 3])
def test_wild_players_go_bankrupt_and_keep_the_invariants(seed):
    _, problem, _, game = play_one("1830", 4, seed, 4000, (), "wild")
    assert problem is None
    assert game.finished and game.end_reason == "bankrupt"
    assert any(a["type"] == "bankrupt" for a in game.actions)


def test_reckless_players_pass_until_sv_costs_nothing():
    _, problem, _, game = play_one("1830", 4, 1, 4000, (), "reckless")
    assert problem is None and game.finished
    sv = game.company("SV")
    assert sv.min_bid == 0
    assert not any(a["type"] == "bid" and a.get("company") == "SV" for a in game.actions)


def test_heirs_keep_their_privates_and_exchange_mh_between_turns():
    from engine.core.steps.operating import BuyTrain
    from engine.titles import load_18xx

    _, problem, log, game = play_one("1830", 4, 6, 4000, (), "heirs")
    assert problem is None and game.finished
    assert not any(a["type"] == "buy_company" and a["entity_type"] == "corporation" for a in log)
    at = next(i for i, a in enumerate(log) if a.get("entity") == "MH" and a["type"] == "buy_shares")
    export = game.to_18xx()
    before = load_18xx({**export, "actions": export["actions"][:at], "result": None, "game_end_reason": None})
    assert before.round.operating
    # the game ends by a bankruptcy declared while buying a train
    assert game.end_reason == "bankrupt"
    last = load_18xx({**export, "actions": export["actions"][:-1], "result": None, "game_end_reason": None})
    assert isinstance(last.round.active_step(), BuyTrain)


def test_hoarders_reach_the_certificate_limit():
    from engine.titles import load_18xx

    _, problem, _, game = play_one("1830", 6, 182261230, 4000, (), "hoarders")
    assert problem is None and game.finished
    export = game.to_18xx()
    replayed = load_18xx({**export, "actions": [], "result": None, "game_end_reason": None})
    most = 0
    with replayed.loading():
        for action in export["actions"]:
            replayed.apply(action)
            most = max(most, *(replayed.num_certs(p) for p in replayed.players))
    assert most > replayed.cert_limit  # at the limit, and over it (such a player must sell)
