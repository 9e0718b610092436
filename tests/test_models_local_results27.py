"""Blind check 27 (W1, W2, W4, N2, N6; RELIABILITY rows 1230-1249): reading command results
right. A "Killed …" line a command echoed is no SIGKILL report; a failure's stand-in line (no
error line matched) is no error a retry "restated"; ``pkill``/``pgrep`` exit 1 under an error flag
is "no process matched"; a test run's every ``test result:`` section counts; an install is a
result fact, a displayed README is not. Every session is built here, by shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.models.local_established import installed
from compactor.models.local_established import test_tally as tally_of

from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- W1: a "Killed …" line the command itself printed ----------------------------------------------


def _kill_session(command: str, printed: str, *, error: bool = False) -> str:
    s = SessionBuilder()
    s.user("kill the old experiment, it runs the wrong code")
    s.call("Bash", {"command": command}, printed, error=error)
    s.call("Bash", {"command": "sleep 5 && nvidia-smi"}, "No running processes found")
    s.say("The old run is gone; the GPU is free.")
    return section(summarize_transcript(s.messages), 4)


def test_a_killed_line_the_command_echoed_is_no_failure() -> None:
    """cc-ying-quant: ``kill -9 2119063 2>/dev/null; echo "Killed root process 2119063"``
    printed its own echo (no error flag, no exit code); section 4 said it "failed: Killed root
    process 2119063 – Worked around by …"."""
    errors = _kill_session(
        'kill -9 2119063 2>/dev/null; echo "Killed root process 2119063"',
        "Killed root process 2119063",
    )
    assert "failed" not in errors.replace("No tool call failed", ""), errors
    assert "Killed root process" not in errors, errors
    errors = _kill_session("kill -9 2119063 && echo Killed", "Killed")  # its own bare echo
    assert "failed" not in errors.replace("No tool call failed", ""), errors


def test_a_kill_that_reports_what_it_killed_is_no_failure() -> None:
    """A kill script's own report ("Killed 3 workers") without an error flag went on."""
    errors = _kill_session(
        "pkill -9 -f train_worker && printf 'Killed %s workers\\n' 3", "Killed 3 workers"
    )
    assert "failed" not in errors.replace("No tool call failed", ""), errors


def test_the_shells_own_killed_report_stays_a_failure() -> None:
    """A process the kernel killed (SIGKILL: a bare "Killed", bash's "line 1: 4242 Killed …",
    macOS "Killed: 9") is a failure, with or without an error flag (a pipe to ``tail`` hid it)."""
    for printed in (
        "epoch 1/3 loss 0.91\nKilled",
        "epoch 1/3 loss 0.91\nbash: line 1: 4242 Killed                  python train.py",
        "Killed: 9",
    ):
        errors = _kill_session("python train.py 2>&1 | tail -3", printed)
        assert "python train.py" in errors and "failed" in errors, (printed, errors)
    errors = _kill_session("python train.py", "Exit code 137\nKilled", error=True)
    assert "exit code 137" in errors, errors
    errors = _kill_session(
        'timeout 60 python train.py || echo "killed by timeout"', "killed by timeout"
    )
    assert "failed" in errors and "killed by timeout" in errors, errors  # `||`: its failure


def test_an_echoed_killed_line_under_an_error_flag_stays_a_failure() -> None:
    """An explicit failure (exit 1) is one whatever the output says."""
    errors = _kill_session(
        'kill -9 2119063; echo "Killed root process 2119063"',
        "Exit code 1\nbash: line 1: kill: (2119063) - No such process\nKilled root process 2119063",
        error=True,
    )
    assert "failed" in errors and "kill -9 2119063" in errors, errors


# -- W2 / N6: a failure's stand-in line is no error a retry restated; an install is a fact ---------

_META = {
    "id": "0f1e2d3c-4b5a-4968-8776-655443322110",
    "timestamp": "2025-08-20T10:00:00.000Z",
    "instructions": None,
    "git": {"commit_hash": "0" * 40, "branch": "main", "repository_url": "git@example.com:a/b"},
}
_PREFIX = "/Users/dev/.asdf/installs/nodejs/22.14.0/lib"


def _message(role: str, text: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "id": None, "role": role, "content": [{"type": part, "text": text}]}


def _legacy_shell(n: int, script: str, output: str, code: int) -> list[dict[str, Any]]:
    """A legacy Codex ``shell`` call and its JSON output (``{"output", "metadata"}``)."""
    args = json.dumps({"command": ["bash", "-lc", script], "workdir": "/Users/dev/eldo"})
    out = json.dumps({"output": output, "metadata": {"exit_code": code, "duration_seconds": 0.6}})
    return [
        {
            "type": "function_call",
            "id": None,
            "name": "shell",
            "arguments": args,
            "call_id": f"c{n}",
        },
        {"type": "function_call_output", "call_id": f"c{n}", "output": out},
    ]


def _legacy_summary(tmp_path: Path, calls: list[tuple[str, str, int]], answer: str) -> str:
    records: list[dict[str, Any]] = [
        _META,
        _message("user", "<environment_context>\nCurrent working directory: /Users/dev/eldo\n"
                 "</environment_context>"),
        _message("user", "make chrome-mcp available globally and check that it works"),
    ]  # fmt: skip
    for n, (script, output, code) in enumerate(calls):
        records += _legacy_shell(n, script, output, code)
    records.append(_message("assistant", answer))
    path = tmp_path / "rollout-legacy.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    t = read_transcript(str(path), path.read_bytes())
    return summarize_transcript(t.messages)


_CHECK = "npm list -g chrome-mcp"
_EMPTY = f"{_PREFIX}\n└── (empty)\n\n"
_INSTALLED = "\nadded 101 packages in 4s\n\n18 packages are looking for funding\n  run `npm fund`\n"


def test_a_check_that_passes_after_an_install_fixed_the_failed_check(tmp_path: Path) -> None:
    """cx-eldorado: ``npm list -g chrome-mcp`` exited 1 ("└── (empty)", no error line: npm's
    prefix path stood in for the error); ``npm install -g chrome-mcp`` added 101 packages; the
    same check exited 0 with ``chrome-mcp@1.0.0``. Section 4 said the later check "failed too
    (its output says: <prefix>)" and the install was nowhere in the summary."""
    text = _legacy_summary(
        tmp_path,
        [
            (_CHECK, _EMPTY, 1),
            ("npm install -g chrome-mcp", _INSTALLED, 0),
            (_CHECK, f"{_PREFIX}\n└── chrome-mcp@1.0.0\n\n", 0),
        ],
        "chrome-mcp is installed globally and answers.",
    )
    errors = section(text, 4)
    assert "failed too" not in errors and "its output says" not in errors, errors
    assert "Fixed" in errors, errors
    assert "npm install -g chrome-mcp" in text and "added 101 packages" in text, text
    header = "eldo@0.1.0 /Users/dev/eldo\n"  # a project's `npm ls`: its name and folder first
    errors = section(
        _legacy_summary(
            tmp_path,
            [
                ("npm ls chrome-mcp", header + "└── (empty)\n", 1),
                ("npm install chrome-mcp", _INSTALLED, 0),
                ("npm ls chrome-mcp", header + "└── chrome-mcp@1.0.0\n", 0),
            ],
            "chrome-mcp is a dependency now.",
        ),
        4,
    )
    assert "failed too" not in errors and "Fixed" in errors, errors


def test_a_retry_that_repeats_the_failures_own_marker_is_not_fixed(tmp_path: Path) -> None:
    """The stand-in line aside, a retry that exits 0 still holds the failure's own marker
    ("(empty)") only when nothing changed; a real error line a later output restates still
    says "failed too" (blind check 23)."""
    text = _legacy_summary(
        tmp_path,
        [
            ("python -m pip install rich", "/usr/bin/python: No module named pip\n", 1),
            ("python - <<'PY'\nimport pip\nPY", "pip missing No module named pip\n", 0),
        ],
        "pip is missing.",
    )
    errors = section(text, 4)
    assert "Fixed" not in errors and "No module named pip" in errors, errors


def _readme(n: int) -> str:
    """A long document whose lines look like results (``Port: 9222``)."""
    lines = [f"# Chrome MCP guide, part {n}", ""]
    lines += [f"Debugging port {n}-{i}: 92{i:02d}" for i in range(12)]
    return "\n".join(lines) + "\n"


def test_an_install_is_kept_before_a_documents_lines(tmp_path: Path) -> None:
    """cx-eldorado (N6): "What commands printed" spent its lines on README text that a wrapped
    ``sed -n 1,200p README.md`` displayed; the install (101 packages) was missing."""
    docs = [(f"sed -n '1,200p' docs/part{n}.md", _readme(n), 0) for n in range(12)]
    smoke = ("node smoke.mjs", "connecting to 127.0.0.1:9222\nsmoke: 3 passed\n", 0)
    calls = [("npm install -g chrome-mcp", _INSTALLED, 0), smoke, *docs]
    text = _legacy_summary(tmp_path, calls, "chrome-mcp is installed; the guide is read.")
    printed = section(text, 5).split("What commands printed:", 1)[1].split("Tool calls (")[0]
    assert "installed chrome-mcp: added 101 packages" in printed, printed
    assert "smoke: 3 passed" in printed, printed  # a result, before a document's lines


def test_each_install_is_one_line_with_the_versions_it_printed() -> None:
    """pip, cargo, brew, apt: one line each, with the versions the manager printed."""
    s = SessionBuilder()
    s.user("set up the tools")
    s.call(
        "Bash",
        {"command": "pip install rich"},
        "Collecting rich\n  Downloading rich-13.7.1-py3-none-any.whl (240 kB)\n"
        "Requirement already satisfied: pygments<3.0.0,>=2.13.0 in /x (from rich) (2.17.2)\n"
        "Installing collected packages: rich\nSuccessfully installed rich-13.7.1\n",
    )
    s.call(
        "Bash",
        {"command": "cargo install ripgrep"},
        "    Updating crates.io index\n  Downloaded ripgrep v14.1.0\n   Compiling memchr v2.7.1\n"
        "   Compiling ripgrep v14.1.0\n    Finished `release` profile [optimized] target(s)\n"
        "  Installing /home/dev/.cargo/bin/rg\n"
        "   Installed package `ripgrep v14.1.0` (executable `rg`)\n",
    )
    s.call(
        "Bash",
        {"command": "sudo apt-get install -y jq"},
        "Reading package lists...\nBuilding dependency tree...\nThe following NEW packages "
        "will be installed:\n  jq libjq1 libonig5\nUnpacking jq (1.6-2.1ubuntu3) ...\n"
        "Setting up libonig5:amd64 (6.9.7.1-2build1) ...\nSetting up jq (1.6-2.1ubuntu3) ...\n"
        "Processing triggers for man-db (2.10.2-1) ...\n",
    )
    s.say("rich, ripgrep and jq are installed.")
    printed = section(summarize_transcript(s.messages), 5)
    assert "pip install rich` → Successfully installed rich-13.7.1" in printed, printed
    assert "→ Installed package `ripgrep v14.1.0`" in printed, printed
    assert "→ installed jq: Setting up jq (1.6-2.1ubuntu3)" in printed, printed
    uv = "Resolved 4 packages in 120ms\nInstalled 1 package in 5ms\n + rich==13.7.1\n"
    assert installed("uv pip install rich", uv) == "installed rich: + rich==13.7.1"
    assert (
        installed("pnpm add -g tsx", "+ tsx 4.7.1\n\nDone in 1.2s\n")
        == "installed tsx: + tsx 4.7.1"
    )
    assert installed("pip install -r requirements.txt", "Successfully installed a-1\n") == ""
    assert installed("npm init -y", "added 1 package\n") == ""  # not `npm i`


# -- N2: pkill / pgrep exit 1 under an error flag --------------------------------------------------


def test_pkill_exit_one_under_an_error_flag_is_no_process_matched() -> None:
    """cc-ying-quant: ``pkill -9 -f …`` exited 1 (nothing matched); Claude Code flags every
    non-zero exit (``is_error``, "Exit code 1"), and section 4 listed it as "Fixed: a later
    Bash: # Pre-launch checklist"."""
    s = SessionBuilder()
    s.user("restart the sweep with the fixed rounding")
    s.call(
        "Bash",
        {"command": "# Kill anything left over\npkill -9 -f 'run_sweep.py --exp mx' 2>/dev/null"},
        "Exit code 1",
        error=True,
    )
    s.call("Bash", {"command": "pgrep -af run_sweep.py"}, "Exit code 1", error=True)
    s.call("Bash", {"command": "# Pre-launch checklist\nnvidia-smi && ls runs/"}, "ok\nruns/a")
    s.say("Nothing was running; the GPU is free.")
    text = summarize_transcript(s.messages)
    errors = section(text, 4)
    assert "pkill" not in errors and "pgrep" not in errors, errors
    assert "failed" not in errors.replace("No tool call failed", ""), errors
    assert "no process matched (exit 1, not a failure)" in section(text, 5), section(text, 5)


def test_pkill_with_an_error_line_or_another_exit_code_stays_a_failure() -> None:
    s = SessionBuilder()
    s.user("stop the sweep")
    s.call(
        "Bash",
        {"command": "pkill -9 -f run_sweep.py"},
        "Exit code 1\npkill: killing pid 4242 failed: Operation not permitted",
        error=True,
    )
    s.call(
        "Bash",
        {"command": "pkill --bogus run_sweep.py"},
        "Exit code 2\npkill: unrecognized option '--bogus'",
        error=True,
    )
    s.say("I cannot stop it.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Operation not permitted" in errors and "exit code 2" in errors, errors


# -- W4: every `test result:` section of one test run ----------------------------------------------


def _cargo_section(target: str, count: int, failed: int = 0) -> str:
    tests = "".join(f"test {target}::case_{i} ... ok\n" for i in range(count - failed))
    tests += "".join(f"test {target}::broken_{i} ... FAILED\n" for i in range(failed))
    verdict = "FAILED" if failed else "ok"
    return (
        f"\nrunning {count} tests\n{tests}\ntest result: {verdict}. {count - failed} passed; "
        f"{failed} failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.02s\n"
    )


def _cargo_output(failed: int = 0) -> str:
    return (
        f"Exit code: {101 if failed else 0}\nWall time: 3.4 seconds\nOutput:\n"
        "   Compiling tf-config v0.1.0 (/w/tf/crates/tf-config)\n"
        "    Finished `test` profile [unoptimized + debuginfo] target(s) in 2.91s\n"
        "     Running unittests src/lib.rs (target/debug/deps/tf_config-1a2b3c)\n"
        + _cargo_section("config", 72, failed)
        + "     Running tests/load.rs (target/debug/deps/load-4d5e6f)\n"
        + _cargo_section("load", 8)
        + "   Doc-tests tf_config\n"
        + _cargo_section("src/lib.rs - Config", 3)
    )


def test_every_test_result_section_of_a_cargo_run_is_kept() -> None:
    """cx-tf: ``cargo test -p tf-config`` printed three sections (72 unit, 8 integration, 3
    doc-tests); "What commands printed" kept only "running 3 tests | test result: ok. 3
    passed", and neither 83 nor 72 appeared in the summary."""
    s = SessionBuilder()
    s.user("run the tf-config tests")
    s.call("shell_command", {"command": "cargo test -p tf-config"}, _cargo_output())
    text = summarize_transcript(s.messages)
    printed = section(text, 5)
    assert "83 passed" in printed and "in 3 targets" in printed, printed
    assert "72 passed" in printed and "8 passed" in printed, printed
    assert "returned: test result: ok. 83 passed" in section(text, 8), section(text, 8)


def test_a_cargo_run_with_a_failed_section_is_a_failure_and_the_tally_says_so() -> None:
    """cargo stops at the first failed target (exit 101): the failure names its section."""
    s = SessionBuilder()
    s.user("run the tf-config tests")
    s.call("shell_command", {"command": "cargo test -p tf-config"}, _cargo_output(failed=2))
    s.say("Two unit tests fail.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "exit code 101" in errors and "70 passed; 2 failed" in errors, errors
    tally = tally_of(_cargo_output(failed=2))
    assert tally.startswith("test result: FAILED. 81 passed; 2 failed; 0 ignored in 3 targets")
    assert "unittests src/lib.rs: 70 passed, 2 failed" in tally, tally
    assert tally_of(_cargo_section("one", 4)) == ""  # one section: its own line says it
