"""``compactor/cli/check.py``: ``check --json`` for every input, colour on a terminal only,
folders, ``--threshold`` and ``--token-counter`` (issue 23, points 5 and 6)."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compactor.cli.app import app

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_transcripts"
SMALL = SAMPLES / "small-chat.jsonl"
CODING = SAMPLES / "coding-session.jsonl"  # 998 tokens (estimate), 23 messages
LONG = SAMPLES / "coding-session-long.jsonl"

YELLOW = "\x1b[1;33mWOULD COMPACT\x1b[0m"
GREEN = "\x1b[32mok\x1b[0m"


def _check(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner(env=env or {}).invoke(app, ["check", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def mixed(tmp_path: Path) -> list[Path]:
    """A good file, a missing one, a malformed one, a folder (two transcripts), a long one."""
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(SMALL, folder / "one.jsonl")
    shutil.copy(CODING, folder / "two.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "hi"}\n{"role": "wizard", "content": "x"}\n')
    return [SMALL, tmp_path / "missing.jsonl", bad, folder, LONG]


def test_json_has_an_object_for_every_input_including_unreadable_ones(mixed: list[Path]) -> None:
    code, out, err = _check("--json", *map(str, mixed))
    assert code == 2  # the highest: a file could not be read
    records = [json.loads(line) for line in out.splitlines()]
    paths = [r["path"] for r in records]
    folder = mixed[3]
    assert paths == [
        str(mixed[0]),
        str(mixed[1]),
        str(mixed[2]),
        str(folder / "one.jsonl"),
        str(folder / "two.jsonl"),
        str(mixed[4]),
    ]
    missing, bad = records[1], records[2]
    assert missing["error"] == f"{mixed[1]}: file not found"
    assert missing["exit_code"] == 2
    assert "role" in bad["error"] and bad["exit_code"] == 2
    for failed in (missing, bad):
        assert failed["triggered"] is None and failed["tokens"] is None
        assert failed["format"] is None and failed["messages"] is None
        assert failed["threshold_tokens"] == 160_000 and failed["counter"] == "estimate"
    good = [r for r in records if r["error"] is None]
    assert len(good) == 4 and all("exit_code" not in r for r in good)
    assert [r["triggered"] for r in good] == [False, False, False, True]
    # the same keys for every object (so `jq 'select(.triggered)'` and friends just work)
    base = set(missing) - {"exit_code"}
    assert all(base <= set(r) for r in records)
    # and the human line of each error still goes to stderr
    assert err.count("compact: ") == 2


def test_json_error_object_for_a_stdin_that_is_not_a_transcript() -> None:
    result = CliRunner().invoke(app, ["check", "--json", "-"], input="not json\n")
    assert result.exit_code == 2
    (record,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert record["path"] == "<stdin>" or record["path"] == "-"
    assert record["error"].startswith("-:1: invalid JSON")


def test_plain_output_has_no_colour_when_stdout_is_not_a_terminal() -> None:
    code, out, _ = _check(str(SMALL), str(LONG), env={"NO_COLOR": "", "TERM": "xterm"})
    assert code == 1
    assert "\x1b" not in out
    assert ": WOULD COMPACT — " in out and ": ok — " in out


def test_force_color_styles_the_verdict_and_no_color_wins() -> None:
    _, out, _ = _check(str(SMALL), str(LONG), env={"FORCE_COLOR": "1"})
    lines = out.splitlines()
    assert lines[0] == f"{SMALL}: {GREEN} — " + lines[0].split(" — ", 1)[1]
    assert lines[1].startswith(f"{LONG}: {YELLOW} — ")
    assert out.count("\x1b[") == 4  # only the two verdicts, each styled and reset
    _, plain, _ = _check(str(SMALL), str(LONG), env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert "\x1b" not in plain
    _, as_json, _ = _check("--json", str(LONG), env={"FORCE_COLOR": "1"})
    assert "\x1b" not in as_json  # JSON is never styled


def test_a_styled_line_still_shows_escapes_in_paths_visibly(tmp_path: Path) -> None:
    hostile = tmp_path / "a\x1b]0;pwned\x07.jsonl"
    shutil.copy(LONG, hostile)
    _, out, _ = _check(str(hostile), env={"FORCE_COLOR": "1"})
    assert "\x1b]0;" not in out and "\\x1b]0;pwned\\x07" in out
    assert YELLOW in out


@pytest.mark.parametrize("no_color", [False, True])
def test_colour_on_a_real_terminal(no_color: bool) -> None:
    """One subprocess on a pseudo-terminal: WOULD COMPACT highlighted, unless NO_COLOR."""
    exe = str(Path(sys.executable).with_name("compact"))
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env["TERM"] = "xterm-256color"
    if no_color:
        env["NO_COLOR"] = "1"
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [exe, "check", str(LONG)],
            stdout=follower,
            stderr=subprocess.PIPE,
            env=env,
            timeout=60,
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    out = b"".join(chunks).decode()
    assert proc.returncode == 1, proc.stderr
    if no_color:
        assert "\x1b" not in out and "WOULD COMPACT" in out
    else:
        assert YELLOW in out


# -- --threshold, --token-counter ------------------------------------------------------------------


def test_threshold_flag_replaces_the_token_trigger() -> None:
    code, out, _ = _check(str(CODING), "--threshold", "500")
    assert code == 1
    assert (
        "WOULD COMPACT" in out and "threshold 500 tokens; 998 tokens > 500 token threshold" in out
    )
    code, out, _ = _check(str(LONG), "--threshold", "300000")
    assert code == 0 and ": ok — " in out


def test_threshold_replaces_a_fraction_but_keeps_a_message_trigger(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("trigger: {context_fraction: 0.5, window_tokens: 1000, context_messages: 20}\n")
    # config alone: 998 > 500 tokens fires
    assert _check(str(CODING), "-c", str(cfg))[0] == 1
    # --threshold 5000 replaces the fraction; 23 messages > 20 still fires
    code, out, _ = _check(str(CODING), "-c", str(cfg), "--threshold", "5000", "--json")
    record = json.loads(out)
    assert code == 1
    assert record["threshold_tokens"] == 5000 and record["threshold_messages"] == 20
    assert "messages" in record["reason"]


def test_threshold_must_be_positive() -> None:
    code, _, err = _check(str(CODING), "--threshold", "0")
    assert code == 2 and "--threshold" in err


def test_token_counter_flag() -> None:
    code, out, _ = _check("--json", str(CODING), "--token-counter", "tiktoken:o200k_base")
    record = json.loads(out)
    assert code == 0
    assert record["counter"] == "tiktoken:o200k_base"
    estimate = json.loads(_check("--json", str(CODING))[1])
    assert record["tokens"] != estimate["tokens"]  # counted differently, exactly
    code, _, err = _check(str(CODING), "--token-counter", "nope")
    assert code == 2
    assert "--token-counter: unknown token counter 'nope'" in err


def test_flags_reach_run_too(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    report = tmp_path / "r.json"
    cfg = tmp_path / "c.yaml"
    cfg.write_text("loop_guard: false\n")  # a summary of 998 tokens is no smaller
    result = CliRunner().invoke(
        app,
        [
            "run",
            str(src),
            "-c",
            str(cfg),
            "--threshold",
            "500",
            "--token-counter",
            "tiktoken:cl100k_base",
            "--model",
            "local",
            "--report",
            str(report),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text())
    assert data["triggered"] is True
    exact = json.loads(_check("--json", str(src), "--token-counter", "tiktoken:cl100k_base")[1])
    assert data["tokens_before"] == exact["tokens"] != 998  # counted with the flag's counter
    plain = CliRunner().invoke(
        app, ["run", str(src), "-c", str(cfg), "--model", "local", "-o", "-"]
    )
    assert plain.stdout.encode() == src.read_bytes()  # without the flag: not triggered


def test_check_lines_use_singular_where_it_is_one(tmp_path: Path) -> None:
    one = tmp_path / "one.jsonl"
    one.write_text('{"role": "user", "content": "hi"}\n')
    _, out, _ = _check(str(one), "--threshold", "1")
    assert re.search(r": ok — openai, 1 message, 0 tokens \(estimate\); threshold 1 token; ", out)
