"""An inline script's failure is retried only by a script that uses the module it failed in
(blind check 59 W3, issue 28).

cc-jake: ``python -c "… from fpdf import FPDF … def _gerar_pdf(…) …"`` failed with
``fpdf.errors.FPDFException``; the agent edited the function in its bot and tested again with
another inline script using ``fpdf`` (it printed "OK - 13896 bytes"). Section 4 said "Fixed: a
later ``python -c "from duckduckgo_search import DDGS …"`` succeeded", a web-search test forty
records later: two inline scripts of one interpreter shared the words of their language (``from``,
``import``, ``for``) or a settings file both loaded, and that tied them. By shape, when the error
names the module it came from (``pkg.errors.SomeError``, ``No module named 'pkg'``), a later
inline script of the same interpreter is another attempt only when it imports that module.
"""

from __future__ import annotations

from collections.abc import Sequence

from compactor._util import lazy_pattern
from compactor.facts.inlinescript import inline_interpreter

__all__ = ["inline_retry"]

_RAISED_RE = lazy_pattern(r"\b([a-z_]\w*)(?:\.\w+)*\.[A-Z]\w*(?:Error|Exception|Warning)\b")
"""An exception named with its module (``fpdf.errors.FPDFException``): the package it rose in."""
_MISSING_RE = lazy_pattern(r"No module named '([\w]+)")
_IMPORT_RE = lazy_pattern(
    r"(?:^|[\s;])(?:import\s+([\w.]+(?:\s*,\s*[\w.]+)*)|from\s+([\w.]+)\s+import)"
)


def _module(lines: Sequence[str]) -> str:
    """The top-level module an error names as where it rose, or ""."""
    text = " ".join(lines[:4])
    found = _MISSING_RE.search(text) or _RAISED_RE.search(text)
    return found.group(1) if found is not None else ""


def _imports(script: str) -> frozenset[str]:
    """The top-level modules a Python script imports."""
    names: set[str] = set()
    for found in _IMPORT_RE.finditer(script):
        for name in (found.group(1) or found.group(2)).split(","):
            names.add(name.strip().split(".", 1)[0])
    return frozenset(names)


def inline_retry(failed: str, later: str, lines: Sequence[str]) -> bool | None:
    """Whether the ``later`` command retries the inline Python script ``failed`` (its error
    ``lines``): it imports the module the error rose in. None when the rule does not apply (not
    two inline Python scripts, or the error names no module)."""
    if inline_interpreter(failed) != "python" or inline_interpreter(later) != "python":
        return None
    module = _module(lines)
    if not module or module not in _imports(failed):
        return None
    return module in _imports(later)
