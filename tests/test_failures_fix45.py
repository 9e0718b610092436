"""Blind check 45 W2 and W8 (issue 28): output whose words are no error lines. A help text the
call asked for (jest's ``--help`` says "Run tests that failed …") and a finished background
task's retrieved report (a review agent quoting ``Failed map[…]`` Go code) are no failures;
either still fails by ``is_error``."""

from __future__ import annotations

import json

from compactor.facts.outcomes import outcome
from compactor.facts.text import Call, Result
from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_JEST_HELP = (
    "Usage: jest [--config=<path>] [TestPathPattern]\n\nOptions:\n"
    "  --onlyFailures, -f  Run tests that failed in the previous execution.  [boolean]\n"
    "  --bail, -b  Exit the test suite immediately after n failed [string]"
)
_REPORT = (
    "<retrieval_status>success</retrieval_status>\n<task_id>a1b2c3d</task_id>\n"
    "<status>completed</status>\n<output>## Simplicity review\n```go\ntype CleanupResult struct {\n"
    "\tFailed  map[CleanupType][]string\n}\n```\nFailed map[CleanupType][]string could be a slice."
    "\n</output>"
)


def _call(name: str, args: dict[str, object]) -> Call:
    return Call("c1", name, json.dumps(args), 0)


def test_a_help_text_asked_for_is_no_failure() -> None:
    call = _call("Bash", {"command": "npm run test -- --help"})
    assert not outcome(Result("c1", "Bash", _JEST_HELP, False), call).failed
    assert outcome(Result("c1", "Bash", "Error: unknown option", True), call).failed
    other = _call("Bash", {"command": "npm run test"})
    assert outcome(Result("c1", "Bash", "Tests: 2 failed, 3 passed", False), other).failed


def test_a_retrieved_report_of_a_finished_task_is_no_failure() -> None:
    call = _call("TaskOutput", {"task_id": "a1b2c3d", "block": True})
    assert not outcome(Result("c1", "TaskOutput", _REPORT, False), call).failed
    running = _REPORT.replace("<status>completed</status>", "<status>failed</status>")
    assert outcome(Result("c1", "TaskOutput", running, False), call).failed


def test_the_summary_lists_neither_as_an_error() -> None:
    s = SessionBuilder()
    s.user("review the cleanup code and check the test runner's options")
    s.call("TaskOutput", {"task_id": "a1b2c3d", "block": True, "timeout": 30000}, _REPORT)
    s.call("Bash", {"command": "npm run test -- --help"}, _JEST_HELP)
    s.say("The review is in, and jest has --onlyFailures.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "timeout=30000) failed" not in errors and "--help failed" not in errors, errors
    assert "No call failed" in errors, errors
