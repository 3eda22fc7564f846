"""The 18xx engine's own words (round names, corporation states, why a game ended) in the language in
force: the engine names them in English, as 18xx.games does, and players read them here."""

from __future__ import annotations

import re

from i18n import N_, NP_, _

ROUNDS = {"Stock Round": N_("Stock Round {turn}"), "Auction Round": N_("Auction Round {turn}"),
          "Merger and Conversion Round": N_("Merger and Conversion Round {turn}")}
# rounds numbered within a set of operating rounds (1817 has a merger or acquisition round after each)
NUMBERED = {"Operating Round": N_("Operating Round {turn}.{num} (of {of})"),
            "Merger Round": N_("Merger Round {turn}.{num} (of {of})"),
            "Acquisition Round": N_("Acquisition Round {turn}.{num} (of {of})")}
OPERATING = re.compile(r"^(?P<name>[A-Za-z ]+?) (?P<turn>\d+)\.(?P<num>\d+) \(of (?P<of>\d+)\)$")
ROUND = re.compile(r"^(?P<name>[A-Za-z ]+?) (?P<turn>\d+)$")

STATES = {"receivership": N_("receivership"), "insolvent": N_("insolvent"), "relaunched": N_("relaunched"),
          "bankrupt": N_("bankrupt"), "nationalised": N_("nationalised")}

END_REASONS = {"bank": N_("the bank broke"), "bankrupt": N_("a player went bankrupt"),
               "stock_market": N_("a share price reached the end of the market"),
               "final_phase": N_("the last phase was reached"), "nationalization": N_("nationalisation"),
               "manually_ended": N_("ended by the players"), "dnf": N_("did not finish (100 turns)"),
               "final_train": N_("the last train was bought")}


def round_text(description: str) -> str:
    """`Stock Round 3`, `Operating Round 3.1 (of 2)`, 1817's `Merger Round 3.1 (of 2)` (the engine's
    `Round.description`)."""
    text = str(description or "")
    m = OPERATING.match(text)
    if m and m["name"] in NUMBERED:
        return _(NUMBERED[m["name"]], turn=m["turn"], num=m["num"], of=m["of"])
    m = ROUND.match(text)
    if m and m["name"] in ROUNDS:
        msgid = ROUNDS[m["name"]]
        return _(msgid, turn=m["turn"])
    return text


def state_word(state: str) -> str:
    return _(STATES[state]) if state in STATES else state


def end_reason_text(reason: str | None) -> str:
    return _(END_REASONS[reason]) if reason in END_REASONS else str(reason or "")


# Words the engine puts inside its refusals (engine.core.errors.Phrase, worded with their context where a
# refusal is shown): what an action does ("{name} can't {action} now"), a stop a route reaches, a tile's colour.
ACTIONS = {"assign": NP_("action", "assign"), "bankrupt": NP_("action", "bankrupt"),
           "bid": NP_("action", "bid"), "buy_company": NP_("action", "buy company"),
           "buy_shares": NP_("action", "buy shares"), "buy_train": NP_("action", "buy train"),
           "choose": NP_("action", "choose"), "convert": NP_("action", "convert"),
           "discard_train": NP_("action", "discard train"), "dividend": NP_("action", "dividend"),
           "end_game": NP_("action", "end game"), "lay_tile": NP_("action", "lay tile"), "log": NP_("action", "log"),
           "merge": NP_("action", "merge"), "message": NP_("action", "message"), "par": NP_("action", "par"),
           "pass": NP_("action", "pass"), "payoff_loan": NP_("action", "payoff loan"),
           "place_token": NP_("action", "place token"),
           "program_auction_bid": NP_("action", "program auction bid"),
           "program_buy_shares": NP_("action", "program buy shares"),
           "program_disable": NP_("action", "program disable"),
           "program_merger_pass": NP_("action", "program merger pass"),
           "program_share_pass": NP_("action", "program share pass"),
           "remove_token": NP_("action", "remove token"), "run_routes": NP_("action", "run routes"),
           "sell_company": NP_("action", "sell company"), "sell_shares": NP_("action", "sell shares"),
           "short": NP_("action", "short"), "take_loan": NP_("action", "take loan")}
STOPS = (NP_("stop", "city"), NP_("stop", "town"), NP_("stop", "offboard"))
TILE_COLOURS = (NP_("tile colour", "white"), NP_("tile colour", "yellow"), NP_("tile colour", "green"),
                NP_("tile colour", "brown"), NP_("tile colour", "gray"), NP_("tile colour", "red"),
                NP_("tile colour", "blue"))
