"""``compact eval``'s contradiction check (issue 28, ``compactor/runs/claims.py``): a summary's
claims about where work stands are compared with the state model of the original. A summary
that misstates the end of the session is flagged claim by claim; the embedded summarizer's own
summary of the same session is not."""

from __future__ import annotations

import json
from pathlib import Path

from compactor.models.local import summarize_transcript
from compactor.runs.evaluate import evaluate_files
from compactor.schema import Message, ToolCall

from .test_evaluate import SESSION, _compacted, _eval, _write

# SESSION ends mid-work: the last request is the version bump, `pip install hatchling` is in
# flight, and the Monitor job bg7f3a2 was started and never seen finishing.
WRONG = """<summary>
7. Pending Tasks:
   - None: the last request was answered; nothing is pending; wait for the user's next message.
   - Background job still running (started, never seen finishing): `pytest` (id bg9999)
8. Current Work:
   - The latest request was completed: "Add a retry to fetch_rows() in src/db/loader.py and run the tests."
9. Optional Next Step:
   Continue the latest request: "Add a retry to fetch_rows() in src/db/loader.py and run the tests."
</summary>"""  # noqa: E501


def test_a_summary_that_misstates_where_work_stands_is_flagged(tmp_path: Path) -> None:
    original = _write(tmp_path / "s.jsonl", SESSION)
    wrong = _compacted(tmp_path / "wrong.jsonl", WRONG)
    run = _eval("--json", str(original), str(wrong))
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)["contradictions"]
    kinds = sorted(c["kind"] for c in found)
    assert kinds == [
        "current request", "current request", "ended", "nothing pending", "request state",
        "running job",
    ], found  # fmt: skip
    by_kind = {c["kind"]: c for c in found}
    assert "bg9999" in by_kind["running job"]["claim"]
    assert "never seen started" in by_kind["running job"]["original"]
    pending = by_kind["nothing pending"]["original"]
    assert "1 call(s) in flight" in pending and "bg7f3a2" in pending, pending
    assert "Also bump the package" in by_kind["current request"]["original"]
    table = _eval(str(original), str(wrong))
    assert "6 wrong statement(s) of where work stands" in table.stdout, table.stdout
    assert "running job" in table.stdout and "nothing pending" in table.stdout


def test_a_job_said_running_that_the_original_shows_finished_is_flagged(tmp_path: Path) -> None:
    done = [*SESSION, {"role": "tool", "tool_call_id": "c4", "content": "Successfully installed"},
            {"role": "user",
             "content": "<task-notification> bg7f3a2 completed (exit code 0)"}]  # fmt: skip
    original = _write(tmp_path / "s.jsonl", done)
    said = _compacted(
        tmp_path / "c.jsonl",
        "Background job still running (started, never seen finishing): `pytest -q tests/` "
        "(id bg7f3a2)\nTool calls in flight when the session was saved (1; …)",
    )
    found = evaluate_files(str(original), str(said)).contradictions
    assert [(c.kind, c.original) for c in found] == [
        ("running job", "job bg7f3a2 finished"),
        ("in flight", "no call is in flight"),
    ], found


def test_the_embedded_summary_of_the_same_session_is_not_flagged(tmp_path: Path) -> None:
    original = _write(tmp_path / "s.jsonl", SESSION)
    msgs = [Message(role=m["role"], content=m.get("content") or "",
                    tool_call_id=m.get("tool_call_id"),
                    tool_calls=[ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"])
                                for c in m.get("tool_calls", [])])
            for m in SESSION]  # fmt: skip
    out = _compacted(tmp_path / "s.compact.jsonl", summarize_transcript(msgs))
    result = evaluate_files(str(original), str(out))
    assert result.summary_found
    assert result.contradictions == [], result.contradictions
    table = _eval(str(original), str(out))
    assert "no wrong statement of where work stands found" in table.stdout, table.stdout
