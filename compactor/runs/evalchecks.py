"""``compact eval``'s checks added after blind check 21 (issue 28), which found it too lenient
(93.6-100 for every output, one stating a rejection's feedback as the current request included):

* **stated request** — the current request the compacted text states (``Current request:
  "…"``, ``"…" (the current request)``, ``The latest request is …: "…"``, ``continue the latest
  request: "…"``) against the original's last request: 1 when it is that request (a cut quote's
  pieces all in it), 0 when it is another text; a tool result's text (the user's feedback on a
  rejected call) or a harness's JSON record (a queued task's registration, blind check 22)
  stated as the request is also a wrong statement. No item when none is stated. A request kept
  verbatim after the summary is the current one: the summary's is then not checked.
* **user words in results** — the user's words a tool result carries: the feedback of a rejected
  call ("… the user said: …", "… reason for the rejection: …") and the answers to the agent's
  questions (``User has answered your questions: "Q"="A"``), each looked for in the compacted
  text.
* **failures shown** — the lines of the last rounds' results that report their command's failure
  (:func:`compactor.facts.masked.failure_report`, a failure a pipe hid included; the first error
  line of a failed result).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from compactor.facts import Call, Entry, is_reading_call, outcome
from compactor.facts.masked import failure_report
from compactor.facts.useranswers import json_answers

from .claims import Contradiction

__all__ = ["failure_lines", "stated_request", "user_words"]

_STATED_RE = re.compile(
    r"(?:Current request|The latest request (?:is still in progress|is not answered yet|is in "
    r"progress(?: \([^)\n]{0,60}\))?|was completed)|continue the latest request|Answer the latest "
    r"request)\s*:\s*\"(.+?)\"(?=[\s.,;)]|$)"
    r"|request: \"(.+?)\" \(the current request\)",
    re.MULTILINE | re.IGNORECASE,
)
_SAID_RE = re.compile(
    r"(?:how to proceed, the user said|reason for (?:the )?(?:rejection|denial))\s*:\s*(\S.*)",
    re.IGNORECASE | re.DOTALL,
)
_ANSWER_RE = re.compile(r'"[^"\n]{1,400}"="([^"\n]{1,400})"')
_CLI_WORDS = "the user wants to clarify these questions"
_WORDS_CHARS = 300
_BY_USER = ("The user rejected", "Interrupted by the user")  # the user's act, no failure
_SPACE_RE = re.compile(r"\s+")
_RECORD_RE = re.compile(r"\A\s*\{\s*['\"][A-Za-z_]\w*['\"]\s*:\s*['\"\d\[{tfn]")
"""A stated request that opens as an object of quoted keys: a harness's record (Claude Code's
queued task registration, blind check 22), never the user's words."""
_CUT_RE = re.compile(r"…|\.\.\.")


def _norm(text: str) -> str:
    """``text`` lowercased, its spaces collapsed and every quote mark one (a summary that
    shows the user's ``"x"`` as ``'x'`` states the same request: blind check 25 E1)."""
    return _SPACE_RE.sub(" ", text.replace("`", "").translate(_QUOTES)).strip().lower()


_QUOTES = str.maketrans(dict.fromkeys('"“”‘’', "'"))


def _pieces(quoted: str) -> list[str]:
    return [p for p in (_norm(x) for x in _CUT_RE.split(quoted)) if len(p) >= 2]


def _said(text: str) -> str:
    found = _SAID_RE.search(text[:4_000])
    if found is None or "want to proceed" not in text[:4_000]:
        return ""
    words = found.group(1).strip()
    return "" if words.lower().startswith(_CLI_WORDS) else words[:_WORDS_CHARS]


def user_words(entries: Sequence[Entry]) -> Iterator[str]:
    """The user's words carried in tool results, in order, each once."""
    seen: set[str] = set()
    for e in entries:
        for r in e.results:
            found = [_said(r.text)] if "want to proceed" in r.text[:4_000] else []
            if "answered your questions" in r.text[:400]:
                found += [m.group(1) for m in _ANSWER_RE.finditer(r.text[:4_000])]
            elif "answers" in r.text[:40]:  # Codex's request_user_input (blind check 34 N1)
                found += [said for _, said in json_answers(r.text)]
            for words in found:
                key = _norm(words)
                if len(key) >= 2 and key not in seen:
                    seen.add(key)
                    yield words


def stated_request(
    summary: str, current: str | None, entries: Sequence[Entry]
) -> tuple[float, str, Contradiction | None] | None:
    """(score, how, a wrong statement or None) of the current request ``summary`` states,
    against ``current`` (the original's last request); None when it states none."""
    stated = [(m.group(1) or m.group(2), m.start()) for m in _STATED_RE.finditer(summary)]
    if not stated or current is None:
        return None
    want = _norm(current)
    words = [_norm(w) for w in user_words(entries)]
    for quoted, at in stated:
        pieces = _pieces(quoted)
        if not pieces or all(p in want for p in pieces):
            continue
        end = summary.find("\n", at)
        line = summary[at : end if end >= 0 else len(summary)][:200]
        if _RECORD_RE.match(quoted):
            why = "a harness's record (JSON), not the user's words"
            shows = f'{why}; the last request is "{current[:120]}"'
            return 0.0, f"wrong: {why}", Contradiction("current request", line, shows)
        if any(all(p in w for p in pieces) for w in words):
            why = "a tool result's text (the user's feedback on a rejected call), not a request"
            shows = f'{why}; the last request is "{current[:120]}"'
            return 0.0, f"wrong: {why}", Contradiction("current request", line, shows)
        return 0.0, "wrong: not the original's last request", None
    return 1.0, "agrees with the original's last request", None


def failure_lines(
    entries: Sequence[Entry], rounds: Callable[[list[Entry]], list[Entry]]
) -> Iterator[str]:
    """The lines of the last rounds' results (``rounds``) that report their command's failure:
    a failed result's first error line, or a line a pipe's exit status hid."""
    calls: dict[str, Call] = {c.id: c for e in entries for c in e.calls if c.id}
    seen: set[str] = set()
    for e in rounds(list(entries)):
        for r in e.results:
            call = calls.get(r.call_id)
            oc = outcome(r, call)
            lines = list(oc.lines[:1]) if oc.failed else []
            if not oc.failed and call is not None and not is_reading_call(call):
                lines = [ln.strip() for ln in r.text[-20_000:].splitlines() if failure_report(ln)]
            for line in lines[:2]:
                if line and line not in seen and not line.startswith(_BY_USER):
                    seen.add(line)
                    yield line
