"""Edits later found lost, and answers that await the user's verification (issue 28, blind
check 12, rows 530-539).

An edit that succeeded is not the file's content when a later check of the same file shows
its new text is absent, or the assistant says the changes were lost. By shape, not by tool:

* **a search with no match** — a ``grep``/``rg`` command (or a Grep-like tool) on that file for
  a literal string the edit added, with no output (or exit code 1 / "No matches found");
* **a whole read without it** — a Read of that file (no offset or limit), or ``cat FILE``,
  whose result holds none of the edit's new lines;
* **the assistant says so** — "the changes were lost / reverted / gone / undone / overwritten",
  "my edits didn't persist", naming the file, its component (``the register component``:
  a directory or stem of its path), or else the files its checks right around found it in.

No later successful change of the file that writes that text again may follow (else it was
redone). :func:`judge_lost` marks such a file (:attr:`FileState.lost`: section 3 says "then
found lost" and shows the change as the lost one, not as the content), turns section 4's
"Fixed: a later Edit succeeded" of that file into "found lost", and makes the lost work a
pending item (section 7, 9).

A last reply that asks the user to test or verify ("Try refreshing and testing it now!", "let
me know if it works") ends the session *answered, awaiting the user's verification*, not
"nothing is pending" (:func:`verify_ask`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from operator import attrgetter

from compactor._util import lazy_pattern
from compactor.facts import Call, Result, clean, lowers_exactly, sentences, shell_words

from .local_asksonly import ASKS_ONLY, asks_only
from .local_files import FileState, file_changes
from .local_leftsteps import LEFT, left_item, left_step
from .local_reask import undecided_items
from .local_session import Session
from .local_text import code, quote

__all__ = [
    "answered_line",
    "carry_lost",
    "judge_lost",
    "lost_items",
    "lost_step",
    "verify_ask",
]

_LOST_RE = lazy_pattern(
    r"\b(?:changes?|edits?|modifications?|additions?|updates?|work)\b(?:(?!\band\b|\bbut\b)"
    r"[^.!?\n,;]){0,60}?\b"
    r"(?:were|was|got|have been|has been|had been|are|is|seem to have been)\s+(?:all\s+)?"
    r"(?:lost|reverted|gone|undone|overwritten|wiped(?: out)?|discarded|rolled back)\b"
    r"|\b(?:changes?|edits?|modifications?)\b[^.!?\n]{0,40}?\b(?:didn['’]t|did not|don['’]t|"
    r"do not|never) (?:persist|stick)",
    re.IGNORECASE,
)
"""The assistant saying its earlier changes are not in the file any more."""
_LOST_WORDS = (
    "lost", "revert", "gone", "undone", "overwr", "wiped", "discard", "rolled back", "persist",
    "stick",
)  # fmt: skip
"""A word :data:`_LOST_RE` needs (a cheap test first: most texts hold none)."""
_NOT_LOST_RE = lazy_pattern(
    r"\b(?:not|n['’]t|never|no|nothing|none)\b[^.!?\n]{0,40}?\b(?:lost|reverted|gone|undone|"
    r"overwritten)\b|\bas (?:you )?(?:asked|requested|wanted)\b|\bper your\b",
    re.IGNORECASE,
)
"""A statement that nothing was lost, or that the loss was what the user asked for."""
_UNDO_ASKED_RE = lazy_pattern(
    r"\b(?:revert|undo|roll ?back|discard|reset|restore|remove|delete|drop|get rid of)\b",
    re.IGNORECASE,
)
"""A request whose answer may say the changes are gone on purpose."""
_PART_RE = lazy_pattern(
    r"\b(?:to|in|on|of|for|from) (?:the |my |our )?([\w.-]+) (?:component|module|template|file|"
    r"files|page|directory|folder|class|service|package|screen|view)s?\b",
    re.IGNORECASE,
)
_SEARCH_PROGRAMS = frozenset({"grep", "rg", "egrep", "fgrep", "ag", "ack"})
_ARG_OPTIONS = frozenset("-A -B -C -m -e -f --after-context --before-context --context".split())
_NO_MATCH_RE = lazy_pattern(
    r"^(?:no matches found|no files found|found 0 (?:files|matches)|\(no output\)|"
    r"(?:error: )?exit code:? 1|\(?exit(?:ed)? (?:code|status):? ?1\)?)\.?$",
    re.IGNORECASE,
)
_CUT_RE = lazy_pattern(r"truncat|omitted|more lines|\bshowing lines\b", re.IGNORECASE)
_NON_WORD_RE = lazy_pattern(r"[\W_]+")
_READ_RE = lazy_pattern(r"(?i)read(?:_?file)?|view")
_LINE_NUMBER_RE = lazy_pattern(r"^\s*\d+[→\t:|]\s?", re.MULTILINE)
_VERIFY_RE = lazy_pattern(
    r"(?:^|(?<=[.!?:]\s)|(?<=\n))\s*(?:please |go ahead and |now,? |so,? )?"
    r"(?:try (?:it|this|that|again|refreshing|reloading|running|restarting|testing|it out|out)|"
    r"test (?:it|this|that|again)|give it a (?:try|test|spin|go)|refresh (?:and|the|your)|"
    r"reload (?:and|the|your))\b"
    r"|\blet me know (?:if|whether|how) (?:it|that|this|the \w+) (?:works|goes|helps|fixes|"
    r"resolves|behaves)",
    re.IGNORECASE,
)
"""A reply asking the user to test the result (an imperative, or "let me know if it works")."""
_TAIL_CHARS = 400  # the ask stands in the reply's last paragraph or so


@dataclass(slots=True)
class _Edit:
    index: int
    path: str
    new: str  # the new text the change wrote (added lines, or its whole content)
    old: str


def _same(a: str, b: str) -> bool:
    return a == b or a.endswith("/" + b.lstrip("./")) or b.endswith("/" + a.lstrip("./"))


def _finder(s: Session) -> Callable[[str], str | None]:
    """The key in ``s.files`` of a path as a call names it (exact, else by its file name)."""
    by_name: dict[str, list[str]] = {}
    for key in s.files:
        by_name.setdefault(_base(key), []).append(key)

    def find(path: str) -> str | None:
        if path in s.files:
            return path
        return next((k for k in by_name.get(_base(path), ()) if _same(k, path)), None)

    return find


def _edits(s: Session, keys: set[str]) -> dict[str, list[_Edit]]:
    """Every successful change of each file of ``keys``, in order (read again from the calls
    whose results :attr:`FileState.changed_at` names: only for the few files checked)."""
    out: dict[str, list[_Edit]] = {}
    by_id = {c.id: c for c in s.calls if c.id}
    for key in keys:
        for index in dict.fromkeys(s.files[key].changed_at):
            calls = [by_id[r.call_id] for r in s.entries[index].results if r.call_id in by_id]
            for change in (x for c in calls for x in file_changes(c)):
                if not _same(change.path, key):
                    continue
                new = change.content if change.content is not None else "\n".join(change.added)
                old = "\n".join(change.removed)
                if change.replace:
                    new, old = f"{new}\n{change.replace[1]}", f"{old}\n{change.replace[0]}"
                out.setdefault(key, []).append(_Edit(index, key, new, old))
    return out


def _no_match(text: str) -> bool:
    lines = [ln.strip() for ln in clean(text).splitlines() if ln.strip()]
    return all(_NO_MATCH_RE.match(ln) for ln in lines)


def _search(call: Call) -> tuple[str, list[str]] | None:
    """(literal pattern, paths) of a search command or tool; None when it is not one."""
    args = call.args
    pattern, path = args.get("pattern"), args.get("path")
    if (
        isinstance(pattern, str)
        and isinstance(path, str)
        and re.search(r"grep|search", call.name, re.I)
    ):
        return pattern, [path]
    command = call.command
    if not command or re.search(r"[|;&<>`$]", command):
        return None
    words = shell_words(command)
    if not words or words[0].rsplit("/", 1)[-1] not in _SEARCH_PROGRAMS:
        return None
    rest: list[str] = []
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
        elif word in _ARG_OPTIONS:
            skip = True
        elif not word.startswith("-"):
            rest.append(word)
    return (rest[0], rest[1:]) if len(rest) >= 2 else None


def _whole_read(call: Call) -> str | None:
    """The path a call reads whole (a Read without offset/limit, ``cat FILE``); else None."""
    args = call.args
    path = args.get("file_path") or args.get("path")
    if isinstance(path, str) and _READ_RE.fullmatch(call.name):
        partial = {"offset", "limit", "view_range", "start_line", "end_line"}
        return None if partial & set(args) else path
    command = call.command
    if command and command.startswith("cat ") and not re.search(r"[|;&<>`$]", command):
        words = shell_words(command)
        if len(words) == 2 and words[0] == "cat" and not words[1].startswith("-"):
            return words[1]
    return None


def _base(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


@dataclass(slots=True)
class _Checks:
    found: list[tuple[int, str, str, str]]
    """(index, file key, absent text, what found it absent): the searches with no match, and
    the whole reads after a file's last change (absent text ``""``: judged by the change)."""
    commands: list[tuple[int, str]]
    """The other shell commands (one naming a file, a checkout or a formatter, may change it)."""


def _checks(s: Session) -> _Checks:
    out = _Checks([], [])
    if not s.calls:
        return out  # (a chat: no result to index)
    with_results = filter(attrgetter("results"), s.entries)  # (a C-level skip of the others)
    results: dict[str, Result] = {r.call_id: r for e in with_results for r in e.results}
    find = _finder(s)
    for call in s.calls:
        result = results.get(call.id)
        if result is None:
            continue
        command = call.command
        found = _search(call) if len(result.text) < 200 and _no_match(result.text) else None
        if found is not None:
            pattern, paths = found
            how = f"a later {'grep' if command else call.name} found no {code(pattern)}"
            keys = [find(p) for p in paths]
            out.found.extend((call.index, k, pattern, how) for k in keys if k)
            continue
        reads = _READ_RE.fullmatch(call.name) or (command and command.startswith("cat "))
        read = _whole_read(call) if reads else None
        key = find(read) if read is not None and not result.is_error else None
        f = s.files[key] if key is not None else None
        if f is not None and call.index > f.last_index and _whole(result.text):
            lines = _new_lines("\n".join(f.added) if f.added else f.content or "")
            text = _NON_WORD_RE.sub("", _LINE_NUMBER_RE.sub("", clean(result.text)))
            if lines and not any(x in text for _, x in lines):  # none of its new lines
                how = f"a later whole read of it lacks {code(lines[0][0][:60])}"
                out.found.append((call.index, f.path, "", how))
        elif command and read is None:
            out.commands.append((call.index, command))
    return out


def _whole(text: str) -> bool:
    """A read's result that is the whole file: not cut by the tool (Claude Code's Read shows
    2,000 lines; harnesses mark what they left out)."""
    return text.count("\n") < 1_900 and not (_may_say_cut(text) and _CUT_RE.search(text))


def _may_say_cut(text: str) -> bool:
    """What every match of :data:`_CUT_RE` holds, looked for in the lower-cased text when that
    is what the pattern compares (:func:`~compactor.facts.lowers_exactly`): the pattern, tried at
    every character, read each whole file read after its last change (issue 28 point 7)."""
    if not lowers_exactly(text):
        return True
    low = text.lower()
    return "truncat" in low or "omitted" in low or "more lines" in low or "showing lines" in low


def _new_lines(text: str) -> list[tuple[str, str]]:
    """(line, its letters and digits) of the lines of an edit's new text a read must hold: six
    letters or digits or more, compared without spaces, quotes and punctuation (a formatter
    that re-quoted, re-indented or wrapped them has not lost them)."""
    lines = ((x.strip(), _NON_WORD_RE.sub("", x)) for x in text.splitlines())
    return [(x, key) for x, key in lines if len(key) >= 6]


def _check_losses(
    s: Session, checks: _Checks, edits: dict[str, list[_Edit]]
) -> dict[str, tuple[int, str]]:
    lost: dict[str, tuple[int, str]] = {}
    for index, key, absent, how in checks.found:
        since = s.files[key].last_index  # a whole read: after the file's last change
        if absent:  # a search: the last change that touched the text wrote it, none again
            touching = [e for e in edits.get(key, ()) if absent in e.new or absent in e.old]
            before = [e for e in touching if e.index < index]
            if not before or absent not in before[-1].new or len(before) < len(touching):
                continue
            since = before[-1].index
        name = _base(key)
        if not any(since < i < index and name in c for i, c in checks.commands):
            lost[key] = (index, how)
    return lost


def _named(s: Session, text: str) -> list[str]:
    """The changed files a statement names: by file name, or by a component of their path."""
    low = text.lower()
    named = [k for k in s.files if k.replace("\\", "/").rsplit("/", 1)[-1].lower() in low]
    if named:
        return named
    parts = {m.group(1).lower() for m in _PART_RE.finditer(text)}
    if not parts:
        return []
    out: list[str] = []
    for key in s.files:
        segs = key.replace("\\", "/").lower().split("/")
        stem = segs[-1].split(".", 1)[0]
        if parts & {*segs[:-1], stem}:
            out.append(key)
    return out


def _statements(s: Session) -> list[tuple[int, list[str], list[str]]]:
    """(index, sentences, files named) of the assistant's texts saying changes were lost."""
    out: list[tuple[int, list[str], list[str]]] = []
    asked_before, first = _asker(s), _first_counted(s)
    for entry in islice(s.entries, max(first, 0), None):  # (an entry's index is its position)
        text = entry.text
        if entry.index < first or entry.role != "assistant" or not text:
            continue
        if not any(map(text.__contains__, _LOST_WORDS)):
            continue
        if not _LOST_RE.search(text):
            continue
        asked = asked_before(entry.index)
        if asked is not None and _UNDO_ASKED_RE.search(asked):
            continue  # the user asked to undo: gone on purpose
        hits = [x for x in sentences(entry.text) if _LOST_RE.search(x)]
        hits = [x for x in hits if not _NOT_LOST_RE.search(x)]
        if hits:
            out.append((entry.index, hits, _named(s, " ".join(hits))))
    return out


def _first_counted(s: Session) -> int:
    """The first index whose statement can count: at or after a file's first change
    (:func:`_said_losses`), or after the last request and every file's last change
    (:func:`_unplaced`); one before it changes nothing (a chat with no file changed: only its
    last round is read)."""
    firsts = [f.changed_at[0] for f in s.files.values() if f.changed_at]
    last = s.last_request
    since = last.index if last is not None else -1
    changed = max((f.last_index for f in s.files.values()), default=-1)
    return min([*firsts, max(since, changed) + 1])


def _asker(s: Session) -> Callable[[int], str | None]:
    """The text of the last request of ``s`` before an index, or None (a binary search: the
    requests are in index order; a linear scan were they not)."""
    asks: list[tuple[int, str]] = []
    indexes: list[int] = []
    ordered = True

    def asked_before(index: int) -> str | None:
        nonlocal ordered
        if not asks and s.requests:  # (built on the first statement: most sessions make none)
            asks.extend((e.index, e.text) for e in s.requests)
            indexes.extend(i for i, _ in asks)
            ordered = indexes == sorted(indexes)
        if ordered:
            at = bisect.bisect_left(indexes, index)
            return asks[at - 1][1] if at else None
        asked = [x for i, x in asks if i < index]
        return asked[-1] if asked else None

    return asked_before


def _said_losses(
    s: Session, said: list[tuple[int, list[str], list[str]]], checked: dict[str, tuple[int, str]]
) -> dict[str, tuple[int, str]]:
    out: dict[str, tuple[int, str]] = {}
    for index, hits, named in said:
        files = named or [k for k, (i, _) in checked.items() if abs(i - index) <= 2]
        for key in files:  # (unnamed: the files its nearby checks found it missing in)
            changed = s.files[key].changed_at
            if not changed or changed[0] > index or changed[-1] > index:
                continue  # (changed again afterwards: taken as redone)
            out[key] = (index, f"the assistant said {quote(hits[0], 120)}")
    return out


def judge_lost(s: Session) -> None:
    """Mark the files whose edits were later found lost, and the section 4 fixes they undo; a
    final "question" that only asks the user to test the result is that ask (:func:`verify_ask`),
    not a question to answer."""
    if s.question and all(_VERIFY_RE.search(x) for x in s.question.splitlines() if x.strip()):
        s.question = ""
    checks, statements = _checks(s), _statements(s)
    if not checks.found and not statements:
        return
    edits = _edits(s, {key for _, key, absent, _ in checks.found if absent})  # searches only
    checked = _check_losses(s, checks, edits)
    said = _said_losses(s, statements, checked)
    _unplaced(s, statements, checked)
    for key in dict.fromkeys([*checked, *said]):
        found = [x for x in (checked.get(key), said.get(key)) if x is not None]
        _mark(s.files[key], "; ".join(how for _, how in found), max(i for i, _ in found))
    _flag_claims(s)
    for err in s.errors:
        if err.after != "fixed":
            continue
        lost = [f for k, f in s.files.items() if f.lost and (k in err.call or k in err.by)]
        if lost and err.index < lost[0].lost_at:
            err.after, err.why = "found lost", lost[0].lost


def _unplaced(
    s: Session, said: list[tuple[int, list[str], list[str]]], checked: dict[str, tuple[int, str]]
) -> None:
    """The final stretch's statements that work was lost, naming no changed file, with no
    change of any file after them (:attr:`Session.lost_said`: pending, section 7)."""
    last = s.last_request
    since = last.index if last is not None else -1
    changed = max((f.last_index for f in s.files.values()), default=-1)
    for index, hits, named in said:
        near = [k for k, (i, _) in checked.items() if abs(i - index) <= 2]
        if index > since and index > changed and not named and not near:
            s.lost_said.append(hits[0])


def carry_lost(state: Session, session: Session) -> None:
    """Mark in ``session`` (the summarized part) the files ``state`` (with the kept tail after
    it) found lost, so that section 3 does not show as content what section 7 calls lost."""
    for key, f in state.files.items():
        mine = session.files.get(key)
        if f.lost and mine is not None and not mine.lost:
            _mark(mine, f.lost, f.lost_at)
            _flag_claims(session)


_CLAIM_RE = lazy_pattern(
    r"^(?:i(?:['’]ve| have)?\s+(?:now\s+)?(?:added|implemented|updated|created|fixed|changed|"
    r"made|wired)|(?:added|implemented|updated|created|done)\b)",
    re.IGNORECASE,
)
"""A sentence of the assistant's that claims a change done."""
_WORD_RE = lazy_pattern(r"[a-z]{5,}")
_LOST_NOTE = "Later found lost (section 3): "


def _flag_claims(s: Session) -> None:
    """Section 5's "I've added the indicator …" made between a lost file's first change and the
    check that found it lost, sharing a word with that change, is said to be lost."""
    lost = _lost_files(s)
    for n, (index, score, text) in enumerate(s.decisions):
        if not _CLAIM_RE.match(text) or text.startswith(_LOST_NOTE):
            continue
        words = set(_WORD_RE.findall(text.lower()))
        for f in lost:
            wrote = "\n".join(f.added) + " " + f.path
            if f.changed_at[0] <= index < f.lost_at and words & set(
                _WORD_RE.findall(wrote.lower())
            ):
                s.decisions[n] = (index, score, _LOST_NOTE + text)
                break


def _mark(f: FileState, why: str, at: int) -> None:
    f.lost, f.lost_at = why, at
    if f.last_index < at and f.content is not None:  # the content is not known any more
        if not f.added:
            f.added = tuple(ln for ln in f.content.splitlines() if ln.strip())
        f.content = None


def _any_lost(s: Session) -> bool:
    return bool(s.lost_said) or any(f.lost for f in s.files.values())


def _lost_files(s: Session) -> list[FileState]:
    return [f for f in s.files.values() if f.lost]


def verify_ask(s: Session) -> str:
    """The sentence of the last reply that asks the user to test the result; "" when none (the
    last assistant text, also when a kept tail holds it: the state model drops its quote)."""
    if not s.turn_ended or s.question:
        return ""
    texts = (e for e in reversed(s.entries) if e.role == "assistant" and e.text.strip())
    reply = next(texts, None)
    if reply is None:
        return ""
    last = s.last_request
    if last is not None and reply.index < last.index:
        return ""
    tail = clean(reply.text)[-_TAIL_CHARS:]
    match = _VERIFY_RE.search(tail)
    if match is None:
        return ""
    said = [x for x in sentences(tail) if _VERIFY_RE.search(x)]
    return said[-1] if said else match.group(0).strip()


def _unverified(s: Session) -> list[str]:
    last = s.last_request
    since = last.index if last is not None else -1
    return [f.path for f in s.files.values() if f.last_index > since and not f.lost]


def lost_items(s: Session, width: int) -> list[str]:
    """Section 7's lines: the work found lost and not redone, an answer awaiting verification."""
    items: list[str] = []
    lost = _lost_files(s)
    if lost:
        names = ", ".join(f.path for f in lost[:6])
        items.append(
            "Found lost and not redone (section 3 shows each lost change and how it was found; "
            f"re-add it if still wanted): {names}"
        )
    for said in s.lost_said[-2:]:
        items.append(
            f"The assistant said work was lost and no later call redid it: {quote(said, width)} "
            "(redo it if still wanted)"
        )
    ask = verify_ask(s)
    if ask:
        what = _unverified(s)
        changed = f"; unverified: {', '.join(what[:6])}" if what else ""
        items.append(
            f"The last request was answered, awaiting the user's verification: the last reply "
            f"asked the user to test it ({quote(ask, width)}){changed}"
        )
    if left := left_item(s, width):  # steps handed to the user (blind check 51, W1)
        items.append(left)
    items.extend(undecided_items(s, width))  # advice a yes to another question left (57a)
    return items


def answered_line(s: Session, answered: str) -> str:
    """The "Since the earlier summary, …" line: :data:`ANSWERED` unless work was found lost or
    the answer awaits the user's verification."""
    if not _any_lost(s) and not verify_ask(s):
        if asks_only(s):  # not "nothing is pending" (blind check 61 W6)
            return f"Since the earlier summary, the last request was {ASKS_ONLY} (below)"
        left = left_step(s, 80) and f"the last request was {LEFT} (below)"
        return f"Since the earlier summary, {left or answered}"
    how = "answered, awaiting the user's verification" if verify_ask(s) else "answered"
    lost = "; work found lost is still pending (below)" if _any_lost(s) else ""
    return f"Since the earlier summary, the last request was {how}{lost}"


def prior_state(s: Session) -> str:
    """How the earlier summary's pending list is introduced: "not seen completed" when work
    since was found lost (it was its work, redone nowhere)."""
    if _any_lost(s):
        return "Pending from the earlier summary, not seen completed (work since was found lost)"
    return "Pending in the earlier summary (some may be done since)"


def lost_step(s: Session, width: int) -> str:
    """Section 9 when the answer awaits verification or work was found lost; "" otherwise."""
    ask, lost = verify_ask(s), _lost_files(s)
    if not s.turn_ended or (not ask and not _any_lost(s)):
        return left_step(s, width) if s.turn_ended else ""  # (blind check 51, W1)
    names = ", ".join(f.path for f in lost[:4])
    redo = f"the changes found lost in {names} (section 7); re-add them" if lost else ""
    if s.lost_said and not lost:
        redo = "the work the assistant said was lost (section 7); redo it"
    if not ask:
        return f"   Not done yet: {redo}, unless the user's next message says otherwise."
    then = f" Still pending: {redo} when the user's result allows." if redo else ""
    return (
        "   None for now: the last request was answered, awaiting the user's verification "
        f"({quote(ask, width)}): wait for the user's result before building on it.{then}"
    )
