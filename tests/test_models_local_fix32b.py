"""Blind checks 30-32 (fix32b): a described item the user chose to fix is never "set aside"
(BENCH31 W2); a usage limit that stopped the work is kept (BENCH30 N4); "(the last action)"
only when no later call is in flight (BENCH32 N5); an assistant's list items are no decisions
(BENCH32 N4)."""

from __future__ import annotations

import json
from typing import Any

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .cc_session import Session as CcSession
from .codex_rollout import rec
from .planted_session import SessionBuilder
from .test_models_local_session import section


def _tool(call: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call, "name": name, "input": args}


def _say(s: CcSession, text: str) -> None:
    s.assistant([{"type": "text", "text": text}])


def _result(s: CcSession, call: str, text: str, error: bool = False) -> None:
    s.user([{"type": "tool_result", "tool_use_id": call, "content": text, "is_error": error}])


def _cc_summary(s: CcSession, tmp_path: Any) -> str:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


# -- 1430-1431: an item the user chose to fix is not set aside; the later edit fixed it (W2) ----


def _review(s: CcSession) -> None:
    s.user("Review the importer change for bugs.")
    s.assistant([_tool("toolu_1", "Bash", {"command": "go vet ./importer/..."})])
    _result(s, "toolu_1", "importer/sheet.go:88: unreachable code\nexit status 1", True)
    _say(
        s,
        "**1 — A zero price reaches the resolver — real**\n\nThe sheet parser skipped the price "
        "check for imported rows, so a zero price is stored.\n\n**2 — The row counter is "
        "unnecessary.**\n\nBoth are real — shall I fix both?",
    )


def test_a_described_bug_the_user_chose_to_fix_is_not_set_aside(tmp_path: Any) -> None:
    """cc-jtkmid shape: a sentence describing bug 1 of a review ("… skipped the price check …")
    was "Set aside on purpose"; the user answered "both" and a later edit fixed it."""
    s = CcSession()
    _review(s)
    s.user("yes, both")
    edit = {"file_path": "/w/importer/sheet.go", "old_string": "a", "new_string": "b"}
    s.assistant([_tool("toolu_2", "Edit", edit)])
    _result(s, "toolu_2", "The file /w/importer/sheet.go has been updated.")
    _say(s, "Both are fixed.")
    text = _cc_summary(s, tmp_path)
    errors = section(text, 4)
    assert "Set aside on purpose" not in text, errors
    assert 'the user chose to fix it ("yes, both")' in errors, errors
    assert "sheet.go" in errors.split("Fixed:", 1)[1], errors


def test_a_described_bug_the_user_chose_to_fix_is_not_set_aside_before_the_edit(
    tmp_path: Any,
) -> None:
    s = CcSession()
    _review(s)
    s.user("1 and 2")
    text = _cc_summary(s, tmp_path)
    assert "Set aside on purpose" not in text, section(text, 4)


def test_the_users_own_skip_still_sets_aside(tmp_path: Any) -> None:
    s = CcSession()
    _review(s)
    s.user("Skip it, the vet warning is not needed for this change.")
    text = _cc_summary(s, tmp_path)
    assert "Set aside on purpose" in text, section(text, 4)


# -- 1432-1433: a usage limit that stopped the work is kept (BENCH30 N4) ------------------------


def test_a_usage_limit_the_user_got_past_is_why_the_work_stopped() -> None:
    """cc-gemini shape: "You've hit your limit · resets 1am", then "Keep working": the notice
    was dropped, and nothing said the request it cut short may be unfinished."""
    s = SessionBuilder()
    s.user("Move every page to the new layout, then smoke-test each route in the browser.")
    s.call("Bash", {"command": "npm run build"}, "built in 3.2s")
    s.say("You've hit your limit · resets 1am (Europe/Berlin)")
    s.user("Keep working")
    edit: dict[str, object] = {
        "file_path": "/w/src/about.tsx",
        "old_string": "a",
        "new_string": "b",
    }
    s.call("Edit", edit, "The file /w/src/about.tsx has been updated.")
    s.say("Every page uses the new layout and the build passes.")
    text = summarize_transcript(s.messages)
    current = section(text, 8)
    assert 'usage limit ("You\'ve hit your limit · resets 1am (Europe/Berlin)")' in current
    assert '("Keep working") took it up again' in current, current
    assert 'cut short: "Move every page to the new layout' in current, current


def _codex_line(kind: str, payload: dict[str, Any]) -> bytes:
    return json.dumps(rec(kind, payload)).encode() + b"\n"


def test_a_codex_usage_limit_error_event_is_kept(tmp_path: Any) -> None:
    """A Codex ``error`` event (``usage_limit_exceeded``) that ended the turn was dropped: the
    summary said nothing of why the work stopped nor when it may go on."""
    head = {"id": "1a2b3c4d-0000-4000-8000-000000000032", "cwd": "/w/app"}
    said = {"type": "input_text", "text": "Port the settings page, then run the e2e suite."}
    call = {"type": "function_call", "name": "shell", "call_id": "call_1"}
    call["arguments"] = json.dumps({"command": ["bash", "-lc", "npm run build"]})
    out = {"type": "function_call_output", "call_id": "call_1", "output": "Exit code: 0\nbuilt"}
    limit = "You've hit your usage limit. Upgrade to Pro or try again in 2 days 3 hours."
    error = {"type": "error", "message": limit, "codex_error_info": "usage_limit_exceeded"}
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(
        _codex_line("session_meta", head)
        + _codex_line("response_item", {"type": "message", "role": "user", "content": [said]})
        + _codex_line("response_item", call)
        + _codex_line("response_item", out)
        + _codex_line("event_msg", error)
    )
    text = summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)
    assert limit in section(text, 8), section(text, 8)
    step = section(text, 9)
    assert "usage limit (try again in 2 days 3 hours)" in step, step


# -- 1434-1435: "(the last action)" only when no later call is in flight (BENCH32 N5) -----------


def test_a_call_before_calls_in_flight_is_not_the_last_action(tmp_path: Any) -> None:
    """cc-atlas shape: ``cli.py --help`` returned, then two calls were in flight (section 8
    names them right above); the help call was labelled "(the last action)"."""
    s = CcSession()
    s.user("Add a --topic flag to cli.py and check the help text.")
    s.assistant([_tool("toolu_1", "Bash", {"command": "python cli.py --help"})])
    _result(s, "toolu_1", "usage: cli.py [-h] [--topic TOPIC]\nTOPIC_MAP=/w/atlas/topics.yaml")
    dry = _tool("toolu_2", "Bash", {"command": "python cli.py --topic tech --dry-run"})
    s.assistant([dry, _tool("toolu_3", "Bash", {"command": "pytest tests/test_cli.py -q"})])
    text = _cc_summary(s, tmp_path)
    current, step = section(text, 8), section(text, 9)
    assert "(the last action)" not in current, current
    assert "(the last call that returned; 2 later calls are in flight)" in current, current
    assert "Work stopped after the last action" not in step, step
    assert "Work stopped after the last call that returned: `Bash: python cli.py" in step, step


def test_the_last_call_is_the_last_action_when_nothing_is_in_flight(tmp_path: Any) -> None:
    s = CcSession()
    s.user("Add a --topic flag to cli.py and check the help text.")
    s.assistant([_tool("toolu_1", "Bash", {"command": "python cli.py --help"})])
    _result(s, "toolu_1", "usage: cli.py [-h] [--topic TOPIC]\nTOPIC_MAP=/w/atlas/topics.yaml")
    text = _cc_summary(s, tmp_path)
    assert "(the last action)" in section(text, 8), section(text, 8)


# -- 1436: list items of an assistant's overview that compare options are no decisions (N4) ----

_OVERVIEW = (
    "Here is how the slicers handle the fan settings:\n\n"
    "- **Cura**: Info recommending named pins (string) instead of numeric for exhaust.\n"
    "- Kiri:Moto (web-based; export templates rather than native configs).\n"
    "- PrusaSlicer: native INI profiles.\n\n"
    "I used named pins instead of numeric ones in the converter, because Cura reads them."
)


def test_list_items_comparing_options_are_no_decisions(tmp_path: Any) -> None:
    """cx-opk shape: §5 "Decisions" listed fragments of the assistant's overview of slicers
    ("… instead of numeric for exhaust.", "Kiri:Moto (…; export templates rather than native
    configs).") that no one decided; the assistant's own "I used … instead of …" stays."""
    s = CcSession()
    s.user("Which slicers can take our fan settings? Convert the profile for Cura.")
    _say(s, _OVERVIEW)
    s.user("Now add the Kiri:Moto template too.")
    edit = {"file_path": "/w/opk/kiri.json", "content": "{}"}
    s.assistant([_tool("toolu_1", "Write", edit)])
    _result(s, "toolu_1", "File created successfully at: /w/opk/kiri.json")
    _say(s, "The Kiri:Moto template is written.")
    solving = section(_cc_summary(s, tmp_path), 5)
    assert "instead of numeric for exhaust" not in solving, solving
    assert "export templates rather than native configs" not in solving, solving
    assert "I used named pins instead of numeric ones in the converter" in solving, solving
