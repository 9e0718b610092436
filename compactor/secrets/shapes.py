"""Key-shaped values masked in a text that is already written, such as the embedded summary
(issue 28, blind check 13: a diff's removed line ``"description": "AIza…"`` carried a Firebase
API key into the summary, under a key name that no credential word flags).

:func:`mask_key_shapes` applies the built-in rules of :mod:`.masking` that find a secret by its
shape (PEM private keys, JWTs, OpenAI/Anthropic ``sk-``, AWS ``AKIA…``, GitHub ``ghp_``/``gho_``/
``github_pat_``, GitLab, Slack ``xox…``, Google ``AIza…``, Stripe ``sk_live_``, Hugging Face,
npm, URL passwords, ``Authorization: Bearer …``, ``--token …`` flags), not the ``name = value``
assignments (``_util.mask_secret_values`` masks those in a summary), and writes ``***`` for
each value: one owner for the shapes, the same checks (a ``$TOKEN`` placeholder is kept)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from .masking import NOT_SECRET_RE, SHAPE_RULES

__all__ = ["mask_key_shapes"]

MASK = "***"


def _masked(m: re.Match[str], check: Callable[[str], bool] | None) -> str:
    group: str | int = "secret" if "secret" in m.re.groupindex else 0
    value = m.group(group)
    if not value or NOT_SECRET_RE.match(value) or (check is not None and not check(value)):
        return m.group(0)
    start, end = m.span(group)
    whole = m.group(0)
    return whole[: start - m.start()] + MASK + whole[end - m.start() :]


def mask_key_shapes(text: str) -> str:
    """``text`` with every key-shaped secret value shown as ``***`` (see the module doc)."""
    lowered = text.lower() if text.isascii() else None  # (?i) reads some non-ASCII as ASCII
    for regex, hints, check in SHAPE_RULES:
        if lowered is not None and hints and not any(h in lowered for h in hints):
            continue
        text = regex.sub(functools.partial(_masked, check=check), text)
    return text
