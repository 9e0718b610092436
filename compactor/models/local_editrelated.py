"""A later edit of the same file fixes a failed edit only when it is that edit again (blind
check 75 N3).

sf_setup: ``Edit(Brewfile)`` adding ``cask "clop"`` failed ("File has been modified since
read"); a later ``Edit(Brewfile)`` removed ``cask "crossover"`` (another request: Clop was
already there), and section 4 said "Fixed: a later Edit(…/Brewfile) succeeded". Every edit of
a file retries every failed edit of it by signature (:func:`.local_retries.retries`: the same
tool on the same target).

:func:`related_edit`: a later edit is the failed one's retry when it has the same
``old_string``, or adds one of the lines the failed edit added, or removes one it removed (a
pure deletion retried with another anchor: blind check 74's se_drain), or is a write of the file
whose content holds the failed edit's new text. A failed call that is no string edit (a write, a
patch, another tool) is not judged here.

Blind check 78 W1 (sh_sst): an edit that failed ("String to replace not found", "No changes to
make") is usually retried with another ``old_string`` and other lines; the successful retry was
judged unrelated and a later *rejected* edit of the file became the verdict ("Not fixed: the
user rejected a later Edit"). So the edit of the file that comes next (``next_one``: no other
edit and no new user request between) is the retry, and so is one that adds a distinctive token
the failed edit added (an identifier, a key: tokens, not only whole lines)."""

from __future__ import annotations

from compactor._json import JsonObject, JsonValue
from compactor._util import lazy_pattern
from compactor.facts import Call

__all__ = ["edit_pairs", "related_edit"]

_KEYS = (("old_string", "new_string"), ("old_str", "new_str"))
_CONTENT = ("content", "file_text")
_LEAD_RE = lazy_pattern(r"^[\W_]+")
_LINE = 6
"""A changed line this long or longer (stripped) tells an edit apart; ``}``, ``fi`` do not."""
_TOKEN_RE = lazy_pattern(r"[A-Za-z_$][\w$-]*(?:[./][\w$-]+)*")
_TOKEN = 6
"""A token this long or longer tells an edit apart (``blockPublicAcls``); ``true`` does not."""


def edit_pairs(args: JsonObject) -> list[tuple[str, str]]:
    """The ``(old, new)`` string pairs an edit call's arguments hold (one, or a multi-edit's)."""
    out: list[tuple[str, str]] = []
    for old_key, new_key in _KEYS:
        old, new = args.get(old_key), args.get(new_key)
        if isinstance(old, str) and isinstance(new, str):
            out.append((old, new))
    edits: JsonValue = args.get("edits")
    if isinstance(edits, list):
        for item in edits:
            if isinstance(item, dict):
                out.extend(edit_pairs(item))
    return out


def _added(old: str, new: str) -> set[str]:
    """The lines ``new`` holds that ``old`` lacks, read from their first letter or digit (the
    indentation, a tree's ``│   ├──``, a list's ``-`` aside); not a bracket or a short word."""
    before = {_LEAD_RE.sub("", line.rstrip()) for line in old.splitlines()}
    return {
        s
        for line in new.splitlines()
        if len(s := _LEAD_RE.sub("", line.rstrip())) >= _LINE and s not in before
    }


def _tokens(old: str, new: str) -> set[str]:
    """The distinctive tokens ``new`` holds that ``old`` lacks."""
    before = set(_TOKEN_RE.findall(old))
    return {t for t in _TOKEN_RE.findall(new) if len(t) >= _TOKEN and t not in before}


def related_edit(failed: JsonObject, later: Call, next_one: bool = False) -> bool:
    """Whether the ``later`` call is the failed edit (arguments ``failed``) again; ``next_one``:
    it is the next edit after the failure, with no new user request between."""
    mine = edit_pairs(failed)
    if not mine or next_one:
        return True  # no string edit: the retry test alone decides; the next edit retries it
    args = later.args
    content = next((v for k in _CONTENT if isinstance(v := args.get(k), str)), None)
    if content is not None:  # a write of the whole file
        return any(new.strip() and new.strip() in content for _, new in mine)
    theirs = edit_pairs(args)
    if not theirs:
        return True  # another kind of change (a patch): not judged here
    if any(old.strip() and old == o for old, _ in mine for o, _ in theirs):
        return True
    added = set().union(*(_added(o, n) for o, n in theirs))
    removed = set().union(*(_added(n, o) for o, n in theirs))
    if any(_added(old, new) & added or _added(new, old) & removed for old, new in mine):
        return True
    tokens = set().union(*(_tokens(o, n) for o, n in theirs))
    return any(_tokens(old, new) & tokens for old, new in mine)
