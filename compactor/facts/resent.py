"""Whether a user message is another one sent again with an edit, or a new message (blind check
33, W4).

cx-ocr: the user pasted the same command line four times, each time followed by what it printed
then (an HTML 500 page, "Request was aborted." twice with the server's stack trace, then
``{"success":true,…}``), after a fix of the agent's each time. The finalizer's block of user
messages took them for one message "sent 4 times, edited; the last version", because they share
their first 120 characters (the pasted command). An edit keeps most of the text at its start and
end together (:func:`mostly_same`): the tails are compared, not only a shared long prefix. A
pasted terminal run (a prompt line, ``PS C:\\x>``, ``user@host:~$``, ``$ ``, then its output) is
the same message again only when one extends the other: output that differs is another run.
"""

from __future__ import annotations

from compactor._util import lazy_pattern

__all__ = ["RESENT_PREFIX", "edited_again", "mostly_same", "pasted_run"]

RESENT_PREFIX = 120
"""Two messages that may be one sent again share at least their first this many characters."""
_SAME_SHARE = 0.6
"""An edited message keeps this share of the longer text at its start and end together."""
_PROMPT_RE = lazy_pattern(
    r"\A\s*(?:PS [A-Za-z]:[^\n>]*>|[\w.-]+@[\w.-]+(?::[^\n$#]*)?[$#]|[$%❯➜] )\s*\S",
)
"""A pasted terminal prompt that starts a message: PowerShell's ``PS C:\\dir>``, a POSIX
``user@host:~/dir$``, or a bare ``$ ``/``% ``/``❯ ``."""


def pasted_run(text: str) -> bool:
    """Whether ``text`` starts with a pasted terminal prompt and holds more than its line (the
    command's output was pasted with it)."""
    return "\n" in text.strip() and _PROMPT_RE.match(text) is not None


def _shared(a: str, b: str) -> int:
    """The length of the start ``a`` and ``b`` share."""
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def mostly_same(a: str, b: str) -> bool:
    """One text extends the other, or they share most of the longer one at their start and end
    (an edit in between); never two pasted terminal runs whose outputs differ. Blind check 28
    (W8): two command templates (``/speckit.plan``, ``/speckit.tasks``, 5,918 characters each)
    share their first 130 characters of boilerplate and nothing much else: two requests, not
    one "sent 2 times, edited"."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    if long.startswith(short):
        return True
    if pasted_run(a) and pasted_run(b):  # the same command's other output: another run (W4)
        return False
    start = _shared(a, b)
    end = _shared(a[start:][::-1], b[start:][::-1])
    return start + end >= _SAME_SHARE * len(long)


def edited_again(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` sent again, edited or not: the same text, or the same first
    :data:`RESENT_PREFIX` characters (both at least that long) and :func:`mostly_same`."""
    if a == b:
        return True
    n = RESENT_PREFIX
    return len(a) >= n and len(b) >= n and a[:n] == b[:n] and mostly_same(a, b)
