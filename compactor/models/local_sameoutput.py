"""A later call that writes the failed call's output file another way (BENCH45 W5, issue 28).

cx-collect (Codex, PowerShell): ``$id = (Get-Content …\\yt_search.json | ConvertFrom-Json)…;
yt-dlp --write-comments -o …\\yt_comments.json $id`` failed (PowerShell read the UTF-8 file as
ANSI); the very next call, a Python script, ran ``yt-dlp`` with ``-o`` the same file and returned
0. Section 4 said "Next call after it: … (succeeded)" and section 7 listed the failure as
"Unresolved failure". :func:`writes_same_output` knows the workaround: the later command names
the file the failed one was to write (after ``-o``, ``--output``, ``--out``, ``-OutFile``,
``-FilePath``, ``>``, ``Out-File``, ``Set-Content``), slashes, quotes and case aside, whatever its
interpreter.
"""

from __future__ import annotations

import functools
import re

from compactor._util import lazy_pattern

__all__ = ["output_files", "writes_same_output"]

_OUTPUT_RE = lazy_pattern(
    r"""(?:(?<![\w-])(?:-o|--output|--out|-OutFile|-FilePath|-Path)|>>?|(?<![\w-])(?:Out-File|"""
    r"""Set-Content|Add-Content))['"]?(?:\s*,\s*|\s+|=)r?['"]?([^\s'",;()\[\]<>|]+\.\w{1,8})\b""",
    re.IGNORECASE,
)
_MIN = 8
"""A shorter output name (``a.txt``) is too common to tie two calls."""


@functools.lru_cache(maxsize=1024)
def output_files(command: str) -> frozenset[str]:
    """The files ``command`` writes by an output option or redirection, normalised."""
    return frozenset(p for m in _OUTPUT_RE.finditer(command) if len(p := _norm(m.group(1))) >= _MIN)


def writes_same_output(failed: str, later: str) -> bool:
    """Whether the ``later`` command names a file the ``failed`` one was to write."""
    mine = output_files(failed)
    if not mine:
        return False
    theirs = _norm(later)
    return any(p in theirs for p in mine)


def _norm(text: str) -> str:
    return text.replace("\\\\", "/").replace("\\", "/").lower()
