"""An HTTP probe's error answer that the assistant took as expected is no failure (blind check 62,
W1 and W4).

A ``curl -sI http://localhost:5678/`` after a fix answered ``HTTP/1.1 404 Not Found`` (not
flagged, exit status 0), and the assistant's next words were "n8n now works locally (404 é normal
because the route / does not exist)"; a ``curl -X POST …/auth/login -d '{"licenseKey":"test-
invalid-key"}'`` answered ``{"error": "Invalid license key"}`` and the agent concluded "the login
endpoint is working - it returns proper validation error". The summary listed both as
"Unresolved failure", so a resuming agent would chase non-bugs.

By shape: a failure still open whose call runs an HTTP client (``curl``, ``wget``, HTTPie,
``Invoke-WebRequest``/``Invoke-RestMethod``), whose result was not flagged (no ``is_error``, no
non-zero exit code), whose error line is a 4xx status line or an error-shaped JSON body (never a
5xx), and whose next assistant words (its text or reasoning) accept the answer ("as expected",
"404 is normal", "is working", "proper validation error"; not "not working", "unexpected",
"expected … but") is the probe's answer: :data:`EXPECTED_ANSWER`. A later message of the same
turn (up to :data:`_LATER` more) counts only when the accepting sentence names the status
("404 é normal"). The assistant's words only confirm a call the tool did
not flag; a flagged failure stays a failure.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from compactor._util import lazy_pattern
from compactor.facts import Call, Result, cut, exit_code, one_line, sentences
from compactor.schema import AgenticMessage, Message

from .local_again import EXPECTED_ANSWER, OPEN
from .local_notes import thoughts
from .local_records import ErrorFact
from .local_session import Session

__all__ = ["judge_expected_answers"]

_CLIENT_RE = lazy_pattern(
    r"(?:^|[\s|;&(`\"'])(?:curl|wget|xh|https?|Invoke-WebRequest|Invoke-RestMethod|iwr|irm)"
    r"(?:\.exe)?\s",
    re.IGNORECASE,
)
"""A command that runs an HTTP client."""
_ANSWER_LINE_RE = lazy_pattern(
    r"^(?:<\s*)?(?:HTTP/\d(?:\.\d)?\s+4\d\d\b|4\d\d\s+[A-Z][a-z]|\{)",
)
"""An error line that is the server's answer: a 4xx status line or a JSON body."""
_SERVER_ERROR_RE = lazy_pattern(r"\b5\d\d\b|\"status(?:Code)?\"\s*:\s*\"?5\d\d")
"""A 5xx status anywhere in the answer: the server broke, no expected answer."""
_ACCEPTS_RE = lazy_pattern(
    r"\bas expected\b|\b(?:is|are|was|it's|that's|this is|which is) (?:the )?expected\b"
    r"|\bexpected (?:response|result|behaviou?r|answer|error|status)\b"
    r"|\b(?:is|é|es|est) (?:normal|esperado|attendu)\b|\b4\d\d (?:is|é|es) (?:fine|ok|correct)\b"
    r"|\bproper (?:validation )?error\b|\b(?:is|are) working\b|\bfuncionando\b",
    re.IGNORECASE,
)
"""Words of the assistant that accept an answer as the expected one."""
_DOUBTS_RE = lazy_pattern(
    r"\b(?:not|n't|no|não|nicht|pas)\s+(?:\w+\s+)?(?:working|expected|normal|funcionando)\b"
    r"|\bunexpected\b|\bexpected\b[^.\n]{0,60}\b(?:but|got|instead)\b|\bstill (?:fail|broken)",
    re.IGNORECASE,
)
"""Words that doubt the answer (a negation, "unexpected", "expected 200 but got 404")."""
_READ = 800  # characters of each assistant text read
_LATER = 3
"""Assistant messages of the same turn after the first that may accept an answer by its status."""
_STATUS_RE = lazy_pattern(r"\b(4\d\d)\b")


def _unflagged(s: Session, err: ErrorFact) -> Call | None:
    """The HTTP-client call of ``err`` if its result was not flagged as failed, else None."""
    at = err.index if 0 <= err.index < len(s.entries) else -1
    if at < 0 or s.entries[at].index != err.index:
        at = next((k for k, e in enumerate(s.entries) if e.index == err.index), -1)
    if at < 0:
        return None
    results: list[Result] = [r for r in s.entries[at].results if r.call_id in s.failed_calls]
    calls = {c.id: c for c in s.calls if c.index <= err.index}
    for result in results:
        call = calls.get(result.call_id)
        command = call.command if call is not None else None
        if call is None or not command or command[:40] not in err.call:
            continue
        if result.is_error or exit_code(result.text) not in (None, 0):
            return None
        if call.ended not in ("", "exit code 0"):
            return None
        return call if _CLIENT_RE.search(command) else None
    return None


def _words_after(
    s: Session, items: Sequence[Message | AgenticMessage], starts: list[int], index: int
) -> list[str]:
    """The assistant's words (text and reasoning) of each message after entry ``index`` in its
    turn, up to :data:`_LATER` + 1 messages that hold any."""
    requests = {e.index for e in s.requests}
    found: list[str] = []
    for e in s.entries[bisect.bisect_right(starts, index) :]:
        if e.index in requests or e.index > index + 60:
            break
        if e.role != "assistant":
            continue
        noted = thoughts(items[e.index]) if e.index < len(items) else []
        words = " ".join([*noted, e.text]).strip()
        if words:
            found.append(words[:_READ])
            if len(found) > _LATER:
                break
    return found


def _accepts(said: str) -> bool:
    return _ACCEPTS_RE.search(said) is not None and _DOUBTS_RE.search(said) is None


def _accepted(words: list[str], status: str) -> str:
    """The words that accept the answer (the first message's, or a later sentence that names
    ``status``), or ''."""
    if words and _accepts(words[0]):
        return words[0]
    for later in words[1:] if status else ():
        for sentence in sentences(later):
            if status in sentence and _accepts(sentence):
                return sentence
    return ""


def judge_expected_answers(s: Session, items: Sequence[Message | AgenticMessage]) -> None:
    """Mark :data:`EXPECTED_ANSWER` each open failure of an unflagged HTTP probe whose 4xx or
    error-shaped answer the assistant's next words accepted (the module docstring)."""
    starts: list[int] = []
    for err in s.errors:
        lines = err.outcome.lines
        if err.after not in OPEN or not lines:
            continue
        if not _ANSWER_LINE_RE.match(lines[0].strip()) or _SERVER_ERROR_RE.search(lines[0]):
            continue
        status = m.group(1) if (m := _STATUS_RE.search(lines[0])) and "{" not in lines[0] else ""
        starts = starts or [e.index for e in s.entries]
        said = _accepted(_words_after(s, items, starts, err.index), status)
        if not said or (call := _unflagged(s, err)) is None:
            continue
        s.failed_calls.discard(call.id)  # no failed call in the counts and the walk
        err.after, err.by = EXPECTED_ANSWER, ""
        err.why = f'the assistant took it as the expected answer: "{cut(one_line(said), 160)}"'
