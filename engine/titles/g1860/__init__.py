"""1860: Railways on the Isle of Wight (data only: no rules engine yet)."""
