"""Signals (issue 15, SPEC §9.5): SIGINT, SIGTERM and SIGHUP exit 130, 143 and 129, leave
nothing half-written, and the last stderr line (and the report) say truthfully what was written.

Each test runs a real process: the installed console script while the model call hangs, or
``tests/crash_child.py`` held just before or just after the rename of the output, so the signal
lands there however busy the machine is.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from compactor.testing.fake_openai import FakeOpenAI, hang

from .crash_child import COMPACT, child_env, held, parses_fully, temps, wait_for
from .fake_server_cli import default_sigint


@pytest.mark.parametrize("in_place", [False, True])
def test_sigint_during_model_call_exits_130_and_writes_nothing(tmp_path, in_place):
    src = tmp_path / "s.jsonl"
    src.write_bytes(
        b'{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "hello"}\n'
    )
    original = src.read_bytes()
    out = tmp_path / "out.jsonl"
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"archive_dir: {tmp_path / 'archive'}\n")
    target = ["--in-place"] if in_place else ["-o", str(out)]
    with FakeOpenAI(default=hang()) as fake:
        proc = subprocess.Popen(
            [
                COMPACT,
                "run",
                str(src),
                *target,
                "--force",
                "-c",
                str(cfg),
                "--model",
                "openai:gpt-4o-mini",
            ],
            env=child_env({"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-test"}),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=default_sigint,
        )
        deadline = time.monotonic() + 30
        while not fake.requests and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert fake.requests, "the model was never called"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err.decode(errors="replace")
    assert b"Traceback" not in err
    said = "written: archive " + str(tmp_path / "archive") if in_place else "nothing was written"
    assert err.decode().splitlines()[-1].startswith(f"compact: interrupted by SIGINT; {said}")
    assert len(err.decode(errors="replace").splitlines()) <= 25
    assert not out.exists()
    assert src.read_bytes() == original
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


def _default_signals() -> None:
    """``preexec_fn``: the signals the test sends back to their default action (a shell may
    start the test run with them ignored, and ignored signals stay ignored across exec)."""
    for sig in SIGNALS:
        signal.signal(sig, signal.SIG_DFL)


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_signal_during_the_model_call_exits_128_plus_n_and_says_what_was_written(tmp_path, sig):
    src = tmp_path / "s.jsonl"
    src.write_bytes(
        b'{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "hello"}\n'
    )
    original = src.read_bytes()
    report = tmp_path / "r.json"
    with FakeOpenAI(default=hang()) as fake:
        proc = subprocess.Popen(
            [
                *(COMPACT, "run", str(src), "--in-place", "--force", "--report", str(report)),
                *("--model", "openai:gpt-4o-mini"),
            ],
            env=child_env({"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-test"}),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=_default_signals,
        )
        deadline = time.monotonic() + 30
        while not fake.requests and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert fake.requests, "the model was never called"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    text = err.decode(errors="replace")
    assert proc.returncode == 128 + sig, text
    assert "Traceback" not in text
    name = signal.Signals(sig).name
    rep = json.loads(report.read_text())
    archived = rep["written"]["archive"]  # --in-place archived the original first
    assert text.strip().splitlines()[-1] == (
        f"compact: interrupted by {name}; written: archive {archived}"
    )
    assert rep["exit_code"] == 128 + sig and rep["error"] == f"interrupted by {name}"
    assert Path(archived).read_bytes() == original
    assert src.read_bytes() == original
    assert temps(tmp_path) == []


def _signal_at_the_rename(
    tmp_path: Path, sig: int, side: str, in_place: bool
) -> tuple[subprocess.Popen[bytes], str, Path, bytes]:
    work = tmp_path / "work"
    work.mkdir()
    src = work / "session.jsonl"
    # long answers: a forced compaction must not grow the file (loop_guard.max_growth)
    lines = [
        {"role": role, "content": f"{role} {i} " * (20 if role == "user" else 200)}
        for i in range(20)
        for role in ("user", "assistant")
    ]
    src.write_bytes(b"".join(json.dumps(x).encode() + b"\n" for x in lines))
    original = src.read_bytes()
    out = src if in_place else work / "out.jsonl"
    target = ["--in-place"] if in_place else ["-o", str(out)]
    marker = tmp_path / "held"
    argv, env = held(
        ["run", str(src), *target, "--force", "--model", "local", "-q"], side, out, marker
    )
    proc = subprocess.Popen(
        argv,
        env=child_env(env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=_default_signals,
    )
    wait_for(marker, proc)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    return proc, err.decode(errors="replace"), out, original


@pytest.mark.parametrize("side", ["before", "after"])
@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_signal_at_the_rename_is_reported_truthfully(tmp_path, sig, side):
    # The case: Ctrl-C during the final write said "nothing was written" when the file
    # was in fact written. Held just before os.replace, the signal leaves the target as it was
    # and the temp file is removed; just after, the target is complete and the line says so.
    proc, err, out, _ = _signal_at_the_rename(tmp_path, sig, side, in_place=False)
    assert proc.returncode == 128 + sig, err
    last = err.strip().splitlines()[-1]
    name = signal.Signals(sig).name
    assert temps(out.parent) == []
    if side == "before":
        assert not out.exists()
        assert last == f"compact: interrupted by {name}; nothing was written"
    else:
        assert parses_fully(out)
        assert last == f"compact: interrupted by {name}; written: output {out}"


@pytest.mark.parametrize("side", ["before", "after"])
def test_sigterm_at_the_in_place_rename_is_reported_truthfully(tmp_path, side):
    proc, err, src, original = _signal_at_the_rename(tmp_path, signal.SIGTERM, side, True)
    assert proc.returncode == 143, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("compact: interrupted by SIGTERM; written: archive ")
    archived = Path(last.split("written: archive ", 1)[1].split(";")[0].split(", ")[0])
    assert archived.read_bytes() == original
    assert temps(src.parent) == []
    if side == "before":
        assert src.read_bytes() == original
        assert last.endswith(f"; not written: output {src}")
    else:
        assert src.read_bytes() != original and parses_fully(src)
        assert last.endswith(f", output {src}")
