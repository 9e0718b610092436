"""``compactor/runs/evaluate.py`` and ``compact eval`` (issue 28, point 8): what of an original
survives in its compacted transcript. The score must be able to fail: a compaction that kept
nothing scores low, one that kept everything scores high, and a real local run sits between."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from compactor.facts import background_jobs, entry_of
from compactor.prompts import PREAMBLE
from compactor.runs.evaluate import evaluate_files
from compactor.schema import Message, ToolCall

from .conftest import needs_shared, shared_file


def _call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": cid, "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}  # fmt: skip


SESSION: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a coding agent."},
    {"role": "user",
     "content": "Add a retry to fetch_rows() in src/db/loader.py and run the tests."},
    {"role": "assistant", "content": "I'll look at the loader first.",
     "tool_calls": [_call("c1", "shell", {"command": "cat src/db/loader.py"})]},
    {"role": "tool", "tool_call_id": "c1", "content": "def fetch_rows(conn):\n    return conn.q()"},
    {"role": "assistant", "content": "Starting the full suite in the background.",
     "tool_calls": [_call("c2", "Monitor", {"command": "pytest -q tests/", "background": True})]},
    {"role": "tool", "tool_call_id": "c2",
     "content": "Command running in background with ID: bg7f3a2. Output goes to /tmp/bg7f3a2.log"},
    {"role": "user", "content": "Also bump the package to version 2.4.1 in pyproject.toml."},
    {"role": "assistant", "content": "Bumping the version and checking the build.",
     "tool_calls": [_call("c3", "shell", {"command": "python -m build --wheel"})]},
    {"role": "tool", "tool_call_id": "c3",
     "content": "ERROR Backend subprocess exited with exit code 2\n"
                "ModuleNotFoundError: No module named 'hatchling'"},
    {"role": "assistant", "content": "Installing hatchling.",
     "tool_calls": [_call("c4", "shell", {"command": "pip install hatchling==1.25.0"})]},
]  # fmt: skip


def _write(path: Path, messages: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), "utf-8")
    return path


def _flat(messages: list[dict[str, Any]]) -> str:
    """Every text and call of ``messages`` as plain lines (what a perfect summary would keep)."""
    lines = []
    for m in messages:
        lines.append(str(m.get("content") or ""))
        for c in m.get("tool_calls", []):
            lines.append(c["function"]["name"] + " " + c["function"]["arguments"])
    return "\n".join(lines)


def _compacted(path: Path, summary: str) -> Path:
    return _write(path, [{"role": "user", "content": PREAMBLE + "\n" + summary}])


def _eval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compactor", "eval", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_a_compaction_that_kept_nothing_scores_low(tmp_path: Path) -> None:
    original = _write(tmp_path / "s.jsonl", SESSION)
    empty = _compacted(tmp_path / "s.compact.jsonl", "The user asked for some changes.")
    run = _eval("--json", str(original), str(empty))
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["score"] < 20, report
    assert report["summary_found"] is True
    by_name = {c["name"]: c for c in report["categories"]}
    assert by_name["current request"]["kept"] == 0
    assert by_name["running jobs"]["total"] == 1  # bg7f3a2, judged by shape (a Monitor tool)
    assert by_name["running jobs"]["kept"] == 0
    assert by_name["in flight"]["total"] == 1
    assert by_name["user requests"]["total"] == 2


def test_a_compaction_that_kept_everything_scores_high(tmp_path: Path) -> None:
    original = _write(tmp_path / "s.jsonl", SESSION)
    full = _compacted(tmp_path / "s.compact.jsonl", _flat(SESSION))
    result = evaluate_files(str(original), str(full))
    assert result.score >= 99, [(c.name, c.items) for c in result.categories]
    facts = {i.text for c in result.categories if c.name == "last-round facts" for i in c.items}
    assert {"hatchling==1.25.0", "exit code 2"} <= facts, facts


def test_a_cut_request_scores_by_the_share_of_its_words(tmp_path: Path) -> None:
    original = _write(tmp_path / "s.jsonl", SESSION)
    cut = _compacted(tmp_path / "c.jsonl", "Also bump the package to version")
    result = evaluate_files(str(original), str(cut))
    current = next(c for c in result.categories if c.name == "current request")
    assert 0.3 < current.score < 0.8, current.items
    assert not current.items[0].kept


def test_min_score_fails_the_command_and_the_table_names_what_was_lost(tmp_path: Path) -> None:
    original = _write(tmp_path / "s.jsonl", SESSION)
    empty = _compacted(tmp_path / "c.jsonl", "Nothing.")
    run = _eval("--min-score", "50", str(original), str(empty))
    assert run.returncode == 1, run.stderr
    assert "bg7f3a2" in run.stdout and "current request" in run.stdout
    assert "score" in run.stdout


def test_an_unreadable_file_is_a_one_line_error(tmp_path: Path) -> None:
    original = _write(tmp_path / "s.jsonl", SESSION)
    run = _eval(str(original), str(tmp_path / "missing.jsonl"))
    assert run.returncode == 2
    assert run.stderr.startswith("compact: ") and "missing.jsonl" in run.stderr
    assert run.stderr.count("\n") == 1


def test_a_job_reported_finished_later_is_not_running() -> None:
    done = [*SESSION, {"role": "tool", "tool_call_id": "c4", "content": "Successfully installed"},
            {"role": "user",
             "content": "<task-notification> bg7f3a2 completed (exit code 0)"}]  # fmt: skip
    msgs = [Message(role=m["role"], content=m.get("content") or "",
                    tool_call_id=m.get("tool_call_id"),
                    tool_calls=[ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"])
                                for c in m.get("tool_calls", [])])
            for m in done]  # fmt: skip
    jobs = background_jobs([entry_of(i, m) for i, m in enumerate(msgs)])
    assert [j.id for j in jobs] == ["bg7f3a2"]
    assert not jobs[0].running and "completed" in jobs[0].finished
    running = background_jobs([entry_of(i, m) for i, m in enumerate(msgs[:-1])])
    assert running[0].running and running[0].label == "pytest -q tests/"


@needs_shared
def test_a_local_run_on_a_real_session_scores_between_nothing_and_everything(
    tmp_path: Path,
) -> None:
    src = shared_file("codex/soul-grant-rollout.jsonl")
    out = tmp_path / "soul.compact.jsonl"
    run = subprocess.run(
        [sys.executable, "-m", "compactor", "run", "--force", "--model", "local", str(src),
         "-o", str(out)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    kept = evaluate_files(str(src), str(out))
    nothing = _compacted(tmp_path / "nothing.jsonl", "Nothing.")
    assert evaluate_files(str(src), str(nothing)).score < 30
    assert kept.score >= 80, kept.as_dict()


@pytest.mark.parametrize("flag", ["--json", "--all"])
def test_the_output_shapes(tmp_path: Path, flag: str) -> None:
    original = _write(tmp_path / "s.jsonl", SESSION)
    full = _compacted(tmp_path / "c.jsonl", _flat(SESSION))
    run = _eval(flag, str(original), str(full))
    assert run.returncode == 0, run.stderr
    if flag == "--json":
        assert json.loads(run.stdout)["score"] >= 99
    else:
        assert "+ Also bump the package" in run.stdout
