"""1817 (data only: no rules engine yet)."""
