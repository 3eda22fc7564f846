"""README's first lines offer the titles the bot hosts: those it plays "today", those still being built "to
come", when any is (the engine's registry decides which is which)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.session import Engine, engine_available

pytestmark = pytest.mark.skipif(not engine_available(), reason="engine.titles not importable yet")

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_offers_what_is_playable():
    from engine.titles import REGISTRY

    intro = README.read_text().split("```", 1)[0]
    offer = re.search(r"\(([^)]*) today(?:; ([^)]*) to come)?\)", intro)
    assert offer, "README's first lines say which 18xx titles are played today and which are to come"
    today, to_come = (set(re.findall(r"18\w+", part or "")) for part in offer.groups())
    hosted = set(Engine().titles)
    assert today == {t for t in hosted if t in REGISTRY}
    assert to_come == {name for name, t in REGISTRY.items() if not t.playable}
    assert ("Steam" in intro) == ("steam" in hosted)
