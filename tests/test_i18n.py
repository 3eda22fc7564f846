"""Languages: the catalogues (every message in English and Russian, placeholders alike, the glossaries'
terms), Russian without English fragments, the fonts' Cyrillic, and the language in force where it should be."""

from __future__ import annotations

import pytest

import i18n
from i18n import _, lazy, ngettext, pgettext, speaking
from i18n.glossary import foreign_words, prose, terms_for, title_of
from i18n.tool import extract, placeholders, read

TEMPLATE = extract()
RU = read("ru")
def strings(message) -> tuple[str, ...]:
    return message.string if isinstance(message.string, tuple) else (message.string,)


def ids(message) -> tuple[str, ...]:
    return message.id if isinstance(message.id, tuple) else (message.id,)


def messages():
    return [m for m in TEMPLATE if m.id]


def test_every_message_of_the_code_has_its_russian():
    missing = []
    for m in messages():
        ru = RU.get(m.id, m.context)
        if ru is None or ru.fuzzy or not all(strings(ru)):
            missing.append(ids(m)[0])
    assert not missing, f"{len(missing)} messages without Russian (python -m i18n update; docs/i18n.md): {missing[:10]}"


def test_placeholders_are_the_same_in_both_languages():
    wrong = []
    for m in messages():
        ru = RU.get(m.id, m.context)
        if ru is None:
            continue
        english = set().union(*(placeholders(s) for s in ids(m)))
        for text in strings(ru):
            if text and placeholders(text) - english:
                wrong.append((ids(m)[0], text))
            if text and not isinstance(m.id, tuple) and placeholders(text) != english:
                wrong.append((ids(m)[0], text))
    assert not wrong, wrong[:5]


def test_russian_plurals_have_three_forms_and_follow_the_number():
    assert RU.num_plurals == 3
    for m in messages():
        if isinstance(m.id, tuple):
            assert len(strings(RU.get(m.id, m.context))) == 3, m.id
    plural = next(m for m in RU if isinstance(m.id, tuple) and m.string and all(m.string))
    with speaking("ru"):
        made = [ngettext(plural.id[0], plural.id[1], n, **dict.fromkeys(placeholders(plural.id[1]) - {"n"}, "x"))
                for n in (1, 3, 5, 21)]
    assert len(set(made[:3])) == 3 and made[3] == made[0].replace("1", "21", 1), made


def test_no_russian_message_keeps_english_words():
    leftovers = {}
    for m in messages():
        ru = RU.get(m.id, m.context)
        if ru is None:
            continue
        for text in strings(ru):
            words = foreign_words(text)
            if words:
                leftovers[ids(m)[0][:60]] = words
    assert not leftovers, leftovers


def terms_in_russian():
    """Each translated message's glossary terms: (its English, its Russian prose, the title it is shown in
    or None if the titles share it, the term)."""
    for m in messages():
        ru = RU.get(m.id, m.context)
        if ru is None or not all(strings(ru)):
            continue
        english = " ".join(ids(m))
        locations = [loc for loc, _line in m.locations]
        title = title_of(prose(english), locations)
        for term in terms_for(english, locations):
            yield ids(m)[0][:70], prose(" ".join(strings(ru))), title, term


def test_russian_messages_use_the_glossaries_terms():
    off = [(english, term.word(title).ru) for english, russian, title, term in terms_in_russian()
           if not term.kept_in(russian, title)]
    assert not off, off


def test_no_russian_message_says_a_term_another_rulebooks_way():
    """One thing is said one way: a message the 18xx titles share says 1830's word, one only a title shows
    says that title's (1860's «акционный раунд», 1817's «фондовый раунд»), never the other's."""
    twice = [(english, title, term.word(title).ru, term.said_otherwise(russian, title))
             for english, russian, title, term in terms_in_russian() if term.said_otherwise(russian, title)]
    assert not twice, twice


def test_a_term_is_said_its_titles_way_and_another_way_is_caught():
    from i18n.glossary import load

    stock_round = next(t for t in load("18xx").terms if t.used_in("stock round"))
    assert stock_round.word().ru == "финансовый раунд" and stock_round.word("1860").ru == "акционный раунд"
    assert stock_round.said_otherwise("в акционном раунде") == ["акционный раунд"]
    assert stock_round.said_otherwise("в акционном раунде", "1860") == []
    assert stock_round.said_otherwise("в финансовом раунде", "1860") == ["финансовый раунд"]
    corporation = next(t for t in load("18xx").terms if t.used_in("corporation"))
    assert corporation.said_otherwise("частная компания корпорации") == []
    assert corporation.said_otherwise("её компания") == ["компания"]
    assert title_of("Take a loan (1817)", ["bot/families/g18xx/commands.py"]) == "1817"
    assert title_of("no loan", ["engine/titles/g1860/steps.py", "engine/core/game.py"]) is None
    assert title_of("no loan", ["engine/titles/g18mex/steps.py"]) == "18MEX"


def test_the_language_in_force():
    assert i18n.normalize("ru") == i18n.normalize("ru-RU") == "ru"
    assert i18n.normalize("en-GB") == i18n.normalize("de") == i18n.normalize(None) == "en"
    with speaking("ru"):
        assert _("Done.") == "Сделано."
        later = lazy("Game #{game} is open in {thread}.", game=3, thread="<#5>")
        with speaking("en"):
            assert str(later) == "Game #3 is open in <#5>."
        assert str(later) == "Партия №3 открыта в <#5>."
    assert _("Done.") == "Done."


@pytest.mark.parametrize("style", ["regular", "bold", "condensed"])
def test_the_shipped_fonts_draw_cyrillic(style):
    from render.fonts import font

    missing = font(20, style).getmask("\ue000").tobytes() if hasattr(font(20, style).getmask("\ue000"), "tobytes") \
        else bytes(font(20, style).getmask("\ue000"))
    for ch in "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдеёжзийклмнопрстуфхцчшщъыьэюя№":
        mask = font(20, style).getmask(ch)
        drawn = bytes(mask)
        assert mask.getbbox() is not None and drawn != missing, (style, ch)


# families whose commands (and settings) have their Russian; the others are translated next
FAMILIES_TRANSLATED: set[str] = {"steam", "18xx"}


async def test_slash_command_descriptions_in_russian_fit_discord():
    """Every command, option and choice description has its Russian, within Discord's 100 characters."""
    import discord
    from discord import app_commands

    from bot.config import Config
    from bot.discord_bot import make_bot
    from bot.translator import CatalogueTranslator, translate

    bot = make_bot(Config(token=None, sync="off"))
    for ext in ("bot.cogs.games", "bot.cogs.play"):
        await bot.load_extension(ext)
    await bot.tree.set_translator(CatalogueTranslator())
    from bot.families import FAMILIES

    pending = {o for fam in FAMILIES if (fam.group or "18xx") not in FAMILIES_TRANSLATED
               for t in fam.titles() for o in [s.name for s in t.settings]}
    pending_commands = {(fam.group, c.name) for fam in FAMILIES if (fam.group or "18xx") not in FAMILIES_TRANSLATED
                        for c in fam.commands.values()}
    untranslated = []
    for cmd in bot.tree.walk_commands():
        parent = cmd.parent.name if cmd.parent is not None else None
        if (parent, cmd.name) in pending_commands or isinstance(cmd, app_commands.Group) and \
                all((cmd.name, c.name) in pending_commands for c in cmd.commands):
            continue
        payload = await cmd.get_translated_payload(bot.tree, CatalogueTranslator())
        ru = payload.get("description_localizations", {}).get("ru")
        if ru is None:
            untranslated.append(cmd.qualified_name)
        assert ru is None or len(ru) <= 100
        for option in payload.get("options", []):
            if option["name"] in pending:
                continue
            if "description_localizations" in option and "ru" not in option["description_localizations"] or \
                    "description_localizations" not in option:
                untranslated.append(f"{cmd.qualified_name} {option['name']}")
    assert translate("Leave the lobby", discord.Locale.russian) == "Покинуть лобби"
    assert translate("leave", discord.Locale.russian, app_commands.TranslationContextLocation.command_name) == "выйти"
    assert translate("leave", discord.Locale.american_english,
                     app_commands.TranslationContextLocation.command_name) is None
    assert not untranslated, untranslated


def test_every_marked_message_reaches_the_catalogue():
    """What the code wraps (read by Python's own parser) is what the extraction found: a message the
    extraction missed (Babel loses a call nested in another's arguments) would stay English."""
    import ast

    from i18n.tool import ROOT, SOURCES

    found = {ids(m)[0] for m in messages()}
    missed = []
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                    continue
                first = 1 if node.func.id in ("pgettext", "NP_") else 0
                if node.func.id in i18n.KEYWORDS and len(node.args) > first and \
                        isinstance(node.args[first], ast.Constant) and isinstance(node.args[first].value, str):
                    text = node.args[first].value
                    if text and text not in found:
                        missed.append(f"{path.relative_to(ROOT)}:{node.lineno} {text[:50]!r}")
    assert not missed, missed


def test_every_refusal_of_the_engines_is_a_key_with_named_values():
    """The engines raise GameError("English with {named} placeholders", named=value): a key the catalogue
    has (the test above) and values, never text built before it is raised (an f-string or a variable would
    reach a Russian member in English). Their words inside a refusal are Phrases, also keys."""
    import ast

    from i18n.tool import ROOT

    built = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    node.func.id in ("GameError", "FullCityError", "Phrase"):
                first = node.args[0] if node.args else None
                key = isinstance(first, ast.Constant) and isinstance(first.value, str)
                passed_on = isinstance(first, ast.Attribute) and first.attr == "msgid"  # a refusal re-raised
                # a word with its context, or one of a table of words marked N_() (Steam's tile names)
                listed = node.func.id == "Phrase" and (len(node.args) == 2 or isinstance(first, ast.Subscript))
                if not (key or passed_on or listed):
                    built.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not built, built


def test_the_engines_words_inside_refusals_have_their_russian():
    """What an action does, the stops a route reaches and the tiles' colours are named by the engine in a
    refusal and worded here (i18n/engine_words.py), for every action type of every title."""
    import engine.titles as titles
    from engine.core.actions import ACTION_TYPES
    from i18n.engine_words import ACTIONS, STOPS, TILE_COLOURS

    for title in titles.TITLES:
        titles.rules_class(title)
    assert set(ACTION_TYPES) <= set(ACTIONS), set(ACTION_TYPES) - set(ACTIONS)
    with speaking("ru"):
        for context, words in [*(("action", w) for w in ACTIONS.values()), *(("stop", w) for w in STOPS),
                               *(("tile colour", w) for w in TILE_COLOURS)]:
            assert pgettext(context, words) != words, (context, words)


def _valid_name(name: str) -> bool:
    """Discord's rule for a command or option name: ^[-_\\p{L}\\p{N}]{1,32}$, lowercase where the script has case."""
    return 1 <= len(name) <= 32 and all(ch.isalnum() or ch in "-_" for ch in name) and name == name.lower()


async def test_every_command_and_option_name_has_its_russian_that_discord_accepts():
    """Each member sees the command and option names in their Discord language: every name has a Russian one
    that Discord takes (lowercase, at most 32 letters, digits, - or _) and no two commands of one level, nor
    two options of one command, share it. The interaction still arrives with the English names."""
    from bot.config import Config
    from bot.discord_bot import make_bot
    from bot.translator import CatalogueTranslator

    bot = make_bot(Config(token=None, sync="off"))
    for ext in ("bot.cogs.games", "bot.cogs.play"):
        await bot.load_extension(ext)
    translator = CatalogueTranslator()
    await bot.tree.set_translator(translator)
    wrong, levels = [], {}
    for cmd in bot.tree.get_commands():
        payload = await cmd.get_translated_payload(bot.tree, translator)
        stack = [(payload, ())]
        while stack:
            node, parents = stack.pop()
            ru = node.get("name_localizations", {}).get("ru")
            where = " ".join((*parents, node["name"]))
            if ru is None or ru == node["name"] or not _valid_name(ru):
                wrong.append((where, ru))
            # siblings: the commands of one level, the options of one command (names and Russian names apart)
            levels.setdefault(parents, []).append(ru)
            for child in node.get("options", []):
                stack.append((child, (*parents, node["name"])))
    assert not wrong, wrong
    clashes = {level: names for level, names in levels.items() if len(set(names)) != len(names)}
    assert not clashes, clashes
    assert sum(len(v) for v in levels.values()) > 150  # every command, group and option was seen
