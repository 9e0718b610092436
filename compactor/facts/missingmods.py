"""Every module a failed build or run could not find, on one line (blind check 67 N2, issue 28).

cc_ce_env's build failed on three missing modules ("Module not found: Can't resolve 'date-fns'",
"… '@tanstack/react-query'", "… 'sonner'"); the failure's lines kept two of them, so a resuming
agent would install two and fail again. :func:`missing_modules` reads every distinct package a
failed output names as missing (webpack's ``Can't resolve 'x'``, Node's and TypeScript's
``Cannot find module 'x'``, Python's ``No module named 'x'``, Vite's ``Failed to resolve import
"x"``, esbuild's ``Could not resolve "x"``), scoped names (``@scope/name``) whole, a relative or
absolute import (a missing file, not a package) left out; :func:`with_missing_modules` puts
them first among a failure's lines as one line when there are two or more.
"""

from __future__ import annotations

from compactor._util import lazy_pattern

__all__ = ["MISSING_MOST", "missing_modules", "packages", "with_missing_modules"]

MISSING_MOST = 8
"""Most names the combined line keeps."""
_HINT = ("resolve", "find module", "No module named")
_MISSING_RE = lazy_pattern(
    r"(?P<kind>Can't resolve|Cannot find module|No module named|Failed to resolve import"
    r"|Could not resolve)\s+(?P<q>['\"`])(?P<name>[^'\"`\s]{1,214})(?P=q)"
)
_COMBINED = "missing modules)"
_QUOTED_RE = lazy_pattern(r"'([^'\s]{1,214})'")
_PREFIX = {
    "Can't resolve": "Module not found: Can't resolve",
    "Cannot find module": "Cannot find module",
    "No module named": "ModuleNotFoundError: No module named",
    "Failed to resolve import": "Failed to resolve import",
    "Could not resolve": "Could not resolve",
}


def _package(name: str) -> bool:
    """Whether ``name`` is a package (``date-fns``, ``@tanstack/react-query``, ``pkg.sub``), not a
    file (``./x``, ``../x``, ``/abs``, ``C:\\x``) or a path alias (``@/x``, ``~/x``)."""
    return not name.startswith((".", "/", "\\", "@/", "~", "#")) and name[1:2] != ":"


def missing_modules(text: str) -> tuple[list[str], str]:
    """(the distinct packages ``text`` names as missing, in order; the wording of the first)."""
    if not any(h in text for h in _HINT) and _COMBINED not in text:
        return [], ""
    names: dict[str, None] = {}
    kind = ""
    for line in text.splitlines():
        if line.endswith(_COMBINED):  # a line :func:`with_missing_modules` made
            for name in _QUOTED_RE.findall(line):
                names.setdefault(name, None)
            kind = kind or next((k for k, p in _PREFIX.items() if line.startswith(p)), "")
            continue
        for m in _MISSING_RE.finditer(line):
            if _package(m.group("name")):
                names.setdefault(m.group("name"), None)
                kind = kind or m.group("kind")
    return list(names), _PREFIX.get(kind, "Missing modules:")


def with_missing_modules(lines: list[str], text: str) -> list[str]:
    """A failure's ``lines``, with the packages ``text`` names as missing first on one line
    when it names two or more (the lines of one of them dropped)."""
    if not any(h in x for x in lines for h in _HINT):  # (most failures: the body not read)
        return lines
    names, prefix = missing_modules(text)
    if len(names) < 2:
        return lines
    shown = ", ".join(f"'{n}'" for n in names[:MISSING_MOST])
    more = f" and {len(names) - MISSING_MOST} more" if len(names) > MISSING_MOST else ""
    line = f"{prefix} {shown}{more} ({len(names)} {_COMBINED}"
    quoted = tuple(f"{q}{n}{q}" for n in names for q in "'\"`")
    return [line, *(x for x in lines if not any(q in x for q in quoted))][: len(lines)]


def packages(names: list[str], prefix: str) -> list[str]:
    """The packages to install for the missing ``names`` (as :func:`missing_modules` gave them,
    with its ``prefix``): a subpath's package (``date-fns/format`` → ``date-fns``,
    ``@scope/name/x`` → ``@scope/name``), a Python submodule's top module (``rq.job`` → ``rq``);
    each once."""
    python = prefix.startswith("ModuleNotFoundError")
    out: dict[str, None] = {}
    for name in names:
        parts = name.split("/")
        top = "/".join(parts[:2]) if name.startswith("@") else parts[0]
        out.setdefault(top.split(".", 1)[0] if python else top, None)
    return list(out)
