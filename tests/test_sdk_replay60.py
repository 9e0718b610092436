"""Blind check 60 (N7): an Agent SDK audit log (stream-json records with ``session_id``) holds
each prompt twice, the second an echo after ``system/init`` (``isReplay``, the same uuid): each
prompt counts once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.facts import entries_of
from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

SID = "0b7e8f42-1c3d-4e5f-8a9b-0c1d2e3f4a5b"
FIRST = "Draft a landing page for the bakery with an opening-hours table."
SECOND = "Add a contact form under the opening hours."


def _rec(kind: str, n: int, **more: Any) -> dict[str, Any]:
    return {"type": kind, "uuid": f"00000000-0000-4000-8000-{n:012d}", "session_id": SID, **more}


def _prompt(n: int, text: str, replay: bool) -> dict[str, Any]:
    rec = _rec("user", n, message={"role": "user", "content": [{"type": "text", "text": text}]})
    rec["parent_tool_use_id"] = None
    if replay:
        rec["isReplay"] = True
    return rec


def _answer(n: int, text: str) -> dict[str, Any]:
    body = {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude-x",
            "content": [{"type": "text", "text": text}]}  # fmt: skip
    return _rec("assistant", n, message=body, parent_tool_use_id=None)


def _audit_log(path: Path) -> bytes:
    recs: list[dict[str, Any]] = []
    for turn, (prompt, reply) in enumerate(
        [(FIRST, "The landing page is in site/index.html."), (SECOND, "The form is in place.")]
    ):
        base = 100 * turn
        recs += [
            _prompt(base + 1, prompt, replay=False),
            _rec("system", base + 2, subtype="init", cwd="/srv/site", tools=["Write"]),
            _rec("rate_limit_event", base + 3, rate_limit_info={"status": "allowed"}),
            _prompt(base + 1, prompt, replay=True),  # the echo: same uuid, same text
            _answer(base + 4, reply),
            _rec("result", base + 5, subtype="success", is_error=False, result=reply),
        ]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return path.read_bytes()


def test_each_prompt_of_an_sdk_audit_log_counts_once(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    t = read_transcript(str(path), _audit_log(path))
    users = [e.text for e in entries_of(t.messages) if e.role == "user" and e.text]
    assert users == [FIRST, SECOND], users
    text = summarize_transcript(t.messages)
    assert "2 requests from the user" in text, text
    assert "times" not in " ".join(line for line in text.splitlines() if FIRST[:20] in line)


def test_a_prompt_sent_again_in_a_later_turn_still_counts(tmp_path: Path) -> None:
    """The same words after the assistant answered: the user sent them again."""
    path = tmp_path / "audit.jsonl"
    recs = [
        _prompt(1, FIRST, replay=False),
        _answer(2, "Working on it."),
        _prompt(3, FIRST, replay=False),
        _answer(4, "Done."),
        _prompt(5, SECOND, replay=False),
        _prompt(6, "unrelated", replay=True),
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    t = read_transcript(str(path), path.read_bytes())
    users = [e.text for e in entries_of(t.messages) if e.role == "user" and e.text]
    assert users == [FIRST, FIRST, SECOND, "unrelated"], users
