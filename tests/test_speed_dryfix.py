"""Speed shortcuts of the failure judgements give the answers of the plain code (perf63).

``local_dryfix._says_dry`` splits ``_DRY_SAID_RE`` in its two halves and tries the ``would``
half only at the start of a line that holds ``would ``; ``deliberate.may_stop`` looks for its
hints in the lower-cased text first. Hypothesis builds texts from the pieces the patterns care
about (line breaks, tags, negations, the verbs, characters that fold to ASCII letters) and
checks each shortcut against the plain code."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from compactor.facts import deliberate
from compactor.models import local_dryfix
from compactor.models.local_files import _diff_lines

_PIECES = [
    "dry", "run", "dry-run", "dry_run", "dry run", "would ", "would", "create", "delete", "send",
    "lock", "[dry-run] ", "[x y] ", "not a ", "non-", "no ", " ", "  ", "\t", "\n", "\n\n",
    "\r\n", "a", "x", "ſ", "K", "İ", "ı", "Would ", "WOULD ", "DRY-RUN", "efus", "EFUS", "eFuS",
    "bort", "BORT", "BoRt", "ry run", "ry-run", "RY RUN", "RY-RUN", "Ry Run", "proceeding",
    "PROCEEDING", "sage:", "SAGE:", "SaGe:", "é", "ß", "\u2028",
]  # fmt: skip
_TEXTS = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
@example("he would say so\n would send it")  # the second "would " starts a line
@example("not a dry run; a dry run")  # the first "dry" negated, the second not
@example("x\n\n  \n[a b]\n\twould copy")  # a match from a blank line before
def test_says_dry_is_the_whole_pattern(text: str) -> None:
    head = text.lower()  # (dry_run lower-cases the output first)
    assert local_dryfix._says_dry(head) is (local_dryfix._DRY_SAID_RE.search(head) is not None)


def test_says_dry_examples() -> None:
    assert local_dryfix._says_dry("mode: dry-run\nok")
    assert local_dryfix._says_dry("done\n\n  [dry-run] would reuse thread 3")
    assert local_dryfix._says_dry("\n   \n would delete 3 files")
    assert not local_dryfix._says_dry("this is not a dry run; it would be nice")
    assert not local_dryfix._says_dry("he said it would create x")  # not at a line's start


def _plain_may_stop(text: str, code: int | None) -> bool:
    if code == 2 and ("sage:" in text or "SAGE:" in text):
        return True
    return any(hint in text for hint in deliberate._HINTS)


@settings(max_examples=400, deadline=None)
@given(_TEXTS, st.sampled_from([None, 0, 1, 2, 3]))
def test_may_stop_is_the_plain_hints(text: str, code: int | None) -> None:
    assert deliberate.may_stop(text, code) is _plain_may_stop(text, code)


def _plain_diff_lines(old: str, new: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    old_lines = [ln for ln in old.splitlines() if ln.strip()]
    new_lines = [ln for ln in new.splitlines() if ln.strip()]
    old_set = {ln.strip() for ln in old_lines}
    new_set = {ln.strip() for ln in new_lines}
    added = tuple(ln for ln in new_lines if ln.strip() not in old_set)
    removed = tuple(ln for ln in old_lines if ln.strip() not in new_set)
    return added, removed


_LINES = st.lists(st.sampled_from(["a", " a", "a ", "b", "", " ", "\n", "\r", "\u2028", "x y"]))


@settings(max_examples=300, deadline=None)
@given(_LINES.map("".join), _LINES.map("".join))
def test_diff_lines_is_the_plain_diff(old: str, new: str) -> None:
    assert _diff_lines(old, new) == _plain_diff_lines(old, new)


def _plain_report_ends(lines: list[str], body: str) -> int:
    """passedanyway._report_ends as a loop over every line of ``body`` (before perf63)."""
    from compactor.facts.passedanyway import _HUNK_RE, _LISTED_RE
    from compactor.facts.text import cut

    targets: dict[str, set[str]] = {}
    for line in lines:
        targets.setdefault(line[:8], set()).add(line)
    seen: set[str] = set()
    last, in_hunk, pos = -1, False, 0
    for raw in body.splitlines(keepends=True):
        start, pos = pos, pos + len(raw)
        if raw.startswith("@@"):
            in_hunk = in_hunk or _HUNK_RE.match(raw) is not None
            continue
        if in_hunk and raw[:1] not in ("+", "-", " ", "\\", "\n", "\r", ""):
            in_hunk = False
        stripped = raw.strip()
        hit = cut(stripped) if stripped[:8] in targets else ""
        if hit not in targets.get(stripped[:8], ()):
            continue
        seen.add(hit)
        if not (in_hunk and raw[:1] in ("+", "-", " ")) and not _LISTED_RE.match(raw):
            last = start + len(raw)
    return last if len(seen) == len(set(lines)) else len(body)


_REPORT_LINES = ["error: x", "FAILED t", "==== 1 failed ====", "E   Err", "error: x y", "====", ""]
_BODY_PIECES = [
    *_REPORT_LINES, "\n", "\n", "\r\n", "\r", "\x0c", "\u2028", " ", "  ", "\t", "  12\t",
    "  3\u2192", "@@ -1,2 +1,3 @@\n", "@@", "+", "-", "1 passed", "=", "========", "x",
]  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from(_REPORT_LINES), min_size=1, max_size=3),
    st.lists(st.sampled_from(_BODY_PIECES), max_size=40).map("".join),
)
@example(["error: x"], "x\rerror: x\n")  # a \r line break inside a "\n" line
@example(["error: x"], "error: x\x0cok\nerror: x")
@example(["==== 1 failed ===="], "========\n==== 1 failed ====\n  12\t==== 1 failed ====")
@example(["error: x", "FAILED t"], "FAILED t\nerror: x\n1 passed")
def test_report_ends_is_the_loop_over_every_line(lines: list[str], body: str) -> None:
    from compactor.facts.passedanyway import _report_ends

    assert _report_ends(lines, body) == _plain_report_ends(lines, body)


def _plain_collapse_resent(texts: list[str], at_last: bool, apart: bool) -> list[tuple[str, str]]:
    """local_noise.collapse_resent as one loop over the runs (before perf63)."""
    from compactor.models.local_noise import _runs, _short_reply

    runs = _runs(texts, None)
    counts: dict[str, int] = {}
    for t, n, _ in runs:
        counts[t] = counts.get(t, 0) + n
    out: list[tuple[str, str]] = []
    plain: dict[str, tuple[str, str]] = {}
    shown: set[str] = set()
    for t, sent, edited in reversed(runs) if at_last else runs:
        if t not in shown or _short_reply(t) or apart:
            shown.add(t)
            n = 1 if _short_reply(t) else sent if apart else counts[t]
            note = ", edited; the last version" if edited else ""
            out.append((t, f" (sent {n} times{note})") if n > 1 else plain.setdefault(t, (t, "")))
    if at_last:
        out.reverse()
    return out


_LONG = "please refactor the parser module so that it reads the whole config file " * 2
_MESSAGES = ["yes", "2", "A", "好的", "continue", "commit and push", "fix it", _LONG,
             _LONG + " twice", _LONG + " and the tests", "!ls", "/review now"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_MESSAGES), min_size=1, max_size=30),
    st.booleans(),
    st.booleans(),
)
def test_collapse_resent_is_the_loop(texts: list[str], at_last: bool, apart: bool) -> None:
    from compactor.models.local_noise import collapse_resent

    assert collapse_resent(texts, at_last, apart) == _plain_collapse_resent(texts, at_last, apart)
    memo: list[tuple[list[str], list[tuple[str, int, bool]]]] = []
    assert collapse_resent(texts, at_last, apart, memo) == collapse_resent(texts, at_last, apart)


_ROLES = st.sampled_from(["user", "assistant", "system", "tool"])


@st.composite
def _entries(draw: st.DrawFn) -> list[Any]:
    from compactor.facts.text import Call, Entry

    out = []
    for index in range(draw(st.integers(0, 12))):
        role = draw(_ROLES)
        calls: tuple[Call, ...] = ()
        if role == "assistant" and draw(st.booleans()):
            calls = tuple(
                Call(f"c{index}{k}", draw(st.sampled_from(["Bash", "Read", "Edit"])),
                     '{"command": "make test"}', index)
                for k in range(draw(st.integers(1, 2)))
            )  # fmt: skip
        text = draw(st.sampled_from(["", " ", "ok", "Done: fixed it", "fix the build"]))
        internal, injected = draw(st.booleans()), draw(st.booleans())
        out.append(Entry(index, role, text, calls, internal=internal, injected=injected))
    return out


def _plain_rounds(s: Any) -> list[list[object]]:
    """local_state._rounds (results: none) as the walk back through every entry (perf63)."""
    from compactor.models.local_state import is_housekeeping

    rounds: list[list[object]] = []
    calls: list[object] = []
    for e in reversed(s.entries):
        if e.internal or e.injected:
            continue
        if e.role == "assistant" and e.calls:
            calls[:0] = [c for c in e.calls if not is_housekeeping(c, None)]
            if e.text.strip() and calls:
                rounds.append(calls)
                calls = []
        elif e.role == "assistant" and e.text.strip() and calls:
            rounds.append(calls)
            calls = []
        elif e.role == "user" and e.text.strip():
            if calls:
                rounds.append(calls)
            if rounds:
                break
            calls = []
    if calls:
        rounds.append(calls)
    return rounds


@settings(max_examples=300, deadline=None)
@given(_entries())
def test_rounds_is_the_walk(entries: list[Any]) -> None:
    """local_state._rounds returns at once when the session has no call: the walk back through
    every entry finds no round then."""
    from compactor.models import local_state
    from compactor.models.local_session import build_session

    s = build_session(entries)
    assert local_state._rounds(s, {}) == _plain_rounds(s)
