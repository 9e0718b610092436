"""Reduction never clears or truncates the result that started a background job still running
at the end (issue 30; blind check 23, cc-formula: "Workflow launched in background. Task ID: …"
went to an offload file and the job's id was nowhere in the reduce and hybrid outputs, so a
resuming agent saw no sign of a running job and could start it again). A job a later message
reports ended is cleared as any old result; so are the other old results.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from compactor.runs.run_reduce import INLINE_ENV, STREAM_OFF_ENV

from .cc_session import Session, tool_results, tool_round
from .fake_server_cli import invoke
from .test_reduction_user_words import LONG

LAUNCHED = (
    "Workflow launched in background. Task ID: wq7job3x2\n"
    "Summary: verify the inserted formulas against the sources\n"
    "Run ID: wf_0c1d2e3f-a1\n"
    "You will be notified when it completes; use TaskOutput to read its progress.\n" * 3
)
"""A job's start notice (the shape, not cc-formula's words), longer than a placeholder."""
SHELL = (
    "Command running in background with ID: bash_k2m9\n"
    "Output is being written to: /tmp/build-watch.log\n"
    "Use the output tool with this id to read what it prints; it keeps running until stopped.\n" * 3
)


def _session(*, ended: bool) -> Session:
    s = Session()
    s.user("Add the missing formulas to the document and verify them.")
    s.bash("make docs", LONG)
    tool_round(s, "toolu_wf", "Workflow", {"script": "export const meta = {}"}, LAUNCHED)
    s.bash("make check", LONG)
    if ended:
        done = "<task-id>wq7job3x2</task-id> <status>completed</status> all 12 formulas verified"
        tool_round(s, "toolu_out", "TaskOutput", {"task_id": "wq7job3x2"}, done + "\n" + LONG)
    s.bash("make package", LONG)
    s.bash("ls out", "a.docx")
    return s


@pytest.mark.parametrize("strategy", ["reduce", "hybrid"])
def test_the_start_of_a_job_still_running_is_never_cleared(tmp_path: Path, strategy: str) -> None:
    src = tmp_path / "s.jsonl"
    src.write_bytes(b"\n".join(_session(ended=False).lines()) + b"\n")
    out = tmp_path / "out.jsonl"
    args = ["run", "--strategy", strategy, "--force", "--model", "local", str(src), "-o", str(out)]
    proc = invoke(args)
    assert proc.returncode == 0, proc.stderr
    results = tool_results(out)
    assert results["toolu_wf"] == LAUNCHED  # the running job's start, as it was
    assert out.read_text("utf-8").count("wq7job3x2") >= 1
    cleared = [k for k, v in results.items() if ".offload" in json.dumps(v)]
    assert cleared, results  # the other old results were cleared: the rule is not "clear nothing"
    assert not (tmp_path / "out.offload" / "clear" / "toolu_wf").exists()


def test_a_job_a_later_result_reports_ended_is_cleared_as_any_result(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    src.write_bytes(b"\n".join(_session(ended=True).lines()) + b"\n")
    out = tmp_path / "out.jsonl"
    proc = invoke(["run", "--strategy", "reduce", "--force", str(src), "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert ".offload" in json.dumps(tool_results(out)["toolu_wf"])


def chat_with_results(src: Path, request: str, texts: list[str]) -> Path:
    """An OpenAI-chat log (the streaming pass's format) at ``src``: ``request``, then one
    ``run`` call per text of ``texts``, each answered by that text."""
    msgs: list[dict[str, Any]] = [{"role": "user", "content": request}]
    for n, text in enumerate(texts):
        args = json.dumps({"cmd": f"step {n}"})
        call = {"id": f"c{n}", "type": "function", "function": {"name": "run", "arguments": args}}
        msgs.append({"role": "assistant", "content": None, "tool_calls": [call]})
        msgs.append({"role": "tool", "tool_call_id": f"c{n}", "content": text})
    src.write_bytes(b"\n".join(orjson.dumps(m) for m in msgs) + b"\n")
    return src


def _chat(tmp: Path, later: str | None) -> Path:
    """A shell job started in an old round; ``later``: a later poll's result naming it (None:
    nothing later names it)."""
    texts = [LONG, SHELL, LONG] + ([later] if later is not None else []) + [LONG, LONG]
    return chat_with_results(tmp / "chat.jsonl", "Watch the build and package.", texts)


@pytest.mark.parametrize(
    ("later", "streamed", "kept"),
    [
        (None, True, True),  # no later line names it: the streaming pass keeps it
        ("bash_k2m9: still running, 3 new lines\n" + LONG, False, True),
        ("Process bash_k2m9 exited with code 0\n" + LONG, False, False),
    ],
    ids=["never-named-again", "polled-running", "polled-exited"],
)
@pytest.mark.parametrize("general", [False, True], ids=["stream", "general"])
def test_both_reduce_paths_keep_a_running_jobs_start(
    tmp_path: Path, later: str | None, streamed: bool, kept: bool, general: bool
) -> None:
    src = _chat(tmp_path, later)
    out, report = tmp_path / "out.jsonl", tmp_path / "r.json"
    env = {STREAM_OFF_ENV: "1" if general else None, INLINE_ENV: "1"}
    proc = invoke(["run", "--strategy", "reduce", "--force", str(src), "-o", str(out),
                   "--report", str(report)], env=env)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    was = json.loads(report.read_text("utf-8"))["reduction"].get("streamed")
    assert bool(was) is (streamed and not general)
    by_id = {m["tool_call_id"]: m["content"] for m in map(json.loads, out.read_bytes().splitlines())
             if m.get("role") == "tool"}  # fmt: skip
    assert (by_id["c1"] == SHELL) is kept
    assert ".offload" in by_id["c0"] and ".offload" in by_id["c2"]
