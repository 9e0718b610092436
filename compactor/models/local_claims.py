"""What the summary may claim from what the log holds (issue 28, blind check 8).

* **a log without tool calls** (an abridged chat export) shows no file work, so the summary
  does not say "no file was created": it lists the files the assistant's text says it created,
  marked "(per the assistant's text)" (:func:`unchanged_files`, :func:`no_errors_line`);
* **a last reply that asked the user for input** ("please provide the steps", "you have not
  given any steps") did not do the request: the request stands, and the next step is to do it
  from what the user's messages hold (:func:`asked_for_input`, :func:`input_items`,
  :func:`input_step`);
* **a proposal the assistant withdrew** ("scratch that", "never mind", "my prior 'X' idea was
  over-built", or "… instead" after the plan's call failed) is not a decision
  (:func:`judge_withdrawn`);
* **a superseded status** ("job 34123412 is still RUNNING") is not a result once a later
  message reports the same job done (:func:`judge_superseded`).

Each looks at a bounded part of the session (the last requests and replies, the decisions
kept), never at every message with a pattern.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from compactor._util import lazy_pattern
from compactor.facts import Entry, paths

from .local_answered import answers_question
from .local_asksonly import ASKS_ONLY, OFFERED, asks_only, closing_offer
from .local_inprogress import progress_state
from .local_latetasks import own_failed
from .local_leftsteps import left_state
from .local_lost import verify_ask
from .local_notices import said_task
from .local_offers import asks_to_choose
from .local_session import Session
from .local_stashlist import NO_STASH, stash_denied
from .local_subfiles import outside_writes
from .local_text import quote
from .local_usershell import shell_failed_after

__all__ = [
    "answered_ask",
    "asked_for_input",
    "input_items",
    "input_step",
    "judge_superseded",
    "judge_withdrawn",
    "no_errors_line",
    "reply_state",
    "reply_title",
    "unchanged_files",
]

# -- a log without tool calls --------------------------------------------------------------------

_CREATED_RE = lazy_pattern(
    r"(?:^|[.!;:,—–]\s+|\n\s*(?:[-*]\s+)?|\b(?:I|we)(?:['’]ve| have)?\s+)"
    r"(?:created|wrote|saved|generated|produced)\b([^\n]{0,80})",
    re.IGNORECASE,
)
_TEXT_FILES_MOST = 20
_TEXT_MESSAGES_MOST = 500  # the newest assistant messages read for the files they created


def _text_created(s: Session) -> list[str]:
    """The files the assistant's newest messages say it created (a verb that opens a sentence
    or follows "I"/"we", then a path within the next words), in order, each once."""
    said: list[str] = []
    for k in range(len(s.entries) - 1, s.read_from - 1, -1):
        e = s.entries[k]
        if e.role != "assistant" or e.internal or not e.text:
            continue
        said.append(e.text)
        if len(said) >= _TEXT_MESSAGES_MOST:
            break
    found: dict[str, None] = {}
    for text in reversed(said):
        if not (
            "reated" in text or "rote" in text or "aved" in text or "roduced" in text
            or "enerated" in text
        ):  # fmt: skip
            continue
        for m in _CREATED_RE.finditer(text):
            first = next(paths(m.group(1)), None)
            if first is not None and "." in first[1].rsplit("/", 1)[-1]:
                found.setdefault(first[1], None)
        if len(found) >= _TEXT_FILES_MOST:
            break
    return list(found)


_KEPT_CHANGES = (
    "No file was created, edited or deleted in the part this summary covers; the messages kept "
    "after this summary change: "
)


def unchanged_files(s: Session, most: int, width: int = 400) -> list[str]:
    """What section 3 says when no call changed a file: "none" when the log has calls (but the
    folders a mkdir made and the files sub-agents wrote, blind check 16); when it has none,
    the files the text says were created (or nothing about files)."""
    if s.calls:  # calls before the harness's own compaction did (local_earlier)
        since = " since the earlier compaction" if s.earlier.get("changed") else ""
        outside = outside_writes(s, most, width)
        if outside:
            return [
                "No file was created, edited or deleted by this agent's own edit calls"
                f"{since}; but:",
                *outside,
            ]
        if kept := s.earlier.get("kept", ""):  # a kept tail after the summary changed files
            return [_KEPT_CHANGES + ", ".join(kept.split("\n")[:most])]
        return [f"No file was created, edited or deleted{since}."]
    said = _text_created(s)
    if not said:
        return ["This part of the log holds no tool calls: it does not show which files changed."]
    shown = ", ".join(said[:most]) + (f", … ({len(said) - most} more)" if len(said) > most else "")
    return [f"Created, per the assistant's text (this part holds no tool calls): {shown}"]


def no_errors_line(s: Session) -> str:
    """Section 4 when no call failed."""
    if not s.calls:
        return "None in this part: it holds no tool calls."
    return (
        "None in this part: no tool result was flagged as an error, exited non-zero or printed "
        "an error line."
    )


# -- a last reply that asked the user for input ---------------------------------------------------

_ASKS_INPUT_RE = lazy_pattern(
    r"\b(?:please (?:provide|share|send|paste|give|specify|supply|upload|attach)|"
    r"(?:could|can|would) you (?:please )?(?:provide|share|send|paste|give me|specify|supply|"
    r"upload|attach)|"
    r"you (?:have not|haven['’]t|did not|didn['’]t|never) (?:yet )?(?:provided|given|gave|shared|"
    r"specified|included|sent|pasted|listed)|"
    r"no (?:\w+ ){0,3}(?:were|was|has been|have been) (?:provided|given|shared|specified|included)|"
    r"i (?:need|would need|['’]d need|still need) (?:you to (?:provide|share|send|paste|give)|"
    r"(?:the|your|more) (?:\w+ ){0,2}(?:details|input|information|steps|data|file|content)))"
    r"|請提供|请提供|請貼上|请贴上|請給我|请给我|尚未提供|沒有提供|没有提供|未提供任何"
    r"|提供してください|教えてください",
    re.IGNORECASE,
)
_LOOK_CHARS = 8_000
_STANDING_MOST = 3


_CONDITIONAL_RE = lazy_pattern(r"\b(?:if|in case|should you)\b|如果|若", re.IGNORECASE)


def _asks(text: str) -> str:
    """The line of ``text`` (its last ask) that asks the user for input; "" when none does.
    An ask on a line that sets a condition ("if the error persists, please share the log")
    is an offer, not a lack of input."""
    body = text if len(text) <= _LOOK_CHARS else text[:2_000] + "\n" + text[-6_000:]
    last = ""
    for found in _ASKS_INPUT_RE.finditer(body):
        start = body.rfind("\n", 0, found.start()) + 1
        end = body.find("\n", found.end())
        line = body[start : end if end >= 0 else len(body)]
        if _CONDITIONAL_RE.search(line) is None:
            last = line.strip(" *#>-")
    return last


def _reply_to(s: Session, n: int) -> Entry | None:
    """The last assistant text after request ``n`` and before the next request."""
    start = s.requests[n].index
    stop = s.requests[n + 1].index if n + 1 < len(s.requests) else len(s.entries)
    for e in reversed(s.entries[start + 1 : stop]):
        if e.role == "assistant" and not e.internal and e.text.strip():
            return e
    return None


def asked_for_input(s: Session) -> tuple[str, list[Entry]]:
    """(the ask, the requests still standing) when the session ended on a reply that asked the
    user for input instead of doing the request: the latest request and the ones before it
    whose replies did the same (at most :data:`_STANDING_MOST`); ("", []) otherwise."""
    if not s.turn_ended or s.ended_by_tool or not s.requests:
        return "", []
    last = _reply_to(s, len(s.requests) - 1)  # (not s.last_text: a kept tail's is unset)
    if last is None or any(e.calls for e in s.entries[s.requests[-1].index : last.index + 1]):
        return "", []  # the turn did work: a closing ask is a follow-up, not a lack of input
    asked = _asks(last.text)
    if not asked or answers_question(s.requests[-1].text, last.text, asked):
        return "", []  # an answered question that closes with a follow-up (blind check 24)
    standing = [s.requests[-1]]
    for n in range(len(s.requests) - 2, max(-1, len(s.requests) - 1 - _STANDING_MOST), -1):
        reply = _reply_to(s, n)
        if reply is None or not _asks(reply.text):
            break
        standing.insert(0, s.requests[n])
    return asked, standing


def answered_ask(s: Session) -> str:
    """The follow-up a reply asked after answering the user's question (blind check 24): its
    closing ask; "" when the last reply did not answer a question and then ask."""
    if not s.turn_ended or s.ended_by_tool or not s.requests:
        return ""
    last = _reply_to(s, len(s.requests) - 1)
    if last is None or any(e.calls for e in s.entries[s.requests[-1].index : last.index + 1]):
        return ""
    asked = _asks(last.text)
    return asked if asked and answers_question(s.requests[-1].text, last.text, asked) else ""


def _standing(requests: list[Entry], width: int) -> str:
    return "; ".join(quote(r.text, width) for r in requests)


def input_items(s: Session, width: int) -> list[str]:
    """Section 7's lines when the last reply asked the user for input."""
    asked, standing = asked_for_input(s)
    if not asked:
        return []
    return [
        f"The last reply asked the user for input instead of doing the request: "
        f"{quote(asked, width * 2)}",
        f"The request stands (not done): {_standing(standing, width)}",
    ]


def reply_state(s: Session) -> str:
    """How section 8 says the latest request ended (the turn ended)."""
    if asked_for_input(s)[0]:
        return "was not done: the last reply asked the user for input instead"
    if own := own_failed(s):  # not an earlier request's task (blind check 24); which (44, W1)
        said = "; ".join(map(said_task, own))
        last = s.last_request  # a task an earlier request launched: the answer relies on it
        began = all(last is not None and s.background[k].index > last.index for k, _, _ in own)
        whose = "it started" if began else "the answer relies on"
        after = "failed after the answer"
        return f"was answered, but a background task {whose} {after} ({said}; section 7)"
    if failed := shell_failed_after(s):  # the user's own check of the work (blind check 22)
        return f"was answered, but the user then ran `{failed[-1][0]}` and it failed (section 7)"
    if verify_ask(s):  # "Try refreshing and testing it now!" (blind check 12)
        return "was answered, awaiting the user's verification (section 7)"
    if answered_ask(s):  # a closing ask after the answer (blind check 24)
        return "was answered; the reply then asked the user a follow-up (section 7)"
    if closing_offer(s):  # a full answer, then offers of the next step (blind check 66 W1)
        return f"was answered, and {OFFERED} a next step, the user's choice (section 7)"
    if asks_only(s):  # questions before any change: waits for the answers (blind check 61 W6)
        return f"was {ASKS_ONLY} (section 7); it waits for the user's answers"
    if s.question and asks_to_choose(s):  # options to choose are no completion (blind 15)
        return "ended with the assistant asking the user (section 7); it waits for the answer"
    if left := left_state(s):  # steps handed to the user (blind check 51, W1)
        return left
    return progress_state(s) or "was completed"  # "not done yet" (blind check 54, W3)


def reply_title(s: Session) -> str:
    """How section 8 introduces the last reply it quotes."""
    if asked_for_input(s)[0]:
        return "The last reply, verbatim (it asked for input instead; NOT an answer)"
    if own_failed(s):  # what it says of the task is older than the task's failure (44, W1)
        return "The answer to it, verbatim (written before that failure: that task stopped since)"
    if stash_denied(s, s.reply):  # "the work is stashed", then no stash in the list (debt51)
        return f"The answer to it, verbatim (written before {NO_STASH}: none of its work is there)"
    return "The answer to it, verbatim"


def input_step(s: Session, width: int) -> str:
    """Section 9 when the last reply asked the user for input; "" otherwise."""
    asked, standing = asked_for_input(s)
    if not asked:
        return ""
    return (
        f"   Do the request with what the user's messages (section 6) already hold: "
        f"{_standing(standing, width)}. The last reply asked for input instead "
        f"({quote(asked, width)}); ask the user only for what those messages do not hold."
    )


# -- proposals the assistant withdrew -------------------------------------------------------------

_WITHDRAWS_RE = lazy_pattern(
    r"\b(?:scratch that|never ?mind|forget (?:that|what i said)|on second thought|"
    r"i take (?:that|it) back|actually,? (?:let['’]s|i(?:['’]ll| will)|we(?:['’]ll| will)) not)\b",
    re.IGNORECASE,
)
_PRIOR_IDEA_RE = lazy_pattern(
    r"\b(?:my|the|our) (?:prior|earlier|previous|original) "
    r"(?:[\"'“‘`]([^\"'”’`]{3,60})[\"'”’`] )?"
    r"(?:idea|plan|proposal|approach|suggestion|design|recommendation)\b[^.;]{0,40}?"
    r"\b(?:was|is)\b[^.;]{0,20}?\b(?:over-?built|overkill|wrong|unnecessary|not needed|a mistake|"
    r"over-?complicated|over-?engineered|too \w+|not right|moot)",
    re.IGNORECASE,
)
_IDEA_WORDS = ("idea", "plan", "proposal", "approach", "suggestion", "design", "recommend")
"""A message is looked at with the patterns above only when it holds one of their words
(plain ``in`` of a word without its first letter, either case; no lower-casing: issue 28
point 7)."""


_OPENING = 80  # a withdrawal this close to its message's start takes back the message before
_PROPOSAL_RE = lazy_pattern(
    r"\b(?:i['’]ll|i will|let['’]s|we should|we['’]ll|i (?:suggest|propose|recommend)|"
    r"rather than|the (?:answer|plan|approach) (?:that fits )?is)\b",
    re.IGNORECASE,
)


def judge_withdrawn(s: Session) -> None:
    """Drop the decisions the assistant itself withdrew later: a quoted idea its later message
    calls over-built or wrong ("my prior 'scheduled mutations' idea was over-built"), the
    proposals of its message before "scratch that" / "never mind" / "actually, let's not", and
    the proposals of its message before a failed call that the next message replaces with "…
    instead"; the failures its last texts stated before a correction ("… was from the *old*
    log", "false alarm")."""
    if not s.decisions:
        return
    dropped: set[int] = set()
    for e in _after_decisions(s):
        text = e.text
        if (
            "misfire" in text
            or "alse alarm" in text
            or "misread" in text
            or (
                (" from the " in text or " from an " in text) and ("old" in text or "stale" in text)
            )
        ):
            dropped |= _corrected(s, e)
        prior = (
            "prior " in text or "earlier " in text or "previous " in text or "original " in text
        ) and any(w in text for w in _IDEA_WORDS)
        for m in _PRIOR_IDEA_RE.finditer(text) if prior else ():
            idea = (m.group(1) or "").lower()
            for n, (i, _, x) in enumerate(s.decisions):
                if i < e.index and idea and idea in x.lower():
                    dropped.add(n)
        if (
            "ctually" in text
            or "ever mind" in text
            or "evermind" in text
            or "orget " in text
            or "cratch that" in text
            or "ake that back" in text
            or "ake it back" in text
            or "econd thought" in text
        ):
            withdraws = _WITHDRAWS_RE.search(text)
        elif "nstead" in text:
            withdraws = None
        else:
            continue
        if withdraws is not None and withdraws.start() > _OPENING:  # withdraws its own words
            for n, (i, _, x) in enumerate(s.decisions):
                at = e.text.find(x[:40]) if i == e.index else -1
                if 0 <= at < withdraws.start() and _PROPOSAL_RE.search(x):
                    dropped.add(n)
        elif withdraws is not None or ("nstead" in e.text and _failed_since_proposal(s, e.index)):
            before = _previous_text(s, e.index)
            for n, (i, _, x) in enumerate(s.decisions):
                if before is not None and i == before and _PROPOSAL_RE.search(x):
                    dropped.add(n)
    if dropped:
        s.decisions = [d for n, d in enumerate(s.decisions) if n not in dropped]


_REACH = 40  # entries after a decision where a withdrawal of it is looked for


def _after_decisions(s: Session) -> Iterator[Entry]:
    """The assistant texts within :data:`_REACH` entries after a decision, each once."""
    starts = sorted({i for i, _, _ in s.decisions})
    k, until, d = starts[0], -1, 0
    while k < len(s.entries):
        while d < len(starts) and starts[d] <= k:
            until, d = max(until, starts[d] + _REACH), d + 1
        if k > until:
            if d >= len(starts):
                return
            k = starts[d]
            continue
        e = s.entries[k]
        if e.role == "assistant" and not e.internal and e.text:
            yield e
        k += 1


_CORRECTS_RE = lazy_pattern(
    r"\b(?:false alarm|misfired|misread|(?:was|were|came) from (?:the|an) \*{0,2}(?:old|stale)\b)",
    re.IGNORECASE,
)
_FAILURE_CLAIM_RE = lazy_pattern(
    r"\b(?:error|failed|fails|failing|crashed|persists|didn['’]t take effect)\b|"
    r"\bEXIT=[1-9]|\bexit code [1-9]",
    re.IGNORECASE,
)
_CORRECTED_BACK = 3  # assistant texts before a correction whose failure claims it takes back


def _corrected(s: Session, e: Entry) -> set[int]:
    """The decisions a correction withdraws ("the watcher's traceback was from the *old* log",
    "false alarm"): the failures stated by the assistant's last few texts before it (back to
    the user's last request)."""
    if _CORRECTS_RE.search(e.text) is None:
        return set()
    texts: set[int] = set()
    index = e.index
    while len(texts) < _CORRECTED_BACK and (before := _previous_text(s, index)) is not None:
        texts.add(before)
        index = before
    return {
        n for n, (i, _, x) in enumerate(s.decisions)
        if i in texts and _FAILURE_CLAIM_RE.search(x) is not None
    }  # fmt: skip


def _previous_text(s: Session, index: int) -> int | None:
    """The index of the assistant's last text before entry ``index`` (back to a request)."""
    for e in reversed(s.entries[max(0, index - 60) : index]):
        if e.role == "user" and e.text.strip() and not e.injected and not e.results:
            return None
        if e.role == "assistant" and not e.internal and e.text.strip():
            return e.index
    return None


def _failed_since_proposal(s: Session, index: int) -> bool:
    """Whether a call failed between the assistant's previous text and entry ``index``."""
    before = _previous_text(s, index)
    if before is None or not s.failed_calls:
        return False
    return any(c.id in s.failed_calls for e in s.entries[before:index] for c in e.calls)


# -- superseded job statuses ----------------------------------------------------------------------

_STILL_RE = lazy_pattern(
    r"\b(?:still|actually|genuinely) (?:running|RUNNING|in progress|pending|queued)\b|"
    r"\bis (?:still )?(?:running|RUNNING|queued|pending)\b"
)
_JOB_ID_RE = lazy_pattern(r"\b(?=[\w\-]*\d)[\w\-]{5,40}\b")
_DONE_NEAR_RE = lazy_pattern(
    r"\b(?:completed?|finished|done|exited|exit(?: code)?[ =:]+-?\d+|succeeded|failed|cancell?ed|"
    r"killed|timed? ?out)\b",
    re.IGNORECASE,
)
_NEAR = 200
_SCAN_CHARS = 6_000


_FAILED_RE = lazy_pattern(r"\b(?:failed|died|crashed|aborted|exited early)\b", re.IGNORECASE)
_SUCCESS_RE = lazy_pattern(r"\b(?:completed?|succeeded|successfully|exit(?: code)?[ =:]+0)\b", re.I)
_NONZERO_RE = lazy_pattern(r"\bexit(?: ?code)?\s*[ =:(]+\s*[1-9]|\bfailed\b|\berror\b", re.I)


def judge_superseded(s: Session) -> None:
    """Drop a decision that states a job's status when a later message or result names the
    same id with another outcome: "still running" ("job 34123412 is actually still RUNNING")
    once a word says it ended (``final state: COMPLETED``, "completed (exit code 0)"); "it
    failed early" once a later report says it completed successfully."""
    stale = set()
    for n, (i, _, x) in enumerate(s.decisions):
        still = _STILL_RE.search(x) is not None
        if not still and _FAILED_RE.search(x) is None:
            continue
        ids = [m.group() for m in _JOB_ID_RE.finditer(x) if not m.group().isalpha()]
        if ids and _reported_done(s, i, ids[:3], succeeded=not still):
            stale.add(n)
    if stale:
        s.decisions = [d for n, d in enumerate(s.decisions) if n not in stale]


_LATER_MOST = 5_000  # entries after the status looked at for its end


def _reported_done(s: Session, index: int, ids: list[str], *, succeeded: bool) -> bool:
    for e in s.entries[index + 1 : index + 1 + _LATER_MOST]:
        for text in (e.text, *(r.text for r in e.results)):
            head = text[:_SCAN_CHARS]
            for key in ids:
                at = head.find(key)
                while at >= 0:
                    near = head[max(0, at - _NEAR) : at + len(key) + _NEAR]
                    if _STILL_RE.search(near) is None and _ends(near, succeeded):
                        return True
                    at = head.find(key, at + len(key))
    return False


def _ends(near: str, succeeded: bool) -> bool:
    if not succeeded:
        return _DONE_NEAR_RE.search(near) is not None
    return _SUCCESS_RE.search(near) is not None and _NONZERO_RE.search(near) is None
