"""Blind check 45 W7 (issue 28): a probe's exit 1 is its answer. ``git ls-files --error-unmatch
PATH`` printing "did not match any file(s) known to git" told the agent the file was never
tracked; section 7 listed it as an "Unresolved failure". Probes (``git rev-parse --verify``,
``git show-ref --verify``, ``git cat-file -e``, ``git diff --quiet``, ``command -v``, ``which``,
``test -e``) whose output is only their own "no" are no failures; any other output still is."""

from __future__ import annotations

import json

import pytest

from compactor.facts.outcomes import outcome
from compactor.facts.probes import probe_answered
from compactor.facts.text import Call, Result
from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_UNTRACKED = (
    "Exit code 1\nerror: pathspec 'tests/test_scales_unknown.py' did not match any file(s) known"
    " to git\nDid you forget to 'git add'?"
)


def _bash(command: str, text: str, code: int = 1) -> bool:
    call = Call("c1", "Bash", json.dumps({"command": command}), 0)
    return outcome(Result("c1", "Bash", text, True), call).failed


def test_a_probe_s_no_is_no_failure() -> None:
    assert not _bash("git ls-files --error-unmatch tests/test_scales_unknown.py 2>&1", _UNTRACKED)
    assert not _bash("cd repo && git diff --quiet", "Exit code 1")
    assert not _bash("command -v ruff", "Exit code 1")
    assert not _bash(
        "git rev-parse --verify feature/x", "Exit code 128\nfatal: Needed a single revision"
    )


@pytest.mark.parametrize(
    ("command", "text"),
    [
        ("git ls-files --error-unmatch a.py && pytest -q", "Exit code 1\nFAILED test_a.py::test_x"),
        ("git ls-files a.py", "Exit code 1\nerror: pathspec 'a.py' did not match any file(s)"),
        ("command -v ruff", "Exit code 2\nbash: syntax error"),
        ("which ruff", "Exit code 128\nfatal: something"),
    ],
)
def test_other_exits_and_outputs_still_fail(command: str, text: str) -> None:
    assert _bash(command, text)


def test_probe_shapes() -> None:
    assert probe_answered(1, "", "test -e build/out.bin")
    assert probe_answered(128, "fatal: not a valid object name abc", "git cat-file -e abc")
    assert not probe_answered(128, "", "command -v x")
    assert not probe_answered(0, "", "which x")


def test_section_7_lists_no_probe_as_unresolved() -> None:
    s = SessionBuilder()
    s.user("drop the unknown-scales test file and commit the rest")
    probe = "git ls-files --error-unmatch tests/test_scales_unknown.py 2>&1"
    s.call("Bash", {"command": probe}, _UNTRACKED, error=True)
    s.call("Bash", {"command": "git status --short"}, " M src/scales.py")
    s.call(
        "Bash", {"command": "git add src/scales.py && git commit -m 'Drop'"}, "[main 1a2b3c4] Drop"
    )
    s.call("Bash", {"command": "git log --oneline -1"}, "1a2b3c4 Drop")
    summary = summarize_transcript(s.messages)
    assert "Unresolved failure" not in section(summary, 7), section(summary, 7)
    assert f"{probe}` failed" not in section(summary, 4), section(summary, 4)
