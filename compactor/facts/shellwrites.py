"""Files a script inside a shell command writes (issue 28, blind check 10, quality9).

An agent often edits files through a script it feeds to an interpreter in a shell call
(``python - <<'PY' … path = Path('ui/App.tsx') … path.write_text(text) PY``, ``python -c
"open('out.json', 'w')…"``, ``node -e "fs.writeFileSync('a.txt', …)"``). :func:`script_writes`
reads such a command by shape, in order: a name bound to a path literal (``path =
Path('x')``, ``p = 'x.json'``, rebound later to another file) or to a ``/`` join of literals
and such names (``out = root / '.omx' / 'x.md'``, ``Path.cwd()`` is ``.``; blind check 29 W2),
then a write through it or through a literal (``.write_text(``, ``.write_bytes(``,
``.open('w')``, ``open(…, 'w'|'a'|'x'|'r+')``, ``fs.writeFileSync(``/``appendFileSync(``). Only
commands holding one of those write words are read (a ``str.find`` pre-check), so that plain
commands cost nothing.
"""

from __future__ import annotations

import posixpath

from compactor._util import lazy_pattern

__all__ = ["script_writes"]

_HINTS = ("write_text", "write_bytes", "open(", "riteFile", "ppendFile")
_LIT = r"(['\"])([^'\"\n]{1,300})\2"
_CWD = r"(?:pathlib\.)?Path\.cwd\(\)"
_TERM = (
    r"""(?:(?:pathlib\.)?Path\(\s*[rb]?['"][^'"\n]{1,300}['"]\s*\)"""
    rf"""|{_CWD}|[rbf]?['"][^'"\n]{{1,300}}['"]|\w+)"""
)
_SCRIPT_RE = lazy_pattern(
    # a name bound to a path literal: path = Path('x') / p = pathlib.Path("x") / out = 'x.json'
    r"(?P<bind>\b\w+)\s*=\s*(?:(?:pathlib\.)?Path\(\s*)?[rbf]?(['\"])(?P<bval>[^'\"\n]{1,300})\2"
    r"(?!\s*\)?\s*/)"  # (not the head of a join: p = Path('a') / 'b' is read below)
    # Path('x').write_text( / name.write_text( / name.open('w')
    r"|(?:(?:pathlib\.)?Path\(\s*(['\"])(?P<wlit>[^'\"\n]{1,300})\4\s*\)|(?P<wvar>\b\w+))"
    r"\.(?:write_(?:text|bytes)\(|open\(\s*(?:mode\s*=\s*)?['\"](?:[wax]|r\+))"
    # open('x', 'w') / open(name, mode="a")
    r"|\bopen\(\s*(?:(['\"])(?P<olit>[^'\"\n]{1,300})\7|(?P<ovar>\w+))\s*,\s*(?:mode\s*=\s*)?"
    r"[rbf]?['\"](?:[wax]|r\+)"
    # fs.writeFileSync('x', …) / fs.appendFile(name, …)
    r"|\b(?:writeFile|appendFile)(?:Sync)?\(\s*(?:(['\"])(?P<flit>[^'\"\n]{1,300})\10|(?P<fvar>\w+))"
    # a name bound to a join: out = root / '.omx' / 'drafts' / name, root = Path.cwd()
    rf"|(?P<jbind>\b\w+)\s*=\s*(?P<jexpr>{_TERM}(?:[ \t]*/[ \t]*{_TERM})+|{_CWD})"
)
_TERM_RE = lazy_pattern(
    r"(?:pathlib\.)?Path\(\s*[rb]?(['\"])(?P<lit>[^'\"\n]{1,300})\1\s*\)|(?:pathlib\.)?Path\.cwd\(\)"
    r"|[rb]?(['\"])(?P<part>[^'\"\n]{1,300})\3|(?P<var>\w+)|(?P<other>\S)"
)
_PATHISH_RE = lazy_pattern(r"^[\w.~/\\\[($-][\w./\\@+~\[\]()$-]*$")
"""A path literal: no spaces or code (``'import x;\\n'`` is not one). Brackets, parentheses and
``$`` are a web framework's route files (``pages/[id].astro``, ``app/(shop)/page.tsx``,
``routes/$slug.tsx``; blind check 41 W7)."""


def script_writes(command: str) -> list[str]:
    """The files a script inside ``command`` writes, in order, each once (empty for commands
    without a write word)."""
    if not any(h in command for h in _HINTS):
        return []
    bound: dict[str, str] = {}
    out: dict[str, None] = {}
    for m in _SCRIPT_RE.finditer(command):
        if m.group("jbind") is not None:  # blind check 29 W2: `x = root / 'a' / 'b'`
            joined = _joined(m.group("jexpr"), bound)
            if joined is not None:
                bound[m.group("jbind")] = joined
            else:
                bound.pop(m.group("jbind"), None)
            continue
        if m.group("bind") is not None:
            value = m.group("bval")
            if _is_path(value) or value in (".", "./"):  # (a folder to join: Path('.'))
                bound[m.group("bind")] = value
            else:
                bound.pop(m.group("bind"), None)
            continue
        lit = m.group("wlit") or m.group("olit") or m.group("flit")
        var = m.group("wvar") or m.group("ovar") or m.group("fvar")
        path = lit if lit is not None else bound.get(var or "")
        if path is not None and _is_path(path):
            out[path] = None
    return list(out)


def _is_path(value: str) -> bool:
    """A literal that names a file: path-shaped, with a folder or an extension."""
    if _PATHISH_RE.match(value) is None or value in ("-", "/dev/null"):
        return False
    return "/" in value or "\\" in value or "." in value.strip(".")


def _joined(expr: str, bound: dict[str, str]) -> str | None:
    """The path a ``/`` join of path literals and bound names makes (``Path.cwd()`` is ``.``);
    None when a part is unknown (``Path(__file__).parent``, an f-string, a call)."""
    parts: list[str] = []
    for m in _TERM_RE.finditer(expr):
        if m.group("other") is not None:
            if m.group("other") != "/":
                return None
            continue
        value = m.group("lit") or m.group("part")
        if value is None and m.group("var") is not None:
            value = bound.get(m.group("var"))
        elif value is None:
            value = "."  # Path.cwd()
        if value is None or (parts and value.startswith("/")):
            return None
        parts.append(value)
    if not parts:
        return None
    path = posixpath.normpath(posixpath.join(*parts))
    return path if path != "." else "."
