"""Blind check 31 (fix29b): the request of a command template is its input slot, not the
template's last section, and one template sent with other words each time is several requests
(W1)."""

from __future__ import annotations

import json
from typing import Any

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .codex_rollout import rec
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


def _codex_user(text: str) -> dict[str, Any]:
    message = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    return rec("response_item", message)


def _codex_say(text: str) -> dict[str, Any]:
    content = [{"type": "output_text", "text": text}]
    return rec("response_item", {"type": "message", "role": "assistant", "content": content})


def _codex_summary(records: list[dict[str, Any]], tmp_path: Any) -> str:
    head = rec("session_meta", {"id": "1a2b3c4d-0000-4000-8000-000000000031", "cwd": "/w/cap"})
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in [head, *records]))
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


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
        records += [_codex_user(_specify(_ask(case))), _codex_say(f"The {case} spec is written.")]
    text = _codex_summary(records, tmp_path)
    first = section(text, 1)
    assert "Success criteria must be" not in first, first
    assert "sent 3 times" not in text and "sent 2 times" not in text, first
    for case in ("UC-03", "UC-04", "UC-05"):
        assert f"ONE use case only: {case}" in first, first


def test_a_template_sent_again_with_the_same_input_is_still_one(tmp_path: Any) -> None:
    message = _specify(_ask("UC-04"))
    records = [_codex_user(message), _codex_user(message), _codex_say("The UC-04 spec is written.")]
    text = _codex_summary(records, tmp_path)
    assert "(sent 2 times)" in text, section(text, 1)
