"""Blind check 36 W2 (cc-familiar): section 9's "The assistant was doing: «…»" quoted the last
assistant text although later rounds of calls (more greps, three Edits that succeeded) had done
that step; only a thinking block, which a summary never reads, said the next one."""

from __future__ import annotations

from compactor.models.local import summarize_transcript
from compactor.schema import AgenticMessage, Block

from .planted_session import SessionBuilder
from .test_models_local_session import section

_SAID = "Let me check what headers exist in the Skills and Triggers views:"


def _checked_then_edited() -> SessionBuilder:
    s = SessionBuilder()
    s.user("make the header tests of the views pass")
    s.call(
        "Grep", {"pattern": "<h2", "path": "src/views"}, "src/views/Skills.tsx:12: <h2>", text=_SAID
    )
    s.call("Grep", {"pattern": "<h2", "path": "src/views/Triggers.tsx"}, "Triggers.tsx:8: <h2>")
    for name in ("skills", "triggers"):
        path = f"e2e/{name}.spec.ts"
        s.call("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, f"{path} updated")
    thought = Block("reasoning", "Now let me simplify the remaining usage tests too:")
    s.messages.append(AgenticMessage("assistant", [thought]))
    return s


def test_a_step_later_rounds_did_is_not_what_the_assistant_was_doing() -> None:
    step = section(summarize_transcript(_checked_then_edited().messages), 9)
    assert "was doing" not in step, step
    assert "Let me check what headers" not in step, step
    assert "Edit(e2e/triggers.spec.ts)" in step, step  # the last action says where it stands
    assert "simplify the remaining" not in step, step  # thinking is never quoted


def test_the_step_of_the_last_round_is_still_what_it_was_doing() -> None:
    """The text and its own round (one call in flight, or one that came back) are the step."""
    s = SessionBuilder()
    s.user("make the header tests of the views pass")
    s.call("Edit", {"file_path": "e2e/a.spec.ts", "old_string": "a", "new_string": "b"}, "ok")
    s.call("Grep", {"pattern": "<h2", "path": "src/views"}, "Skills.tsx:12: <h2>", text=_SAID)
    step = section(summarize_transcript(s.messages), 9)
    assert f'The assistant was doing: "{_SAID}"' in step, step


def test_a_text_written_apart_from_its_calls_is_the_same_step() -> None:
    """Codex writes the text and each call as messages of their own: the calls up to the first
    result are the round the text announced; a completed call after that result went past it."""
    s = SessionBuilder()
    s.user("make the header tests of the views pass")
    s.say(_SAID)
    s.call("shell", {"command": ["bash", "-lc", "rg -n '<h2' src/views"]}, "Skills.tsx:12: <h2>")
    step = section(summarize_transcript(s.messages), 9)
    assert f'The assistant was doing: "{_SAID}"' in step, step
    s.call("apply_patch", {"input": "*** Update File: e2e/a.spec.ts\n-a\n+b"}, "Done!")
    step = section(summarize_transcript(s.messages), 9)
    assert "was doing" not in step, step
