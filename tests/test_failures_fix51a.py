"""Failures that are none, and fixes found by shape (blind check 51, W3-W7).

Claude-Code-shaped sessions written to ``tmp_path``, each of the shape a blind check found
misread:

* W3: ``rm -rf X && ls X`` (or ``ls X || echo gone``): the "No such file or directory" is the
  command's own check that ``X`` is gone, no failure; a later step's failure on it still is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.facts import Call, Result, outcome
from compactor.facts.absence import expected_absence

from .cc_session import Session, cc_summary
from .test_models_local_session import section

TESTS_PASS = (
    "[test] cargo test --workspace\n"
    "test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n"
    "[test] vitest run\n Test Files  3 passed (3)\n      Tests  41 passed (41)\n"
)


def _one_call(tmp_path: Path, command: str, output: str) -> str:
    s = Session()
    s.user("Make sure the tests pass from a clean tree, without the built frontend.")
    s.bash(command, output)
    s.say("All local checks pass without the frontend build.")
    return cc_summary(s, tmp_path)


# -- W3: an expected absence -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "output"),
    [
        (
            "rm -rf build/ && ls build; echo cleaned",
            "ls: cannot access 'build': No such file or directory\ncleaned",
        ),
        (
            "rm -rf apps/web/dist && ls apps/web/dist 2>&1 | head -3; mise run test 2>&1 | tail",
            "ls: apps/web/dist: No such file or directory\n" + TESTS_PASS,
        ),
        (
            "git rm -rq old/ && stat old; make check",
            "stat: cannot stat 'old': No such file or directory\nok",
        ),
    ],
)
def test_a_check_that_a_removed_path_is_gone_is_no_failure(
    tmp_path: Path, command: str, output: str
) -> None:
    text = _one_call(tmp_path, command, output)
    assert "failed" not in section(text, 4), section(text, 4)
    assert "No such file" not in section(text, 4) + section(text, 7), section(text, 4)
    assert "Unresolved failure" not in section(text, 7), section(text, 7)


def test_a_later_step_failing_on_the_removed_path_still_failed(tmp_path: Path) -> None:
    command = "rm -rf build && cp -r build/assets public/; echo copied"
    text = _one_call(tmp_path, command, "cp: build/assets: No such file or directory\ncopied")
    assert "No such file or directory" in section(text, 4), section(text, 4)
    assert not expected_absence(command, "cp: build/assets: No such file or directory")
    assert not expected_absence("rm -rf build && ls dist", "ls: dist: No such file or directory")


def test_the_outcome_of_an_expected_absence_is_a_success() -> None:
    call = Call("c1", "Bash", '{"command": "rm -rf build/ && ls build; echo cleaned"}', 0)
    said = Result("c1", "Bash", "ls: cannot access 'build': No such file or directory\ncleaned")
    assert not outcome(said, call).failed
