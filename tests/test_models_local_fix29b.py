"""Blind check 31 (fix29b): the request of a command template is its input slot, not the
template's last section, and one template sent with other words each time is several requests
(W1)."""

from __future__ import annotations

import json
from typing import Any

from .cc_session import Session as CcSession
from .cc_session import cc_summary
from .codex_rollout import codex_say, codex_summary, codex_user, rec
from .test_models_local_session import section

# -- 1370-1371: a template's request is its input slot; other inputs are other requests (W1) ----

_RULES = "".join(
    f"{n}. You **MUST** read section {n} of the spec; never skip it, and always keep the "
    f"sections in order. Do not add implementation details; you should only describe needs.\n"
    for n in range(1, 70)
)
_TAIL = (
    "### Success Criteria Guidelines\n\nSuccess criteria must be: 1. **Measurable**: include "
    "specific metrics (time, percentage, count, rate) 2. **Technology-agnostic**: no frameworks."
)


def _specify(words: str) -> str:
    """A ``/speckit.specify``-like expansion: front matter, the input slot holding ``words``,
    an outline of rules, and a last guideline section."""
    return (
        "---\ndescription: Create or update the feature specification.\n---\n\n"
        f"## User Input\n\n```text\n{words}\n```\n\nYou **MUST** consider the user input before "
        f"proceeding (if not empty).\n\n## Outline\n\n{_RULES}\n## General Guidelines\n\n"
        f"{_RULES}\n{_TAIL}\n"
    )


_ROLLOUT = ("1a2b3c4d-0000-4000-8000-000000000031", "/w/cap")  # its session_meta: id, cwd


def _ask(case: str) -> str:
    return (
        f"You are generating a feature specification for ONE use case only: {case}. Read the "
        f"use case file and its acceptance tests, then write the spec for {case}."
    )


def test_a_templates_request_is_its_input_slot_not_its_last_section(tmp_path: Any) -> None:
    """cx-cap: three ``/speckit.specify`` messages (UC-03, UC-04, UC-05); section 1 quoted the
    template's "Success criteria must be: …" as the request, "sent 3 times"."""
    records = []
    for case in ("UC-03", "UC-04", "UC-05"):
        records += [codex_user(_specify(_ask(case))), codex_say(f"The {case} spec is written.")]
    text = codex_summary(records, tmp_path, *_ROLLOUT)
    first = section(text, 1)
    assert "Success criteria must be" not in first, first
    assert "sent 3 times" not in text and "sent 2 times" not in text, first
    for case in ("UC-03", "UC-04", "UC-05"):
        assert f"ONE use case only: {case}" in first, first


def test_a_template_sent_again_with_the_same_input_is_still_one(tmp_path: Any) -> None:
    message = _specify(_ask("UC-04"))
    records = [codex_user(message), codex_user(message), codex_say("The UC-04 spec is written.")]
    text = codex_summary(records, tmp_path, *_ROLLOUT)
    assert "(sent 2 times)" in text, section(text, 1)


# -- 1372-1373: set aside only by the user's or assistant's own decision (W2, W7) ---------------


def _tool(call: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call, "name": name, "input": args}


def _say(s: CcSession, text: str) -> None:
    s.assistant([{"type": "text", "text": text}])


def _result(s: CcSession, call: str, text: str, error: bool = False) -> None:
    s.user([{"type": "tool_result", "tool_use_id": call, "content": text, "is_error": error}])


def test_a_bug_described_as_what_the_code_skips_is_not_set_aside(tmp_path: Any) -> None:
    """cc-jtkmid: "The grouping loop only skips handsets with empty manufacturer/model." (the
    description of bug 1, which the user chose to fix: "both") was "Set aside on purpose"."""
    s = CcSession()
    s.user("Review the resolver change for bugs.")
    s.assistant([_tool("toolu_1", "Bash", {"command": "go vet ./graph/..."})])
    _result(s, "toolu_1", "graph/resolver.go:41: unreachable code\nexit status 1", True)
    _say(
        s,
        "**1 — A nil price causes a 500 for the whole resolver — real**\n\nThe grouping loop only "
        "skips handsets with empty manufacturer/model.\n\n**2 — The cache key ignores the "
        "region.**\n\nFix #1 is a real bug — shall I fix both?",
    )
    s.user("both")
    old, new = 'if maker == "" {', 'if maker == "" || price == "" {'
    edit = {"file_path": "/w/graph/resolver.go", "old_string": old, "new_string": new}
    s.assistant([_tool("toolu_2", "Edit", edit)])
    _result(s, "toolu_2", "The file /w/graph/resolver.go has been updated.")
    _say(s, "Both are fixed.")
    text = cc_summary(s, tmp_path)
    assert "Set aside on purpose" not in text, section(text, 4)


def test_a_skip_decision_of_the_assistants_own_is_still_kept(tmp_path: Any) -> None:
    s = CcSession()
    s.user("Run the linters and fix what they find.")
    s.assistant([_tool("toolu_1", "Bash", {"command": "golangci-lint run ./..."})])
    _result(s, "toolu_1", "golangci-lint: command not found", True)
    _say(s, "The linter is not installed here; I'll skip it and run go vet instead.")
    s.assistant([_tool("toolu_2", "Bash", {"command": "go vet ./..."})])
    _result(s, "toolu_2", "")
    _say(s, "go vet is clean.")
    text = cc_summary(s, tmp_path)
    assert 'Set aside on purpose, not to be fixed: "The linter is not installed' in text, text


def test_a_templates_rule_is_no_reason_to_set_a_failure_aside(tmp_path: Any) -> None:
    """cx-cap: a script failure was "Set aside on purpose" with a sentence of the
    ``/speckit.clarify`` template the user's next message carried ("If the user explicitly
    states they are skipping clarification …, you may proceed")."""
    call = {"type": "function_call", "name": "shell", "call_id": "call_1"}
    call["arguments"] = json.dumps({"command": ["bash", "-lc", ".specify/new-feature.sh uc04"]})
    out = "Exit code: 1\nOutput:\n10#Fetching: value too great for base\n"
    rule = (
        "If the user explicitly states they are skipping clarification (e.g., exploratory "
        "spike), you may proceed, but must warn that downstream rework risk increases."
    )
    records = [
        codex_user(_specify(_ask("UC-04"))),
        rec("response_item", call),
        rec("response_item", {"type": "function_call_output", "call_id": "call_1", "output": out}),
        codex_say("The script failed; I wrote the spec by hand."),
        codex_user(
            f"## User Input\n\n```text\nClarify the UC-04 spec.\n```\n\n## Outline\n\n{rule}\n"
            f"{_RULES}\n## Behavior Rules\n\n{_RULES}"
        ),
        codex_say("Question 1: which fallback?"),
    ]
    text = codex_summary(records, tmp_path, *_ROLLOUT)
    assert "explicitly states they are skipping" not in section(text, 4), section(text, 4)


# -- 1374: a cause the assistant revised after "that didn't correct it" is superseded (W10) -------


def _cause_session(report: str) -> CcSession:
    s = CcSession()
    s.user("Why is AF40 two cents off from AF39 minus AA50 in the budget sheet?")
    _say(
        s,
        "The 2 cent difference is due to floating-point precision errors in the SUM of AA50. "
        "**Root cause confirmed:** Classic binary floating-point arithmetic error. Wrap AA50 in "
        "ROUND(…, 2).",
    )
    s.user(report)
    _say(
        s,
        "**ROUND won't fix this** — ROUND(5813513.67, 2) still equals 5813513.67. Where does "
        "AF39's value of 5813513.69 come from? It's hardcoded, not a formula.",
    )
    return s


def test_a_cause_revised_after_the_fix_did_not_work_is_superseded(tmp_path: Any) -> None:
    """cc-deder: §5 kept "Root cause confirmed: floating-point …" with no mark, although after
    the user's "I changed it to round in AA 50 but that didn't correct it" the assistant wrote
    "ROUND won't fix this … It's hardcoded"."""
    s = _cause_session("I changed it to round in AA 50 but that didn't correct it")
    text = cc_summary(s, tmp_path)
    decisions = section(text, 5)
    assert "floating-point" in decisions, decisions
    for line in decisions.splitlines():
        if "floating-point" in line:
            assert "Superseded" in line and "ROUND won't fix this" in line, decisions


def test_a_cause_the_user_did_not_dispute_stays_a_decision(tmp_path: Any) -> None:
    s = _cause_session("ok, and how do I format the column as currency?")
    decisions = section(cc_summary(s, tmp_path), 5)
    assert "floating-point" in decisions and "Superseded" not in decisions, decisions


def test_a_heading_of_the_next_answer_is_no_way_round_a_failure(tmp_path: Any) -> None:
    """cx-cap: a failed ``check-prerequisites.sh`` was "Done without it, not to be fixed: "##
    Question 1: Fallback averaging hierarchy"" — the heading of the next message's question."""
    calls = []
    for n, command in enumerate((".specify/check-prerequisites.sh --json", "ls specs")):
        call = {"type": "function_call", "name": "shell", "call_id": f"call_{n}"}
        call["arguments"] = json.dumps({"command": ["bash", "-lc", command]})
        calls.append(call)
    out = "Exit code: 1\nOutput:\nERROR: Not on a feature branch\n"
    records = [
        codex_user("Clarify the UC-04 spec in specs/004-uc04."),
        rec("response_item", calls[0]),
        rec("response_item", {"type": "function_call_output", "call_id": "call_0", "output": out}),
        codex_say(
            "## Question 1: Fallback averaging hierarchy\n\nWhich source should the average use "
            "first?\n\nA) the parcel\nB) the block"
        ),
        rec("response_item", calls[1]),
        rec(
            "response_item", {"type": "function_call_output", "call_id": "call_1", "output": "004"}
        ),
        codex_say("Recorded."),
    ]
    text = codex_summary(records, tmp_path, *_ROLLOUT)
    assert "Done without it" not in section(text, 4), section(text, 4)
