"""The user's turns that are not typed messages, and which request a short reply continues (issue
28, blind check 13).

* A rejected call whose result carries the user's words (Claude Code's "The user doesn't want to
  proceed with this tool use … To tell you how to proceed, the user said: …", or "… the
  following reason for the rejection: …") is a correction attached to that call, never a user
  request (blind check 21, cc-skill): it stays among the constraints and in section 4, and is
  pending only while no later call acted on it (:func:`pending_correction`). The CLI's own "the
  user wants to clarify these questions" text is not the user's words.
* A rejection that tells the agent to stop and wait ("STOP what you are doing and wait for the
  user to tell you how to proceed"), when nothing the agent did or the user typed follows it,
  puts the latest request on hold: the next step is to wait for the user (:func:`on_hold`).
* The user's words typed after the CLI's interrupt notice in the same message
  (``[Request interrupted by user for tool use] use the v2 API``) are a request too.
* The user's answers to the agent's questions (``AskUserQuestion``) after the current request
  are named with it (:func:`answers_since`).
* A short reply ("お願いします。", "2", "go ahead") continues the request before it that is not
  itself such a reply (:func:`continued_request`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from compactor._util import lazy_pattern
from compactor.facts import cut

from .local_aborted import aborted_step
from .local_answers import answer_line, answer_pairs
from .local_handoff import handoff_line, handoff_step
from .local_question import Question, is_question_call, question_full, questions_of
from .local_records import ErrorFact
from .local_session import Session
from .local_supersede import continues
from .local_text import code, plural, quote

__all__ = [
    "answers_since",
    "continued_request",
    "hold_line",
    "hold_step",
    "judge_cli_rejections",
    "judge_user_turns",
    "pending_correction",
    "requests_from_user",
]

_CLARIFIED = "the user chose to clarify these questions"  # how facts.rejection says so
_REJECTED = "The user rejected this call: "  # how compactor.facts.rejection says so
_WAIT_RE = lazy_pattern(r"STOP what you are doing|wait for the user to tell you how to proceed")
"""The CLI's words for a bare rejection (the user's own words are a request: no hold)."""
_TYPED_AFTER_RE = lazy_pattern(
    r"\A\s*\[Request interrupted by user[^\]\n]{0,40}\]\s*(\S.*)", re.DOTALL
)
_CALL = 90  # characters of the rejected call's line
_SHORT = 3  # words: "お願いします。", "2", "go ahead"


def continued_request(texts: Sequence[str]) -> str | None:
    """For a short last reply that continues (:func:`continues`), the latest request before it
    that is not itself one; else None."""
    last = texts[-1] if texts else ""
    if len(last.split()) > _SHORT or not continues(last):
        return None
    return next((t for t in reversed(texts[:-1]) if t != last and not continues(t)), None)


def judge_user_turns(s: Session) -> None:
    """Words typed after the CLI's interrupt notice in the same message are a request (they
    become the current request; its start and reply are then judged again). A rejection's
    words are not (:func:`pending_correction`)."""
    notice = s.interrupted  # "[Request interrupted by user for tool use] use the v2 API"
    typed = _TYPED_AFTER_RE.match(notice.text) if notice is not None else None
    if notice is None or typed is None:
        return
    s.requests.append(replace(notice, text=typed.group(1).strip(), injected=False))
    s.interrupted = None  # it cut the request before, not these words
    s.requests.sort(key=lambda e: e.index)
    last = s.requests[-1]
    s.request_started = any(e.role == "assistant" for e in s.entries[last.index + 1 :])
    if s.reply is not None and s.reply.index < last.index:
        s.reply = None


def pending_correction(s: Session) -> tuple[str, str] | None:
    """(call, the user's words) of the latest rejection that carries the user's words when
    nothing acted on it yet: no call after it and no later request; else None."""
    last = s.last_request
    for err in reversed(s.errors):
        if err.after != "rejected" or not err.by:
            continue
        if last is not None and err.index <= last.index:
            return None  # the user typed a request after it
        if any(c.index > err.index for c in s.calls):
            return None  # a later call acted on it (redid the call, or went on)
        return err.call, err.by
    return None


def _correction_text(s: Session, width: int) -> str:
    found = pending_correction(s)
    if found is None:
        return ""
    call, said = found
    return (
        f"the user rejected {code(cut(call, _CALL))} and said {quote(said, width)} (a correction "
        "of the current request, not a new request; no call acted on it yet)"
    )


def judge_cli_rejections(s: Session) -> None:
    """A rejection whose only words are the CLI's (the STOP-and-wait text, "the user wants to
    clarify these questions") is set aside, those words kept: they are no standing rule of the
    user's (they are not listed among the constraints)."""
    for err in s.errors:
        if err.after == "rejected" and (_WAIT_RE.search(err.by) or err.by.startswith(_CLARIFIED)):
            err.after = "skipped"


def answers_since(s: Session, width: int) -> str:
    """Section 1's lines naming the user's answers to the agent's questions given after the
    current request, and a correction not acted on yet ('' when neither)."""
    last = s.last_request
    if last is None:
        return ""
    fix = _correction_text(s, width)
    lines = [_answers(s, last.index, width), f"   Not acted on yet: {fix}" if fix else ""]
    return "\n".join(x for x in lines if x)


def _answers(s: Session, since: int, width: int) -> str:
    after = answer_pairs(s, since)  # only the entries after it are read
    if not after:
        return ""
    shown = "; ".join(answer_line(q, a, width) for _, q, a in after[-4:])  # (blind check 33 N6)
    more = f" ({len(after) - 4} earlier ones in section 6)" if len(after) > 4 else ""
    return f"   Since then the user answered the assistant's questions{more}: {shown}"


def _held(s: Session) -> ErrorFact | None:
    """The rejection that told the agent to stop and wait, when it is the last thing that
    happened (no later request, no later call); else None."""
    last = s.last_request
    for err in reversed(s.errors):
        if last is not None and err.index <= last.index:  # the user's words came with it
            return None
        head = err.outcome.lines[0] if err.outcome.lines else ""
        if not head.startswith(_REJECTED) or not _says_wait(head):
            continue
        if any(c.index > err.index for c in s.calls):
            return None  # the agent went on (or was told how to)
        return err
    return None


_USER_WAIT_RE = lazy_pattern(
    r"\A\W*(?:please\W+)?(?:stop|wait|hold on|halt|pause|停|停止|停下|等等|等一下)"
    r"(?:\W+(?:and\W+)?(?:wait|stop|here|now|for now|for me|please|a (?:moment|sec(?:ond)?)))*"
    r"\W*\Z",
    re.IGNORECASE,
)
"""The user's own words of a rejection that only say stop and wait ("STOP", "wait", "stop
and wait for me"): a hold like the CLI's text, not a correction to act on (blind check 40)."""


def _says_wait(head: str) -> bool:
    return bool(_WAIT_RE.search(head) or _USER_WAIT_RE.match(head.removeprefix(_REJECTED)))


def on_hold(s: Session) -> tuple[str, str] | None:
    """(call, the CLI's words) of a rejection that told the agent to stop and wait, when it is
    the last thing that happened (no later request, no later call); else None."""
    err = _held(s)
    if err is None:
        return None
    return err.call, err.outcome.lines[0].removeprefix(_REJECTED)


def _asked(s: Session, err: ErrorFact) -> list[Question]:
    """The questions (with their options) of the rejected call ``err`` when it asked the user a
    question ([] for any other call): the user dismissed it, its options are still open."""
    call = next((c for c in reversed(s.calls) if c.index <= err.index and c.id in s.refused), None)
    return questions_of(call.args) if call is not None and is_question_call(call) else []


def _how(s: Session, err: ErrorFact, call: str) -> str:
    """What happened, without the CLI's words as the user's (blind check 32, W1): the CLI's
    fixed rejection text and its interrupt notice are the harness's, not the user's."""
    cut_off = s.interrupted is not None and s.interrupted.index > err.index
    turn = " and the turn was interrupted (the CLI's notice)" if cut_off else ""
    head = err.outcome.lines[0] if err.outcome.lines else ""
    if not _WAIT_RE.search(head):  # the user's own words said stop (blind check 40, W1)
        said = quote(head.removeprefix(_REJECTED), 80)
        return f"the user rejected {code(cut(call, _CALL))} and said {said}{turn}"
    return (
        f"the user rejected {code(cut(call, _CALL))} without a word of their own{turn}; the "
        "CLI's fixed rejection text (not the user's words) told the agent to stop and wait"
    )


def _options(questions: list[Question], pad: str) -> str:
    """The question and each option on a nested line of their own (``pad``: the indent)."""
    lines = question_full(questions)
    return "".join(f"\n{pad}  - {x.strip()}" if x[:1] == " " else f"\n{pad}- {x}" for x in lines)


def _open_question(s: Session) -> tuple[str, list[Question]] | None:
    """(how it ended, its questions) when the last call asked the user a question with options
    and got no answer: the session ended while it waited, or the user interrupted it, and no
    request came after it; else None (a rejection saying stop and wait: :func:`_held`)."""
    call = s.calls[-1] if s.calls else None
    last = s.last_request
    if call is None or (last is not None and last.index > call.index):
        return None
    if not is_question_call(call):
        return None
    if call.id and call.id not in s.answered:
        how = "the session ended while it waited for the user's answer"
    elif call.id in s.failed_calls:
        how = "the user closed it without choosing an option"
    else:
        return None
    return how, questions_of(call.args)


def _question_line(s: Session, ref: str) -> str:
    found = _open_question(s)
    if found is None:
        return ""
    how, asked = found
    return (
        f"The agent asked the user a question and got no answer ({how}): the question is still "
        f"open, the user may still pick one of its options. The latest request waits for the "
        f"answer: {ref}{_options(asked, '     ')}"
    )


def _question_step(s: Session, ref: str) -> str:
    found = _open_question(s)
    if found is None:
        return ""
    how, asked = found
    return (
        f"   Wait for the user's answer to the agent's question ({how}). When the user picks an "
        f'option ("the second one"), do what that option says, then continue {ref}.'
        f"{_options(asked, '   ')}"
    )


def _holding(s: Session, width: int) -> tuple[ErrorFact | None, str, list[Question], str]:
    """What sections 7-9 say of a hold: the call the user stopped (or None), a correction not
    acted on yet, the options of a dismissed question, and how the call is named (a question's
    call by its tool's name alone: its options are listed below it)."""
    held = _held(s)
    fix = _correction_text(s, width)
    if held is None:
        return None, fix, [], ""
    asked = _asked(s, held)
    return held, fix, asked, _how(s, held, held.call.split("(", 1)[0] if asked else held.call)


def hold_line(s: Session, ref: str, width: int) -> str:
    """Sections 7 and 8: that the user told the agent to stop and wait, or that the last reply
    handed the next step to the user ('' when neither)."""
    held, fix, asked, how = _holding(s, width)
    if held is None and fix:
        return f"The latest request is in progress: {ref}. Not acted on yet: {fix}"
    if held is None:
        return _question_line(s, ref) or handoff_line(s, ref, width)
    if asked:
        return (
            f"The user dismissed the agent's question without choosing an option ({how}). The "
            "question is still open (not a proposal the user turned down): the user may still "
            f"pick one of its options. Until the user answers, the latest request is on hold: "
            f"{ref}{_options(asked, '     ')}"
        )
    return (
        f"{how[0].upper()}{how[1:]}. Until the user says how to proceed, the latest request is "
        f"on hold: {ref}"
    )


def hold_step(s: Session, ref: str, width: int) -> str:
    """Section 9 when the user told the agent to stop and wait, or the last reply handed the
    next step to the user ('' when neither); when the user then sent a message and interrupted
    it at once, to wait for the user (blind check 38 W1)."""
    if step := aborted_step(s, ref):
        return step
    held, fix, asked, how = _holding(s, width)
    if held is None and fix:
        return (
            f"   First act on the user's correction, not acted on yet: {fix}. Then continue the "
            f"latest request: {ref}."
        )
    if held is None:
        return _question_step(s, ref) or handoff_step(s, width, 4)
    if asked:
        return (
            f"   Wait for the user's answer: {how}. The question is still open; when the user "
            'picks an option ("the second one"), do what that option says. Do not go on with '
            f"{ref} or run anything until the user answers.{_options(asked, '   ')}"
        )
    return (
        f"   Wait for the user's instruction: {how}. Do not go on with {ref} or run anything "
        "until the user says how to proceed."
    )


def requests_from_user(s: Session) -> str:
    """The analysis line's count of the user's requests; with none in this part after an
    earlier summary, where the request is (blind check 21, cc-pk28: "0 requests from the user"
    read as if nothing was asked)."""
    if not s.requests and s.prior:
        return "no new request from the user (the request is in the earlier summary)"
    return f"{plural(len(s.requests), 'request')} from the user"
