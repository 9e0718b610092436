"""Blind check 23 W1 (issue 28; row 1084): the agent's plan, written before the tool calls that
carried it out in the same request (a script written, failing, rewritten, run), is no "final
deliverable": cc-aveva's section 8 said "Final deliverable, the last substantial assistant
answer, verbatim: … 수정 계획 …" under "The latest request is in progress (no answer yet)"."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_PLAN = (
    "I checked the whole deck. What is missing: the assistant product and the design AI are "
    "named nowhere.\n\nThe plan, four existing slides and one new one:\n"
    + "".join(
        f"{n}. Slide {n * 3}: add the use cases, the strengths and the limits of tool {n}, "
        f"with one example from the plant projects and the source it comes from\n"
        for n in range(1, 13)
    )
)
_ANSWER = "Done: the deck now names both products.\n\n" + "".join(
    f"- Slide {n * 3}: the use cases and trade-offs of tool {n} are in\n" for n in range(1, 6)
)


def _session(answer_last: bool) -> SessionBuilder:
    s = SessionBuilder()
    s.user("add the assistant and the design AI to the deck")
    s.call("Read", {"file_path": "/w/deck.md"}, "slide text " * 50)
    s.say(_PLAN)
    s.call("Write", {"file_path": "/w/edit.ps1", "content": "Set-Slide 1"}, "File created")
    s.call("PowerShell", {"command": "./edit.ps1"}, "Error: Exception calling Save: file in use")
    s.call("Write", {"file_path": "/w/edit.ps1", "content": "Set-Slide 2"}, "File updated")
    s.call("PowerShell", {"command": "./edit.ps1"}, "SAVED\nALL DONE")
    if answer_last:
        s.say(_ANSWER)
    return s


def test_a_plan_followed_by_tool_calls_is_labelled_a_plan_not_the_final_deliverable() -> None:
    current = section(summarize_transcript(_session(answer_last=False).messages), 8)
    assert "Final deliverable" not in current, current
    assert "plan or progress note, verbatim (written before the tool calls" in current, current
    assert "Slide 3: add the use cases, the strengths" in current, (
        current
    )  # still quoted: it is the plan


def test_an_answer_after_the_last_calls_is_the_answer_and_the_plan_stays_a_plan() -> None:
    """The answer written after the calls is quoted as the answer; the longer plan before the
    calls is no "Final deliverable" beside it either."""
    current = section(summarize_transcript(_session(answer_last=True).messages), 8)
    assert "The answer to it, verbatim:" in current, current
    assert "Done: the deck now names both products." in current, current
    assert "Final deliverable" not in current, current


def test_an_answer_before_the_harness_evaluation_stays_the_final_deliverable() -> None:
    """taxi-chat (blind check 20): the calls after the harness's notice "The agent has
    finished. Now running automated tests …" are the harness's, not the agent's."""
    s = SessionBuilder()
    s.user("add the assistant and the design AI to the deck")
    s.call("PowerShell", {"command": "./edit.ps1"}, "SAVED\nALL DONE")
    s.say(_PLAN.replace("The plan,", "Done,"))  # the agent's long last answer
    s.user("The agent has finished. Now running automated tests to validate the solution.")
    s.call("Bash", {"command": "make grade"}, "✓ PASS: deck names both products\n✓ PASS: slides")
    current = section(summarize_transcript(s.messages), 8)
    assert "the harness (not the user) evaluated it" in current, current
    assert "plan or progress note" not in current, current
    assert "Done, four existing slides" in current, current
