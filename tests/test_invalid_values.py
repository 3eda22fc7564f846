"""A malformed value is refused with a specific reason in the reader's language, naming the field and the value given,
wherever one arrives: an 18xx action (typed in the bot or the console, or in an imported log), a Steam action or a
Steam log's settings, and the log a member imports. pydantic's own text (English only) reaches nobody."""

from __future__ import annotations

import pytest

from bot.errors import Refusal, UserError
from engine.core.errors import GameError
from engine.steam import Game
from engine.titles import create_game
from i18n import speaking
from i18n.glossary import foreign_words

PYDANTIC = ("Input should", "Field required", "valid integer", "validation error")


def _refused(apply, action) -> GameError:
    with pytest.raises(GameError) as caught:
        apply(action)
    return caught.value


def _both(reason) -> tuple[str, str]:
    """The refusal in English and in Russian, as the bot shows it."""
    with speaking("en"):
        english = str(Refusal(reason))
    with speaking("ru"):
        russian = str(Refusal(reason))
    return english, russian


def _steam() -> Game:
    return Game({"map": "rust_belt", "mode": "basic", "players": [{"id": 11, "name": "Ann"}, {"id": 12, "name": "Bob"},
                                                                  {"id": 13, "name": "Cid"}]})


CASES = [  # (what applies it, the action, its English, words the Russian has)
    ("1830", {"type": "bid", "entity": 1, "company": "SV", "price": "lots"},
     "malformed bid action: price must be a whole number, not 'lots'", ["price", "'lots'", "целым числом"]),
    ("1830", {"type": "bid", "entity": 1, "company": "SV"}, "malformed bid action: price is missing",
     ["price", "не указано"]),
    ("1830", {"type": "bid", "entity": None, "company": "SV", "price": 20},
     "malformed bid action: entity must be a whole number or text, not None", ["entity", "None", "текстом"]),
    ("1830", {"type": "buy_shares", "entity": 1, "shares": []},
     "malformed buy_shares action: shares must not be empty, not []", ["shares", "пустым"]),
    ("1830", {"type": "run_routes", "entity": "PRR", "entity_type": "corporation", "routes": [{"train": 2}]},
     "malformed run_routes action: routes.0.train must be text, not 2", ["routes.0.train", "текстом"]),
    ("steam", {"type": "lay", "entity": 11, "hex": "3,4", "tile": "21", "rotation": 9},
     "lay: rotation must be at most 5, not 9", ["rotation", "не больше 5", "9"]),
    ("steam", {"type": "bid", "entity": 11, "amount": "lots"}, "bid: amount must be a whole number, not 'lots'",
     ["amount", "'lots'", "целым числом"]),
]


@pytest.mark.parametrize("title,action,english,russian", CASES)
def test_malformed_actions_say_what_the_value_must_be(title, action, english, russian):
    apply = create_game("1830", [{"id": i, "name": f"P{i}"} for i in (1, 2, 3)]).apply if title == "1830" \
        else _steam().apply
    reason = _refused(apply, action)
    assert str(reason) == english
    shown_en, shown_ru = _both(reason)
    assert shown_en.endswith(english) and not any(p in shown_en for p in PYDANTIC), shown_en
    assert all(word in shown_ru for word in russian), shown_ru
    named = {part for word in russian for part in word.replace("'", ".").split(".") if part}  # the fields, the value
    assert not foreign_words(shown_ru.replace(".", " "), {"lay", "bid", "run_routes", "buy_shares", *named}), shown_ru


def test_a_steam_log_s_settings_say_what_is_wrong():
    log = {"title": "steam", "settings": {"map": "rust_belt", "mode": "advanced"},
           "players": [{"id": 11, "name": "Ann"}, {"id": 12, "name": "Bob"}, {"id": 13, "name": "Cid"}], "actions": []}
    reason = _refused(Game.from_18xx, log)
    assert str(reason) == "the log's settings are not valid: mode must be 'basic' or 'standard', not 'advanced'"
    twice = dict(log, settings={"map": "rust_belt"}, players=[{"id": 11, "name": "Ann"}, {"id": 11, "name": "Bob"},
                                                                {"id": 13, "name": "Cid"}])
    reason = _refused(Game.from_18xx, twice)
    assert str(reason).startswith("the log's settings are not valid: players must give each player an id of their own")
    assert "своим" in _both(reason)[1] or "свой" in _both(reason)[1]


@pytest.mark.parametrize("log,english,russian", [
    ({"title": "1830", "players": [{"id": "x", "name": "Ann"}]},
     "The file is not an 18xx.games game log: `players.0.id` must be a whole number, not `x`.", "целым числом"),
    ({"title": "1830", "players": []},
     "The file is not an 18xx.games game log: `players` must not be empty, not `[]`.", "пустым"),
    ({"players": [{"id": 1, "name": "Ann"}]}, "The file is not an 18xx.games game log: `title` is missing.", "не указано"),
])
def test_an_imported_log_s_fault_is_told_in_the_member_s_language(tmp_path, log, english, russian):
    from bot.service import Service
    from bot.session import Engine

    service = Service.__new__(Service)  # parse_log reads nothing of the service but its engine's titles
    service.engine = Engine()
    with pytest.raises(UserError) as caught:
        service.parse_log(log)
    with speaking("en"):
        assert str(caught.value.args[0]) == english
    with speaking("ru"):
        shown = str(caught.value.args[0])
    assert russian in shown and not foreign_words(shown), shown
