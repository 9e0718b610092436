"""Blind check 52 W8, W10, W11 (RELIABILITY rows 2470-2489), by shape, with invented sessions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .codex_rollout import codex_say, codex_summary, codex_user, rec
from .test_models_local_session import section

# -- W11: an empty user-input block has no words of the user's own ---------------------------

TAIL = "Do not create a new template; always operate on the existing .specify/memory/rules.md file."


def _constitution(slot: str) -> str:
    """A ``/speckit.constitution``-like expansion whose ``## User Input`` block holds ``slot``;
    the template's own last line is :data:`TAIL`."""
    steps = "\n".join(
        f"{k}. Step {k}: load the rules file, collect the values for placeholder number {k} "
        "and write them back with a version bump and a sync impact report."
        for k in range(1, 40)
    )
    return (
        "---\ndescription: Create or update the project rules from principle inputs.\n---\n\n"
        f"## User Input\n\n```text\n{slot}```\n\nYou **MUST** consider the user input before "
        f"proceeding (if not empty).\n\n## Outline\n\n{steps}\n\n## Formatting\n\n"
        f"- Use Markdown headings exactly as in the template.\n\n{TAIL}"
    )


def test_an_empty_user_input_block_gives_no_words_of_the_users_own(tmp_path: Path) -> None:
    for slot in ("\n", ""):  # "```text\n\n```" and "```text\n```"
        records = [
            rec("turn_context", {"cwd": "/work/shop"}),
            codex_user(_constitution(slot)),
            codex_say("The rules file is at version 1.0.0 with five principles."),
            rec("event_msg", {"type": "task_complete"}),
        ]
        text = codex_summary(records, tmp_path, "s-const", "/work/shop")
        first = section(text, 1)
        assert "Do not create a new template" not in text, text  # no request, no constraint
        assert "no words of the user's own" in first, first


def test_a_placeholder_slot_or_a_filled_one_is_unchanged() -> None:
    from compactor.facts.templates import SLOT_RE, tail_words

    assert tail_words(_constitution("\n")) == ""
    assert tail_words(_constitution("")) == ""
    assert tail_words(_constitution("$ARGUMENTS\n")) == TAIL  # row 2331: words after the template
    filled = SLOT_RE.search(_constitution("add a privacy principle\n"))
    assert filled is not None and filled.group(2) == "add a privacy principle"
    empty = SLOT_RE.search(_constitution(""))
    assert empty is not None and empty.group(2) == ""


# -- helpers for Codex shell calls -------------------------------------------------------------


def _exec(n: int, cmd: str, output: str = "", code: int = 0) -> list[dict[str, Any]]:
    call = {"type": "function_call", "name": "exec_command", "call_id": f"c{n}"}
    call["arguments"] = json.dumps({"cmd": cmd, "workdir": "/work/dazi"})
    out = f"Chunk ID: x{n}\nWall time: 0.01 seconds\nProcess exited with code {code}\nOutput:\n"
    return [
        rec("response_item", call),
        rec("response_item", {"type": "function_call_output", "call_id": f"c{n}", "output": out}),
    ]
