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


def invalid_value(error: dict) -> Phrase:
    """What is wrong with a value, from one of pydantic's errors (`ValidationError.errors()`), as words a refusal
    carries and a player reads in their language: "must be a whole number", "must be at least 0"... (pydantic's
    own text is English only)."""
    kind, ctx = error.get("type"), error.get("ctx") or {}
    if kind == "missing":
        return Phrase("is missing")
    if kind in ("int_type", "int_parsing", "int_from_float", "int_parsing_size"):
        return Phrase("must be a whole number")
    if kind in ("float_type", "float_parsing", "finite_number"):
        return Phrase("must be a number")
    if kind in ("string_type", "string_unicode"):
        return Phrase("must be text")
    if kind in ("bool_type", "bool_parsing"):
        return Phrase("must be true or false")
    if kind in ("list_type", "tuple_type", "set_type", "iterable_type"):
        return Phrase("must be a list")
    if kind in ("dict_type", "model_type", "model_attributes_type", "dataclass_type"):
        return Phrase("must be a JSON object")
    if kind in ("literal_error", "enum"):
        return Phrase("must be {expected}", expected=str(ctx.get("expected", "")))
    if kind == "greater_than_equal":
        return Phrase("must be at least {least}", least=ctx.get("ge"))
    if kind == "greater_than":
        return Phrase("must be more than {least}", least=ctx.get("gt"))
    if kind == "less_than_equal":
        return Phrase("must be at most {most}", most=ctx.get("le"))
    if kind == "less_than":
        return Phrase("must be less than {most}", most=ctx.get("lt"))
    if kind in ("too_short", "string_too_short"):
        if ctx.get("min_length") == 1:
            return Phrase("must not be empty")
        return Phrase("must have at least {least} entries", least=ctx.get("min_length"))
    if kind in ("too_long", "string_too_long"):
        return Phrase("must have at most {most} entries", most=ctx.get("max_length"))
    if kind == "extra_forbidden":
        return Phrase("is not a field it takes")
    if kind == "unique_ids":
        return Phrase("must give each player an id of their own")
    return Phrase("is not valid")


def invalid_field(error: dict, skip: tuple[str, ...] = ()) -> str:
    """The field one of pydantic's errors is about (`routes.0.train`), its union branches (`skip`) left out."""
    return ".".join(str(p) for p in error.get("loc", ()) if p not in skip)


def first_invalid(errors: list[dict], skip: tuple[str, ...] = ()) -> tuple[str, Phrase, bool]:
    """(the field, what is wrong with it, whether a value was given) for the first field pydantic's errors fault;
    a field of several types (a player id: a whole number or text) faulted by each: what any of them takes."""
    first = errors[0]
    field = invalid_field(first, skip)
    kinds = {e.get("type") for e in errors if invalid_field(e, skip) == field}
    if len(kinds) > 1 and kinds <= {"int_type", "string_type", "int_parsing", "int_from_float"}:
        return field, Phrase("must be a whole number or text"), True
    return field, invalid_value(first), first.get("type") != "missing"
