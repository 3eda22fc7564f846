class GameError(Exception):
    """An action broke a rule; the state is unchanged.

    The reason is a message key, its English text with `{named}` placeholders, and the values that fill them
    (`GameError("{player} has {cash}", player=..., cash=...)`): `str()` is the English, for logs and tests,
    and whoever shows it to a player words the key in the player's language (the bot's catalogue,
    docs/i18n.md). A value may itself be a GameError (a reason inside a reason) or a `Phrase`. The engine
    knows no language."""

    def __init__(self, msgid: str, /, **params):
        super().__init__(msgid)
        self.msgid = msgid
        self.params = params

    def __str__(self) -> str:
        return self.msgid.format(**self.params) if self.params else self.msgid


class Phrase(str):
    """Engine words a refusal carries (what a step waits for, a tile's name, what a payment is for): the
    English text, a str as before, worded in the player's language where the refusal is shown. Like a
    GameError it may have named values; `context` tells apart one English word with two meanings."""

    def __new__(cls, msgid: str, /, context: str | None = None, **params):
        phrase = super().__new__(cls, msgid.format(**params) if params else msgid)
        phrase.msgid, phrase.context, phrase.params = msgid, context, params
        return phrase


class Listing(tuple):
    """Several values a refusal names, joined by commas; each is worded where shown (a Phrase)."""

    joiner = ", "

    def __str__(self) -> str:
        return self.joiner.join(map(str, self))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


class Either(Listing):
    """Values of which one is meant: `A or B`."""

    joiner = " or "
