"""Counting layer (ARCHITECTURE.md): token counts, known windows, the trigger and ``Config``."""
