"""``compact eval``'s "ended" row (issue 28 point 8): did the original session end with its last
request answered, and does the compacted text claim the same?

The ORIGINAL is read here on its own, deliberately not through the embedded summarizer's state
model (:mod:`compactor.models.local_session`), so that eval cannot trivially agree with our own
summarizer. The session ended **answered** when, after the last real user request, the last
message is an assistant reply without calls that neither announces a next step ("Let me …",
"Next I'll …", a sentence ending in ``:``) nor asks for input (a question, "should I …?"; a
closing offer such as "What else would you like me to do?" after an answer is not one), or
makes only a call that closes the episode (``submit``, ``transfer_to_human_agents``) whose
result is back; and nothing after the request shows an interruption (``[Request interrupted by
user``, ``<turn_aborted>``, "aborted by user"), no call is without a result, and the latest
todo list written for the request has no open item. Otherwise it ended **not answered**, with
the reason.

The COMPACTED text (summary and kept messages) claims *answered* when it says so in words ("the
last request was answered", "nothing is pending", "was completed", "pending: none"), and *not
answered* when it says the work is in progress, interrupted or unanswered, or keeps an
interruption marker. Both or neither: no claim (the row has no item). Only the compacted
transcript's END claims anything (:func:`end_claim`): its messages after the summary, read as the
original is; when the summary is its end, the summary's closing sections (§7 "Pending Tasks" to
§9, else the whole summary). A marker kept mid-history ("[Request interrupted by user for tool
use]" before a later request that was answered) says how that turn ended, not the session
(blind check 22: verbatim reduce outputs scored 61-75). Plain data out.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from compactor._util import lazy_pattern
from compactor.facts import Call, Entry
from compactor.models.local_blocked import is_limit
from compactor.models.local_evalnotice import is_evaluation_notice
from compactor.models.local_harness import is_harness_error

__all__ = ["Ending", "claim_of", "end_claim", "ending_of"]


@dataclass(frozen=True, slots=True)
class Ending:
    """How the original ended: answered or not, and why (one line)."""

    answered: bool
    why: str


_INTERRUPTED = ("[request interrupted by user", "<turn_aborted>", "aborted by user")
_OPEN_DONE = frozenset({"completed", "complete", "done", "cancelled", "canceled", "skipped"})
_ANNOUNCE_RE = lazy_pattern(
    r"(?:^|\n)\s*(?:let me|let's|i'll|i will|i'm going to|i am going to|now i'll|now let me|"
    r"next,? i|first,? i|now,? i)\b[^\n]*\Z|:\s*\Z",
    re.IGNORECASE,
)
_ASK_RE = lazy_pattern(
    r"\?\s*\Z|\b(?:let me know|would you like|do you want|should i|shall i|please confirm|"
    r"which (?:one|option) (?:do|would) you)\b[^\n]*\Z",
    re.IGNORECASE,
)
_OFFER_RE = lazy_pattern(
    r"\b(?:what else|anything else|let me know if|if you (?:want|need|would like|'d like)|"
    r"happy to help)\b",
    re.IGNORECASE,
)
"""A closing offer after an answer ("What else would you like me to do?"): not a request for
input about the current work."""
_TERMINAL_RE = lazy_pattern(
    r"(?:submit|finish|done|attempt_completion|task_complete|complete_task|end_conversation|"
    r"transfer_to_human(?:_agents?)?)",
    re.IGNORECASE,
)
"""A call that ends the episode by its name (SWE-agent's ``submit``, tau-bench's
``transfer_to_human_agents``, Cline's ``attempt_completion``): answered once its result is back,
with no reply expected after it."""
_ANSWERED_RE = lazy_pattern(
    r"\b(?:was|were|has been|have been|is) (?:answered|completed)\b|"
    r"\bnothing (?:else )?(?:is )?pending\b|\bpending(?: tasks)?\s*:\s*none\b|"
    r"\bno pending (?:work|tasks?)\b",
    re.IGNORECASE,
)
_OPEN_RE = lazy_pattern(
    r"\b(?:is|was) (?:still )?in progress\b|\bnot (?:yet )?(?:answered|completed|finished)\b|"
    r"\bwas interrupted\b|\binterrupted by the user\b|\bstill (?:pending|open)\b|"
    r"\bcalls? in flight\b|\bmid-(?:way|turn)\b|\[request interrupted by user|<turn_aborted>",
    re.IGNORECASE,
)


def _todo_items(call: Call) -> list[object] | None:
    """The items of a todo/plan call (TodoWrite ``todos``, update_plan ``plan``), else None."""
    try:
        args = json.loads(call.arguments) if call.arguments else {}
    except ValueError:
        return None
    if not isinstance(args, dict):
        return None
    for key in ("todos", "plan", "items", "tasks"):
        value = args.get(key)
        if isinstance(value, list) and value and all(isinstance(i, dict) for i in value):
            if all("status" in i for i in value):
                return value
    return None


def _went_on(index: int, results: list[int], turns: list[int]) -> bool:
    """Whether, after the call at entry ``index``, a result came back and the assistant then
    spoke or called again: a call whose result the log lacks was not in flight at its end
    (blind check 20, taxi-chat: two parallel ``make clean_compile`` calls an OpenAI-chat export
    kept without results, mid-session)."""
    after = bisect.bisect_right(results, index)
    return after < len(results) and turns[-1] > results[after] if turns else False


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ""


def ending_of(entries: Sequence[Entry], is_request: Callable[[Entry], bool]) -> Ending | None:
    """How ``entries`` (the original) ended; None without any user request."""
    starts = [e.index for e in entries if is_request(e)]
    if not starts:
        return None
    end = entries[-1].index + 1  # a harness's evaluation notice ends the work (blind check 20)
    notice = next((e for e in reversed(entries) if e.index == starts[-1]), None)
    if len(starts) > 1 and notice is not None and is_evaluation_notice(notice.text):
        end, starts = starts[-1], starts[:-1]
    after = [e for e in entries if starts[-1] < e.index < end and not e.internal]
    answered_ids = {r.call_id for e in entries for r in e.results}
    for e in after:
        texts = [e.text, *(r.text for r in e.results)]
        if any(m in t.lower() for t in texts for m in _INTERRUPTED):
            return Ending(False, "the original ends interrupted (the user stopped the turn)")
    flying = [c for e in after for c in e.calls if c.id and c.id not in answered_ids]
    if flying:  # one the agent went on past (a later result, then its next turn) was dropped
        results = [e.index for e in after if e.results]
        turns = [e.index for e in after if e.role == "assistant"]
        flying = [c for c in flying if not _went_on(c.index, results, turns)]
    if flying:
        return Ending(False, f"the original ends with {len(flying)} call(s) in flight")
    todos = [items for e in after for c in e.calls if (items := _todo_items(c)) is not None]
    if todos:
        still = [i for i in todos[-1] if isinstance(i, dict) and i.get("status") not in _OPEN_DONE]
        if still:
            return Ending(False, f"the original ends with {len(still)} todo item(s) open")
    said = [e for e in after if e.role == "assistant" and (e.text.strip() or e.calls)]
    errors = [e for e in said if not e.calls and (e.cli_error or is_harness_error(e.text))]
    if errors and errors[-1] is said[-1] and not is_limit(said[-1]):  # (63 W3: "Please run /login
        errors_only = "errors the API or the agent CLI wrote, no answer"  # · API Error: 401")
        return Ending(False, f"the original ends with the last request unanswered ({errors_only})")
    if not said:
        return Ending(False, "the original ends with the last request unanswered (no reply)")
    last = said[-1]
    later_results = any(e.results for e in after if e.index > last.index)
    if last.calls and all(_TERMINAL_RE.fullmatch(c.name) for c in last.calls):
        return Ending(True, f"the original ends answered (a closing {last.calls[-1].name} call)")
    if last.calls or later_results:
        return Ending(False, "the original ends after tool calls, before any reply")
    if is_limit(last):  # (blind check 59: the usage limit stopped the work, no answer)
        return Ending(False, "the original ends at the agent CLI's usage limit, not answered")
    tail = _last_line(last.text)
    if _ASK_RE.search(tail) and not _OFFER_RE.search(tail):
        return Ending(False, "the original ends asking the user for input")
    if _ANNOUNCE_RE.search(tail):
        return Ending(False, "the original ends with an announced next step, not an answer")
    return Ending(True, "the original ends answered")


def claim_of(text: str) -> tuple[bool, str] | None:
    """(claims answered, the words) of the compacted ``text``; None when it claims neither or
    both."""
    yes = _ANSWERED_RE.search(text)
    no = _OPEN_RE.search(text)
    if (yes is None) == (no is None):
        return None
    m = yes or no
    assert m is not None
    begin = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    line = " ".join(text[begin : end if end >= 0 else len(text)].split())
    return yes is not None, line if len(line) <= 200 else line[:199] + "…"


_CLOSING_RE = lazy_pattern(r"^[ \t]*(?:#+[ \t]*)?(?:§[ \t]*)?7\.[ \t]+\S[^\n]*$", re.MULTILINE)
"""The summary's section 7 heading ("7. Pending Tasks:"): where its closing sections begin."""


def _closing(summary: str) -> str:
    """The summary's closing sections (§7-§9: pending work, current work, next step), from its
    last section-7 heading on; the whole summary when it has none."""
    starts = [m.start() for m in _CLOSING_RE.finditer(summary)]
    return summary[starts[-1] :] if starts else summary


def end_claim(
    entries: Sequence[Entry], at: int | None, is_request: Callable[[Entry], bool]
) -> tuple[bool, str] | None:
    """(claims answered, the words) of the compacted transcript ``entries`` by its END; ``at``:
    the index of its summary message (None: none). Messages after the summary (or every message
    without one) end it: read as :func:`ending_of` reads the original, the summary standing for
    the request it carries; a summary with nothing after it claims by its closing sections
    (:func:`claim_of`). None when it claims nothing."""
    summary = next((e for e in entries if e.index == at), None) if at is not None else None
    after = [e for e in entries if (at is None or e.index > at) and e.role in ("user", "assistant")]
    if summary is not None and not any(e.text.strip() or e.calls or e.results for e in after):
        return claim_of(_closing(summary.text))
    ending = ending_of(entries, lambda e: e.index == at or (not e.internal and is_request(e)))
    if ending is None:
        return claim_of("\n".join(e.text for e in entries))
    return ending.answered, ending.why.replace("the original", "the compacted transcript", 1)
