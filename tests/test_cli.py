"""The ``compact`` command line: CliRunner tests plus one real subprocess per command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.cli.exitcodes import ExitCode
from compactor.schema import Message

from .fake_server_cli import compact_exe, default_sigint

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_transcripts"
SMALL = SAMPLES / "small-chat.jsonl"
CODING = SAMPLES / "coding-session.jsonl"
LONG = SAMPLES / "coding-session-long.jsonl"
USER = Message(role="user", content="hi")


def _sub(
    args: list[str],
    *,
    env_extra: dict[str, str] | None = None,
    input_bytes: bytes | None = None,
    cwd: str | None = None,
) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run(
        [compact_exe(), *args],
        input=input_bytes,
        capture_output=True,
        env=env,
        cwd=cwd,
        timeout=60,
        check=False,
    )


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    for p in (SMALL, CODING):
        shutil.copy(p, tmp_path / p.name)
    return tmp_path


@pytest.fixture
def fake_500(monkeypatch):
    from compactor.testing.fake_openai import FakeOpenAI, status

    server = FakeOpenAI(default=status(500)).start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    try:
        yield server
    finally:
        server.stop()


# -- help, version, exit codes ---------------------------------------------------------------------


def test_exit_code_values():
    assert [int(c) for c in ExitCode] == [0, 1, 2, 3, 4, 5, 6, 129, 130, 143]


def test_help_has_exit_codes_and_examples(runner):
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "Exit codes" in result.stdout
    for command in (["run", "--help"], ["check", "--help"], ["config", "show", "--help"]):
        out = runner.invoke(app, command)
        assert out.exit_code == 0, out.output
        assert "Examples" in out.stdout
        assert "130" in out.stdout


def test_version(runner):
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.startswith("compact ")


def test_unknown_option_is_usage_error(runner):
    result = runner.invoke(app, ["run", "x.jsonl", "--nope"])
    assert result.exit_code == 2
    assert result.stderr.startswith("compact: no such option: --nope")


# -- check -----------------------------------------------------------------------------------------


def test_check_not_triggered_and_triggered(runner):
    assert runner.invoke(app, ["check", str(SMALL)]).exit_code == 0
    result = runner.invoke(app, ["check", str(SMALL), str(LONG)])
    assert result.exit_code == 1
    assert "WOULD COMPACT" in result.stdout


def test_check_json_fields(runner):
    result = runner.invoke(app, ["check", "--json", str(SMALL), str(LONG)])
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["triggered"] for r in lines] == [False, True]
    assert set(lines[0]) == {
        "path",
        "format",
        "messages",
        "tokens",
        "counter",
        "threshold_tokens",
        "threshold_messages",
        "triggered",
        "reason",
        "error",
        "tool_calls",
        "tool_results",
        "file_tool_calls",
        "file_tool_results",
    }
    assert lines[0]["format"] == "openai"
    assert lines[0]["counter"] == "estimate"
    assert lines[0]["threshold_tokens"] == 160_000
    assert lines[0]["threshold_messages"] is None


def test_check_message_trigger_from_config(runner, tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("trigger: {context_messages: 3}\n")
    result = runner.invoke(app, ["check", "-c", str(cfg), str(SMALL)])
    assert result.exit_code == 1
    assert "WOULD COMPACT" in result.stdout
    assert "threshold 3 messages; 5 messages > 3 message threshold" in result.stdout


def test_check_missing_file_is_2(runner, tmp_path):
    result = runner.invoke(app, ["check", str(tmp_path / "nope.jsonl")])
    assert result.exit_code == 2
    assert "nope.jsonl" in result.stderr


def test_check_subprocess_does_not_import_openai():
    code = (
        "import sys\n"
        "from compactor.cli.app import app\n"
        "try:\n"
        f"    app(['check', {str(SMALL)!r}])\n"
        "except SystemExit as e:\n"
        "    assert e.code == 0, e.code\n"
        "assert 'openai' not in sys.modules, 'openai imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()
    proc = _sub(["check", str(SMALL), str(LONG)])
    assert proc.returncode == 1
    assert b"WOULD COMPACT" in proc.stdout


# -- run -------------------------------------------------------------------------------------------


def test_run_not_triggered_is_byte_identical(runner, workdir):
    src = workdir / "small-chat.jsonl"
    result = runner.invoke(app, ["run", str(src)])
    assert result.exit_code == 0, result.output
    out = workdir / "small-chat.compact.jsonl"
    assert out.read_bytes() == src.read_bytes()


def test_run_force_local_writes_summary_and_report(runner, workdir):
    src = workdir / "coding-session.jsonl"
    before = src.read_bytes()
    report = workdir / "report.json"
    events = workdir / "events.jsonl"
    result = runner.invoke(
        app,
        [
            "run",
            str(src),
            "--force",
            "--model",
            "local",
            "--report",
            str(report),
            "--events",
            str(events),
        ],
    )
    assert result.exit_code == 0, result.output
    assert src.read_bytes() == before
    lines = (workdir / "coding-session.compact.jsonl").read_text().splitlines()
    assert lines[0] == before.decode().splitlines()[0]  # the system prompt is kept
    summary = json.loads(lines[-1])
    assert summary["role"] == "user"
    assert str(src.resolve()) in summary["content"]
    rep = json.loads(report.read_text())
    assert rep["triggered"] is True
    assert rep["messages_before"] > rep["messages_after"] == 2
    assert rep["attempts"] == [
        {"phase": "primary", "attempt": 1, "model": "local", "ok": True, "error": None}
    ]
    assert rep["transcript_path"] == str(src.resolve())
    assert rep["exit_code"] == 0 and rep["error"] is None
    assert rep["written"] == {
        "output": str(workdir / "coding-session.compact.jsonl"),
        "events": str(events),
    }
    types = [json.loads(line)["type"] for line in events.read_text().splitlines()]
    assert types[:3] == ["transcript_read", "trigger_checked", "before_summarize"]
    assert types[-2:] == ["after_summarize", "run_finished"]


def test_run_stdin_to_stdout(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = SMALL.read_bytes()
    result = runner.invoke(app, ["run", "-"], input=data)
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes == data
    assert os.listdir(tmp_path) == []


def test_run_stdin_force_note_points_at_archive(runner, tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"model: {{provider: local}}\narchive_dir: {tmp_path / 'arch'}\n")
    args = ["run", "-", "--force", "-c", str(cfg), "--transcript-path", "archive"]
    result = runner.invoke(app, args, input=CODING.read_bytes())
    assert result.exit_code == 0, result.output
    archived = list((tmp_path / "arch").glob("[0-9a-f]*.jsonl"))  # not the index
    assert len(archived) == 1
    assert str(archived[0]) in result.stdout


def test_run_in_place_archives_first(runner, workdir):
    src = workdir / "coding-session.jsonl"
    original = src.read_bytes()
    cfg = workdir / "c.yaml"
    cfg.write_text(f"model: {{provider: local}}\narchive_dir: {workdir / 'arch'}\n")
    result = runner.invoke(app, ["run", str(src), "--in-place", "--force", "-c", str(cfg)])
    assert result.exit_code == 0, result.output
    archived = list((workdir / "arch").glob("[0-9a-f]*.jsonl"))  # not the index
    assert len(archived) == 1
    assert archived[0].read_bytes() == original
    new = src.read_text()
    assert new != original.decode()
    assert str(archived[0]) in new
    assert not (workdir / "coding-session.compact.jsonl").exists()


def test_run_in_place_with_stdin_is_usage_error(runner):
    result = runner.invoke(app, ["run", "-", "--in-place"], input=b"")
    assert result.exit_code == 2
    assert result.stderr == "compact: --in-place needs a file, not stdin\n"


def test_malformed_config_is_2_with_one_line(runner, workdir):
    cfg = workdir / "bad.yaml"
    cfg.write_text("model:\n  provider: local\ntrigger:\n  context_tokns: 5\n")
    result = runner.invoke(app, ["run", str(workdir / "coding-session.jsonl"), "-c", str(cfg)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert f"{cfg}:4:" in lines[0]
    assert "context_tokns" in lines[0] and "did you mean 'context_tokens'?" in lines[0]
    assert not (workdir / "coding-session.compact.jsonl").exists()


def test_malformed_transcript_is_2(runner, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "hi"}\n{not json\n')
    result = runner.invoke(app, ["run", str(bad), "--force", "--model", "local"])
    assert result.exit_code == 2
    assert f"{bad}:2" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert sorted(os.listdir(tmp_path)) == ["bad.jsonl"]


def test_summarization_failure_is_3_and_writes_nothing(runner, workdir, fake_500):
    src = workdir / "coding-session.jsonl"
    before = src.read_bytes()
    result = runner.invoke(app, ["run", str(src), "--force", "--model", "openai:gpt-test"])
    assert result.exit_code == 3, result.output
    last = result.stderr.splitlines()[-1]
    assert last.startswith(
        "compact: failed to generate summary: exceeds max retries: failed to call openai model"
    )  # the command line retries a 500 twice by default (issue 34)
    assert "Error" not in result.stderr  # no Python class name
    assert "sk-test" not in result.output
    assert src.read_bytes() == before
    assert not (workdir / "coding-session.compact.jsonl").exists()
    assert len(fake_500.requests) == 3  # the command line's default: two retries (issue 34)


def test_run_subprocess_failover_exit_3(workdir, fake_500):
    cfg = workdir / "c.yaml"
    cfg.write_text(
        "model: {provider: openai, name: primary}\n"
        "retry: {max_retries: 1, initial_delay: 0.01, max_delay: 0.01}\n"
        "failover:\n  max_retries: 2\n  models:\n    - {provider: openai, name: backup}\n"
    )
    src = workdir / "coding-session.jsonl"
    report = workdir / "r.json"
    proc = _sub(["run", str(src), "--force", "-c", str(cfg), "--report", str(report)])
    assert proc.returncode == 3, proc.stderr.decode()
    assert not (workdir / "coding-session.compact.jsonl").exists()
    # A failed run still writes its report (CI reads why), saying what was not written.
    rep = json.loads(report.read_text())
    assert rep["exit_code"] == 3 and rep["error"].startswith("summarization failed: ")
    assert rep["written"] == {}
    assert [a["ok"] for a in rep["attempts"]] == [False] * 4
    err = proc.stderr.decode()
    assert err.strip().splitlines()[-1].endswith("; nothing was written")
    assert "failover" in err
    assert len(fake_500.requests) == 4


def test_run_subprocess_stdin_pipeline():
    data = SMALL.read_bytes()
    proc = _sub(["run", "-", "--quiet"], input_bytes=data)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == data
    assert proc.stderr == b""


def test_run_subprocess_interrupt_is_130(workdir):
    # A KeyboardInterrupt anywhere in run maps to 130 and leaves nothing behind.
    code = (
        "import sys\n"
        "import compactor.cli.app as a\n"
        "import compactor.runs.runner as r\n"
        "async def boom(*args, **kw):\n"
        "    raise KeyboardInterrupt\n"
        "r.Run._summarize = boom\n"
        "try:\n"
        f"    a.app(['run', {str(workdir / 'coding-session.jsonl')!r}, '--force'])\n"
        "except SystemExit as e:\n"
        "    sys.exit(e.code)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert proc.returncode == 130, proc.stderr.decode()
    assert proc.stderr.decode().strip() == "compact: interrupted by SIGINT; nothing was written"
    assert not (workdir / "coding-session.compact.jsonl").exists()


# -- config ----------------------------------------------------------------------------------------


def test_config_show_masks_keys(runner, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-supersecretvalue123")
    result = runner.invoke(app, ["config", "show", "-c", str(REPO / "configs" / "openai.yaml")])
    assert result.exit_code == 0, result.output
    assert "sk-supersecretvalue123" not in result.output
    assert "'***'" in result.stdout


def test_config_show_default_is_local(runner):
    result = runner.invoke(app, ["config", "show", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["model"] == {"provider": "local"}
    assert data["trigger"] == {"context_tokens": 160000, "context_messages": 0}


def test_config_validate(runner, tmp_path):
    for name in ("default", "openai", "failover", "ci-shrink"):
        path = REPO / "configs" / f"{name}.yaml"
        assert runner.invoke(app, ["config", "validate", str(path)]).exit_code == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("retry:\n  max_retries: -1\n")
    result = runner.invoke(app, ["config", "validate", str(bad)])
    assert result.exit_code == 2
    assert "retry.max_retries must be non-negative" in result.stderr


def test_config_subprocesses(tmp_path):
    proc = _sub(["config", "show", "-c", str(REPO / "configs" / "failover.yaml")])
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"gpt-4.1-mini" in proc.stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text("modle: {}\n")
    proc = _sub(["config", "validate", str(bad)])
    assert proc.returncode == 2
    assert f"{bad}:1:".encode() in proc.stderr
    assert b"did you mean 'model'?" in proc.stderr


def test_config_validate_locates_semantic_errors(runner, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("model: {provider: local}\ntrigger:\n  context_tokens: -5\n")
    result = runner.invoke(app, ["config", "validate", str(bad)])
    assert result.exit_code == 2
    assert f"{bad}:3: key 'trigger.context_tokens'" in result.stderr


def test_live_view_on_a_terminal_renders_every_step():
    import io

    from rich.console import Console

    from compactor.cli.live import LiveView
    from compactor.errors import ModelError
    from compactor.events import (
        AfterSummarize,
        AttemptStart,
        BeforeSummarize,
        GenerateSummary,
        RetryWait,
    )

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=120, color_system=None)
    view = LiveView(console, primary_attempts=2, failover_attempts=1)
    with view:
        view.read("t.jsonl", "openai", 10)
        view.decision(True, "200 tokens > 100 token threshold", False)
        view(BeforeSummarize(messages=[USER, USER]))
        view(AttemptStart(phase="primary", attempt=1, model="openai:a"))
        view(GenerateSummary(attempt=1, phase="primary", error=ModelError("HTTP 500")))
        view(RetryWait(phase="primary", attempt=1, delay=0.01))
        view(AttemptStart(phase="failover", attempt=1, model="local"))
        view(GenerateSummary(attempt=1, phase="failover", model="local"))
        view(AfterSummarize(messages=[USER]))
        view.summary("compacted 10 → 2 messages")
    out = buf.getvalue()
    assert "primary attempt 1/2 · openai:a failed: HTTP 500" in out
    assert "failover → local" in out
    assert "compacted 10 → 2 messages" in out


def test_live_view_quiet_prints_nothing():
    import io

    from rich.console import Console

    from compactor.cli.live import LiveView

    buf = io.StringIO()
    view = LiveView(Console(file=buf), quiet=True)
    with view:
        view.summary("done")
        view.failure("bad")
    assert buf.getvalue() == ""


def test_output_same_as_input_is_refused(runner, workdir):
    src = workdir / "coding-session.jsonl"
    before = src.read_bytes()
    result = runner.invoke(app, ["run", str(src), "-o", str(src), "--force", "--model", "local"])
    assert result.exit_code == 2
    assert "--in-place" in result.stderr
    assert src.read_bytes() == before


def test_append_needs_a_session_format(runner, workdir):
    src = workdir / "coding-session.jsonl"
    result = runner.invoke(app, ["run", str(src), "--append", "--force", "--model", "local"])
    assert result.exit_code == 2
    assert "--append" in result.stderr
    assert not (workdir / "coding-session.compact.jsonl").exists()


def test_help_epilog_is_the_exit_code_table(runner):
    from compactor.cli.exitcodes import EXIT_CODES_HELP

    out = runner.invoke(app, ["run", "--help"]).stdout
    for line in EXIT_CODES_HELP.splitlines()[1:]:
        assert line.strip() in out


def test_configfile_and_io_stay_free_of_ui_imports():
    code = (
        "import sys, compactor.configfile, compactor.io\n"
        "bad = [m for m in ('rich', 'typer', 'openai') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()


def test_sigint_during_a_model_call_is_130_and_writes_nothing(workdir):
    import signal
    import time

    from compactor.testing.fake_openai import FakeOpenAI, hang

    server = FakeOpenAI(default=hang()).start()
    try:
        env = dict(os.environ, OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-test")
        src = workdir / "coding-session.jsonl"
        before = src.read_bytes()
        proc = subprocess.Popen(
            [compact_exe(), "run", str(src), "--force", "--model", "openai:m"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=default_sigint,
        )
        deadline = time.monotonic() + 30
        while not server.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err.decode()
        assert b"interrupted" in err
        assert src.read_bytes() == before
        assert sorted(p.name for p in workdir.iterdir()) == [
            "coding-session.jsonl",
            "small-chat.jsonl",
        ]
    finally:
        server.stop()


def test_debug_shows_traceback(runner, tmp_path):
    missing = str(tmp_path / "missing.jsonl")
    plain = runner.invoke(app, ["run", missing])
    assert plain.exit_code == 2
    assert "Traceback" not in plain.stderr
    debug = runner.invoke(app, ["run", missing, "--debug"])
    assert debug.exit_code == 2
    assert "Traceback" in debug.stderr


# -- closed, full and broken standard streams (issue 16 point 10, issue 15 rule 3) -----------------

STREAM_CASES = [
    # (shell redirections, command, exit code, the one stderr line or None when stderr is closed)
    (">&-", "check {small}", 6, "failed to write <stdout> completely: stdout is closed"),
    (">&-", "check {long}", 6, "failed to write <stdout> completely: stdout is closed"),
    ("> /dev/full", "check --json {small}", 6, "No space left on device"),
    ("<&-", "run -", 6, "failed to read <stdin>: stdin is closed; nothing was written"),
    ("-q >&-", "run {small} -o -", 6, "stdout is closed; nothing was written"),
    ("| true", "run {long} --force --model local -o - -q", 6, "Broken pipe; nothing was written"),
    ("2>&- > /dev/null", "check {small}", 0, None),
    ("-q 2>&-", "run {coding} --force --model local -o {tmp}/q.jsonl", 0, None),
    ("2>&-", "run {coding} --force --model local -o {tmp}/o.jsonl", 6, None),
    (">&-", "--help", 6, "compact: stdout is closed"),
    ("> /dev/full", "--version", 6, "compact: No space left on device"),
    (">&-", "config show", 6, "stdout is closed"),
]


@pytest.mark.parametrize(("redirect", "command", "code", "line"), STREAM_CASES)
def test_closed_full_or_broken_streams_are_exit_6_in_one_line(
    tmp_path, redirect, command, code, line
):
    # `compact check x >&-` exited 1 ("would compact") with a traceback; stdin closed gave
    # exit 3 and an AttributeError; /dev/full gave exit 1 and a traceback.
    if "/dev/full" in redirect and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    args = command.format(small=SMALL, long=LONG, coding=CODING, tmp=tmp_path)
    # the redirections apply to compact itself (a pipe: compact is its writer)
    script = f'"$0" {args} {redirect}; echo "exit=${{PIPESTATUS[0]}}" >&2'
    if "2>&-" in redirect:  # stderr is closed: the exit code goes to a file
        script = f'"$0" {args} {redirect}; echo "exit=$?" > {tmp_path}/code'
    proc = subprocess.run(
        ["bash", "-c", script, compact_exe()],
        capture_output=True,
        timeout=120,
        check=False,
        env=dict(os.environ),
    )
    err = proc.stderr.decode(errors="replace")
    if "2>&-" in redirect:
        assert (tmp_path / "code").read_text().strip() == f"exit={code}"
        assert err == ""
        return
    lines = err.strip().splitlines()
    assert lines[-1] == f"exit={code}", err
    assert "Traceback" not in err
    assert len(lines) == 2, err  # one line from compact, then the shell's exit line
    assert lines[0].startswith("compact: ") and lines[0].endswith(line)


# -- the issue's examples, with its own commands (issue 15) ----------------------------------------


def _issue_case(workdir: Path, case: str) -> tuple[list[str], int, str]:
    """(arguments, expected exit code, text in the last stderr line) for one example."""
    s = str(workdir / "coding-session.jsonl")
    local = ["--force", "--model", "local"]
    if case == "dev_null":
        return ["run", s, "-o", "/dev/null", *local], 0, "→ /dev/null"
    if case == "dev_full":
        return ["run", s, "-o", "/dev/full", *local], 6, "No space left on device"
    if case == "symlink_output":
        (workdir / "target.jsonl").write_text("old\n")
        (workdir / "link.jsonl").symlink_to("target.jsonl")
        return ["run", s, "-o", str(workdir / "link.jsonl"), *local], 0, "link.jsonl"
    if case == "report_is_input":
        return ["run", s, "--report", s, *local], 2, "is the input file"
    if case == "events_is_input_of_a_failing_run":
        return ["run", s, "--events", s, "--force", "--model", "openai:x"], 2, "is the input"
    if case == "report_is_output":
        out = str(workdir / "out")
        return ["run", s, "-o", out, "--report", out, *local], 2, "is the same file as"
    if case in ("report_in_missing_folder", "report_in_missing_folder_in_place"):
        extra = ["--in-place"] if case.endswith("in_place") else []
        report = str(workdir / "nodir" / "r.json")
        return ["run", s, "--report", report, *extra, *local], 2, "does not exist"
    if case == "managed_agents_log":
        log = REPO / "tests" / "fixtures" / "unsupported" / "managed-agents-events.jsonl"
        shutil.copy(log, workdir / "ma.jsonl")
        return ["run", str(workdir / "ma.jsonl"), *local], 2, "Managed-Agents event log"
    raise AssertionError(case)


ISSUE_CASES = [
    "dev_null",
    "dev_full",
    "symlink_output",
    "report_is_input",
    "events_is_input_of_a_failing_run",
    "report_is_output",
    "report_in_missing_folder",
    "report_in_missing_folder_in_place",
    "managed_agents_log",
]


@pytest.mark.parametrize("case", ISSUE_CASES)
def test_the_issues_examples_behave_as_the_rules_say(runner, workdir, case):
    if case == "dev_full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    src = workdir / "coding-session.jsonl"
    before = src.read_bytes()
    args, code, says = _issue_case(workdir, case)
    listing = sorted(p.name for p in workdir.iterdir())
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.output
    assert says in result.stderr.strip().splitlines()[-1]
    assert src.read_bytes() == before  # the input is never touched
    if code != 0:
        assert sorted(p.name for p in workdir.iterdir()) == listing  # nothing written
        assert "compacted" not in result.stderr  # no success line
    for dev in ("/dev/null", "/dev/full"):
        if os.path.exists(dev):
            assert os.path.exists(dev) and not os.path.isfile(dev)
    if case == "symlink_output":
        assert (workdir / "link.jsonl").is_symlink()
        assert (workdir / "target.jsonl").read_text() != "old\n"


@pytest.mark.parametrize("triggered", [False, True])
def test_a_short_write_under_ulimit_is_exit_6_not_success(tmp_path, triggered):
    # The README's CI recipe on a small disk: `(ulimit -f 100; cat big.jsonl | compact run - >
    # out.jsonl)` exited 0 with a truncated out.jsonl.
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "trigger: {context_tokens: 160000}\n"
        if triggered
        else "trigger: {context_tokens: 1000000000}\n"
    )
    note = " --transcript-path archive" if triggered else ""
    script = f'(ulimit -f 100; cat "{LONG}" | "$0" run -{note} -c "{cfg}" > "{tmp_path}/out.jsonl")'
    proc = subprocess.run(
        ["bash", "-c", script, compact_exe()], capture_output=True, timeout=120, check=False
    )
    err = proc.stderr.decode()
    assert proc.returncode == 6, err
    [line] = err.strip().splitlines()
    if triggered:  # the original is archived first (asked for): that copy hits the limit
        assert line.endswith("completely: File too large; nothing was written")
        assert line.startswith("compact: failed to write ")
        assert "/compact/archive/" in line
    else:  # passed through: stdout took what the limit let through, and no more; the line
        # says so (issue 27 point 11: it said "nothing was written")
        size = LONG.stat().st_size
        assert line == (
            "compact: failed to write <stdout> completely: File too large; "
            f"incomplete: output <stdout> cut short after 102,400 of {size:,} bytes"
        )
        assert (tmp_path / "out.jsonl").stat().st_size == 100 * 1024


# -- outside text never drives the terminal (issue 16) --------------------------------------------

_HOSTILE = ("\x1b]52;", "\x1b]0;", "\x1b]8;", "\x1b[2J", "\x07", "\x9b", "\u202e")


def test_live_view_shows_escapes_from_servers_paths_and_names_visibly():
    import io

    from rich.console import Console

    from compactor.cli.live import LiveView
    from compactor.errors import ModelError
    from compactor.events import AttemptStart, BeforeSummarize, GenerateSummary
    from compactor.testing.fake_openai import ESCAPES

    for terminal in (True, False):
        buf = io.StringIO()
        console = Console(file=buf, force_terminal=terminal, width=200, color_system=None)
        view = LiveView(console, primary_attempts=1)
        with view:
            view.read(f"t{ESCAPES}.jsonl", "openai", 10)
            view(BeforeSummarize(messages=[USER, USER]))
            view(AttemptStart(phase="primary", attempt=1, model=f"openai:m{ESCAPES}"))
            error = ModelError(f"failed to call openai model 'm': HTTP 500: {ESCAPES}")
            view(GenerateSummary(attempt=1, phase="primary", error=error))
            view.summary(f"compacted 10 → 2 messages → out{ESCAPES}.jsonl")
        out = buf.getvalue()
        for seq in _HOSTILE:
            assert seq not in out, (terminal, seq)
        assert "HTTP 500: \\x1b]52;c;" in out
        assert "out\\x1b]52;c;" in out  # the final line


def test_check_and_explain_show_escapes_in_tool_names_and_paths_visibly(runner, tmp_path):
    from compactor.testing.fake_openai import ESCAPES

    name = f"evil{ESCAPES}"
    records = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": name, "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    path = tmp_path / "t\x1b]0;title\x07.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    for args in (["check", "--explain", str(path)], ["check", str(path)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        for seq in _HOSTILE:
            assert seq not in result.output, (args, seq)
    assert "evil\\x1b]52;" in runner.invoke(app, ["check", "--explain", str(path)]).output
    result = runner.invoke(app, ["check", "--json", "--explain", str(path)])
    assert "\x9b" not in result.output and "\u202e" not in result.output
    assert json.loads(result.output)["explain"]["by_tool"][name]["calls"] == 1  # same data


def test_a_run_leaves_the_cyclic_collector_alone(workdir, monkeypatch):
    """The GC switch is retired (issue 31 point 3: the collections of a 50 MB ``--model local``
    run are 8-9 % of it, under the 10 % a speed trick must be worth; BENCHMARKS.md): the
    collector is on while the model runs, as in any program."""
    import gc

    from compactor.models import local

    seen: list[bool] = []
    real = local.LocalSummarizer.generate

    async def generate(self, messages, **options):
        seen.append(gc.isenabled())
        return await real(self, messages, **options)

    monkeypatch.setattr(local.LocalSummarizer, "generate", generate)
    assert gc.isenabled()
    src, out = str(workdir / "coding-session.jsonl"), str(workdir / "o.jsonl")
    result = CliRunner().invoke(app, ["run", src, "--force", "--model", "local", "-q", "-o", out])
    assert result.exit_code == 0, result.output
    assert seen == [True] and gc.isenabled()


@pytest.mark.parametrize("group", ["config", "archive", "cache"])
def test_a_group_named_alone_shows_its_help_laid_out(group: str) -> None:
    """``compact config`` (no command) is a usage error (exit 2) that shows the group's help as
    click lays it out, its commands one per line, not squeezed onto one ``compact:`` line."""
    proc = subprocess.run([compact_exe(), group], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines[0].startswith(f"Usage: compact {group} ")
    assert "Commands:" in lines
    assert not proc.stderr.startswith("compact: ")
