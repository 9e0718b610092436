"""Issue 27.16: a transcript read holds at most ``input.max_line_bytes`` per line and
``input.max_bytes`` in all.

``compact check /dev/zero`` and an endless ``yes … |`` into ``check`` or ``run`` used to read
until memory ran out. Now every read (stdin, a pipe or device, a streamed or locked regular file,
``check``'s streaming pass) stops as soon as it passes a limit: exit 2 naming the file, the line
and the limit. The endless inputs run as real subprocesses, their peak RSS measured with
``wait4`` (and an address-space limit, so a regression fails fast instead of swapping).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from compactor.errors import TranscriptError
from compactor.sizes import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINE_BYTES, InputLimits, LineGuard

from .fake_server_cli import compact_exe, invoke
from .measure import run_measured

MiB = 1 << 20
_RECORD = b'{"role":"user","content":"x"}'


def _measured(
    args: list[str], stdin: int | None = None, timeout: float = 60
) -> tuple[int, str, float, float]:
    """``run_measured`` of ``compact ARGS``."""
    return run_measured([compact_exe(), *args], stdin=stdin, timeout=timeout)


def _config(tmp: Path, **limits: int) -> Path:
    cfg = tmp / "compact.yaml"
    cfg.write_text(yaml.safe_dump({"input": limits}), encoding="utf-8")
    return cfg


# -- endless inputs, as real processes --------------------------------------------------------


@pytest.mark.parametrize("command", ["check", "run"])
def test_dev_zero_stops_at_the_default_line_limit_in_bounded_memory(
    tmp_path: Path, command: str
) -> None:
    """One endless line: refused once 256 MiB of it are read, never much more held."""
    args = [command, "/dev/zero"] + (
        ["-o", str(tmp_path / "out.jsonl")] if command == "run" else []
    )
    code, stderr, elapsed, peak_mib = _measured(args)
    assert code == 2, stderr
    assert "/dev/zero:1: line longer than 256 MiB (input.max_line_bytes)" in stderr
    assert stderr.startswith("compact: ")
    assert elapsed < 30, elapsed  # ~0.5 s here
    # the 256 MiB held plus the ~25 MiB a run starts with (~280 MiB here)
    assert peak_mib < DEFAULT_MAX_LINE_BYTES / MiB + 64, f"peak RSS {peak_mib:.0f} MiB"
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize(
    "args",
    [["check", "-"], ["check", "/dev/stdin"], ["run", "-", "-o", "out.jsonl"]],
    ids=["check-stdin", "check-streamed-pipe", "run-stdin"],
)
def test_an_endless_pipe_of_short_records_stops_at_max_bytes(
    tmp_path: Path, args: list[str]
) -> None:
    """``yes '{"role":"user","content":"x"}' | compact …`` with ``input.max_bytes: 32 MiB``:
    every line is fine, the whole never ends; refused at 32 MiB, the process stays small."""
    cfg = _config(tmp_path, max_bytes=32 * MiB)
    yes = subprocess.Popen(["yes", _RECORD.decode()], stdout=subprocess.PIPE)
    assert yes.stdout is not None
    try:
        argv = [args[0], "-c", str(cfg), *args[1:]]
        argv = [str(tmp_path / a) if a == "out.jsonl" else a for a in argv]
        code, stderr, elapsed, peak_mib = _measured(argv, stdin=yes.stdout.fileno())
    finally:
        yes.stdout.close()
        yes.kill()
        yes.wait()
    assert code == 2, stderr
    assert "input larger than 32 MiB (input.max_bytes)" in stderr
    assert elapsed < 30, elapsed
    # what is held (at most 32 MiB) plus the ~40 MiB a run starts with; a copy more would pass it
    assert peak_mib < 32 + 64, f"peak RSS {peak_mib:.0f} MiB"
    assert not (tmp_path / "out.jsonl").exists()


# -- the limits at their edges, in-process ----------------------------------------------------


def _line_of(size: int) -> bytes:
    """A valid openai record of exactly ``size`` bytes."""
    pad = size - len(b'{"role":"user","content":""}')
    return b'{"role":"user","content":"' + b"a" * pad + b'"}'


def _transcript(tmp: Path, long_line: int) -> Path:
    path = tmp / "t.jsonl"
    lines = [
        b'{"role":"system","content":"s"}',
        _line_of(long_line),
        b'{"role":"user","content":"y"}',
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


_CAP = 100_000


@pytest.mark.parametrize(
    "mode",
    [
        "check",
        "check-explain",
        "check-stdin",
        "check-anthropic",
        "run",
        "run-in-place",
        "run-stdin",
    ],
)
@pytest.mark.parametrize("over", [0, 1])
def test_a_line_at_the_limit_passes_one_byte_more_is_exit_2(
    tmp_path: Path, mode: str, over: int
) -> None:
    cfg = _config(tmp_path, max_line_bytes=_CAP)
    src = _transcript(tmp_path, _CAP + over)
    before = src.read_bytes()
    stdin = b""
    target = str(src)
    if mode.endswith("stdin"):
        stdin, target = before, "-"
    command = mode.split("-")[0]
    args = [command, "-c", str(cfg), target]
    if mode == "check-explain":
        args += ["--explain", "--model", "local"]
    if mode == "check-anthropic":
        args += ["--format", "anthropic"]  # not streamed: the full read
    if command == "run":
        args += ["--force", "--model", "local", "-q"]
        args += ["--in-place"] if mode == "run-in-place" else ["-o", str(tmp_path / "out.jsonl")]
    env = {"NO_COLOR": "1", "XDG_DATA_HOME": str(tmp_path / "data")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    proc = invoke(args, env=env, cwd=tmp_path, stdin=stdin)
    stderr = proc.stderr.decode()
    if not over:
        assert proc.returncode in (0, 1), stderr  # check: 1 = would compact
        assert "max_line_bytes" not in stderr
        return
    assert proc.returncode == 2, stderr
    name = "-" if mode.endswith("stdin") else str(src)
    assert f"{name}:2: line longer than 100,000 bytes (input.max_line_bytes)" in stderr
    assert src.read_bytes() == before
    assert not (tmp_path / "out.jsonl").exists()


def test_a_regular_file_over_max_bytes_is_refused_before_it_is_read(tmp_path: Path) -> None:
    src = _transcript(tmp_path, 1_000)
    size = src.stat().st_size
    cfg = _config(tmp_path, max_bytes=size - 1)
    for args in (["check", str(src)], ["run", str(src), "-o", str(tmp_path / "o.jsonl")]):
        proc = invoke([args[0], "-c", str(cfg), *args[1:]], cwd=tmp_path)
        stderr = proc.stderr.decode()
        assert proc.returncode == 2, stderr
        assert f"input larger than {size - 1:,} bytes (input.max_bytes): {size:,} bytes" in stderr
    cfg = _config(tmp_path, max_bytes=size)
    assert invoke(["check", "-c", str(cfg), str(src)], cwd=tmp_path).returncode == 0


def test_line_guard_counts_lines_across_blocks() -> None:
    guard = LineGuard("f", InputLimits(max_line_bytes=10, max_bytes=1_000))
    for block in (b"12345\n1234567", b"890\n\n", b"123", b"4567890"):  # line 2 is exactly 10
        guard.feed(block)
    with pytest.raises(TranscriptError) as err:
        guard.feed(b"1\n")  # line 4 reaches 11 bytes
    assert str(err.value) == "f:4: line longer than 10 bytes (input.max_line_bytes)"
    total = LineGuard("g", InputLimits(max_line_bytes=10, max_bytes=12))
    total.feed(b"123456\n12345")  # 12 bytes: at the limit
    with pytest.raises(
        TranscriptError, match=r"^g: input larger than 12 bytes \(input.max_bytes\)"
    ):
        total.feed(b"\n")


# -- the config section ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "input:\n  max_bytes: 0\n",
            "2: key 'input.max_bytes': input.max_bytes must be a positive",
        ),
        (
            "input:\n  max_line_bytes: -5\n",
            "2: key 'input.max_line_bytes': input.max_line_bytes must be a positive number of "
            "bytes, got -5",
        ),
        ("input:\n  max_lines: 3\n", "2: unknown key 'max_lines'; did you mean 'max_line_bytes'?"),
    ],
)
def test_a_bad_input_section_is_exit_2_naming_file_line_and_key(
    tmp_path: Path, body: str, message: str
) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(body, encoding="utf-8")
    src = _transcript(tmp_path, 100)
    for args in (["check", str(src)], ["run", str(src), "-o", str(tmp_path / "o.jsonl")]):
        proc = invoke([args[0], "-c", str(cfg), *args[1:]], cwd=tmp_path)
        assert proc.returncode == 2
        assert f"{cfg}:{message}" in proc.stderr.decode()
        assert not (tmp_path / "o.jsonl").exists()


def test_config_show_has_the_input_section_apart_from_the_spend_limits(tmp_path: Path) -> None:
    proc = invoke(["config", "show", "--json"], cwd=tmp_path, env={"COMPACT_CONFIG": None})
    data = json.loads(proc.stdout)
    assert data["input"] == {
        "max_line_bytes": DEFAULT_MAX_LINE_BYTES,
        "max_bytes": DEFAULT_MAX_BYTES,
    }
    assert "input" not in (data.get("limits") or {})
    cfg = _config(tmp_path, max_line_bytes=4 * MiB)
    data = json.loads(invoke(["config", "show", "--json", "-c", str(cfg)], cwd=tmp_path).stdout)
    assert data["input"] == {"max_line_bytes": 4 * MiB, "max_bytes": DEFAULT_MAX_BYTES}
