"""``compact eval``'s "ended" row (issue 28 point 8, ``compactor/runs/ended.py``): a compacted
text that claims the last request was answered about a session that the user interrupted
mid-turn scores 0 on the row, lowers the total and is listed as a wrong statement; the same claim
about a session that truly ended answered scores 1. The original is read on its own, not through
the embedded summarizer's state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.facts import entry_of
from compactor.runs.ended import ending_of
from compactor.runs.evaluate import _is_request, evaluate_files
from compactor.schema import Message, ToolCall

from .test_evaluate import _call, _compacted, _eval, _write

REQUEST = "Add a retry to fetch_rows() in src/db/loader.py and run the tests."
TODOS = {"todos": [
    {"content": "Add the retry", "status": "completed", "activeForm": "Adding"},
    {"content": "Run the tests", "status": "in_progress", "activeForm": "Running"},
]}  # fmt: skip
INTERRUPTED: list[dict[str, Any]] = [
    {"role": "user", "content": REQUEST},
    {"role": "assistant", "content": "Planning.", "tool_calls": [_call("t1", "TodoWrite", TODOS)]},
    {"role": "tool", "tool_call_id": "t1", "content": "Todos have been modified successfully"},
    {"role": "assistant", "content": "I added the retry. Let me run the tests next:"},
    {"role": "user", "content": "[Request interrupted by user]"},
]  # fmt: skip
ANSWERED: list[dict[str, Any]] = [
    {"role": "user", "content": REQUEST},
    {"role": "assistant", "content": "Reading it.",
     "tool_calls": [_call("c1", "shell", {"command": "pytest -q tests/"})]},
    {"role": "tool", "tool_call_id": "c1", "content": "12 passed in 0.4s"},
    {"role": "assistant", "content": "Done: fetch_rows() retries 3 times and the 12 tests pass."},
]  # fmt: skip
CLAIMS_ANSWERED = (
    f'The user asked: "{REQUEST}"\nThe last request was answered; nothing is pending; '
    "wait for the user's next message."
)
CLAIMS_OPEN = (
    f'The user asked: "{REQUEST}"\nThe latest request is still in progress: the user '
    "interrupted the turn before the tests ran; nothing was announced as answered yet."
)


def _row(report: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in report["categories"] if c["name"] == "ended")


def test_an_interrupted_original_and_a_summary_claiming_answered_score_the_row_0(
    tmp_path: Path,
) -> None:
    original = _write(tmp_path / "s.jsonl", INTERRUPTED)
    wrong = _compacted(tmp_path / "wrong.jsonl", CLAIMS_ANSWERED)
    right = _compacted(tmp_path / "right.jsonl", CLAIMS_OPEN)
    run = _eval("--json", str(original), str(wrong))
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    row = _row(report)
    assert (row["total"], row["kept"], row["score"]) == (1, 0, 0.0), row
    assert row["items"][0]["how"].startswith("wrong: claims answered; the original ends interr")
    ended = [c for c in report["contradictions"] if c["kind"] == "ended"]
    assert len(ended) == 1 and "nothing is pending" in ended[0]["claim"], ended
    assert ended[0]["original"].startswith("claims answered; the original ends interrupted")
    honest = json.loads(_eval("--json", str(original), str(right)).stdout)
    assert _row(honest)["score"] == 100.0, _row(honest)
    assert not [c for c in honest["contradictions"] if c["kind"] == "ended"]
    assert report["score"] < honest["score"] - 10, (report["score"], honest["score"])
    table = _eval(str(original), str(wrong))
    assert table.returncode == 0, table.stderr
    assert "wrong statement(s) of where work stands" in table.stdout, table.stdout
    assert "claims answered;" in table.stdout and "\n ended " in table.stdout, table.stdout


def test_a_truly_answered_original_and_the_same_summary_score_the_row_1(tmp_path: Path) -> None:
    original = _write(tmp_path / "s.jsonl", ANSWERED)
    said = _compacted(tmp_path / "c.jsonl", CLAIMS_ANSWERED)
    result = evaluate_files(str(original), str(said))
    row = next(c for c in result.categories if c.name == "ended")
    assert [i.score for i in row.items] == [1.0], row.items
    assert row.items[0].how == "agrees: the original ends answered"
    assert not [c for c in result.contradictions if c.kind == "ended"]
    wrong = _compacted(tmp_path / "w.jsonl", CLAIMS_OPEN)
    against = evaluate_files(str(original), str(wrong))
    row = next(c for c in against.categories if c.name == "ended")
    assert [i.score for i in row.items] == [0.0], row.items
    assert [c.original for c in against.contradictions if c.kind == "ended"] == [
        "claims not answered; the original ends answered"
    ]


def test_a_compaction_that_claims_nothing_has_no_ended_item(tmp_path: Path) -> None:
    original = _write(tmp_path / "s.jsonl", INTERRUPTED)
    silent = _compacted(tmp_path / "c.jsonl", f'The user asked: "{REQUEST}"')
    result = evaluate_files(str(original), str(silent))
    assert next(c for c in result.categories if c.name == "ended").items == []
    table = _eval(str(original), str(silent))
    assert "no claim of where work stands" in table.stdout, table.stdout


def _ending(messages: list[dict[str, Any]]) -> str:
    msgs = [Message(role=m["role"], content=m.get("content") or "",
                    tool_call_id=m.get("tool_call_id"),
                    tool_calls=[ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"])
                                for c in m.get("tool_calls", [])])
            for m in messages]  # fmt: skip
    entries = [entry_of(i, m) for i, m in enumerate(msgs)]
    ending = ending_of(entries, _is_request)
    assert ending is not None
    return ending.why


def test_the_original_is_read_by_its_own_end() -> None:
    request = {"role": "user", "content": REQUEST}
    assert _ending(INTERRUPTED) == "the original ends interrupted (the user stopped the turn)"
    assert _ending(INTERRUPTED[:-1]) == "the original ends with 1 todo item(s) open"
    assert _ending(ANSWERED) == "the original ends answered"
    assert _ending(ANSWERED[:2]) == "the original ends with 1 call(s) in flight"
    assert _ending(ANSWERED[:3]) == "the original ends after tool calls, before any reply"
    asks = [request, {"role": "assistant", "content": "Should I also retry on timeouts?"}]
    assert _ending(asks) == "the original ends asking the user for input"
    offer = "Done: the retry is in and the tests pass.\n\nWhat else would you like me to do?"
    offers = [request, {"role": "assistant", "content": offer}]
    assert _ending(offers) == "the original ends answered"
    submit: dict[str, Any] = {"role": "assistant", "content": "Submitting.",
              "tool_calls": [_call("s1", "submit", {})]}  # fmt: skip
    submitted = [request, submit, {"role": "tool", "tool_call_id": "s1", "content": "diff --git"}]
    assert _ending(submitted) == "the original ends answered (a closing submit call)"
    says = [request, {"role": "assistant", "content": "Let me look at the loader first."}]
    assert _ending(says) == "the original ends with an announced next step, not an answer"
    codex = [
        request,
        {"role": "user", "content": "<turn_aborted>\nThe user interrupted.</turn_aborted>"},
    ]
    assert _ending(codex).startswith("the original ends interrupted")
    assert _ending([request]).endswith("(no reply)")
