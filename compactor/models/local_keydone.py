"""Pending items of an earlier summary that a later edit did by its keys (BENCH41 W6).

cc-seo: Claude Code's own compaction listed "Update app/layout.tsx to include the new metadata:"
with the items "Change title to …", "Change description to …", "Add openGraph object …",
"Optionally add twitter card metadata". One later Edit of ``app/layout.tsx`` set ``title``,
``description``, ``openGraph`` and ``twitter``; only the title item (whose words a later request
restated) was said done since, the three others were quoted as pending.

By shape: an item whose code-like noun (a word of it that is a key or a name: ``description``,
``openGraph``, ``twitter``) is a key or definition on a line a later edit ADDED to the file the
item names (or, when it names no edited file, to the single edited file the whole list names)
is done since; an item whose sub-items are all done is done. An item stays open when a later
tool result shows its artefact missing (an ``ls``/``grep``/``find`` naming it that printed
nothing, or "No such file").

Blind check 43 (W5): cc-gli's own summary listed "Rename split_sentences_simple to
split_sentences_regex" and "Rename split_sentences_advanced to split_sentences_sat"; right after
it a MultiEdit replaced both names and a TodoWrite marked both completed, yet one was left
pending and the other credited to a later, unrelated request sharing its words. An item "Rename
(replace, change) A to B" is done since when a later edit's old text holds A and its new text B
(not A's own text again), and an item is done since when a later todo/plan update marked an item
holding all its words completed (:func:`did_items`); those credits win over a later request's.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import command_of, cut, one_line

from .local_files import file_changes
from .local_session import PLAN_TOOLS, Session
from .local_text import list_items, prior_sections, quote

__all__ = ["item_head", "keyed_items"]

_KEY_RE = lazy_pattern(
    r"(?:^|[\s{,(])[\"']?([A-Za-z_$][\w$]{2,})[\"']?\s*(?::(?!:)|=(?!=))|"
    r"\b(?:def|function|class|const|let|var|fn|func|type|interface)\s+([A-Za-z_$][\w$]{2,})"
)
"""A key (``description:``, ``"twitter":``, ``title =``) or a name defined on a line."""
_WORD_RE = lazy_pattern(r"(?<![\w/.\-])[A-Za-z_][\w$]{2,}(?![\w/])")
_PATH_RE = lazy_pattern(r"(?<![\w])((?:[\w.\-]+/)*[\w\-]+\.[A-Za-z]{1,5})\b")
_MISSING_RE = lazy_pattern(r"no such file|not found|cannot access|does not exist", re.I)
_LOOKS_RE = lazy_pattern(r"^\s*(?:ls|grep|rg|find|test|stat|cat)\b|\|\s*(?:grep|rg)\b")
_MAKES_RE = lazy_pattern(
    r"\b(?:save|saved|create|write|generate|copy|move|download|upload|place|put|export|store)\b"
    r"[^.;:]{0,40}$",
    re.I,
)
"""The verb that makes the path after it the item's artefact ("Save the OG image to …")."""
_SETS_RE = lazy_pattern(
    r"\b(?:add|change|set|update|include|rename|replace|define|introduce|declare|fill)\b", re.I
)
"""An item that sets keys ("Change description to …"): a plain word of it may be the key."""
_CODELIKE_RE = lazy_pattern(r"[a-z][A-Z]|_|\$")
"""A key that is a name in code (``openGraph``, ``max_age``), whatever the item's verb."""
_GENERIC = frozenset(
    """the and for with that this from into add added change changed update updated set use
    new old file files code item items value values data type types name names object metadata
    optionally optional include including provided full should also make pointing""".split()
)
"""Words that name no key of their own (an item's other words are its code-like nouns)."""


def _added_keys(s: Session, start: int) -> dict[str, dict[str, str]]:
    """The keys and names (casefolded, to as written) on the lines each file's changes after
    entry ``start`` added."""
    keys: dict[str, dict[str, str]] = {}
    for call in s.calls:
        if call.index <= start or call.id in s.failed_calls or command_of(call):
            continue
        for change in file_changes(call):
            pairs = [change.replace, *change.more] if change.replace else list(change.more)
            lines = [ln for old, new in pairs if new for ln in _new_lines(old, new)]
            lines += list(change.added) + (change.content or "").splitlines()[:2_000]
            found = keys.setdefault(change.path, {})
            for line in lines:
                for m in _KEY_RE.finditer(line):
                    key = m.group(1) or m.group(2)
                    found.setdefault(key.casefold(), key)
    return keys


def _new_lines(old: str, new: str) -> list[str]:
    """The distinct lines of ``new`` that ``old`` lacks, in ``new``'s order (a set's order would
    change with the hash seed, and the first spelling of a key is the one kept)."""
    before = set(old.splitlines())
    return [ln for ln in dict.fromkeys(new.splitlines()) if ln not in before]


def _named(text: str, keys: dict[str, dict[str, str]]) -> list[str]:
    """The edited files ``text`` names (by path or by file name)."""
    names = {p.rsplit("/", 1)[-1] for p in _PATH_RE.findall(text)}
    return [p for p in keys if p.rsplit("/", 1)[-1] in names]


def _missing(s: Session, text: str, start: int) -> bool:
    """Whether a later look for the file ``text`` makes ("Save … to public/og.png") found
    nothing (empty output of an ``ls``/``grep``/``find`` naming it or its folder and stem, or
    "No such file")."""
    paths = [p for p in _PATH_RE.findall(text) if _MAKES_RE.search(text.split(p, 1)[0][-60:])]
    if not paths:
        return False
    marks = []
    for path in paths:
        name = path.rsplit("/", 1)[-1]
        folder = path.rsplit("/", 2)[-2] if "/" in path else ""
        stem = re.split(r"[-_.]", name)[0]
        marks.append((name.casefold(), folder.casefold(), stem.casefold()))
    looked = {
        c.id: command.casefold()
        for c in s.calls
        if c.index > start and (command := command_of(c)) and _LOOKS_RE.search(command)
    }
    for e in s.entries[start + 1 :]:
        for r in e.results:
            command = looked.get(r.call_id)
            if command is None or (r.text.strip() and _MISSING_RE.search(r.text[:500]) is None):
                continue
            if any(n in command or (f and f in command and st in command) for n, f, st in marks):
                return True
    return False


def keyed_items(s: Session, quoted: str, start: int, said: str) -> list[str]:
    """``"…" done since (a later edit of F set `key`)`` for the quoted earlier summary's
    pending items a later edit did by their keys (``said``: lines already saying items done,
    whose items are not said again)."""
    if not s.prior or not quoted:
        return []
    items = list_items(prior_sections(s.prior[-1]).get(7, ""))
    if not items:
        return []
    keys = _added_keys(s, start)
    listed = _named(" ".join(t for _, t in items), keys)
    only = listed if len(listed) == 1 else []
    done: dict[int, str] = {}
    within = one_line(quoted)
    for n, (_, text) in enumerate(items):
        if one_line(text)[:40] not in within:
            continue  # (the quote is another section, or cut before the item)
        if did := _renamed(s, text, start) or _marked_done(s, text, start):  # (43 W5)
            done[n] = did
            continue
        files = _named(text, keys) or only
        words = {w.casefold() for w in _WORD_RE.findall(text)} - _GENERIC
        for path in files:
            hit = sorted(keys[path][w] for w in words if w in keys[path])
            sets = _SETS_RE.search(text) is not None or any(_CODELIKE_RE.search(h) for h in hit)
            if hit and sets and not _missing(s, text, start):
                done[n] = f"a later edit of {path} set `{'`, `'.join(hit[:3])}`"
                break
    for n, (depth, text) in enumerate(items):  # a parent whose sub-items are all done
        subs: list[int] = []
        for depth2, _ in items[n + 1 :]:
            if depth2 <= depth:
                break
            subs.append(n + 1 + len(subs))
        whole = subs and all(k in done for k in subs) and one_line(text)[:40] in within
        if n not in done and whole and not _missing(s, text, start):
            done[n] = "all its sub-items done since"
    return [
        f"{quote(cut(one_line(items[n][1]), 120), 140)} done since ({why})"
        for n, why in sorted(done.items())
        if one_line(items[n][1])[:40] not in said
    ]


_RENAME_RE = lazy_pattern(
    r"\b(?:rename|replace|change|move)\s+`?([\w$.\-]{3,}?)`?\s+(?:to|with|into|by|→|->)\s+"
    r"`?([\w$.\-]{3,}?)`?(?=[\s,;:)]|\.?$)",
    re.I,
)
_DONE = frozenset({"completed", "complete", "done"})


def _renamed(s: Session, text: str, start: int) -> str:
    """``a later edit of F replaced `A` by `B` `` when ``text`` asks to rename A to B and a
    later edit's old text holds A and its new text B; ''."""
    found = _RENAME_RE.search(text)
    if found is None:
        return ""
    one, two = found.group(1), found.group(2)
    for call in s.calls:
        if call.index <= start or call.id in s.failed_calls or command_of(call):
            continue
        for change in file_changes(call):
            pairs = [change.replace, *change.more] if change.replace else list(change.more)
            if any(one in old and two in new and two not in old for old, new in pairs):
                return f"a later edit of {change.path} replaced `{one}` by `{two}`"
    return ""


def _marked_done(s: Session, text: str, start: int) -> str:
    """``TodoWrite marked "…" completed`` (the tool's name in backticks) when a later todo or
    plan update marked completed an item holding every word of ``text`` (two at least); ''."""
    words = {w.casefold() for w in _WORD_RE.findall(text)} - _GENERIC
    if len(words) < 2:
        return ""
    for call in s.calls:
        if call.index <= start or call.id in s.failed_calls or call.name not in PLAN_TOOLS:
            continue
        todos = call.args.get("plan") if call.name == "update_plan" else call.args.get("todos")
        for todo in todos if isinstance(todos, list) else []:
            if not isinstance(todo, dict) or str(todo.get("status", "")).casefold() not in _DONE:
                continue
            said = str(todo.get("content") or todo.get("step") or "")
            if words <= {w.casefold() for w in _WORD_RE.findall(said)}:
                return f'`{call.name}` marked "{cut(one_line(said), 80)}" completed'
    return ""


def item_head(line: str) -> str:
    """How a ``"…" done since (…)`` line's item starts, to tell two credits of one item."""
    head = line.split(" done since (", 1)[0].split(" marked completed since", 1)[0]
    return re.sub(r"^[\s\"“'\-*•\d.)]+", "", head)[:30].casefold()
