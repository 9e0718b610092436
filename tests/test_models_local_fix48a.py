"""BENCH48, held-out sessions judged by shape: W3 failed read-only fetches of documents were
"Unresolved failure" in section 7 although the agent got the information another way and said so;
W4 a sub-agent call retried at once with the corrected type the error listed was "Set aside on
purpose, not to be fixed" with an unrelated sentence of the final report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .cc_session import Session, cc_summary
from .codex_rollout import sections

# W3: a failed fetch whose need a later lookup met is no unresolved failure

_DOCS = "https://raw.githubusercontent.com/grovekit/site/main/docs/guide/route-loaders.md"
_SITE = "https://grovekit.dev/docs/guide/execution-model"
_SIBLING = "https://grovekit.dev/docs/guide/server-routes"
_FAILED = "Request failed with status code 404"


def _fetch(url: str) -> dict[str, Any]:
    return {"url": url, "prompt": "How does this work?"}


def _planning(s: Session, lookups: list[tuple[str, dict[str, Any], str]], said: str) -> None:
    """Fetches of three docs pages fail (one never ran: its sibling failed), then ``lookups``
    succeed, the assistant says ``said``, writes the plan and hands it over for approval."""
    s.user("Write a plan for adding route loaders to the orchard app; check the Grovekit docs.")
    s.call("WebFetch", _fetch(_DOCS), _FAILED, True)
    s.say("That page moved. Let me try the docs site.")
    one, two = f"toolu_{s.n:04d}a", f"toolu_{s.n:04d}b"
    s.assistant(
        [
            {"type": "tool_use", "id": one, "name": "WebFetch", "input": _fetch(_SITE)},
            {"type": "tool_use", "id": two, "name": "WebFetch", "input": _fetch(_SIBLING)},
        ]
    )
    sibling = "<tool_use_error>Sibling tool call errored</tool_use_error>"
    s.user(
        [
            {"type": "tool_result", "tool_use_id": one, "content": _FAILED, "is_error": True},
            {"type": "tool_result", "tool_use_id": two, "content": sibling, "is_error": True},
        ]
    )
    for name, args, out in lookups:
        s.call(name, args, out)
    s.say(said)
    plan = "# Plan\n1. Add a loader to each route.\n"
    s.call("Write", {"file_path": "/home/dev/board/PLAN.md", "content": plan}, "File created")
    exit_plan = {"type": "tool_use", "id": "toolu_exit", "name": "ExitPlanMode"}
    s.assistant([{**exit_plan, "input": {"plan": plan}}])


_SEARCH = (
    "WebSearch",
    {"query": "grovekit route loaders execution model server routes"},
    "Web search results: Route loaders run on the server first, then on the client.",
)
_NOTES = ("Read", {"file_path": "/home/dev/board/NOTES.txt"}, "     1\tteam sync on friday\n")


@pytest.mark.parametrize(
    ("lookups", "said"),
    [
        ([_SEARCH], "Let me write the plan."),  # a search of the same subject
        ([_NOTES], "I have gathered enough information. Let me write the plan."),  # its words
        ([_NOTES], "Let me write the plan."),  # a plan handed over after a lookup
    ],
    ids=["covered", "enough", "plan"],
)
def test_a_failed_fetch_whose_need_was_met_is_not_pending(
    tmp_path: Path, lookups: list[tuple[str, dict[str, Any], str]], said: str
) -> None:
    s = Session()
    _planning(s, lookups, said)
    parts = sections(cc_summary(s, tmp_path), after="<summary>")
    assert "Unresolved failure" not in parts["7"], parts["7"]
    assert "WebFetch" not in parts["7"], parts["7"]
    for url in (_DOCS, _SITE, _SIBLING):
        block = parts["4"].split(f"`WebFetch({url})` failed", 1)[1].split("\n   - ", 1)[0]
        assert "Worked around by" in block or "Done without it" in block, block


def test_a_failed_fetch_nothing_replaced_stays_unresolved(tmp_path: Path) -> None:
    s = Session()
    s.user("Check the Grovekit loader docs and update the loader.")
    s.call("WebFetch", _fetch(_DOCS), _FAILED, True)
    s.call(
        "Edit", {"file_path": "/home/dev/board/app.ts", "old_string": "a", "new_string": "b"}, "ok"
    )
    s.assistant(
        [{"type": "tool_use", "id": "toolu_late", "name": "Bash", "input": {"command": "ls"}}]
    )
    parts = sections(cc_summary(s, tmp_path), after="<summary>")
    assert f"Unresolved failure: `WebFetch({_DOCS})`" in parts["7"], parts["7"]


def test_a_failed_request_with_a_side_effect_stays_unresolved(tmp_path: Path) -> None:
    s = Session()
    s.user("Register the loader hook with the Grovekit service.")
    post = "curl -X POST https://grovekit.dev/api/route-loaders/hooks -d '{}'"
    s.bash(post, "Exit code 22\ncurl: (22) The requested URL returned error: 500")
    s.call("WebSearch", {"query": "grovekit route loaders hooks"}, "Results: hooks are registered")
    s.say("I have gathered enough information.")
    s.assistant(
        [{"type": "tool_use", "id": "toolu_late", "name": "Bash", "input": {"command": "ls"}}]
    )
    parts = sections(cc_summary(s, tmp_path), after="<summary>")
    assert "Unresolved failure: `Bash: curl -X POST" in parts["7"], parts["7"]


def test_a_failed_health_check_of_a_local_service_stays_unresolved(tmp_path: Path) -> None:
    s = Session()
    s.user("Start the loader service and check its health.")
    s.bash("curl -s http://localhost:8080/health", "Exit code 7\ncurl: (7) Failed to connect")
    s.call("Read", {"file_path": "/home/dev/board/health.ts"}, "     1\texport const ok = 1\n")
    s.say("I have gathered enough information.")
    s.assistant(
        [{"type": "tool_use", "id": "toolu_late", "name": "Bash", "input": {"command": "ls"}}]
    )
    parts = sections(cc_summary(s, tmp_path), after="<summary>")
    assert "Unresolved failure: `Bash: curl -s http://localhost:8080/health`" in parts["7"], parts[
        "7"
    ]


# W4: a tool call retried with one argument corrected is the retry, and fixed it

_TYPES = "general-purpose, Explore, Plan, code-simplifier:code-simplifier, statusline-setup"
_AGENT = {
    "description": "Simplify and refine codebase",
    "prompt": "Review the ledger client and the exporters; simplify them.",
    "subagent_type": "code-simplifier",
}
_NOT_FOUND = f"Agent type 'code-simplifier' not found. Available agents: {_TYPES}"
_REPORT = (
    "The simplifier finished.\n\n**ledger_client.py** -- Removed unnecessary try/except around "
    "the ledger response (httpx never raises there).\n\nAll 42 tests pass."
)


def test_a_sub_agent_retried_with_the_listed_type_is_fixed(tmp_path: Path) -> None:
    s = Session()
    s.user("Simplify the codebase with the simplifier agent.")
    s.call("Task", _AGENT, _NOT_FOUND, True)
    retry = {**_AGENT, "subagent_type": "code-simplifier:code-simplifier"}
    s.call("Task", retry, "Simplified 4 files. All 42 tests pass with zero failures.")
    s.say(_REPORT)
    parts = sections(cc_summary(s, tmp_path), after="<summary>")
    assert "Set aside on purpose" not in parts["4"], parts["4"]
    assert "Fixed: a later `Task(" in parts["4"], parts["4"]
    assert "the retry with subagent_type=code-simplifier:code-simplifier" in parts["4"]


def test_a_report_sharing_a_word_with_the_prompt_sets_nothing_aside(tmp_path: Path) -> None:
    s = Session()
    s.user("Simplify the codebase with the simplifier agent.")
    s.call("Task", _AGENT, _NOT_FOUND, True)
    s.call("Read", {"file_path": "/home/dev/board/ledger_client.py"}, "     1\timport httpx\n")
    s.call("Edit", {"file_path": "/home/dev/board/ledger_client.py", "old_string": "try:",
                    "new_string": "if True:"}, "The file has been updated.")  # fmt: skip
    s.say(_REPORT)
    parts = sections(cc_summary(s, tmp_path), after="<summary>")
    assert "Set aside on purpose" not in parts["4"], parts["4"]


def test_a_look_up_of_another_id_is_no_retry(tmp_path: Path) -> None:
    s = Session()
    s.user("Read issue 12 of the tracker.")
    s.call("mcp__tracker__get_issue", {"issue_id": "12"}, "Error: issue 12 not found", True)
    s.call("mcp__tracker__get_issue", {"issue_id": "13"}, "Issue 13: flaky export")
    s.assistant(
        [{"type": "tool_use", "id": "toolu_late", "name": "Bash", "input": {"command": "ls"}}]
    )
    parts = sections(cc_summary(s, tmp_path), after="<summary>")
    assert "Fixed: a later" not in parts["4"], parts["4"]
