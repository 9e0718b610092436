"""``compact eval`` after blind check 21 (issue 28, rows 936-938): it gave 93.6-100 to every
output, one stating a rejection's feedback as the current request included. It now compares the
current request the compacted text states with the original's (a tool result's text is no
request), looks for the user's words carried in tool results (rejection feedback, answers to the
agent's questions) and for the failure lines of the last rounds' results (a pipe may hide them).
A faithful compaction still scores high."""

from __future__ import annotations

from compactor.models.local import summarize_transcript
from compactor.prompts import PREAMBLE
from compactor.runs.evaluate import Evaluation, evaluate
from compactor.schema import AgenticMessage, Block

from .planted_session import SessionBuilder

_SAID = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was "
    "a file edit, the new_string was NOT written to the file). To tell you how to proceed, the "
    "user said:\n"
)
_REQUEST = "Write the billing reference docs for the skill and run the docs tests"
_WORDS = "subscriptions have no uncollectible status, keep the docs exact"
_ANSWER = "focus on the tax rates and the proration"
_FAILURE = "No tests found, exiting with code 1"


def _original() -> list[AgenticMessage]:
    s = SessionBuilder()
    s.user(_REQUEST)
    question = "Which areas should the docs cover first?"
    args: dict[str, object] = {"questions": [{"question": question, "options": []}]}
    s.call(
        "AskUserQuestion",
        args,
        f'User has answered your questions: "{question}"="{_ANSWER}". You can now continue with '
        "the user's answers in mind.",
    )
    draft: dict[str, object] = {"file_path": "docs/subscription.md", "content": "uncollectible\n"}
    s.call("Write", draft, _SAID + _WORDS, error=True)
    fixed: dict[str, object] = {"file_path": "docs/subscription.md", "content": "# Statuses\n"}
    s.call("Write", fixed, "File created successfully at: docs/subscription.md")
    test = 'pnpm run test -- --testPathPattern="docs/billing" 2>&1 | tail -40'
    output = f"> docs@1.0.0 test /repo\n> jest --testPathPattern=docs/billing\n\n{_FAILURE}\n"
    s.call("Bash", {"command": test}, output)
    return s.messages


def _compacted(summary: str) -> list[AgenticMessage]:
    return [AgenticMessage("user", [Block("user_input_text", PREAMBLE + "\n" + summary)])]


def _cat(result: Evaluation, name: str) -> float:
    return next(c.score for c in result.categories if c.name == name and c.items)


def test_a_faithful_compaction_scores_high_on_the_new_checks() -> None:
    original = _original()
    result = evaluate(original, _compacted(summarize_transcript(original)))
    assert result.score >= 90, result.as_dict()
    for name in ("stated request", "user words in results", "failures shown"):
        assert _cat(result, name) == 1.0, (name, result.as_dict())
    assert not [c for c in result.contradictions if c.kind == "current request"]


def test_a_tool_results_text_stated_as_the_current_request_scores_lower() -> None:
    """cc-skill W4: the summary said Current request: "<the rejection's feedback>"."""
    original = _original()
    faithful = summarize_transcript(original)
    wrong = faithful.replace(f'"{_REQUEST}" (the current request)', f'"{_REQUEST}"', 1).replace(
        "</summary>", f'Current request: "{_WORDS}"\n</summary>', 1
    )
    assert wrong != faithful
    good, bad = evaluate(original, _compacted(faithful)), evaluate(original, _compacted(wrong))
    assert _cat(bad, "stated request") == 0.0, bad.as_dict()
    assert bad.score < good.score - 5, (bad.score, good.score)
    said = [c for c in bad.contradictions if c.kind == "current request"]
    assert said and "tool result" in said[0].original, bad.contradictions


def test_a_compaction_that_drops_the_users_words_in_tool_results_scores_lower() -> None:
    """cc-skill R1: the rejections' feedback and the question's answers were cleared."""
    original = _original()
    faithful = summarize_transcript(original)
    dropped = faithful.replace(_WORDS, "(cleared)").replace(_ANSWER, "(cleared)")
    good, bad = evaluate(original, _compacted(faithful)), evaluate(original, _compacted(dropped))
    assert _cat(bad, "user words in results") < 0.5, bad.as_dict()
    assert bad.score < good.score - 5, (bad.score, good.score)


def test_a_compaction_without_the_last_rounds_failure_line_scores_lower() -> None:
    """cc-pk28: `… | tail -100` printed "No tests found, exiting with code 1" (exit 0)."""
    original = _original()
    faithful = summarize_transcript(original)
    assert _FAILURE in faithful
    dropped = faithful.replace(_FAILURE, "tests ran")
    good, bad = evaluate(original, _compacted(faithful)), evaluate(original, _compacted(dropped))
    assert _cat(bad, "failures shown") == 0.0, bad.as_dict()
    assert bad.score < good.score - 3, (bad.score, good.score)


def test_a_check_said_still_to_fix_that_the_original_shows_fixed_is_a_wrong_statement() -> None:
    from compactor.runs.claims import contradictions

    s = SessionBuilder()
    s.user("Make the integration tests pass")
    s.call("Bash", {"command": "pytest -q tests"}, "FAILED tests/a.py::t\n1 failed", error=True)
    edit: dict[str, object] = {"file_path": "src/a.py", "old_string": "1", "new_string": "2"}
    s.call("Edit", edit, "The file src/a.py has been updated successfully.")
    s.call("Bash", {"command": "pytest -q tests"}, "1 passed in 0.1s")
    said = (
        "7. Pending Tasks:\n   - Still to fix, as this check reported before any change (run it "
        "again when done): `Bash: pytest -q tests`\n"
    )
    found = [c for c in contradictions(s.messages, said) if c.kind == "unresolved failure"]
    assert found and "fixed" in found[0].original, found
