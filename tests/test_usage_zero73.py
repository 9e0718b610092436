"""A usage that measured no context is no baseline (blind check 73 N1).

Claude Code 2.0.10 writes ``{"input_tokens": 0, "output_tokens": N}`` with no cache fields on its
turns: the default counter took the newest one as the size of a 20 K-token history ("23
tokens"), so ``check`` understated it and a forced ``run`` was refused by the loop guard ("the
history is already smaller than its summary would be").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from compactor import Message, Usage
from compactor.counting.tokens import (
    TokenCounterInput,
    baseline_index,
    default_token_counter,
    estimate_message,
)
from compactor.formats.registry import read_transcript
from compactor.formats.streaming import stream_check

from .cc_session import Session

ROOT = Path(__file__).resolve().parents[1]


def _zero_usage_session() -> Session:
    s = Session()
    s.user("Add the login status options to Team.jsx and fix the date navigator.")
    for i in range(8):
        body = "\n".join(f"  const row{i}_{k} = useState(null); // member {k}" for k in range(90))
        s.call("Read", {"file_path": f"/app/src/Team{i}.jsx"}, body)
        s.say(f"Team{i}.jsx keeps the status in local state; the navigator is below.")
    s.say("Done: the status options and the navigator's go() are fixed.")
    for rec in s.records:  # every usage as 2.0.10 wrote them: no input side at all
        message = rec.get("message")
        if rec["type"] == "assistant" and isinstance(message, dict):
            message["usage"] = {"input_tokens": 0, "output_tokens": 23}
    return s


def _write(s: Session, path: Path) -> Path:
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    return path


def test_a_usage_with_no_input_side_is_not_the_context_size(tmp_path: Path) -> None:
    path = _write(_zero_usage_session(), tmp_path / "s.jsonl")
    messages = read_transcript(str(path), path.read_bytes()).messages
    assert baseline_index(messages) == -1
    tokens = default_token_counter(TokenCounterInput(messages))
    text = sum(map(estimate_message, messages))
    assert tokens == text > 5_000


def test_an_older_usage_with_an_input_side_still_counts() -> None:
    messages = [
        Message("user", "x" * 400),
        Message(
            "assistant",
            "a",
            usage=Usage(prompt_tokens=5_000, completion_tokens=10, total_tokens=5_010),
        ),
        Message("user", "y" * 40),
        Message(
            "assistant", "b", usage=Usage(prompt_tokens=0, completion_tokens=23, total_tokens=23)
        ),
    ]
    assert baseline_index(messages) == 1
    assert default_token_counter(TokenCounterInput(messages)) == 5_010 + 10
    # a usage that reports only a total (a reader's compaction size) is still a baseline
    only_total = [Message("user", "x" * 400), Message("assistant", usage=Usage(total_tokens=50))]
    assert baseline_index(only_total) == 1


def test_the_streaming_check_skips_it_too(tmp_path: Path) -> None:
    recs: list[dict[str, Any]] = [{"role": "user", "content": "q " * 2_000}]
    recs.append(
        {
            "role": "assistant",
            "content": "ok",
            "response_meta": {
                "usage": {"prompt_tokens": 0, "completion_tokens": 23, "total_tokens": 23}
            },
        }
    )
    path = tmp_path / "e.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    checked = stream_check(str(path), None, "eino")
    assert checked is not None
    full = read_transcript(str(path), path.read_bytes(), "eino").messages
    assert checked.decision.tokens == default_token_counter(TokenCounterInput(full)) > 900


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)}
    env.pop("COMPACT_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "compactor", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )


def test_check_and_a_forced_run_count_the_text(tmp_path: Path) -> None:
    path = _write(_zero_usage_session(), tmp_path / "s.jsonl")
    check = _cli(tmp_path, "check", str(path))
    assert check.returncode == 0, check.stderr
    assert " 23 tokens" not in check.stdout
    run = _cli(
        tmp_path,
        "run",
        str(path),
        "--model",
        "local",
        "--force",
        "--no-cache",
        "-o",
        str(tmp_path / "out.jsonl"),
    )
    assert run.returncode == 0, run.stderr
    assert "loop guard" not in run.stderr
    assert (tmp_path / "out.jsonl").exists()
