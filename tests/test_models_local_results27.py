"""Blind check 27 (W1, W2, N2; RELIABILITY rows 1230-1249): reading command results right. A
"Killed …" line a command echoed is no SIGKILL report; a failure's stand-in line (no error line
matched) is no error a retry "restated"; ``pkill``/``pgrep`` exit 1 under an error flag is "no
process matched". Every session is built here, by shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

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


# -- W2: a failure's stand-in line is no error a retry restated ---------------------------------

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
