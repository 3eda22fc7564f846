"""The 18xx engine's own words (round names, corporation states, why a game ended) in the language in
force: the engine names them in English, as 18xx.games does, and players read them here."""

from __future__ import annotations

import re

from i18n import N_, _

ROUNDS = {"Stock Round": N_("Stock Round {turn}"), "Auction Round": N_("Auction Round {turn}"),
          "Merger and Conversion Round": N_("Merger and Conversion Round {turn}")}
OPERATING = re.compile(r"^Operating Round (?P<turn>\d+)\.(?P<num>\d+) \(of (?P<of>\d+)\)$")
ROUND = re.compile(r"^(?P<name>[A-Za-z ]+?) (?P<turn>\d+)$")

STATES = {"receivership": N_("receivership"), "insolvent": N_("insolvent"), "relaunched": N_("relaunched"),
          "bankrupt": N_("bankrupt"), "nationalised": N_("nationalised")}

END_REASONS = {"bank": N_("the bank broke"), "bankrupt": N_("a player went bankrupt"),
               "stock_market": N_("a share price reached the end of the market"),
               "final_phase": N_("the last phase was reached"), "nationalization": N_("nationalisation"),
               "manually_ended": N_("ended by the players"), "dnf": N_("did not finish (100 turns)"),
               "final_train": N_("the last train was bought")}


def round_text(description: str) -> str:
    """`Stock Round 3`, `Operating Round 3.1 (of 2)` (the engine's `Round.description`)."""
    text = str(description or "")
    m = OPERATING.match(text)
    if m:
        return _("Operating Round {turn}.{num} (of {of})", **m.groupdict())
    m = ROUND.match(text)
    if m and m["name"] in ROUNDS:
        msgid = ROUNDS[m["name"]]
        return _(msgid, turn=m["turn"])
    return text


def state_word(state: str) -> str:
    return _(STATES[state]) if state in STATES else state


def end_reason_text(reason: str | None) -> str:
    return _(END_REASONS[reason]) if reason in END_REASONS else str(reason or "")
