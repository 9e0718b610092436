"""A ``/compact`` the CLI reports as failed is said to have failed (blind check 35 F3): the
user's ``/compact and continue`` answered ``<local-command-stderr>Error: Compaction
canceled.</local-command-stderr>`` was reported as "User ran /compact and continue (handled by
the CLI)", as if the conversation had been compacted."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cc_session import Session, cc_summary

COMMAND = (
    "<command-name>/compact</command-name>\n            <command-message>compact</command-message>"
    "\n            <command-args>and continue</command-args>"
)


def _session(output: str) -> Session:
    s = Session()
    s.user("Map the codebase and write the seven documents under .planning/codebase/.")
    s.bash("ls src", "app.ts\nserver.ts")
    s.say("All seven documents are written under .planning/codebase/.")
    s.user("now commit them and go on with the roadmap")
    s.say("Prompt is too long")
    s.records[-1]["isApiErrorMessage"] = True
    s.user(COMMAND)
    s.user(output)
    return s


@pytest.mark.parametrize(
    "output",
    [
        "<local-command-stderr>Error: Compaction canceled.</local-command-stderr>",
        "<local-command-stdout>Error: Compaction failed: too long</local-command-stdout>",
    ],
    ids=["stderr", "stdout-error"],
)
def test_a_failed_compact_is_said_to_have_failed(tmp_path: Path, output: str) -> None:
    text = cc_summary(_session(output), tmp_path)
    assert "(handled by the CLI)" not in text
    line = next(ln for ln in text.splitlines() if "User ran /compact and continue" in ln)
    assert "it failed: Error: Compaction" in line and "not compacted" in line, line


def test_a_compact_that_worked_is_handled_by_the_cli(tmp_path: Path) -> None:
    ok = "<local-command-stdout>Compacted (ctrl+o to see full summary)</local-command-stdout>"
    text = cc_summary(_session(ok), tmp_path)
    assert "User ran /compact and continue (handled by the CLI)." in text
    assert "it failed" not in text
