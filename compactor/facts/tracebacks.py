"""A traceback a user pasted into a message, as its key lines (blind check 18, tripolar-cc: the
latest user message, 11,426 characters of a vLLM start-up log with three chained Python
tracebacks, was re-inserted whole, about 250 lines of library frames): the first line (the
user's own words, or the command that failed), the exception lines (each with its message's
next line), the last frames in the user's own code (not in an installed library or the
standard library), and the last lines, with the text's size and where the full text is."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["blank_frames", "bounded_traceback", "is_library_path", "is_log_tag"]

_TRACEBACK = "Traceback (most recent call last)"
_PREFIX_RE = lazy_pattern(r"^\s*(?:\([^()\n]{1,60}\)\s+)?")
"""A worker's tag before each line (``(APIServer pid=36443) ``): not part of what it says."""
_FRAME_RE = lazy_pattern(r'^\s*File "([^"\n]+)", line (\d+)(?:, in (\S+))?')
_JS_FRAME_RE = lazy_pattern(r"^\s*at (?:(\S+) )?\(?([^()\s]+):(\d+):\d+\)?\s*$")
_EXCEPTION_RE = lazy_pattern(
    r"^(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure|Fault)\b(?::|$)"
)
_LIBRARY_RE = lazy_pattern(
    r"[/\\](?:site-packages|dist-packages|node_modules|\.venv|vendor[/\\]bundle)[/\\]|"
    r"[/\\]lib[/\\]python\d(?:\.\d+)?[/\\]|^<frozen |^node:|^internal/|\.pyx$"
)
_FRAMES_LEAST, _LINES_LEAST = 4, 8
_KEY_EXCEPTIONS, _OWN_FRAMES, _LAST = 3, 3, 2


def is_library_path(path: str) -> bool:
    """A file of an installed package or of the language's own library (``…/site-packages/…``,
    ``/usr/lib/python3.12/…``, ``node_modules/…``, ``<frozen runpy>``): in a user's message it
    is a frame of pasted output, not a file of the user's work."""
    return _LIBRARY_RE.search(path.replace("\\", "/")) is not None


_TAG_END_RE = lazy_pattern(r":\d+\]")


def is_log_tag(text: str, pos: int, path: str) -> bool:
    """Whether the file name at ``pos`` of ``text`` is a log line's source tag (``[utils.py:287]``
    in ``INFO 03-02 22:40:35 [utils.py:287] …``): the logging module's file, not the user's."""
    return text[pos - 1 : pos] == "[" and _TAG_END_RE.match(text, pos + len(path)) is not None


def _frame(line: str) -> tuple[str, str, str] | None:
    """(path, line number, function) of a traceback frame line (Python or JavaScript)."""
    if (m := _FRAME_RE.match(line)) is not None:
        return m.group(1), m.group(2), m.group(3) or ""
    if (j := _JS_FRAME_RE.match(line)) is not None:
        return j.group(2), j.group(3), j.group(1) or ""
    return None


def bounded_traceback(text: str, number: int, keep: int, kept: str = "") -> str | None:
    """``text`` as its key lines when it holds a pasted traceback of at least
    :data:`_FRAMES_LEAST` frames and :data:`_LINES_LEAST` lines; None otherwise. ``kept``:
    what else the parenthesis says (the user's orders found among the pasted lines)."""
    if ("File " not in text or _TRACEBACK not in text) and "    at " not in text:
        return None
    lines = [x.rstrip() for x in text.splitlines() if x.strip()]
    said = [_PREFIX_RE.sub("", x, count=1) for x in lines]
    frames = [(n, f) for n, x in enumerate(said) if (f := _frame(x)) is not None]
    if len(frames) < _FRAMES_LEAST or len(lines) < _LINES_LEAST:
        return None
    width = max(80, keep // 3)
    frame_at = {n for n, _ in frames}
    exceptions: dict[str, str] = {}  # each distinct one once, the last kept
    for n, x in enumerate(said):
        if _EXCEPTION_RE.match(x) is None or n == 0:
            continue
        nxt = said[n + 1].strip() if n + 1 < len(said) and n + 1 not in frame_at else ""
        if nxt.startswith(_TRACEBACK) or _EXCEPTION_RE.match(nxt) or "exception" in nxt:
            nxt = ""
        exceptions.pop(x, None)
        exceptions[x] = f"{x.strip()}{' ' + nxt if nxt else ''}"[:width]
    own: dict[tuple[str, str], str] = {}
    for n, (path, line, fn) in frames:
        if is_library_path(path):
            continue
        code = said[n + 1].strip() if n + 1 < len(said) and n + 1 not in frame_at else ""
        where = f"{path}:{line}" + (f" in {fn}" if fn else "") + (f": {code}" if code else "")
        own.pop((path, line), None)
        own[(path, line)] = where[:width]
    head, tail = lines[0][:width], [x[:width] for x in lines[-_LAST:]]
    parts = [f"a pasted traceback or log of {len(lines)} lines, {len(text):,} characters"]
    parts.append(f"the full text is user message {number} of the original transcript")
    if exceptions:
        parts.append(
            "its exception lines: " + " | ".join(list(exceptions.values())[-_KEY_EXCEPTIONS:])
        )
    if own:
        last = list(own.values())[-_OWN_FRAMES:]
        parts.append("the last frames in the user's own code: " + " | ".join(last))
    removed = len(text) - len(head) - sum(map(len, tail))
    what = "; ".join(parts) + kept
    return f"{head}…{removed:,} characters truncated ({what})…{chr(10).join(tail)}"


_BLANK_RE = lazy_pattern(
    r'^.*File "[^"\n]+", line \d+.*$(?:\n(?![^\n]*(?:File "|Error\b|Exception\b))[^\n]*)?|'
    r"^\s*at \S+ \(\S+:\d+:\d+\)\s*$",
    re.M,
)


def blank_frames(text: str) -> str:
    """``text`` with the frames of a pasted traceback blanked, each with its source line (the
    same length, so that positions stay valid): a frame's function is no identifier of the
    work."""
    if ('File "' not in text or ", line " not in text) and "    at " not in text:
        return text
    return _BLANK_RE.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
