"""compactor.runner: the library runs a file exactly as ``compact run`` does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import compactor as c
from compactor.cli.app import app
from compactor.runner import RunOptions, arun_file, plan, run_file

REPO = Path(__file__).resolve().parents[1]
CODING = REPO / "sample_transcripts" / "coding-session.jsonl"
NOTE = "/transcripts/session.jsonl"


def _comparable(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in ("duration_s", "written", "output")}


@pytest.mark.parametrize("force", [True, False])
def test_the_library_compacts_a_file_exactly_as_the_cli(tmp_path: Path, force: bool) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    flags = ["--force"] if force else []
    cli_out, cli_rep = tmp_path / "cli.jsonl", tmp_path / "cli.json"
    args = ["run", str(src), "--model", "local", "--transcript-path", NOTE, *flags]
    result = CliRunner().invoke(app, [*args, "-o", str(cli_out), "--report", str(cli_rep)])
    assert result.exit_code == 0, result.output

    lib_out, lib_rep = tmp_path / "lib.jsonl", tmp_path / "lib.json"
    options = RunOptions(
        input=str(src),
        output=str(lib_out),
        report=str(lib_rep),
        model="local",
        transcript_path=NOTE,
        force=force,
    )
    outcome = run_file(options)
    assert outcome.exit_code == 0 and outcome.error is None
    assert lib_out.read_bytes() == cli_out.read_bytes()
    assert outcome.triggered is force
    cli_report, lib_report = json.loads(cli_rep.read_text()), json.loads(lib_rep.read_text())
    assert _comparable(lib_report) == _comparable(cli_report)
    assert outcome.report()["messages_after"] == lib_report["messages_after"]
    assert outcome.written == {"output": str(lib_out)}


def test_public_names() -> None:
    assert c.RunOptions is RunOptions and c.run_file is run_file and c.arun_file is arun_file


@pytest.mark.anyio
async def test_arun_file_in_a_running_loop_with_a_sink(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    seen: list[str] = []
    result = await arun_file(
        RunOptions(input=str(src), force=True, model="local"),
        sink=lambda event: seen.append(event.type),
    )
    assert result.exit_code == 0
    assert seen[:2] == ["transcript_read", "trigger_checked"]
    assert seen[-1] == "run_finished"
    assert (tmp_path / "s.compact.jsonl").exists()


def test_a_refused_plan_is_a_result_with_exit_2_and_nothing_written(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    result = run_file(RunOptions(input=str(src), output=str(tmp_path / "nodir" / "o.jsonl")))
    assert result.exit_code == 2
    assert result.error is not None and "does not exist" in result.error
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]


def test_plan_attempts_follow_the_config(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("retry: {max_retries: 2}\nfailover: {max_retries: 5, models: []}\n")
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    assert plan(RunOptions(input=str(src), config=str(cfg))).attempts == (3, 5)
    assert plan(RunOptions(input=str(src))).attempts == (1, 0)
