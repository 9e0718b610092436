"""Blind check 47, held-out sessions judged by shape: W4 a ``git status`` digest lost all but one
of 26 changed files without saying so; W5 §8 called a failed call "the last call that returned"
although a retry after it returned with an empty result; W6 §7 listed as unresolved a probe of a
missing folder that the assistant settled at once ("not applicable")."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from compactor.models.local_listfit import fit_listing
from compactor.models.local_printed import CHANGED, UNTRACKED

from .cc_session import Session, cc_summary
from .codex_rollout import codex_say, codex_summary, codex_user, rec


def _sections(text: str) -> dict[str, str]:
    parts = re.split(r"(?m)^(\d+)\. [^\n]*:\n", text)
    return {"0": parts[0], **dict(zip(parts[1::2], parts[2::2], strict=True))}


# W4: a git status digest names the changed files that fit and counts the others

_FILES = [
    "backend/.coverage",
    "mobile/lib/features/profile/two_factor_screen.dart",
    "mobile/lib/features/wallet/wallet_page.dart",
    *[f"frontend/src/app/[locale]/(dashboard)/settings/panel_{i}.tsx" for i in range(20)],
    "infra/docker-compose.yml",
    "infra/loki/alerts.yml",
    "infra/prometheus/prometheus.yml",
]


def _status(short: bool) -> str:
    if short:
        return "".join(f" M {f}\n" for f in _FILES) + "?? PHASE_PROMPT.md\n"
    return (
        "On branch main\nYour branch is up to date with 'origin/main'.\n\n"
        "Changes not staged for commit:\n"
        '  (use "git add <file>..." to update what will be committed)\n'
        '  (use "git restore <file>..." to discard changes in working directory)\n'
        + "".join(f"\tmodified:   {f}\n" for f in _FILES)
        + '\nUntracked files:\n  (use "git add <file>..." to include in what will be committed)\n'
        "\tPHASE_PROMPT.md\n\n"
        'no changes added to commit (use "git add" and/or "git commit -a")'
    )


def _status_line(tmp_path: Path, short: bool) -> str:
    s = Session()
    s.user("Finish the phase and commit everything the team changed.")
    s.bash("git status --short" if short else "git status", _status(short))
    s.say("Staging the changed files next.")
    text = _sections(cc_summary(s, tmp_path))["5"]
    return next(ln for ln in text.splitlines() if CHANGED in ln)


@pytest.mark.parametrize("short", [False, True])
def test_a_long_git_status_digest_names_several_files_and_counts_the_rest(
    tmp_path: Path, short: bool
) -> None:
    line = _status_line(tmp_path, short)
    named = [f for f in _FILES if f in line]
    assert len(named) >= 4, line
    more = re.search(r"… and (\d+) more", line)
    assert more is not None, line
    assert len(named) + int(more.group(1)) == len(_FILES), line
    assert "PHASE_PROMPT.md" in line, line


def test_a_git_status_digest_cut_to_little_room_keeps_its_count() -> None:
    files = ", ".join(f"src/module_{i}/handler.py (modified)" for i in range(8))
    digest = f"{UNTRACKED}notes.md; {CHANGED}{files}, … and 18 more"
    fitted = fit_listing(digest, 80)
    assert len(fitted) <= 160, fitted
    assert fitted.startswith(f"{UNTRACKED}notes.md; {CHANGED}src/module_0/handler.py"), fitted
    shown = fitted.count("handler.py")
    assert fitted.endswith(f"… and {26 - shown} more"), fitted
    assert fit_listing("pytest → 3 passed, 1 failed in 2.1s", 12) == "pytest → 3"


# W5: a call with an empty result returned; an earlier failed call is not the last that returned


@pytest.mark.parametrize("empty", ["", "  \n", "(no output)", "Tool ran without output"])
def test_a_retry_with_an_empty_result_is_the_last_call_that_returned(
    tmp_path: Path, empty: str
) -> None:
    s = Session()
    s.user("Commit the finished work.")
    s.bash("git status --short", " M app/[locale]/page.tsx\n M api/server.py")
    failed = "Exit code 1\n/bin/bash: line 1: no matches found: app/[locale]/page.tsx"
    s.call("Bash", {"command": "git add app/[locale]/page.tsx api/server.py"}, failed, True)
    s.call("Bash", {"command": 'git add -- "app/[locale]/page.tsx" api/server.py'}, empty)
    key = f"toolu_{s.n:04d}"
    commit = {"command": "git commit -m 'Phase done'"}
    s.assistant([{"type": "tool_use", "id": key, "name": "Bash", "input": commit}])
    parts = _sections(cc_summary(s, tmp_path))
    assert "the last call that returned, failed" not in parts["8"], parts["8"]
    assert "a later call returned after it" in parts["8"], parts["8"]
    assert 'Work stopped after the last call that returned: `Bash: git add -- "' in parts["9"]
