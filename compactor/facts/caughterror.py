"""A call that exited 0 whose output reports a failure its own error handling printed (BENCH41
W2, W4, cx-ptp: a PowerShell ``try { Invoke-RestMethod … } catch { "ERR: $($_.Exception.Message)"
}`` printed "ERR: The remote server returned an error: (405) Method Not Allowed." and exited 0;
another printed "N8N API not reachable: … (401) …"; both were "(succeeded)", one the fix of an
earlier failure).

:func:`caught_error` reads only where a catch block or a script's own error handling prints: the
output's first few lines and its last lines. A line there that starts like an error report
(``ERR:``, ``ERROR``, ``Error:``, ``error:``, ``fatal:``, ``FAILED``) or that reports an HTTP
error status (``(405) Method Not Allowed``, ``401 Unauthorized``, ``HTTP/1.1 500``, ``status
404``) or an unreachable service (``not reachable``, ``connection refused``) is the call's
failure, unless a clear success marker follows it (``OK``, ``passed``, ``success``…). Counts
(``0 errors``, ``errors: []``), words (``error handling``) and test summaries with ``0 failed``
are no such line, nor a line of printed data (a JSON response's ``"status": "401 Unauthorized"``,
a log record opening with its timestamp: the command printed them, they are no report of its
own; debt51); a call that only reads or searches files (a grep printing matching lines) is
never judged here (its caller does not ask).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .probes import probe_answered
from .text import Call, cut
from .wenton import went_on

__all__ = ["caught_error", "caught_failure"]

_EDGE_LINES = 3
"""How many of the output's first and last non-blank lines are read."""
_ERROR_START_RE = lazy_pattern(
    r"^(?:ERR(?:OR)?\b\s*[:!\]-]?|\[ERR(?:OR)?\]|Error:|error:|fatal:|FAILED\b|FATAL\b)\s*\S"
)
_HTTP_ERROR_RE = lazy_pattern(
    r"\((?:4\d\d|5\d\d)\)(?!\s*\d)"
    r"|\b[45]\d\d (?:Unauthorized|Forbidden|Not Found|Method Not Allowed|Bad Request|Conflict"
    r"|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Time-?out|Too Many Requests)\b"
    r"|\bHTTP/\d(?:\.\d)? [45]\d\d\b|\bstatus(?: code)?:? [45]\d\d\b"
    r"|\bnot reachable\b|\bconnection refused\b",  # (not "unreachable code": a warning)
    re.IGNORECASE,
)
_NOT_AN_ERROR_RE = lazy_pattern(
    r"\b0 (?:errors?|failed|failures?)\b|\berrors?: *(?:\[\]|0|none)\b", re.IGNORECASE
)
_SUCCESS_RE = lazy_pattern(
    r"(?m)^\s*(?:OK|Done|Success|Succeeded|PASS(?:ED)?)\b"
    r"|\b(?:succeeded|successfully|all tests passed|[1-9]\d* passed)\b",
    re.IGNORECASE,
)
_DATA_LINE_RE = lazy_pattern(
    r"^(?:[{\"']|\[(?:\s*$|\s*[\[{\"'\d])|<\w[^>]{0,80}>"
    r"|\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\d\d:\d\d:\d\d\b|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d\b)"
)
"""A line of printed data, never the command's own error report (debt51): a JSON or dict
document or one of its fields (``"status": "401 Unauthorized",``, ``{'status': '404 Not
Found'}``), a quoted string, a markup element, or a log record that opens with its timestamp
(``2025-01-02 10:00:00 ERROR: …``, ``[2025-…]``, ``Jan  2 10:00:00``): an API response or a log
the command printed. ``[ERROR] x`` is no data."""
_HINTS = ("err", "fail", "fatal", "(4", "(5", "40", "41", "42", "50", "http", "status", "reach")


def _error_line(line: str) -> bool:
    if _NOT_AN_ERROR_RE.search(line) or _DATA_LINE_RE.match(line):
        return False
    return _ERROR_START_RE.match(line) is not None or _HTTP_ERROR_RE.search(line) is not None


def _edge_lines(text: str) -> tuple[list[str], list[str]]:
    """The first and the last :data:`_EDGE_LINES` non-blank lines of ``text`` (read from its
    first and last 2,000 characters: the output can be long)."""
    head = [ln.strip() for ln in text[:2_000].splitlines() if ln.strip()][:_EDGE_LINES]
    if len(text) <= 2_000:
        rest = [ln.strip() for ln in text.splitlines() if ln.strip()][len(head) :]
        return head, rest[-_EDGE_LINES:]
    tail = [ln.strip() for ln in text[-2_000:].splitlines()[1:] if ln.strip()]
    return head, tail[-_EDGE_LINES:]


def caught_error(text: str) -> str:
    """The line of an exit-0 call's output (its first or last :data:`_EDGE_LINES` non-blank
    lines) that reports a failure its error handling printed, with no success marker after it;
    else '' (module description)."""
    low = (text[:2_000] + text[-2_000:]).lower()
    if not any(h in low for h in _HINTS):
        return ""
    head, tail = _edge_lines(text)
    for line in (*head, *tail):
        if len(line) <= 600 and _error_line(line):
            after = text[text.rfind(line) + len(line) :]
            if _SUCCESS_RE.search(after[:2_000]) or _SUCCESS_RE.search(after[-2_000:]):
                return ""
            return line
    return ""


def caught_failure(call: Call | None, code: int | None, body: str) -> str:
    """For a shell call that exited 0 (``code`` 0) or reported no exit code (None) whose own
    output ``body`` (no exit-code header) reports an error (:func:`caught_error`) that is not
    one :func:`~compactor.facts.wenton.went_on` excuses (pip's resolver report): the failure's
    line, ``exit 0, but its output reports an error: …``; else ''."""
    if call is None or not call.command or probe_answered(code, body, call.job or call.command):
        return ""  # a probe's "no" (blind check 45, W7)
    caught = caught_error(body)
    if not caught or went_on(call, [caught], body):
        return ""
    exited = "exit 0, but its" if code == 0 else "Its"
    return f"{exited} output reports an error: {cut(caught)}"
