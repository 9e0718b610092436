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
from .codex_rollout import codex_say, codex_summary, codex_user, rec, sections

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
    text = sections(cc_summary(s, tmp_path))["5"]
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
    parts = sections(cc_summary(s, tmp_path))
    assert "the last call that returned, failed" not in parts["8"], parts["8"]
    assert "a later call returned after it" in parts["8"], parts["8"]
    assert 'Work stopped after the last call that returned: `Bash: git add -- "' in parts["9"]


# W6: a probe of a missing folder the assistant settled at once is not unresolved

_HOOKS = ".charter/blueprints/hooks"


def _charter(said: str, tmp_path: Path) -> dict[str, str]:
    records: list[dict[str, Any]] = [rec("turn_context", {"cwd": "/home/dev/charter"})]

    def ex(n: int, cmd: str, code: int, out: str) -> None:
        args = json.dumps({"cmd": cmd})
        call = {"type": "function_call", "name": "exec_command", "call_id": f"c{n}"}
        head = f"Chunk ID: 9f0\nWall time: 0.1 seconds\nProcess exited with code {code}\nOutput:\n"
        output = {"type": "function_call_output", "call_id": f"c{n}", "output": head + out}
        records.extend(
            [rec("response_item", {**call, "arguments": args}), rec("response_item", output)]
        )

    records.append(codex_user("Update the charter and sync the dependent templates."))
    ex(1, "cat .charter/memory/charter.md", 0, "# Charter\n\n## Principles\n- Keep it small\n")
    loop = f"for f in {_HOOKS}/*.md; do sed -n '1,40p' \"$f\"; done"
    probe = f"rg --files {_HOOKS} | sed -n '1,200p' && {loop}"
    ex(2, probe, 2, f"rg: {_HOOKS}: No such file or directory (os error 2)\n")
    ex(3, "ls .charter/blueprints", 0, "plan-blueprint.md\nspec-blueprint.md\n")
    records.append(codex_say(said))
    ex(4, "sed -n 1,40p .charter/blueprints/plan-blueprint.md", 0, "# Plan\n## Checks\n")
    return sections(codex_summary(records, tmp_path, "s-47", "/home/dev/charter"))


@pytest.mark.parametrize(
    "said",
    [
        f"There is no `{_HOOKS}/` directory in this repo, so I'll mark that check as not "
        "applicable in the sync report.",
        f"No such folder as {_HOOKS} — that's expected here.",
        "The hooks templates aren't in this repo; not needed for this sync.",
    ],
)
def test_a_missing_folder_the_assistant_settled_is_not_unresolved(
    tmp_path: Path, said: str
) -> None:
    parts = _charter(said, tmp_path)
    assert "Unresolved failure" not in parts["7"], parts["7"]
    assert "Set aside on purpose" in parts["4"], parts["4"]


@pytest.mark.parametrize(
    "said",
    [
        "The version line needs a bump; I'll skip the changelog for now.",
        f"The {_HOOKS} folder should exist; it is not expected to be missing.",
    ],
)
def test_words_that_do_not_settle_the_missing_folder_leave_it_unresolved(
    tmp_path: Path, said: str
) -> None:
    parts = _charter(said, tmp_path)
    assert "Unresolved failure" in parts["7"], parts["7"]


def test_a_missing_folder_listed_by_ls_and_settled_is_not_unresolved(tmp_path: Path) -> None:
    s = Session()
    s.user("Audit the deploy scripts and tidy them up.")
    s.call(
        "Bash",
        {"command": "ls -la deploy/legacy_hooks"},
        "Exit code 2\nls: cannot access 'deploy/legacy_hooks': No such file or directory",
        True,
    )
    s.say("No legacy_hooks folder here, which is expected; the hooks moved into deploy/run.sh.")
    s.bash("sed -n 1,30p deploy/run.sh", "#!/bin/sh\nset -e\n./hooks.sh pre\n")
    parts = sections(cc_summary(s, tmp_path))
    assert "Unresolved failure" not in parts["7"], parts["7"]
