"""Errors in plain words (issue 32, point 9): no Python class names, "config" only for a config
file's problems, option errors on one line, ``--threshold 50k``, near misses suggested."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from compactor.testing.fake_openai import FakeOpenAI, status

from .fake_server_cli import compact_exe, invoke

REPO = Path(__file__).resolve().parents[1]
SMALL = REPO / "sample_transcripts" / "small-chat.jsonl"
CODING = REPO / "sample_transcripts" / "coding-session.jsonl"
CLASS_NAME = re.compile(r"\b[A-Z][A-Za-z]*(Error|Exception)\b")


def _compact(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, process: bool = False
) -> tuple[int, str, str]:
    """``compact ARGS`` in this process (:func:`invoke`), or as the console script with
    ``process=True`` (the option errors: what the real process prints for typer's usage errors)."""
    import os

    if not process:
        done = invoke(args, env={"COLUMNS": "200", **(env or {})}, cwd=cwd)
        return done.returncode, done.stdout.decode(), done.stderr.decode()
    proc = subprocess.run(
        [compact_exe(), *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
    )
    return proc.returncode, proc.stdout, proc.stderr


def _one_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("compact: "), stderr
    assert not CLASS_NAME.search(lines[0]), lines[0]
    return lines[0]


def test_usage_problems_are_not_called_config(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    src = tmp_path / "s.jsonl"
    shutil.copy(SMALL, src)
    cases = [
        (
            ["run", str(tmp_path / "missing") + "/"],
            f"compact: {tmp_path / 'missing'}/: file not found",
        ),
        (
            ["run", str(tmp_path / "empty")],
            f"compact: no transcripts to work on in {str(tmp_path / 'empty')!r}",
        ),
        (
            ["run", str(src), "-o", str(src)],
            f"compact: output {str(src)!r} is the input; use --in-place",
        ),
    ]
    for args, start in cases:
        code, _, err = _compact(*args)
        assert code == 2, err
        line = _one_line(err)
        assert line.startswith(start), line
        assert "config" not in line.lower()


def test_a_config_file_problem_says_config_and_where(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("trigger:\n  context_tokens: lots\n")
    code, _, err = _compact("check", str(SMALL), "-c", str(cfg))
    assert code == 2
    assert _one_line(err).startswith(
        f"compact: config error: {cfg}:2: key 'trigger.context_tokens': "
    )


def test_a_model_failure_names_no_class(tmp_path: Path) -> None:
    with FakeOpenAI(default=status(500)) as fake:
        cfg = tmp_path / "c.yaml"
        cfg.write_text(
            f"model: {{provider: openai, name: m, base_url: '{fake.base_url}'}}\n"
            "retry: {max_retries: 1, max_delay: 0.01}\ncache: {enabled: false}\n"
        )
        code, _, err = _compact(
            "run", str(CODING), "--force", "-q", "-c", str(cfg), "-o", str(tmp_path / "o.jsonl")
        )
    assert code == 3, err
    line = _one_line(err)
    assert line.startswith("compact: failed to generate summary: ")
    assert line.endswith("; nothing was written")


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["check", str(SMALL), "--threshold", "abc"],
            "compact: invalid value for '--threshold': 'abc': expected a number of tokens, such "
            "as 50000, 50k or 1.5M (see 'compact check --help')",
        ),
        (
            ["run", str(SMALL), "--forse"],
            "compact: no such option: --forse. Did you mean --force? (see 'compact run --help')",
        ),
        (["run"], "compact: missing argument 'TRANSCRIPT...' (see 'compact run --help')"),
        (["archive", "frob"], "compact: no such command 'frob' (see 'compact archive --help')"),
        (
            ["run", str(SMALL), "--jobs", "0"],
            "compact: invalid value for '--jobs' / '-j': ",
        ),
    ],
)
def test_option_errors_are_one_line(args: list[str], line: str) -> None:
    code, out, err = _compact(*args, process=True)
    assert code == 2
    assert out == ""
    assert _one_line(err).startswith(line)


@pytest.mark.parametrize(
    ("value", "tokens"),
    [("50k", "50,000"), ("1.5M", "1,500,000"), ("50_000", "50,000"), ("128K", "128,000")],
)
def test_threshold_takes_k_and_m(value: str, tokens: str) -> None:
    code, out, err = _compact("check", str(SMALL), "--threshold", value)
    assert code == 0, err
    assert f"threshold {tokens} tokens" in out


@pytest.mark.parametrize("value", ["0", "-5", "1.5", "5x", "k"])
def test_threshold_refuses_what_is_not_a_count(value: str) -> None:
    code, _, err = _compact("check", str(SMALL), f"--threshold={value}")
    assert code == 2
    assert "expected a number of tokens, such as 50000, 50k or 1.5M" in _one_line(err)


def test_near_misses_are_suggested(tmp_path: Path) -> None:
    code, _, err = _compact("check", str(SMALL), "--format", "claude")
    assert code == 2
    assert "did you mean 'claude-code'?" in _one_line(err)
    code, _, err = _compact("run", str(SMALL), "--model", "gpt-4o", "--force")
    assert code == 2
    assert _one_line(err).startswith(
        "compact: unknown model 'gpt-4o'; expected local, openai:NAME or anthropic:NAME; did you "
        "mean 'openai:gpt-4o'?"
    )
    # the hint comes from the provider table: a misspelt prefix finds its provider
    for spec, meant in (
        ("opnai:gpt-4o", "openai:gpt-4o"),
        ("antropic:claude-x", "anthropic:claude-x"),
    ):
        code, _, err = _compact("run", str(SMALL), "--model", spec, "--force")
        assert code == 2
        assert _one_line(err).endswith(f"; did you mean '{meant}'?")
    cfg = tmp_path / "m.yaml"
    cfg.write_text("model: local\n")
    code, _, err = _compact("run", str(SMALL), "-c", str(cfg))
    assert code == 2
    assert _one_line(err) == (
        f"compact: config error: {cfg}:1: key 'model': expected a mapping, got 'local'; "
        "write it as  model: {provider: local}"
    )
    cfg.write_text("model: gpt-4o\n")
    code, _, err = _compact("config", "validate", str(cfg))
    assert code == 2
    assert "write it as  model: {provider: openai, name: gpt-4o}" in _one_line(err)
    cfg.write_text("model: anthropic:claude-x\n")
    code, _, err = _compact("config", "validate", str(cfg))
    assert code == 2
    assert "write it as  model: {provider: anthropic, name: claude-x}" in _one_line(err)
