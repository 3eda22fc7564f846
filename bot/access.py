"""Who may do what to a game: the one place where server scope and host rights are decided.

A game belongs to the server (guild) it was opened or imported in; the console's games belong to no
server. A caller only ever sees the games of the server the command comes from: any other game reads as
missing. Within its server:

* a **player** is a member holding a seat;
* the **host** is the member who opened (or imported) the game, as long as they hold a seat; handing the
  host's seat over (`/game replace`) hands the host role over with it, and a host leaving a lobby passes
  it to the next player;
* a **moderator** is a member with Discord's *Manage Threads* permission (which *Administrator* implies)
  in the game's own thread or the channel it was opened from, and typing the command there. Moderators
  have host powers (start, abort, kick, replace, reminders) but act in the game only if they hold a seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.db import GameRow, Seat
from bot.errors import UserError, quote
from i18n import lazy


@dataclass(frozen=True)
class Caller:
    """Who sent a command and from where."""

    member_id: int
    name: str = ""
    guild_id: int | None = None        # the server the command came from (None: the console)
    channel_id: int | None = None      # the channel or thread it was typed in
    manages_threads: bool = False      # Discord: Manage Threads (or Administrator) in that channel
    language: str = "en"               # the member's Discord language: their private replies speak it


# the server of a Discord interaction sent from none (a DM, where Discord does not offer the game commands): no
# game's, the console's included (theirs is None)
NO_SERVER = 0


def in_scope(caller: Caller, row: GameRow) -> bool:
    return row.guild_id == caller.guild_id


STORED_INT = (-(2**63), 2**63 - 1)  # SQLite's integers: a number outside them names nothing stored


def game_number(game_id: Any) -> int:
    """A game's number from input; one that cannot name a stored game reads as a missing game."""
    try:
        number = int(game_id)
    except (TypeError, ValueError):
        number = None
    if number is None or not STORED_INT[0] <= number <= STORED_INT[1]:
        raise UserError(lazy("There is no game #{game} in this server.", game=quote(game_id)))
    return number


def check_scope(caller: Caller, row: GameRow | None, game_id: int) -> GameRow:
    """The game if the caller's server owns it; otherwise the same answer as for a missing game."""
    if row is None or not in_scope(caller, row):
        raise UserError(lazy("There is no game #{game} in this server.", game=game_id))
    return row


def seat_of(seats: list[Seat], member_id: int) -> Seat | None:
    return next((s for s in seats if s.member_id == member_id), None)


def is_moderator(caller: Caller, row: GameRow) -> bool:
    where = {c for c in (row.thread_id, row.channel_id) if c is not None}
    return caller.manages_threads and in_scope(caller, row) and caller.channel_id in where


def is_host(caller: Caller, row: GameRow, seats: list[Seat]) -> bool:
    if not in_scope(caller, row):
        return False
    seated_host = row.created_by == caller.member_id and seat_of(seats, caller.member_id) is not None
    return seated_host or is_moderator(caller, row)


def require_host(caller: Caller, row: GameRow, seats: list[Seat], what: object) -> None:
    """`what`: the deed, an `i18n.lazy` infinitive phrase ("start the game")."""
    if not is_host(caller, row, seats):
        raise UserError(lazy("Only the host (or a moderator, in the game's thread) can {what}.", what=what))


def require_player_or_host(caller: Caller, row: GameRow, seats: list[Seat], what: object) -> None:
    if seat_of(seats, caller.member_id) is None and not is_host(caller, row, seats):
        raise UserError(lazy("Only the players of this game (or its host) can {what}.", what=what))


def next_host(seats: list[Seat], leaving: int) -> Seat | None:
    """Who becomes host when the host's seat goes: the player who joined first among the others."""
    others = [s for s in seats if s.member_id != leaving and s.member_id > 0]
    return min(others, key=lambda s: (s.joined_at, s.player_id), default=None)
