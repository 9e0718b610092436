"""Transcript formats: detection, reading and writing (SPEC §9.6).

A format is one module (``anthropic``, ``claude_code``, ``codex``, ``eino``, ``openai_chat``) that
declares what it is in its ``SPEC`` (:class:`~compactor.formats.base.FormatSpec`) and reads and
writes its files. Public entry points live in :mod:`compactor.formats.registry`.

The names below are for the command line's help and checks, which must not import the readers:
they come from ``_manifest.py``, which :func:`compactor.formats.registry.render_manifest`
generates from the declarations.
"""

from ._manifest import APPEND_FORMATS, FORMAT_HELP, FORMAT_NAMES, READ_TOOLS

__all__ = ["APPEND_FORMATS", "FORMAT_HELP", "FORMAT_NAMES", "READ_TOOLS"]
