class GameError(Exception):
    """An action broke a rule. The message is written for the player; the state is unchanged."""
