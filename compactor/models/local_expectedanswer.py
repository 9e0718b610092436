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

Deliberate negative tests (blind check 77 W3, gr_bench2: "Now let's test some validation errors:",
"Let's test duplicate email registration:", "Now let's test invalid token scenarios:", then curl
calls that answered the expected 400/409/401 and "Excellent! All error scenarios work correctly";
§4 counted them among "18 failed tool calls" and paired them with "Worked around by" a login of
another endpoint): the assistant's words right before the call set out to test an error case
(:data:`_SETS_OUT_RE`) and its next words do not doubt the answer; or a sentence of its next
words accepts it and names its status ("The delete works correctly (returns 404)") while
another sentence of the message asks for a fix. Such a failure may also have been "worked
around by" another call: it is an answer either way. "Let me fix …" doubts the answer.
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
    r"^(?:(?:exit 0, but its|Its) output reports an error: )?(?:<\s*)?"
    r"(?:HTTP/\d(?:\.\d)?\s+4\d\d\b|4\d\d\s+[A-Z][a-z]|\{|(?i:status(?: code)?:?\s*4\d\d\b))",
)
"""An error line that is the server's answer: a 4xx status line or a JSON body."""
_SERVER_ERROR_RE = lazy_pattern(r"\b5\d\d\b|\"status(?:Code)?\"\s*:\s*\"?5\d\d")
"""A 5xx status anywhere in the answer: the server broke, no expected answer."""
_ACCEPTS_RE = lazy_pattern(
    r"\bas expected\b|\b(?:is|are|was|it's|that's|this is|which is) (?:the )?expected\b"
    r"|\bexpected (?:response|result|behaviou?r|answer|error|status)\b"
    r"|\b(?:is|é|es|est) (?:normal|esperado|attendu)\b|\b4\d\d (?:is|é|es) (?:fine|ok|correct)\b"
    r"|\bproper (?:validation )?error\b|\b(?:is|are) working\b|\bfuncionando\b"
    r"|\bworks? (?:correctly|as (?:expected|intended))\b"
    r"|\bproperly (?:rejected|returns?|handled)\b",
    re.IGNORECASE,
)
"""Words of the assistant that accept an answer as the expected one."""
_DOUBTS_RE = lazy_pattern(
    r"\b(?:not|n't|no|não|nicht|pas)\s+(?:\w+\s+)?(?:working|expected|normal|funcionando)\b"
    r"|\bunexpected\b|\bexpected\b[^.\n]{0,60}\b(?:but|got|instead)\b|\bstill (?:fail|broken)"
    r"|\b(?:let me|let's|need to|I'll|I will|must) fix\b",
    re.IGNORECASE,
)
"""Words that doubt the answer (a negation, "unexpected", "expected 200 but got 404")."""
_SETS_OUT_RE = lazy_pattern(
    r"\btest(?:s|ing)?\s+(?:\w+[ -]){0,3}?(?:errors?|error (?:scenarios|cases|handling)|validation"
    r"|invalid|duplicate|cross-user|unauthori[sz]ed|unauthenticated|wrong|bad|negative|edge cases?"
    r"|failures?|rejections?|missing|forbidden|expired)\b"
    r"|\bshould (?:return|give|get|fail|be rejected|be denied)\b[^.\n]{0,30}?\b(?:4\d\d|fail|error"
    r"|reject|denied|not found|unauthori[sz]ed)"
    r"|\b(?:require|requires|required) (?:auth\w*|a token)\b"
    r"|\b(?:cannot|can't|can not) access\b",
    re.IGNORECASE,
)
"""Words that set out to test an error case ("let's test some validation errors", "should return
404", "test that task endpoints require authentication"): the call's error answer is the aim."""
_BEFORE = 12
"""Entries before a call searched for the assistant's words that led in to it."""
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


def _words_before(s: Session, starts: list[int], index: int) -> str:
    """The assistant's words that led in to the call at entry ``index``: the latest assistant
    text of its turn before it (up to :data:`_BEFORE` entries back), or ''."""
    requests = {e.index for e in s.requests}
    at = bisect.bisect_right(starts, index)
    for e in reversed(s.entries[max(0, at - _BEFORE) : at]):
        if e.index in requests:
            return ""
        if e.role == "assistant" and e.text.strip():
            return e.text[:_READ]
    return ""


def _accepted(words: list[str], status: str) -> str:
    """The words that accept the answer (the first message's, or a sentence of any that names
    ``status``), or ''."""
    if words and _accepts(words[0]):
        return words[0]
    for later in words if status else ():
        for sentence in sentences(later):
            if status in sentence and _accepts(sentence):
                return sentence
    return ""


def judge_expected_answers(s: Session, items: Sequence[Message | AgenticMessage]) -> None:
    """Mark :data:`EXPECTED_ANSWER` each open failure of an unflagged HTTP probe whose 4xx or
    error-shaped answer the assistant's next words accepted (the module docstring)."""
    starts: list[int] = []
    calls: dict[str, Call] = {}
    for err in s.errors:
        lines = err.outcome.lines
        if (err.after not in OPEN and err.after != "worked around by") or not lines:
            continue  # (a negative test "worked around by" another endpoint: 77 W3)
        if not _ANSWER_LINE_RE.match(lines[0].strip()) or _SERVER_ERROR_RE.search(lines[0]):
            continue
        status = m.group(1) if (m := _STATUS_RE.search(lines[0])) and "{" not in lines[0] else ""
        starts = starts or [e.index for e in s.entries]
        after = _words_after(s, items, starts, err.index)
        # worked around by another call: only a test set out to get the error (its next words
        # may follow that other call: "The API is working" after a retry that worked)
        said = "" if err.after == "worked around by" else _accepted(after, status)
        if not said and after and _DOUBTS_RE.search(after[0]) is None:
            calls = calls or {c.id: c for c in s.calls}
            led = _led_in(s, starts, err, calls)
            said = led and f"{led}\0{after[0]}"
        if not said or (call := _unflagged(s, err)) is None:
            continue
        s.failed_calls.discard(call.id)  # no failed call in the counts and the walk
        err.after, err.by = EXPECTED_ANSWER, ""
        if "\0" in said:  # set out to test an error case, and the next words doubt nothing
            led, then = said.split("\0", 1)
            err.why = (
                f'the assistant set out to test an error case ("{cut(one_line(led), 100)}") '
                f'and went on: "{cut(one_line(then), 100)}"'
            )
            continue
        err.why = f'the assistant took it as the expected answer: "{cut(one_line(said), 160)}"'


def _led_in(s: Session, starts: list[int], err: ErrorFact, calls: dict[str, Call]) -> str:
    """The sentence before the call of ``err`` that set out to test an error case, or ''."""
    at = bisect.bisect_left(starts, err.index)
    found = at < len(starts) and starts[at] == err.index
    ids = [r.call_id for r in s.entries[at].results] if found else []
    made = [calls[i].index for i in ids if i in calls]
    if not made:
        return ""
    before = _words_before(s, starts, min(made))  # (its own message's text too)
    return next((x for x in sentences(before) if _SETS_OUT_RE.search(x)), "")
