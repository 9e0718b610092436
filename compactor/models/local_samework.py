"""A failure is settled when the same work later succeeded another way (blind check 59 W4, W5,
W7; issue 28).

A failure counted as fixed only when the same command, or one tied to it by shape
(:func:`compactor.models.local_standin.retry_tied`), later succeeded. Three shapes did the same
work with another command, and section 4 said "Not fixed" or section 7 "Unresolved failure":

* the same SCRIPT run another way (cx-fab, Codex, PowerShell): ``python init_data.py`` failed twice
  (ImproperlyConfigured), then ``python manage.py shell -c "import init_data"`` exited 0. A script
  run with no arguments is fixed by a later successful call that runs the same file another way:
  fed to an interpreter (``manage.py shell < init_data.py``, ``exec(open('init_data.py')…)``,
  ``runpy.run_path``), run as a module (``-m pkg.init_data``, ``import init_data``) or by
  another interpreter (``venv/bin/python scripts/init_data.py``);
* the same OPERATION done by another tool (cc-jake): ``psql … -c "CREATE TABLE a …; CREATE TABLE
  b …"`` failed (``psql: command not found``), and right after a ``python -c "import psycopg2 …
  CREATE TABLE a …; CREATE TABLE b …"`` succeeded: the same SQL objects created (every one the
  failed call named), the same URL fetched by a fetcher that failed, the same packages installed
  by another installer are a workaround;
* the same QUESTION answered in another environment (cc-jake): ``/root/venv/bin/python3 -c
  "import flask"`` (``No module named 'flask'``) probed one venv; the next probe,
  ``/srv/app/venv/bin/python3 -c "import flask; …"``, printed its version and the app ran from
  there. A failed import of a module is answered by a later successful inline script of another
  interpreter that imports the same module.

Only the calls up to the next request are looked at, and only :data:`_WINDOW` of them; a call
whose pipe could hide its exit status (:func:`compactor.facts.filteredrun.hides_errors`) proves
nothing.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable
from itertools import islice

from compactor._util import lazy_pattern
from compactor.facts.filteredrun import hides_errors
from compactor.facts.inlinescript import inline_interpreter

from .local_dryfix import dry_run
from .local_records import ErrorFact
from .local_session import Session
from .local_text import call_line

__all__ = ["judge_same_work"]

_WINDOW = 12
"""Calls after a failure (up to the next request) that may have done its work another way."""

_SCRIPT_RE = lazy_pattern(
    r"(?:^|[\s;&|(])(?:\S*[/\\])?(?:python[\d.]*|py|node|ruby|perl|php|bash|sh|deno|bun|tsx)"
    r"(?:\.exe)?\s+(?:-[\w-]+\s+)*[\"']?(?:[^\s;&|\"']*[/\\])?([\w.-]+)\.(py|js|mjs|cjs|ts|rb|pl|"
    r"php|sh)[\"']?\s*(?=$|[;&|)])",
    re.IGNORECASE,
)
"""A script file run with no argument (``python init_data.py``, ``node seed.js;``): its name and
extension. A script run with arguments (``manage.py migrate``) is another step each time."""
_GENERIC_STEMS = frozenset("app main server run index manage setup test tests __init__".split())
"""Script names that a module import (``import app``) does not run."""
_SQL_RE = lazy_pattern(
    r"\b(create|drop|alter)\s+(table|index|view|schema|database|sequence|type|function)\s+"
    r"(?:if\s+(?:not\s+)?exists\s+)?[\"`]?([\w.]+)",
    re.IGNORECASE,
)
_URL_RE = lazy_pattern(r"https?://[^\s'\"`)<>]+")
_FETCHERS = frozenset("curl wget http https invoke-webrequest iwr invoke-restmethod irm".split())
_INSTALL_RE = lazy_pattern(
    r"\b(?:pip[\d.]*|uv\s+pip|npm|pnpm|yarn|bun|apt(?:-get)?|brew|gem|cargo|poetry|conda|"
    r"pipx)\s+(?:install|add|i)\s+((?:[^\s;&|]+\s*)+)",
    re.IGNORECASE,
)
_MISSING_MODULE_RE = lazy_pattern(r"No module named '(\w+)")
_IMPORT_RE = lazy_pattern(r"(?:^|[\s;\"'])(?:import\s+(\w+)|from\s+(\w+)[\w.]*\s+import)")


def judge_same_work(s: Session) -> None:
    """Settle each open failure (no verdict, or "failed again") of a shell command whose work a
    later call up to the next request did another way without failing (module docstring)."""
    pending = [
        (err, found)
        for err in s.errors
        if err.after in ("", "failed again") and err.signature[0] == "shell"
        if (found := _work(err)) is not None
    ]
    if not pending:
        return
    flying = {c.id for c in s.in_flight}
    requests = [r.index for r in s.requests]
    starts = [c.index for c in s.calls]
    for err, (matches, why) in pending:
        n = bisect.bisect_right(requests, err.index)
        stop = requests[n] if n < len(requests) else len(s.entries)
        later = (
            c for c in islice(s.calls, bisect.bisect_right(starts, err.index), None)
            if c.id not in s.failed_calls and c.id not in flying
        )  # fmt: skip
        for call in islice(later, _WINDOW):
            if call.index >= stop:
                break
            command = call.command
            if not command or hides_errors(command) or dry_run(call, None):  # (58 W7)
                continue
            if matches(command):
                verdict = "worked around by" if why else "fixed"  # a script: "a later X succeeded"
                err.after, err.by, err.why = verdict, call_line(call, 160), why
                break


def _failed_command(err: ErrorFact) -> str:
    return next((t[2:] for t in err.signature[2] if t.startswith("$ ")), "")


def _work(err: ErrorFact) -> tuple[Callable[[str], bool], str] | None:
    """What would show the failed call's work done another way, and how to say so; None when
    its command is none of the shapes."""
    command = _failed_command(err)
    if not command:
        return None
    scripts = list(_SCRIPT_RE.finditer(command))
    if scripts:  # the last script it runs: its main step
        script = scripts[-1]
        stem, ext = script.group(1), script.group(2)
        return _runs_script(stem, ext), ""  # "Fixed: a later … succeeded" (it ran the script)
    made = _sql_objects(command)
    if made:
        names = ", ".join(sorted({name for _, _, name in made}))
        return (lambda later: made <= _sql_objects(later)), f"succeeded; it made the same {names}"
    if _is_fetch(command):
        urls = set(_URL_RE.findall(command))
        if urls:
            return (lambda later: urls <= set(_URL_RE.findall(later))), (
                "succeeded; it fetched the same URL"
            )
    wanted = _packages(command)
    if wanted:
        return (lambda later: wanted <= _packages(later)), (
            f"succeeded; it installed the same {', '.join(sorted(wanted))}"
        )
    module = _probed_module(command, err)
    if module:
        return _imports_elsewhere(command, module), (
            f"succeeded; {module} imports in that environment"
        )
    return None


@functools.lru_cache(maxsize=256)
def _runs_script(stem: str, ext: str) -> Callable[[str], bool]:
    name = re.escape(f"{stem}.{ext}")
    forms = [
        rf"(?:python[\d.]*(?:\.exe)?|manage\.py\s+shell|node|ruby|perl|php|bash|sh)\b[^<;&|]*<\s*"
        rf"[\"']?(?:[^\s\"';&|]*[/\\])?{name}\b",  # fed to an interpreter or a framework shell
        rf"\b(?:open|run_path|exec(?:file)?|source|load)\s*\(\s*[\"'](?:[^\"']*[/\\])?{name}\b",
        rf"(?:^|[\s;&|(])(?:\S*[/\\])?(?:python[\d.]*|py|node|ruby|perl|php|bash|sh|deno|bun|tsx)"
        rf"(?:\.exe)?\s+(?:-[\w-]+\s+)*[\"']?(?:[^\s;&|\"']*[/\\])?{name}\b",
    ]
    if ext == "py" and stem.isidentifier():
        forms.append(rf"\s-m\s+(?:\w+\.)*{stem}\b")  # run as a module (``-m pkg.init_data``)
        if stem.lower() not in _GENERIC_STEMS:
            forms.append(rf"(?:\bimport\s+(?:\w+\.)*{stem}\b|\bfrom\s+(?:\w+\.)*{stem}\s+import)")
    pattern = re.compile("|".join(forms), re.IGNORECASE)
    return lambda later: pattern.search(later) is not None


def _sql_objects(command: str) -> frozenset[tuple[str, str, str]]:
    return frozenset(
        (verb.lower(), kind.lower(), name.strip('"`').lower())
        for verb, kind, name in _SQL_RE.findall(command)
    )


def _is_fetch(command: str) -> bool:
    first = command.strip().split(None, 1)[:1]
    program = first[0].replace("\\", "/").rsplit("/", 1)[-1].lower() if first else ""
    return program in _FETCHERS


def _packages(command: str) -> frozenset[str]:
    """The packages an install command names (options and versions left out)."""
    names: set[str] = set()
    for found in _INSTALL_RE.finditer(command):
        for word in found.group(1).split():
            if word.startswith("-") or "/" in word or "=" in word[:1]:
                continue
            name = re.split(r"[@=<>~!\[]", word.lstrip("@"), maxsplit=1)[0] if word else ""
            if len(name) > 1 and name.replace("-", "").replace("_", "").replace(".", "").isalnum():
                names.add(name.lower().replace("_", "-"))
    return frozenset(names)


def _probed_module(command: str, err: ErrorFact) -> str:
    """The module an inline Python probe failed to import (``No module named 'flask'``)."""
    if inline_interpreter(command) != "python":
        return ""
    found = _MISSING_MODULE_RE.search(" ".join(err.outcome.lines[:4]))
    if found is None or found.group(1) not in _imported(command):
        return ""
    return found.group(1)


def _imported(script: str) -> frozenset[str]:
    return frozenset(a or b for a, b in _IMPORT_RE.findall(script))


def _interpreter_path(command: str) -> str:
    return command.strip().split(None, 1)[0] if command.strip() else ""


def _imports_elsewhere(command: str, module: str) -> Callable[[str], bool]:
    mine = _interpreter_path(command)

    def answered(later: str) -> bool:
        return (
            inline_interpreter(later) == "python"
            and _interpreter_path(later) != mine
            and module in _imported(later)
        )

    return answered
