"""Golden-file tests for the ``compact`` command line.

Each test renders some CLI output, normalizes whatever is machine-specific (the repository path
→ ``<REPO>``, temporary paths → ``<TMP>``, durations → ``<DURATION>``, timings → ``<N>s``, the
package version → ``<VERSION>``) and compares it with ``tests/golden/NAME``.

Refresh every golden file with::

    UPDATE_GOLDEN=1 .venv/bin/pytest -q tests/test_golden.py

then review the diff before committing it.

The live view (``live_view_tmux.txt``) was first captured by hand, to check that the terminal
view looks right, with::

    tmux new-session -d -x 100 -y 30 -s gold \\
        "cd <REPO> && .venv/bin/compact run sample_transcripts/coding-session-long.jsonl \\
         --model local -o /tmp/x.jsonl; echo EXIT=\\$?; sleep 30"
    sleep 6; tmux capture-pane -p -t gold; tmux kill-session -t gold

and saved as the final screen (the status spinner is transient, so only the log lines remain).
``test_live_view_tmux`` reruns exactly that capture on a private tmux socket (skipped when
``tmux`` is not installed); ``test_live_view_plain`` checks the same run's plain stderr output
(stderr not a terminal: one summary line, no animation).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compactor import __version__
from compactor.cli.app import app

from .fake_server_cli import compact_exe

REPO = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden"
SAMPLES = REPO / "sample_transcripts"
LONG_REL = "sample_transcripts/coding-session-long.jsonl"
CODING_REL = "sample_transcripts/coding-session.jsonl"
FIXED_NOTE_PATH = "/transcripts/session.jsonl"

STABLE_ENV = {"COLUMNS": "100", "LINES": "30", "TERM": "dumb", "NO_COLOR": "1"}


def _normalize(text: str, *tmp_dirs: Path | str) -> str:
    """Replace everything machine- or run-specific with a placeholder."""
    for tmp in tmp_dirs:
        text = text.replace(str(tmp), "<TMP>")
    cache_home = os.environ.get("XDG_CACHE_HOME")
    if cache_home:  # each test has its own (tests/conftest.py)
        text = text.replace(cache_home, "<XDG_CACHE_HOME>")
    text = text.replace(str(REPO), "<REPO>")
    text = re.sub(r'"duration_s": [0-9.eE+-]+', '"duration_s": "<DURATION>"', text)
    text = re.sub(r"\b\d+\.\d+s\b", "<N>s", text)
    text = re.sub(rf"(?<![\w.]){re.escape(__version__)}(?![\w.])", "<VERSION>", text)
    # Trailing blanks (terminal padding) and trailing empty lines carry no meaning.
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def _golden(name: str, actual: str) -> None:
    """Compare ``actual`` (already normalized) with ``tests/golden/name``; UPDATE_GOLDEN=1
    rewrites the file instead."""
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing; run with UPDATE_GOLDEN=1 to create it"
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"{name} differs from the golden file; UPDATE_GOLDEN=1 refreshes it"


@pytest.fixture
def stable_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in STABLE_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("FORCE_COLOR", raising=False)


@pytest.fixture
def runner(stable_env: None) -> CliRunner:
    return CliRunner(env=STABLE_ENV)


@pytest.fixture
def at_repo(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(REPO)
    return REPO


def _samples_rel() -> list[str]:
    return sorted(f"sample_transcripts/{p.name}" for p in SAMPLES.glob("*.jsonl"))


# -- help ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["--help"], "help_root.txt"),
        (["run", "--help"], "help_run.txt"),
        (["check", "--help"], "help_check.txt"),
        (["show", "--help"], "help_show.txt"),
        (["config", "--help"], "help_config.txt"),
        (["config", "show", "--help"], "help_config_show.txt"),
        (["config", "validate", "--help"], "help_config_validate.txt"),
        (["archive", "--help"], "help_archive.txt"),
        (["archive", "list", "--help"], "help_archive_list.txt"),
        (["archive", "prune", "--help"], "help_archive_prune.txt"),
        (["archive", "restore", "--help"], "help_archive_restore.txt"),
    ],
)
def test_help(runner: CliRunner, args: list[str], name: str) -> None:
    """Every help page as an 80-column terminal shows it (read them when they change)."""
    result = runner.invoke(app, args, prog_name="compact", terminal_width=80)
    assert result.exit_code == 0, result.output
    _golden(name, _normalize(result.stdout))


def test_version(runner: CliRunner) -> None:
    result = runner.invoke(app, ["--version"], prog_name="compact")
    assert result.exit_code == 0
    assert _normalize(result.stdout) == "compact <VERSION>\n"


# -- check ---------------------------------------------------------------------------------------


def test_check_text(runner: CliRunner, at_repo: Path) -> None:
    result = runner.invoke(app, ["check", *_samples_rel()], prog_name="compact")
    assert result.exit_code == 1, result.output  # coding-session-long would compact
    _golden("check_samples.txt", _normalize(result.stdout))


def test_check_json(runner: CliRunner, at_repo: Path) -> None:
    result = runner.invoke(app, ["check", "--json", *_samples_rel()], prog_name="compact")
    assert result.exit_code == 1, result.output
    for line in result.stdout.splitlines():
        json.loads(line)
    _golden("check_samples_json.txt", _normalize(result.stdout))


# -- run: events and report ----------------------------------------------------------------------


def test_run_events_and_report(runner: CliRunner, at_repo: Path, tmp_path: Path) -> None:
    out, events, report = tmp_path / "out.jsonl", tmp_path / "ev.jsonl", tmp_path / "rep.json"
    result = runner.invoke(
        app,
        [
            "run",
            CODING_REL,
            "--force",
            "--model",
            "local",
            "-o",
            str(out),
            "--events",
            str(events),
            "--report",
            str(report),
            # a fixed note path: the token counts must not depend on where the repo lives
            "--transcript-path",
            FIXED_NOTE_PATH,
        ],
        prog_name="compact",
    )
    assert result.exit_code == 0, result.output
    assert out.exists()
    for line in events.read_text(encoding="utf-8").splitlines():
        json.loads(line)
    _golden("run_events.jsonl.txt", _normalize(events.read_text(encoding="utf-8"), tmp_path))
    rep = json.loads(report.read_text(encoding="utf-8"))
    assert isinstance(rep["duration_s"], (int, float)) and rep["duration_s"] >= 0
    _golden("run_report.json.txt", _normalize(report.read_text(encoding="utf-8"), tmp_path))


# -- live view -----------------------------------------------------------------------------------


def test_live_view_plain(stable_env: None, tmp_path: Path) -> None:
    """stderr is a pipe, not a terminal: the plain output of the run captured in tmux below."""
    out = tmp_path / "x.jsonl"
    proc = subprocess.run(
        [
            compact_exe(),
            "run",
            LONG_REL,
            "--model",
            "local",
            "-o",
            str(out),
            "--transcript-path",
            FIXED_NOTE_PATH,
        ],
        cwd=REPO,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == b""
    assert out.exists()
    _golden("live_view_plain.txt", _normalize(proc.stderr.decode(), tmp_path))


def _tmux_capture(tmux: str, command: str, *, timeout: float = 60.0) -> str:
    """Run ``command`` in a detached 100x30 tmux session on a private socket; return the final
    screen once it printed its ``EXIT=`` marker."""
    socket = f"compact-golden-{uuid.uuid4().hex[:8]}"
    base = [tmux, "-L", socket]
    subprocess.run(
        [*base, "-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "30", "-s", "g"],
        check=True,
        timeout=30,
    )
    try:
        subprocess.run([*base, "respawn-pane", "-k", "-t", "g", command], check=True, timeout=30)
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = subprocess.run(
                [*base, "capture-pane", "-p", "-t", "g"],
                capture_output=True,
                text=True,
                check=True,
                timeout=30,
            ).stdout
            if "EXIT=" in screen:
                time.sleep(0.3)  # let the last redraw land
                return subprocess.run(
                    [*base, "capture-pane", "-p", "-t", "g"],
                    capture_output=True,
                    text=True,
                    check=True,
                    timeout=30,
                ).stdout
            time.sleep(0.2)
        pytest.fail(f"tmux run did not finish in {timeout}s; screen:\n{screen}")
    finally:
        subprocess.run([*base, "kill-server"], check=False, timeout=30, capture_output=True)


def test_live_view_tmux() -> None:
    """The terminal (rich) view of the same run, captured from a real 100x30 tmux pane."""
    tmux = shutil.which("tmux")
    if tmux is None:
        pytest.skip("tmux is not installed")
    # A short, fixed-length output path so that the summary line never wraps differently.
    tmp = Path(tempfile.mkdtemp(prefix="cg"))
    try:
        out = tmp / "x.jsonl"
        inner = (
            f"cd {REPO} && env -u COLUMNS -u LINES -u NO_COLOR TERM=screen "
            f"{compact_exe()} run {LONG_REL} --model local -o {out} "
            f"--transcript-path {FIXED_NOTE_PATH}; echo EXIT=$?; sleep 60"
        )
        screen = _tmux_capture(tmux, f"sh -c '{inner}'")
        assert "EXIT=0" in screen, screen
        assert out.exists()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _golden("live_view_tmux.txt", _normalize(screen, tmp))


# -- check --explain -------------------------------------------------------------------------------

EXPLAIN_CONFIG = """\
model: {provider: openai, name: gpt-4o-mini, context_tokens: 64000}
trigger: {context_fraction: 0.8, agent_model: claude-sonnet-4}
keep: {messages: 6}
mask_secrets: true
prices:
  gpt-4o-mini: {input: 0.15, output: 0.60}
reduction: {offload_dir: /tmp/compact-golden/offload}
"""
"""``reduction.offload_dir`` is fixed: the placeholders ``check --explain`` predicts name the
offload folder the run would use, which is otherwise beside the input, so the token counts in
the golden file would depend on where the repository is checked out."""


def test_show_sample(runner: CliRunner, at_repo: Path, tmp_path: Path) -> None:
    """What `make run` shows: the summary of the long sample, as `compact show` renders it."""
    out = tmp_path / "sample.compact.jsonl"
    args = ["run", LONG_REL, "--model", "local", "-o", str(out)]
    args += ["--transcript-path", FIXED_NOTE_PATH]
    assert runner.invoke(app, args).exit_code == 0
    result = runner.invoke(app, ["show", str(out)], prog_name="compact", terminal_width=100)
    assert result.exit_code == 0, result.output
    _golden("show_sample.txt", _normalize(result.stdout, tmp_path))


def test_eval_of_a_reduced_sample(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`compact eval` of a reduce output whose newest offload file is gone and whose next one
    was changed: the table scores what they held as lost and says why (blind check 71 N6)."""
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(SAMPLES / "coding-session-long.jsonl", "s.jsonl")
    args = ["run", "s.jsonl", "--strategy", "reduce", "--force", "-o", "out.jsonl"]
    assert runner.invoke(app, [*args, "--report", "r.json"]).exit_code == 0
    cleared = tmp_path / "out.offload" / "clear"
    (cleared / "call_0062").unlink()
    (cleared / "call_0061").write_text("(changed by hand)\n", encoding="utf-8")
    result = runner.invoke(app, ["eval", "s.jsonl", "out.jsonl"], terminal_width=100)
    assert result.exit_code == 0, result.output
    # how many results are cleared depends on the folder's name (a result shorter than the
    # placeholder naming it is kept): the count is checked here, the rest by the golden file
    offloaded = json.loads(Path("r.json").read_text("utf-8"))["reduction"]["offloaded"]
    assert f"placeholders: {offloaded - 2} resolved, 2 missing/changed" in result.stdout
    shown = re.sub(r"placeholders: \d+ resolved", "placeholders: <N> resolved", result.stdout)
    _golden("eval_reduced.txt", _normalize(shown, tmp_path))


def test_check_explain(runner: CliRunner, at_repo: Path, tmp_path: Path) -> None:
    cfg = tmp_path / "explain.yaml"
    cfg.write_text(EXPLAIN_CONFIG, encoding="utf-8")
    args = ["check", "--explain", "-c", str(cfg), LONG_REL, CODING_REL]
    result = runner.invoke(app, args, prog_name="compact", terminal_width=100)
    assert result.exit_code == 1, result.output
    _golden("check_explain.txt", _normalize(result.stdout, tmp_path))


def test_check_explain_json_matches_the_text(
    runner: CliRunner, at_repo: Path, tmp_path: Path
) -> None:
    cfg = tmp_path / "explain.yaml"
    cfg.write_text(EXPLAIN_CONFIG, encoding="utf-8")
    args = ["check", "--explain", "--json", "-c", str(cfg), LONG_REL]
    result = runner.invoke(app, args, prog_name="compact", terminal_width=100)
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)["explain"]
    plan = data["plan"]
    assert data["conditions"][0]["condition"] == "context_fraction"
    assert data["conditions"][0]["threshold"] == 160_000
    chunks = plan["chunks"]
    assert chunks[0]["start"] == plan["summarized"]["start"] == 1
    assert chunks[-1]["end"] == plan["summarized"]["end"] == plan["tail"]["start"]
    assert plan["tail"]["end"] == data["messages"]
    assert sum(c["messages"] for c in chunks) == plan["summarized"]["messages"]
    assert plan["estimated_cost"]["calls"] == len(chunks)
    assert sum(r["messages"] for r in data["by_role"].values()) == data["messages"]


@pytest.mark.parametrize(
    "name",
    [
        "coding-session",
        "agentic-session",
        "skills-session",
        "claude-code-session",
        "coding-session-long",
        "small-chat",
    ],
)
def test_local_summary_golden(name: str) -> None:
    """The embedded summarizer's text for a sample: what `make run` shows a user."""
    from compactor.formats.registry import read_transcript
    from compactor.models.local import summarize_transcript

    path = SAMPLES / f"{name}.jsonl"
    parsed = read_transcript(str(path), path.read_bytes())
    _golden(f"local_summary_{name}.txt", _normalize(summarize_transcript(parsed.messages)))
