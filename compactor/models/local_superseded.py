"""A result the assistant stated that a later one about the same thing superseded (blind check
33, N1).

cx-ocr §5 "Decisions, causes and results stated by the assistant" kept, unlabelled, "added 10s
timeout" (the timeout was raised to 20 s, then 45 s), "I can't complete T001 in this session
because installing dependencies … requires" (T001 was done after the escalated install) and "The
health check failed because the app isn't running on port 3000" (a later health check returned
ok). Each was contradicted elsewhere in the summary.

By shape, two rules, for the newest decision sentences:

* **a setting with a new value**: a sentence naming a time setting (timeout, delay, interval,
  TTL, deadline) with a duration is superseded when a later assistant sentence names the same
  setting word with another duration (10 s → 45 s; ``10000ms`` is 10 s);
* **a failure, then success**: a sentence that says something failed or cannot be done
  (``failed``, ``can't``, ``unable to``, ``isn't running``) about a subject — an identifier it
  names (``T001``, a ``code`` span, a dotted or snake_case name), else the words just before the
  failure verb ("health check") — is superseded when a later sentence (the assistant's, or a
  result the user pasted) names that subject with a word of success and no word of failure.

The earlier sentence is labelled ``(superseded later: '…')`` with the later words.

A code line is no statement (blind check 69 W4, tll_agents §5: "it fails with an Internal
Server Error when the `x-source-key` header is missing" was "superseded later" by
'"x-source-key": sourceKey, // Direct pass-through', a line of another service's code in a
fenced block, its "pass" read as a success): fenced blocks are skipped, a sentence shaped like
code (a ``//`` comment, a ``"key":`` entry, ending in ``;`` ``{`` ``,``) supersedes nothing, and a
success word must be a word of its own (not ``pass-through``). A failure the user's next message
confirmed ("Yeah fails if …") is superseded only by the user's own words or a sentence saying it
was fixed.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import one_line, sentences

from .local_session import Session

__all__ = ["judge_superseded_results"]

_SETTING_RE = lazy_pattern(
    r"(?<![A-Za-z0-9])(timeouts?|delay|interval|ttl|deadline)(?![A-Za-z0-9])", re.IGNORECASE
)
"""A time setting's word, also inside a constant's name (``OCR_TIMEOUT_MS``)."""
_DURATION_RE = lazy_pattern(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s?(ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hours?)\b",
    re.IGNORECASE,
)
_UNIT_NAME_RE = lazy_pattern(
    r"\b[A-Za-z]\w*?_(MS|SECS?|SECONDS|S)\b[\s=:`'\"]{0,4}(?:(?:to|from|=)\s+)?(\d+(?:\.\d+)?)\b",
    re.IGNORECASE,
)
"""A number right after a constant whose name gives its unit (``OCR_TIMEOUT_MS=45000``)."""
_FAILED_RE = lazy_pattern(
    r"\b(?:can['’]t|cannot|unable to|couldn['’]t|fail(?:ed|s)|is failing|"
    r"(?:isn['’]t|is not|wasn['’]t) running)\b",
    re.IGNORECASE,
)
_FAILURE_WORDS_RE = lazy_pattern(
    r"\b(?:not|never|no longer|fail\w*|error\w*|unable|cannot|blocked|still)\b|n['’]t\b|❌",
    re.IGNORECASE,
)
_SUCCESS_RE = lazy_pattern(
    r"✅|(?<![\w-])(?:done|completed?|pass(?:es|ed|ing)?|succeed(?:s|ed)?|successful(?:ly)?|"
    r"works|fixed|resolved|healthy|ok|now running|is running|up and running)(?![\w-])|"
    r"\"success\":\s*true",
    re.IGNORECASE,
)
_FIXED_RE = lazy_pattern(
    r"\b(?:fixed|resolved|now (?:works|returns|passes|succeeds|running)|no longer)\b", re.IGNORECASE
)
"""What supersedes a failure the user confirmed: a sentence saying it was fixed."""
_FENCE_RE = lazy_pattern(r"```.*?(?:```|\Z)", re.DOTALL)
_CODE_RE = lazy_pattern(
    r"(?:^|\s)//|^\W*[\"'][\w.-]+[\"']\s*:|[;{,]\s*$|:=|=>|^\s*(?:func|def|const|let|var|return)\s"
)
"""A sentence shaped like a line of code, which states no result."""
_AGREE_RE = lazy_pattern(
    r"^\W*(?:yes|yeah|yep|yup|right|exactly|correct|confirmed|indeed|true|as (?:you|we) "
    r"(?:said|predicted))\b",
    re.IGNORECASE,
)
_IDENT_RE = lazy_pattern(r"`([^`\n]{2,60})`|\b([A-Z]{1,4}\d{2,5})\b|\b([A-Za-z]\w*(?:[._]\w+)+)\b")
_BEFORE_RE = lazy_pattern(r"((?:[A-Za-z][\w-]{2,} ){0,1}[A-Za-z][\w-]{3,})\s+$")
_GENERIC = frozenset("this that which what there here then also still it the call step".split())
_MOST = 30  # the newest decision sentences looked at
_SAID = 100  # characters of the later words quoted


def _seconds(value: str, unit: str) -> float:
    low = unit.lower()
    if low == "ms" or low.startswith("mil"):
        return float(value) / 1000
    return float(value) * (3600.0 if low.startswith("h") else 60.0 if low[0] == "m" else 1.0)


def _setting(text: str) -> tuple[str, set[float]] | None:
    """(setting word, its durations) of a sentence naming a time setting with a duration."""
    m = _SETTING_RE.search(text)
    durations = {_seconds(v, u) for v, u in _DURATION_RE.findall(text)}
    durations.update(_seconds(v, u) for u, v in _UNIT_NAME_RE.findall(text))
    if m is None or not durations:
        return None
    return m.group(1).lower().removesuffix("s"), durations


def _subject(text: str) -> str:
    """What a failure sentence says failed ('' when it names nothing to look for)."""
    m = _FAILED_RE.search(text)
    if m is None:
        return ""
    for found in _IDENT_RE.finditer(text):
        ident = next(g for g in found.groups() if g)
        bare = ident.replace(".", "").replace("_", "")
        if len(bare) >= 3 and not bare.isdigit():  # (not "e.g.", not "1.2")
            return ident
    before = _BEFORE_RE.search(text[: m.start()])
    words = before.group(1) if before else ""
    return "" if not words or words.split()[-1].lower() in _GENERIC else words


def _later_sentences(s: Session, after: int, keys: set[str]) -> list[tuple[int, str]]:
    """(entry index, sentence) of the assistant's and the user's texts after ``after`` that
    name one of ``keys`` (lower case; a plain substring test first: long sessions)."""
    out: list[tuple[int, str]] = []
    for e in s.entries[after + 1 :]:
        if e.internal or not e.text.strip() or e.role not in ("assistant", "user"):
            continue
        low = e.text.lower()
        if any(k in low for k in keys):
            text = _FENCE_RE.sub(" ", e.text)  # code shown is no statement (69 W4)
            out.extend(
                (e.index, x)
                for x in sentences(text)
                if len(x) <= 600 and _CODE_RE.search(x.strip()) is None
            )
    return out


def _confirmed(s: Session, index: int) -> bool:
    """Whether the user's next message after entry ``index`` agrees with what it said."""
    for e in s.entries[index + 1 :]:
        if e.role == "user" and not e.internal and e.text.strip():
            return _AGREE_RE.match(e.text) is not None
    return False


def judge_superseded_results(s: Session) -> None:
    """Label the decision sentences a later sentence about the same setting or subject
    superseded (see the module docstring)."""
    wanted: list[tuple[int, tuple[str, set[float]] | None, str]] = []
    for n in range(len(s.decisions) - 1, max(-1, len(s.decisions) - 1 - _MOST), -1):
        text = s.decisions[n][2]
        if "superseded" in text.lower() or "contradicted later" in text:
            continue
        setting = _setting(text) if _SETTING_RE.search(text) else None
        subject = _subject(text) if _FAILED_RE.search(text) else ""
        if setting or subject:
            wanted.append((n, setting, subject))
    if not wanted:
        return
    keys = {subject.lower() for _, _, subject in wanted if subject}
    keys.update(setting[0] for _, setting, _ in wanted if setting)
    later = _later_sentences(s, min(s.decisions[n][0] for n, _, _ in wanted), keys)
    for n, setting, subject in wanted:
        index, score, text = s.decisions[n]
        sure = subject and _confirmed(s, index)  # the user agreed: only a fix supersedes it
        said = next(
            (
                x
                for i, x in later
                if i > index
                and x != text
                and _supersedes(x, setting, subject)
                and (not sure or s.entries[i].role == "user" or _FIXED_RE.search(x))
            ),
            "",
        )
        if said:
            quoted = one_line(said)
            quoted = quoted if len(quoted) <= _SAID else quoted[: _SAID - 1].rstrip() + "…"
            s.decisions[n] = (index, score, f"{text} (superseded later: '{quoted}')")


def _supersedes(x: str, setting: tuple[str, set[float]] | None, subject: str) -> bool:
    if setting is not None:
        word, values = setting
        if word in x.lower() and (found := _setting(x)) is not None and found[0] == word:
            if found[1] - values:
                return True
    if subject and subject.lower() in x.lower():
        return _SUCCESS_RE.search(x) is not None and _FAILURE_WORDS_RE.search(x) is None
    return False
