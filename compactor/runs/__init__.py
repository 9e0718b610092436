"""Runs layer (ARCHITECTURE.md): a file run as a transaction (``run_plan`` → ``runner`` →
``run_result``), batches, ``check`` (``dryrun``, ``explain``), ``show``, ``eval``, the
archive and its undo, the inputs a command works on and the effective settings."""
