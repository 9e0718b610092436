"""Values masked where the summarized input holds them, masked in every part of a summary
(blind check 63 S1).

The embedded summary masks a value wherever it holds it once it masked it anywhere
(:func:`.local_mask.mask_repeats`), but the parts added after it was written (the user
messages finalize re-inserts, SPEC §5.2; the facts retention appends) come from the unmasked
input, and masking the finished summary again finds no credential context there: the
context (``"key": "…"``, ``ANTHROPIC_AUTH_TOKEN=…``) was in a tool call that the summary
already shows as ``***``. So an API key the user typed on its own line was printed whole in
§6 while §1, §3 and §5 masked it. (On a cache hit the summarizer does not run at all: the
values are read from the input, not remembered from a render.)

:func:`input_values` finds, among the tokens a text holds that look like a key, those the
summary's maskers mask in the input: each occurrence is masked with the few hundred characters
around it (where the credential word that made it a secret stands)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from compactor.secrets.secret_scan import message_texts

from .local_mask import collecting, mask_repeats, masked

__all__ = ["input_values", "mask_input_values"]

_TOKEN = re.compile(r"(?<![\w\-.+/=])[A-Za-z0-9][\w\-.+/=]{11,}")
_AROUND = 300
"""Characters on each side of a value that its masking reads."""
_MAX_CANDIDATES = 200


def _keylike(token: str) -> bool:
    """A token that may be a key: letters and digits, no path or file name."""
    token = token.rstrip(".")
    return (
        len(token) >= 12
        and any(ch.isdigit() for ch in token)
        and any(ch.isalpha() for ch in token)
        and "/" not in token[:-1].lstrip("/")
        and not token.startswith(("http", "www."))
    )


_SHORT = re.compile(r"(?<![\w\-.+/=@])[A-Za-z0-9][\w!@#^+=]{5,10}(?![\w\-+/=@])")
"""A short password (6 to 11 characters): ``echo '<it>' | sudo -S …`` masks it in a call,
and the user typed it bare ("<it>  please save this"; blind check 75 S1)."""


def _passwordlike(token: str) -> bool:
    """A short token that may be a password: a digit in it (``645866``, ``Miltons711``)."""
    return any(ch.isdigit() for ch in token)


def candidates(text: str, skip: str = "") -> set[str]:
    """The key-like tokens of ``text`` that ``skip`` (a text already masked as one) lacks, and
    its short password-like ones."""
    found = {t.rstrip(".") for t in _TOKEN.findall(text) if _keylike(t)}
    found.update(t for t in _SHORT.findall(text) if _passwordlike(t))
    return {t for t in found if t not in skip}


def input_values(tokens: set[str], texts: Iterable[str]) -> set[str]:
    """The ``tokens`` the summary's maskers mask where ``texts`` hold them (the key-like ones
    first)."""
    ordered = sorted(tokens, key=lambda t: (len(t) < 12, t))  # (the same ones each run)
    left, out = set(ordered[:_MAX_CANDIDATES]), set()
    for text in texts:
        for token in [t for t in left if t in text]:
            at = text.find(token)
            while at >= 0:
                with collecting() as found:
                    masked(text[max(0, at - _AROUND) : at + len(token) + _AROUND])
                if any(_holds(token, value) for value in found):
                    out.add(token)
                    left.discard(token)
                    break
                at = text.find(token, at + len(token))
        if not left:
            break
    return out


def _holds(token: str, value: str) -> bool:
    """Whether a masked ``value`` is ``token`` or (a key-like token) holds it or is held by it."""
    if token == value:
        return True
    return len(token) >= 12 and len(value) >= 8 and (token in value or value in token)


def mask_input_values(text: str, messages: Sequence[object], written: str = "") -> str:
    """``text`` (a finished summary) with every key-like value the input ``messages`` hold in
    a credential context masked; ``written`` is the summarizer's own (masked) text: its tokens
    were masked by the same rule when it was made."""
    tokens = candidates(text, written)
    if not tokens:
        return text
    values = input_values(tokens, (t for m in messages for t in message_texts(m) if t))
    return mask_repeats(text, values) if values else text
