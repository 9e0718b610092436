"""An installed CLI that failed to import is fixed by a reinstall and a later working run of it
(blind check 43 W4).

cc-gli (Claude Code 1.0.44): ``echo … | gliclass -l … -o json`` failed with "ImportError: cannot
import name 'GLiClassModel' from 'gliclass' (…/uv/tools/gliclass-cli/…)"; the user said "CLI is
broken. please reinstall and test", the agent ran ``uv tool uninstall gliclass-cli`` and ``uv
tool install .``, and the installed ``gliclass`` then worked, but in a ``Task`` sub-agent (whose
records Claude Code 1.0 wrote inline as ``isSidechain``: the reader leaves them out of the main
history, so only the ``Task`` result's report is seen). Section 4 listed the ImportError first
among "the unfixed ones".

:func:`judge_reinstalls` marks fixed each open failure of a program whose error is an import or
"not found" error of the program itself, when after it a reinstall ran (``uv tool install``, ``pip
install``, ``pipx install``, ``npm i -g``, ``cargo install``, ``brew reinstall`` of that program's
package, or of the project in the working directory, ``.``), and after the reinstall either a
main-thread call of the same program succeeded or a sub-agent's report names the program as
working (a line naming it with a success word and no failure word).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.facts import Result, command_of, programs
from compactor.facts.reads import is_subagent

from .local_text import call_line

if TYPE_CHECKING:
    from .local_records import ErrorFact
    from .local_session import Session

__all__ = ["judge_reinstalls"]

_BROKEN_RE = lazy_pattern(
    r"ImportError|ModuleNotFoundError|cannot import name|No module named|Cannot find module"
    r"|command not found|not recognized as|error while loading shared libraries",
    re.IGNORECASE,
)
_INSTALL_RE = lazy_pattern(
    r"\b(?:uv\s+tool\s+install|uv\s+pip\s+install|pipx?3?\s+(?:re)?install|python3?\s+-m\s+pip\s+"
    r"install|npm\s+(?:i|install)\s+(?:-g|--global)|pnpm\s+(?:add|i|install)\s+(?:-g|--global)"
    r"|cargo\s+install|brew\s+(?:re)?install|go\s+install)\b([^;&|\n]*)"
)
_COMMON = frozenset(
    "echo cat printf head tail grep rg sed awk jq tee sort uniq wc cd env sudo time timeout xargs "
    "bash sh zsh python python3 node uv pip pip3 npm npx pnpm cargo".split()
)
_OK_RE = lazy_pattern(
    r"\b(?:works?|worked|working|succeed(?:s|ed)?|success(?:ful(?:ly)?)?|passed|fixed|ok)\b"
    r"|[✓✅]|=>\s*\d",
    re.IGNORECASE,
)
_BAD_RE = lazy_pattern(
    r"\b(?:fail(?:s|ed|ing|ure)?|broken|error|not work(?:ing)?|doesn't work|crash\w*)\b",
    re.IGNORECASE,
)


def _installs(args: str, program: str) -> bool:
    """Whether an install command's arguments ``args`` install ``program`` (its package, a
    package whose name holds it, or the project here: ``.``, ``-e .``)."""
    words = [w.strip("'\"") for w in args.split() if not w.startswith("-")]
    if not words:
        return False
    for word in words:
        name = re.split(r"[\[=<>@]", word.rsplit("/", 1)[-1], maxsplit=1)[0].lower()
        if word in (".", "./") or (name and (program in name or name in program)):
            return True
    return False


def _names(line: str, program: str) -> bool:
    return re.search(rf"(?<![\w\-]){re.escape(program)}(?![\w\-])", line, re.IGNORECASE) is not None


def _worked_in_report(text: str, program: str) -> bool:
    """Whether a sub-agent's report says ``program`` worked (a line naming it, a success word,
    no failure word on that line)."""
    for line in text.splitlines():
        if _names(line, program) and _OK_RE.search(line) and not _BAD_RE.search(line):
            return True
    return False


def judge_reinstalls(s: Session) -> None:
    """Mark fixed each open failure of an installed program that a reinstall and a later
    working run of it settled (module docstring)."""
    open_errors = [
        e for e in s.errors
        if e.after in ("", "failed again") and _BROKEN_RE.search(" ".join(e.outcome.lines))
    ]  # fmt: skip
    if not open_errors:
        return
    results = {r.call_id: r for e in s.entries for r in e.results}
    for err in open_errors:
        command = next((t[2:] for t in err.signature[2] if t.startswith("$ ")), "")
        said = " ".join(err.outcome.lines)
        named = [p for p in programs(command) if p not in _COMMON and p in said]
        for program in dict.fromkeys(named or [p for p in programs(command) if p not in _COMMON]):
            if _settle(s, err, program, results):
                break


def _settle(s: Session, err: ErrorFact, program: str, results: dict[str, Result]) -> bool:
    installed: str = ""
    for call in s.calls:
        if call.index <= err.index or call.id not in s.answered or call.id in s.failed_calls:
            continue
        line = command_of(call)
        if not installed:
            found = _INSTALL_RE.search(line or "")
            if found is not None and _installs(found.group(1), program):
                installed = f"`{(line or '').strip()[:120]}`"
            continue
        if line is not None and program in programs(line):
            err.after, err.by = "fixed", call_line(call, 160)
            err.why = f"reinstalled first ({installed}); the same program worked afterwards"
            return True
        result = results.get(call.id)
        text = result.text if result is not None else ""
        if is_subagent(call) and _worked_in_report(text, program):
            err.after, err.by = "fixed", call_line(call, 160)
            err.why = (
                f"reinstalled first ({installed}); the sub-agent's report says {program} worked"
            )
            return True
    return False
