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

__all__ = ["output_files", "rewritten_files", "writes_same_output"]

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


_ASSIGN_RE = lazy_pattern(
    r"""(?:^|[;\n&|("'])\s*\$?(\w+)\s*=\s*(?:'([^'\n]*)'|"([^"\n]*)"|([^\s;'"|&]+))"""
)
"""A variable set to a path (``$path = 'C:\\w\\spec.md'``, ``f="src/a.py"``)."""
_VAR_RE = lazy_pattern(r"\$\{?(\w+)\}?")
_PATH = r"""['"]?([^\s'",;()\[\]<>|`]+\.\w{1,8})\b"""
_WRITES_RE = lazy_pattern(
    r"(?:(?<![\w-])(?:Set-Content|Out-File|Add-Content|tee)(?:\s+-(?:Path|LiteralPath|FilePath|a))?"
    r"|(?<![\w-])-OutFile|(?<![<>\d&])>>?|\bopen\(\s*r?(?=['\"]\S+['\"]\s*,\s*['\"][wa]))\s*"
    + _PATH
    + r"|\b(?:Path|WriteAllText|write_text)\(\s*r?"
    + _PATH
    + r"(?=['\"]?\)?\.write_text|['\"]\s*,)",
    re.IGNORECASE,
)
"""Where a command writes a file: a PowerShell ``Set-Content``/``Out-File``, a redirection,
``tee``, ``-OutFile``, Python's ``open(PATH, 'w')``, ``Path(PATH).write_text``,
``[IO.File]::WriteAllText(PATH, …)``."""
_OPEN_VAR_RE = lazy_pattern(r"\bopen\(\s*(\w+)\s*,\s*['\"][wa]")
"""Python's ``open(p, 'w')`` of a variable set in the same command (``p='src/a.py'; …``)."""
_IN_PLACE_RE = lazy_pattern(r"(?<![\w-])(?:sed|perl)\s+(?:-\S+\s+)*-\w*i\S*\s+(.+)$", re.MULTILINE)
"""``sed -i … FILE``, ``perl -pi -e … FILE``: the words after the script name the files."""


def rewritten_files(command: str) -> frozenset[str]:
    """The files ``command`` writes (``$var`` paths set in it resolved), normalised, whatever
    their length (tied to one file by the caller, not by a substring)."""
    values = {
        m.group(1): next(v for v in m.groups()[1:] if v is not None)
        for m in _ASSIGN_RE.finditer(command)
    }
    if values:
        command = _VAR_RE.sub(lambda m: values.get(m.group(1), m.group(0)), command)
    found = {_norm(p) for m in _WRITES_RE.finditer(command) for p in m.groups() if p}
    found.update(_norm(values[n]) for n in _OPEN_VAR_RE.findall(command) if n in values)
    for m in _IN_PLACE_RE.finditer(command):
        words = (w.strip("'\"") for w in m.group(1).split())
        found.update(_norm(w) for w in words if _FILE_WORD_RE.fullmatch(w) is not None)
    return frozenset(found)


_FILE_WORD_RE = lazy_pattern(r"[^\s'\"-][^\s'\"]*\.\w{1,8}")
"""A word of ``sed -i``'s arguments that names a file (not its ``s/…/…/`` script)."""
