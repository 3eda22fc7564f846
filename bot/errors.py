"""Errors whose message is meant for the member (sent ephemerally; nothing changed)."""


class UserError(Exception):
    """A command that cannot be done: wrong game, not your turn, illegal action, bad input."""
