"""Blind check 57 W5 (RELIABILITY row 2750), by shape, with an invented Codex rollout.

One turn (one ``task_started``, one ``task_complete``) works on the user's request; while it runs
the user types an addition and then a thank-you, which Codex delivers into the running turn as
user ``response_item`` messages with no new ``task_started`` or ``turn_context`` before them.
They are notes to the running turn: the current request stays the turn's request, the
thank-you is never "the current request", and the files changed for it count from the turn's
start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .codex_rollout import codex_say, codex_summary, codex_user, rec
from .test_models_local_session import section

ASK = "can you repair the greenhouse sensor bridge and upgrade it please?"
NOTE = "and make sure the humidity alarm still works please, and the lamp timer"
THANKS = "YOU ARE A LIFESAVER THANK YOU SO MUCH"
DONE = "Repaired and upgraded the bridge; the humidity alarm and the lamp timer work."


def _patch(n: int, path: str) -> list[dict[str, Any]]:
    body = f"*** Begin Patch\n*** Update File: {path}\n@@\n-old = {n}\n+new = {n}\n*** End Patch\n"
    call = {"type": "custom_tool_call", "name": "apply_patch", "call_id": f"p{n}", "input": body}
    out = {"type": "custom_tool_call_output", "call_id": f"p{n}", "output": "Success. Updated"}
    return [rec("response_item", call), rec("response_item", out)]


def _rollout(*, turn_between: bool = False) -> list[dict[str, Any]]:
    later = [rec("event_msg", {"type": "task_started"}), rec("turn_context", {"cwd": "/srv/gh"})]
    return [
        rec("event_msg", {"type": "task_started"}),
        rec("turn_context", {"cwd": "/srv/gh"}),
        codex_user(ASK),
        rec("event_msg", {"type": "user_message", "message": ASK}),
        codex_say("I'll start with the bridge's sensor reader."),
        *_patch(1, "/srv/gh/bridge/reader.py"),
        *_patch(2, "/srv/gh/bridge/upgrade.py"),
        *(later if turn_between else []),
        codex_user(NOTE),
        rec("event_msg", {"type": "user_message", "message": NOTE}),
        codex_say("Noted: checking the humidity alarm too."),
        *_patch(3, "/srv/gh/bridge/alarm.py"),
        *(later if turn_between else []),
        codex_user(THANKS),
        rec("event_msg", {"type": "user_message", "message": THANKS}),
        codex_say("Happy to help; finishing the lamp timer now."),
        *_patch(4, "/srv/gh/bridge/lamp.py"),
        codex_say(DONE),
        rec("event_msg", {"type": "task_complete", "last_agent_message": DONE}),
    ]


def test_messages_typed_during_a_codex_turn_are_notes_to_its_request(tmp_path: Path) -> None:
    text = codex_summary(_rollout(), tmp_path, "s-mid", "/srv/gh")
    first, current = section(text, 1), section(text, 8)
    assert f'Initial request: "{ASK}" (the current request)' in first, first
    assert f'the user added "{NOTE}" (typed during the turn' in first, first
    assert "Current request" not in first, first
    assert THANKS not in current, current
    changed = next(ln for ln in current.splitlines() if "Files changed for it" in ln)
    for name in ("reader.py", "upgrade.py", "alarm.py", "lamp.py"):
        assert name in changed, changed


def test_a_message_after_a_new_turn_record_is_a_request(tmp_path: Path) -> None:
    text = codex_summary(_rollout(turn_between=True), tmp_path, "s-turns", "/srv/gh")
    assert f'Current request: "{THANKS}"' in section(text, 1), section(text, 1)
