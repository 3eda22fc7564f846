"""The copies of a game made with the cyclic collector paused (the preview's, the read copy's thaw) leave it
running afterwards, a failed one too, and share nothing with the game."""

from __future__ import annotations

import gc
import pickle

import pytest

from bot.session import Engine
from engine.core.preview import copy_of

PLAYERS = [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}, {"id": 3, "name": "Cid"}]


def test_copies_leave_the_collector_running_and_share_nothing():
    session = Engine().create("1830", PLAYERS, 7, {})
    assert gc.isenabled()
    copy = copy_of(session.game)
    assert gc.isenabled()
    thawed = session.thawed(session.frozen())
    assert gc.isenabled()
    for other in (copy, thawed.game):
        assert other is not session.game and other.players[0] is not session.game.players[0]
        assert other.players[0].cash == session.game.players[0].cash
    with pytest.raises(pickle.UnpicklingError):
        session.thawed(b"not a pickle")
    assert gc.isenabled()
