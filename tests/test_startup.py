"""Start-up: what ``compact check`` imports, and the typer hook that keeps pydantic out of it.

Timing itself is measured by bench/bench_startup.py, never asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compactor.cli import _typer_fast
from compactor.cli.app import app

REPO = Path(__file__).resolve().parent.parent
SMALL = REPO / "sample_transcripts" / "small-chat.jsonl"
ANTHROPIC = REPO / "sample_transcripts" / "agentic-session.jsonl"  # not streamed: a full read

# Each costs start-up time and `check` needs none of them.
HEAVY = (
    "asyncio",
    "tenacity",
    "openai",
    "anthropic",
    "httpx",
    "httpx2",
    "tiktoken",
    "toktok",
    "pydantic",
    "yaml",
    "rich",
    "compactor.pipeline.middleware",
    "compactor.pipeline.summarize",
    "compactor.io",
    # object stores and the cluster (issue 33): only for a URL or --dask
    "fsspec",
    "s3fs",
    "dask",
    "distributed",
    "compactor.distributed",
)

# main() ends the process itself (os._exit after atexit handlers): report from an atexit handler.
RUNNER = """\
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules))))
from compactor.cli.app import main
sys.argv = ["compact", *json.loads(sys.argv[1])]
main()
"""


def _modules_after(args: list[str]) -> tuple[int, set[str]]:
    """Run ``compact ARGS`` in a fresh interpreter; (exit code, modules it imported)."""
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, set(json.loads(proc.stdout.strip().splitlines()[-1]))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in HEAVY if m in modules or any(x.startswith(m + ".") for x in modules))


def test_check_imports_nothing_heavy() -> None:
    code, modules = _modules_after(["check", str(SMALL)])
    assert code == 0
    assert "compactor.formats.streaming" in modules  # the runner really ran check
    assert _heavy(modules) == []
    # Not heavy, but not needed either: check builds no middleware Config and emits no events.
    assert "compactor.counting.config" not in modules
    assert "compactor.events" not in modules


def test_check_json_and_full_read_paths_stay_light() -> None:
    """--json, and a format that is read in full (anthropic), need no heavy module either."""
    code, modules = _modules_after(["check", "--json", str(SMALL), str(ANTHROPIC)])
    assert code == 0
    assert "compactor.runs.dryrun" in modules  # the library builds the --json records (issue 31)
    assert "compactor.formats.anthropic" in modules  # the full read did happen
    assert _heavy(modules) == ["compactor.io"]  # the full read reads the file through io


def test_the_runner_sees_heavy_imports() -> None:
    """The check above can fail: a config file brings yaml, a run brings asyncio."""
    _, modules = _modules_after(["check", "-c", str(REPO / "configs" / "default.yaml"), str(SMALL)])
    assert "yaml" in _heavy(modules)


def test_typer_hook_is_installed() -> None:
    """If a typer upgrade moves the internals, this fails (the CLI would only get slower)."""
    assert _typer_fast.install() is True
    assert _typer_fast.install() is True  # idempotent


def test_typer_is_the_minor_version_the_hook_was_written_for() -> None:
    """_typer_fast patches typer 0.29's internals (it halves ``compact check``'s start-up,
    BENCHMARKS.md); pyproject.toml pins typer to 0.29.x, and this fails on any other."""
    from importlib.metadata import version

    assert version("typer").split(".")[:2] == ["0", "29"]
    assert _typer_fast.TYPER_MINOR == "0.29"
    requirement = next(
        line for line in (REPO / "pyproject.toml").read_text().splitlines() if '"typer' in line
    )
    assert requirement.strip() == '"typer>=0.29.2,<0.30",'


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["run", "x.jsonl", "y.jsonl", "--jobs", "0"],
            "Input should be greater than or equal to 1",
        ),
        (["run", "x.jsonl", "y.jsonl", "--jobs", "x"], "Input should be a valid integer"),
        (["check", "--format"], "option '--format' requires an argument"),
    ],
)
def test_values_the_hook_does_not_cover_get_typers_errors(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_plain_values_reach_the_command_unchanged(tmp_path: Path) -> None:
    copy = tmp_path / "a b ü.jsonl"
    copy.write_bytes(SMALL.read_bytes())
    result = CliRunner().invoke(
        app, ["check", "--json", "--format", "openai", str(copy), str(copy)]
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["path"] for r in records] == [str(copy), str(copy)]
    assert {r["format"] for r in records} == {"openai"}


def test_main_exits_without_teardown_but_like_sys_exit(tmp_path: Path) -> None:
    """main() ends with os._exit (no interpreter teardown): exit codes, flushed output, atexit
    handlers and non-daemon threads behave as with a normal exit."""
    long = REPO / "sample_transcripts" / "coding-session-long.jsonl"
    marker, late = tmp_path / "atexit.txt", tmp_path / "thread.txt"
    code = (
        "import atexit, pathlib, sys, threading, time\n"
        "from compactor.cli.app import main\n"
        f"atexit.register(lambda: pathlib.Path({str(marker)!r}).write_text('ran'))\n"
        "def late():\n"
        "    time.sleep(0.2)\n"
        f"    pathlib.Path({str(late)!r}).write_text('joined')\n"
        "threading.Thread(target=late).start()\n"
        "sys.stdout.write('x' * 100000)\n"  # buffered output must still come out
        "sys.argv = ['compact', *sys.argv[1:]]\n"
        "main()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "check", "--json", str(SMALL), str(long)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1, proc.stderr  # one transcript would be compacted
    assert proc.stdout.startswith("x" * 100000)
    assert [json.loads(line)["triggered"] for line in proc.stdout[100000:].splitlines()] == [
        False,
        True,
    ]
    assert marker.read_text() == "ran"
    assert late.read_text() == "joined"
    missing = subprocess.run(
        [sys.executable, "-m", "compactor", "check", str(tmp_path / "nope.jsonl")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode == 2
    assert "file not found" in missing.stderr
