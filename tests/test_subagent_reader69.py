"""Sub-agents asked for findings are no writers (blind check 69).

W3: three ``Task`` calls still in flight, asked to "Analyze …", "Map the code flow …", and
"Provide detailed findings on what's broken and how to fix it properly", were listed as
"Background agents were told to write files": a write verb named as something to report ("how
to fix it") is no instruction, and a call in flight that asks to change nothing is section 7's
only. Invented services and paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compactor.facts import Call
from compactor.models.local_readagents import asks_to_write, reads_only

from .cc_session import Session, cc_summary, section
from .test_subagent_reader68 import _task

WRITERS = "told to write files"
ANALYZE = (
    "You are investigating why the retry queue delivers some jobs twice.\n\n"
    "Examine the following areas independently:\n"
    "1. **Queue design**: Analyze how deduplication should work vs. how it is implemented\n"
    "2. **Constraints**: Review the `UNIQUE (queue_id, job_key)` constraint\n\n"
    "Your objectives:\n- Determine whether the bug is in key generation or in the schema\n"
    "- Propose specific technical solutions with pros/cons\n\n"
    "Provide detailed findings on what's broken and how to fix it properly."
)
MAP = (
    "Map the complete code execution flow for job creation, from the API handler to the "
    "worker. Identify the exact point where the duplicate occurs and report back with code "
    "references and recommended fixes."
)
FIX = "Fix the duplicate delivery in src/queue/worker.py and add a regression test."


def _session(prompts: list[str]) -> Session:
    s = Session()
    s.user("deploy parallel agents to investigate the duplicate jobs bug")
    s.bash("grep -rn job_key src/queue | head", "src/queue/keys.py:12: job_key = uuid5(ns, ref)")
    s.say("I'll deploy parallel agents to investigate this independently.")
    s.assistant(
        [
            {
                "type": "tool_use",
                "id": f"toolu_task{k}",
                "name": "Task",
                "input": {"description": f"Investigate part {k}", "prompt": p},
            }
            for k, p in enumerate(prompts)
        ]
    )
    return s


def test_analysis_tasks_in_flight_are_no_writers(tmp_path: Path) -> None:
    summary = cc_summary(_session([ANALYZE, MAP, ANALYZE.replace("twice", "again")]), tmp_path)
    assert WRITERS not in summary, section(summary, 3)
    assert "told to change files" not in summary
    assert "Tool calls in flight when the session was saved (3" in section(summary, 7)


def test_a_task_in_flight_told_to_fix_files_is_named_as_a_call_in_flight(tmp_path: Path) -> None:
    files = section(cc_summary(_session([ANALYZE, FIX]), tmp_path), 3)
    said = " ".join(files.split())
    assert "Background agents" not in said, said
    assert "Sub-agent calls still in flight (section 7) were told to change files" in said
    assert "`Investigate part 1`" in said and "`Investigate part 0`" not in said


@pytest.mark.parametrize(
    ("prompt", "writes"),
    [
        ("Provide detailed findings on what's broken and how to fix it properly.", False),
        ("Investigate the crash and suggest ways to change the retry logic.", False),
        ("Find the bug, then fix it in src/queue/worker.py.", True),
        ("Analyze the failure and update the config to use port 9101.", True),
    ],
)
def test_a_write_verb_named_as_something_to_report_is_no_instruction(
    prompt: str, writes: bool
) -> None:
    assert asks_to_write(prompt) is writes
    call = Call("toolu_1", "Task", json.dumps({"prompt": prompt}), 0)
    assert reads_only(call) is not writes


# W2: a code-review sub-agent that only ran `git diff`, Read, Grep and `git status` had its
# report's "Files Modified" list (the branch's changes against main) turned into files "edited
# by a sub-agent (its report says so)".
REVIEW = (
    "Please review the code changes in the current branch. Focus on:\n\n1. Code quality\n"
    "2. Error handling improvements\n3. Proper logging implementation"
)
REPORT = (
    "## Code Review Summary\n\nThe changes add error logging to the mapping lookup.\n\n"
    "## Critical Issues\n\nNone identified.\n\n**Files Modified:**\n"
    "- `/home/dev/billing/pkg/client/http_client.go`\n"
    "- `/home/dev/billing/pkg/client/http_client_metrics.go`\n"
)
BY_AGENT = "edited by a sub-agent"


@pytest.mark.parametrize("inline", [["Bash", "Read", "Grep", "Bash"], None])
def test_a_reviewers_files_modified_list_is_no_edit_of_its_own(
    inline: list[str] | None, tmp_path: Path
) -> None:
    s = Session()
    s.user("review the branch before I open the pull request")
    _task(s, REVIEW, inline, REPORT)
    s.say("The review found no critical issues.")
    files = section(cc_summary(s, tmp_path), 3)
    assert BY_AGENT not in files, files
    assert "http_client_metrics.go" not in files, files


def test_a_subagent_seen_editing_keeps_its_reported_files(tmp_path: Path) -> None:
    s = Session()
    s.user("review the branch and fix what you find")
    _task(s, REVIEW, ["Read", "Edit"], REPORT)
    s.say("The sub-agent fixed the logging.")
    files = " ".join(section(cc_summary(s, tmp_path), 3).split())
    assert "http_client_metrics.go (edited by a sub-agent (its report says so))" in files, files
