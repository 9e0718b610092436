"""A session that ended at the agent CLI's usage or rate limit (blind check 14, issue 28).

Claude Code writes ``You're out of extra usage · resets 9pm (UTC)`` (a ``<synthetic>``
assistant record, ``isApiErrorMessage``) in the assistant's place when the account's limit is
hit; every later message the user types gets the same text back. Such a text is never an
answer (:func:`compactor.models.local_text.is_harness_error` already keeps it out of the
replies). When the session's last assistant output is one, the work ended BLOCKED: the request
the work was doing is not finished, and the short texts the user typed while blocked
(``llama``, ``continue``: probes, answered only by the limit text) are not a new request
(:func:`judge_blocked` takes them out of the requests; :func:`blocked_items` and
:func:`blocked_step` say where the work stands).
"""

from __future__ import annotations

from compactor._util import lazy_pattern
from compactor.facts import Entry, cut

from .local_records import ErrorFact
from .local_session import Session
from .local_text import quote

__all__ = [
    "blocked_at",
    "blocked_items",
    "blocked_step",
    "is_limit",
    "judge_blocked",
    "mid_work",
    "resumed_limit",
    "typed_while_blocked",
]

_LIMIT_RE = lazy_pattern(
    r"(?i:\b(?:usage|rate|session|weekly|[\d-]+ ?hour) limit\b|\bout of (?:extra |free )?"
    r"(?:usage|credits?|messages|tokens)\b|\blimit (?:reached|exceeded|hit)\b|\bresets? (?:at )?\d|"
    r"\b(?:hit|reached) your [\w -]{0,30}limit\b)"
)
"""A limit notice's shape (``You're out of extra usage · resets 9pm``, ``Claude usage limit
reached``, ``Rate limit: …``, ``5-hour limit reached ∙ resets 3pm``, ``You've hit your limit ·
resets Jan 18, 8pm``: blind check 21)."""
_NEAR = 6
"""How many calls before the limit notice count as "the last" (its failures may be open)."""
_REJECTED_RE = lazy_pattern(r"(?i:^(?:the )?user rejected\b|doesn't want to proceed)")
_URL_RE = lazy_pattern(r"https?://([\w.-]+)")
_FETCH_RE = lazy_pattern(r"(?i:fetch|browse|open_?url|curl|wget)")
_RESETS_RE = lazy_pattern(r"(?i:\b(?:resets?|try again (?:in|at|after))\b[^\n.]{0,40})")
_RESUMES_RE = lazy_pattern(
    r"(?i:\b(?:keep (?:going|working|at it)|continue|go on|carry on|resume|proceed|go ahead)\b)"
)
"""The user's words taking stopped work up again ("Keep working", "continue")."""
_CANCELLED = "Cancelled: parallel tool call"  # a sibling call's failure, not its own
_PROBE_CHARS, _PROBE_WORDS = 40, 4
"""A text typed while blocked is a probe (not a request) when this short."""


def is_limit(e: Entry) -> bool:
    """Whether ``e`` is the agent CLI's usage-limit notice (short, of :data:`_LIMIT_RE`'s shape)."""
    return len(e.text) <= 600 and _LIMIT_RE.search(e.text) is not None


def blocked_at(s: Session) -> Entry | None:
    """The first limit notice of the run of them that ends the session (nothing the assistant
    did after it but more limit notices), or None when the session did not end blocked."""
    notices = {e.index for e in s.harness_errors}
    first: Entry | None = None
    for e in reversed(s.entries):
        if e.internal or e.injected or e.role != "assistant":
            continue
        if e.index in notices and not e.calls:
            if not is_limit(e):
                break
            first = e
        elif e.calls or e.text.strip():
            break
    return first


def _is_probe(e: Entry) -> bool:
    text = e.text.strip()
    return len(text) <= _PROBE_CHARS and len(text.split()) <= _PROBE_WORDS


def typed_while_blocked(s: Session) -> list[Entry]:
    """The user's short texts after the first limit notice of the final block."""
    first = blocked_at(s)
    if first is None:
        return []
    return [
        e
        for e in s.entries
        if e.index > first.index and e.role == "user" and not e.injected and not e.internal
        and e.text.strip() and not e.results and _is_probe(e)
    ]  # fmt: skip


def _before_block(s: Session, first: Entry) -> Entry | None:
    """The assistant's last real output (text or calls) before the limit notice ``first``."""
    notices = {e.index for e in s.harness_errors}
    for e in reversed(s.entries[: first.index]):
        if e.role == "assistant" and not e.internal and e.index not in notices:
            if e.calls or e.text.strip():
                return e
    return None


def mid_work(s: Session) -> bool:
    """Whether the limit stopped work in progress: the assistant's last output before it was
    a tool call, or a request came after that output (not the case when it was an answer and
    only probes followed)."""
    first = blocked_at(s)
    if first is None:
        return False
    before = _before_block(s, first)
    last = s.last_request
    return before is None or bool(before.calls) or (last is not None and last.index > before.index)


def judge_blocked(s: Session) -> None:
    """Take the probes typed while blocked out of the requests: the current request stays the
    one the work was doing. The turn then ended only if the last output before the limit was
    an answer; the request is started when the assistant worked on it."""
    probes = {e.index for e in typed_while_blocked(s)}
    if not probes:
        return
    s.requests = [r for r in s.requests if r.index not in probes]
    s.turn_ended = not mid_work(s)
    last = s.last_request
    notices = {e.index for e in s.harness_errors}
    s.request_started = last is not None and any(
        e.role == "assistant" and e.index not in notices and (e.calls or e.text.strip())
        for e in s.entries[last.index + 1 :]
    )


def _notice(s: Session, width: int) -> str:
    first = blocked_at(s)
    if first is None:
        return ""
    notices = [e for e in s.harness_errors if e.index >= first.index]
    times = f", {len(notices)} times" if len(notices) > 1 else ""
    return f"{quote(notices[-1].text, width)}{times}"


def resumed_limit(s: Session, width: int) -> str:
    """A line saying that the CLI's usage limit stopped the work before the latest request, which
    took it up again ("Keep working" after ``You've hit your limit · resets 1am``: blind check
    30 N4): the notice (its reset time) is why the work stopped, and the request it cut short
    may be unfinished; "" when no limit notice came before the latest request."""
    last = s.last_request
    final = blocked_at(s)
    if last is None:
        return ""
    notices = [
        e for e in s.harness_errors
        if e.index < last.index and (final is None or e.index < final.index) and is_limit(e)
    ]  # fmt: skip
    if not notices:
        return ""
    notice = notices[-1]
    cut_short = next((r for r in reversed(s.requests) if r.index < notice.index), None)
    resumed = next((r for r in s.requests if r.index > notice.index), last)
    went_on = "took it up again" if _RESUMES_RE.search(resumed.text[:80]) else "came after it"
    said = (
        f"The work stopped at the agent CLI's usage limit ({quote(notice.text, width)}); the "
        f"user's next message ({quote(resumed.text, width // 2)}) {went_on}"
    )
    if cut_short is None:
        return said
    return (
        f"{said}. The request the limit cut short: {quote(cut_short.text, width)}; check which "
        "of its parts were done since (those not done are still to do)"
    )


def blocked_items(s: Session, width: int, *, brief: bool = False) -> list[str]:
    """The lines saying that the session stopped at the CLI's limit (none when it did not);
    ``brief``: that line alone, else with the failures left open and the probes typed. A limit
    the work got past (the user took the work up again) is said in section 8 (``brief``) and,
    while the work goes on, in section 7."""
    notice = _notice(s, width)
    if not notice:
        resumed = resumed_limit(s, width) if brief or not s.turn_ended else ""
        return [resumed] if resumed else []
    if mid_work(s):
        said = "the work was blocked, not finished, and the request it was doing is still open"
    else:
        said = "it came after the last answer; nothing was done since"
    last = s.last_request
    if last is not None and any(e.index > last.index for e in s.harness_errors):
        notice = "its notice is quoted in this section"  # (by error_replies)
    items = [f"The session stopped at the agent CLI's usage limit ({notice}): {said}"]
    if brief:
        return items
    failures = _last_open(s)
    if failures and mid_work(s):
        shown = dict.fromkeys(
            f"{cut(e.call, width // 2)} → {cut(e.outcome.lines[0], width)}"
            if e.outcome.lines
            else cut(e.call, width // 2)
            for e in failures[-2:]
        )
        items.append("The last failures before the limit, not fixed: " + " | ".join(shown))
    probes = typed_while_blocked(s)
    if probes:
        said = ", ".join(quote(e.text, width // 4) for e in probes[-3:])
        items.append(
            f"Typed by the user while blocked (each answered only by the limit notice; not a "
            f"new request): {said}"
        )
    return items


def _last_open(s: Session) -> list[ErrorFact]:
    """The failures left open among the last :data:`_NEAR` calls before the limit (blind check
    57 W1: a rejected question the assistant acknowledged 37 calls earlier, and a blocked fetch
    whose link the user then pasted, were listed as "the last failures before the limit, not
    fixed"): not a rejection (a decision of the user's, no failure to fix), nor a fetch whose
    host a later message of the user's names (the user supplied what it was to get)."""
    first = blocked_at(s)
    end = first.index if first is not None else len(s.entries)
    before = [c.index for c in s.calls if c.index < end][-_NEAR:]
    if not before:
        return []
    said = [e for e in s.entries if e.role == "user" and not e.injected and e.text.strip()]
    return [
        e
        for e in s.errors
        if before[0] <= e.index < end and e.after in ("", "failed again")
        and not any(_CANCELLED in line for line in e.outcome.lines)
        and not (e.outcome.lines and _REJECTED_RE.search(e.outcome.lines[0]))
        and not _supplied(e, [u.text for u in said if u.index > e.index])
    ]  # fmt: skip


def _supplied(err: ErrorFact, later: list[str]) -> bool:
    """Whether ``err`` fetched a URL whose host a later user message (``later``) names."""
    found = _URL_RE.search(err.call)
    if found is None or not _FETCH_RE.search(err.call.split("(", 1)[0]):
        return False
    host = found.group(1).lower().removeprefix("www.")
    return any(host in text.lower() for text in later)


def blocked_step(s: Session, then: str, width: int) -> str:
    """Section 9 when the limit stopped work in progress: wait for the limit to reset, then
    ``then`` (the step the session's state gives)."""
    first = blocked_at(s)
    if first is None or not mid_work(s):
        return ""
    resets = _RESETS_RE.search(first.text)
    when = f" ({cut(resets.group(0).strip(), width)})" if resets else ""
    return (
        f"   The session stopped at the agent CLI's usage limit{when}; the request was not "
        f"finished. Once the limit allows: {then}"
    )
