"""A user message's pasted JSON, as a short head and its size (blind check 64 N5).

cc-azf: the user pasted two n8n workflows (68 K characters of JSON) with a few lines of their own
words; sections 1 and 6 kept the message's start and its end, so the JSON's tail (the same
``instanceId`` hash in every copy) filled the summary while saying nothing a resuming agent
needs: the full text is in the transcript.

:func:`without_json` finds each JSON value the message holds that starts a line (``{`` or ``[``
in its first column, after the user's words on an earlier line: an indented one is a piece of a
larger paste, cut short when that one does not parse) and parses
whole (``json.JSONDecoder.raw_decode``) into at least :data:`LEAST` characters, and replaces it
with its first characters on one line and "(pasted JSON, N characters)". The user's own words,
before, between and after, stay whole. A value that does not parse (a paste cut short) or a
short one is left as it is.
"""

from __future__ import annotations

import json

from compactor._util import lazy_pattern

__all__ = ["LEAST", "without_json"]

LEAST = 1_000
"""Characters a pasted JSON value has at least to be shortened."""
_HEAD = 80
"""Characters of a shortened value kept, on one line."""
_TRIES = 12
"""Line starts tried that do not parse, at most."""
_START_RE = lazy_pattern(r"(?m)^[\[{]")
_DECODER = json.JSONDecoder()


def without_json(text: str, note: str = "") -> str | None:
    """``text`` with each long pasted JSON value shortened (``note`` added inside each
    parenthesis: a pointer to the full text), or None when it holds none."""
    if len(text) < LEAST or ("{" not in text and "[" not in text):
        return None
    out: list[str] = []
    done, tries = 0, _TRIES
    for m in _START_RE.finditer(text):
        start = m.end() - 1
        if start < done:
            continue
        try:
            _, end = _DECODER.raw_decode(text, start)
        except ValueError:
            tries -= 1
            if not tries:
                break  # (a paste cut short: every line of it starts a value that fails)
            continue
        if end - start < LEAST:
            continue
        head = " ".join(text[start : start + _HEAD * 2].split())[:_HEAD].rstrip()
        out += [text[done:start], f"{head} … (pasted JSON, {end - start:,} characters{note})"]
        done = end
    if not out:
        return None
    return "".join([*out, text[done:]])
