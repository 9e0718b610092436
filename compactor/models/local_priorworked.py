"""An earlier summary's pending item whose file the work since changed, after which the user
asked for other work, is no pending item (blind check 76 W3).

sk_rts: Claude Code's own compaction listed "**Update `editor/src/main.cpp`** to: 1. Scan
`assets/` … 2. Load a heightmap … 3. Place loaded models … 4. Add ImGui UI panels …". The first
turn after it did all four (edits of main.cpp), and the user then asked for other work three times
(one Wolfrider on a procedural map instead of every model); the summary still quoted the four as
"Pending in the earlier summary (some may be done since)", and once that turn was answered, as
"asked for again since … (wanted now)", inviting the agent to re-add the scene the user replaced.

By shape: an item of the earlier summary's pending section that names a file (by its path or the
end of it, or its file name), or sits under an item that does, is worked on since when a call
after that summary changed the file successfully and a request of the user's came after that
change: the work was answered and the user went on. :func:`worked_items` says which; section 7
says so ("worked on since, then the user asked for other work") and no longer calls them asked
for again.
"""

from __future__ import annotations

from compactor._util import lazy_pattern
from compactor.facts import cut, one_line

from .local_session import Session
from .local_text import list_items, prior_sections, quote

__all__ = ["WORKED_HEAD", "worked_heads", "worked_line"]

_PATH_RE = lazy_pattern(r"(?<![\w.\-/])((?:[\w.\-]+/)*[\w\-]+\.[A-Za-z][A-Za-z0-9]{0,4})(?![\w/])")
WORKED_HEAD = 60  # characters of an item's text that name it


def _start(s: Session) -> int:
    latest = s.prior[-1]
    return next((e.index for e in reversed(s.entries) if e.text == latest), -1)


def _moved_on(s: Session, start: int) -> dict[str, str]:
    """Each file a call after entry ``start`` changed, then a request of the user's came →
    that request's text (the first after the file's first change since)."""
    found: dict[str, str] = {}
    for path, state in s.files.items():
        first = next((i for i in state.changed_at if i > start), None)
        later = next((r for r in s.requests if first is not None and r.index > first), None)
        if later is not None:
            found[path] = later.text
    return found


def _names(text: str, path: str) -> bool:
    """Whether ``text`` names the file ``path``: a path in it (a relative one, or a file name
    alone) that ``path`` ends with."""
    for named in _PATH_RE.findall(text.replace("`", "")):
        if path == named or path.endswith("/" + named.lstrip("./")):
            return True
    return False


def _worked(s: Session) -> tuple[list[str], str, str]:
    """(the texts of the worked-on items, the file, the user's next request) — ([], '', '')."""
    if not s.prior or not s.requests:
        return [], "", ""
    moved = _moved_on(s, _start(s))
    if not moved:
        return [], "", ""
    items = list_items(prior_sections(s.prior[-1]).get(7, ""))
    heads: list[str] = []
    file = asked = ""
    under = -1  # the indentation of the item naming a worked-on file (its sub-items follow)
    for indent, text in items:
        if under >= 0 and indent > under:
            heads.append(text)
            continue
        under = -1
        path = next((p for p in moved if _names(text, p)), "")
        if path:
            heads.append(text)
            under, file, asked = indent, file or path, asked or moved[path]
    return heads, file, asked


def worked_heads(s: Session) -> list[str]:
    """The starts of the earlier summary's pending items worked on since (casefolded)."""
    return [one_line(h)[:WORKED_HEAD].casefold() for h in _worked(s)[0]]


def worked_line(s: Session) -> str:
    """Section 7's sentence on those items ('' when none)."""
    heads, file, asked = _worked(s)
    if not heads:
        return ""
    named = "; ".join(quote(cut(one_line(h), 80), 100) for h in heads[:6])
    more = f" and {len(heads) - 6} more" if len(heads) > 6 else ""
    return (
        f"Of those, worked on since, then the user asked for other work (not pending; do not "
        f"redo them unasked): {named}{more} ({file} was changed after the earlier summary; the "
        f"user's next request: {quote(cut(one_line(asked), 100), 120)})"
    )
