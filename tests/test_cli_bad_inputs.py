"""Bad inputs never crash ``compact``: one clear error, exit 2, nothing written, input untouched.

The corpus is generated at test time by ``tests/bad_inputs/make_corpus.py``; every case runs
``compact run FILE -o OUT`` in-process (typer's CliRunner), and one ``compact check`` takes every
transcript case at once. The real console script runs once per command (``run --debug`` and
``check`` on a bad file). A property test feeds random bytes and random JSON lines to the
reader, and round-trips generated valid openai-chat transcripts.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compactor.formats.registry import read_transcript, write_transcript

from .fake_server_cli import invoke
from .read_property import check_read
from .transcript_strategies import openai_message

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location(
    "make_corpus", HERE / "bad_inputs" / "make_corpus.py"
)
assert _spec is not None and _spec.loader is not None
make_corpus = importlib.util.module_from_spec(_spec)
sys.modules["make_corpus"] = make_corpus
_spec.loader.exec_module(make_corpus)

COMPACT = str(Path(sys.executable).parent / "compact")
MAX_STDERR_LINES = 25


def _digest(p: Path) -> str | None:
    if not p.is_file() or not os.access(p, os.R_OK) or p.stat().st_mode & 0o777 == 0:
        return None
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _snapshot(folder: Path) -> dict[str, str | None]:
    return {
        str(p.relative_to(folder)): (_digest(p) if p.is_file() else "dir")
        for p in sorted(folder.rglob("*"))
    }


def _invoke(args: list[str], env_extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``compact ARGS`` in-process, with text output."""
    proc = invoke(args, env=env_extra)
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


def _script(args: list[str]) -> subprocess.CompletedProcess[str]:
    """``compact ARGS`` with the installed console script, a fresh interpreter."""
    return subprocess.run(
        [COMPACT, *args],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=60,
        check=False,
    )


def _assert_clean_error(
    proc: subprocess.CompletedProcess[str], expected: int, names: list[str], what: str
) -> None:
    assert proc.returncode == expected, f"{what}: exit {proc.returncode}\n{proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr, f"{what}: traceback without --debug\n{proc.stderr}"
    lines = proc.stderr.splitlines()
    assert len(lines) <= MAX_STDERR_LINES, f"{what}: stderr is {len(lines)} lines"
    assert len(proc.stderr) < 4000, f"{what}: stderr is {len(proc.stderr)} characters"
    if expected != 0:
        for needle in names:
            assert needle in proc.stderr, f"{what}: {needle!r} not in stderr:\n{proc.stderr}"


def _params() -> list[Any]:
    out: list[Any] = []
    for c in make_corpus.CASES:
        marks = []
        if c.xfail:
            marks.append(pytest.mark.xfail(strict=True, reason=c.xfail))
        if c.name == "unreadable_chmod_000" and os.geteuid() == 0:
            marks.append(pytest.mark.skip(reason="root reads chmod-000 files anyway"))
        out.append(pytest.param(c, id=c.name, marks=marks))
    return out


def test_corpus_is_large_enough():
    assert len(make_corpus.CASES) >= 40
    assert len({c.name for c in make_corpus.CASES}) == len(make_corpus.CASES)


def _prepare(case: Any, root: Path) -> dict[str, Any]:
    folder = root / case.name / "in"
    folder.mkdir(parents=True)
    named, extra = case.make(folder)
    out_dir = root / case.name / "out"
    out_dir.mkdir()
    out = out_dir / "out.jsonl"
    env_extra: dict[str, str] = {}
    args = list(extra)
    if "--env" in args:
        i = args.index("--env")
        key, _, value = args[i + 1].partition("=")
        env_extra[key] = value
        del args[i : i + 2]
    if "--output-override" in args:
        i = args.index("--output-override")
        out = Path(args[i + 1])
        del args[i : i + 2]
    source = named if case.kind in ("transcript", "cli") else folder / "t.jsonl"
    return {
        "folder": folder,
        "named": named,
        "out_dir": out_dir,
        "out": out,
        "args": args,
        "env": env_extra,
        "source": source,
        "before": _snapshot(folder),
    }


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Build every case; one ``compact check`` over every transcript case (check takes many
    files and reports each bad one on its own line, then goes on)."""
    root = tmp_path_factory.mktemp("corpus")
    prepared: dict[str, Any] = {c.name: _prepare(c, root) for c in make_corpus.CASES}
    files = [str(prepared[c.name]["source"]) for c in make_corpus.CASES if c.check_code is not None]
    prepared["__check__"] = _invoke(["check", *files], {})
    for c in make_corpus.CASES:
        prepared[c.name]["after_check"] = _snapshot(prepared[c.name]["folder"])
    return prepared


def test_check_batch_is_clean(corpus: dict[str, Any]) -> None:
    proc = corpus["__check__"]
    assert proc.returncode == 2, proc.stderr  # check: 2 when a file could not be read
    assert "Traceback" not in proc.stderr
    # each bad file is one `compact: FILE...` line (which line names which file: test_bad_input)
    lines = proc.stderr.splitlines()
    assert lines and all(line.startswith("compact: ") for line in lines), proc.stderr
    bad = sum(1 for c in make_corpus.CASES if c.check_code == 2 or c.xfail)
    assert len(proc.stderr.splitlines()) <= bad, "more than one stderr line per bad file"


@pytest.mark.parametrize("case", _params())
def test_bad_input(case: Any, corpus: dict[str, Any]) -> None:
    r = corpus[case.name]
    run = _invoke(["run", str(r["source"]), "-o", str(r["out"]), *r["args"]], r["env"])
    names = list(case.stderr_has) if case.kind == "cli" else [r["named"].name, *case.stderr_has]
    _assert_clean_error(run, case.run_code, names, "run")
    out_bytes = r["out"].read_bytes() if r["out"].is_file() else None
    if case.run_code != 0:
        out_files = sorted(x.name for x in r["out_dir"].iterdir())
        assert out_bytes is None, "an output file was created for bad input"
        assert out_files == [], f"stray files in the output folder: {out_files}"
    else:
        assert out_bytes == r["source"].read_bytes()  # not triggered: byte-for-byte copy
    assert _snapshot(r["folder"]) == r["before"], "the input folder changed"
    if case.check_code is not None:
        batch = corpus["__check__"]
        src = str(r["source"])
        if case.check_code == 0:
            assert any(line.startswith(f"{src}: ok") for line in batch.stdout.splitlines())
        else:
            errs = [ln for ln in batch.stderr.splitlines() if src in ln]
            assert len(errs) == 1, f"check: expected one error line for {src}:\n{batch.stderr}"
            assert errs[0].startswith("compact: "), errs[0]
            for needle in names:
                assert needle in errs[0], f"check: {needle!r} not in {errs[0]!r}"
        assert r["after_check"] == r["before"]


def test_debug_shows_traceback_for_bad_input(tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_bytes(b"{not json}\n")
    proc = _script(["run", str(p), "-o", str(tmp_path / "o.jsonl"), "--debug"])
    assert proc.returncode == 2
    assert "Traceback" in proc.stderr
    assert not (tmp_path / "o.jsonl").exists()


def test_check_continues_past_a_bad_file(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_bytes(make_corpus.VALID)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"{oops\n")
    proc = _script(["check", str(bad), str(good)])
    assert proc.returncode == 2
    assert "bad.jsonl:1" in proc.stderr
    assert "good.jsonl" in proc.stdout


# -- properties ------------------------------------------------------------------

FAST = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
roles = st.sampled_from(["system", "user", "assistant", "tool", "developer", "wizard", "", 5, None])
record = st.fixed_dictionaries(
    {},
    optional={
        "role": roles | json_values,
        "content": st.text(max_size=30) | json_values,
        "tool_calls": json_values,
        "tool_call_id": st.text(max_size=5) | json_values,
        # a list or dict "type" once crashed sniffing: see test_sniffing_unhashable_type
        "type": st.sampled_from(["user", "assistant", "message", "response_item"]) | json_scalars,
        "message": json_values,
        "payload": json_values,
        "name": json_values,
    },
)


def _read_ok_or_compactor_error(raw: bytes, fmt: str | None = None) -> None:
    """A read gives a transcript whose re-written bytes read back the same, or our error naming
    the file (:func:`tests.read_property.check_read`)."""
    check_read("prop.jsonl", raw, fmt)


@FAST
@given(st.binary(max_size=400))
def test_random_bytes_never_crash_the_reader(raw):
    _read_ok_or_compactor_error(raw)


@FAST
@given(st.lists(record | json_values, max_size=6))
def test_random_json_lines_never_crash_the_reader(records):
    raw = b"".join(json.dumps(r).encode() + b"\n" for r in records)
    _read_ok_or_compactor_error(raw)


@settings(max_examples=40, deadline=None, database=None)
@given(
    st.lists(record, max_size=4),
    st.sampled_from(["openai", "eino", "claude-code", "codex", "anthropic"]),
)
def test_random_records_never_crash_any_forced_format(records, fmt):
    raw = b"".join(json.dumps(r).encode() + b"\n" for r in records)
    _read_ok_or_compactor_error(raw, fmt)


@FAST
@given(
    st.lists(openai_message, min_size=1, max_size=8),
    st.sampled_from([b"\n", b"\r\n"]),
    st.booleans(),
)
def test_openai_round_trip_is_identity(messages, newline, final_newline):
    # a user message first so detection sees a plain chat transcript
    messages = [{"role": "user", "content": "start"}, *messages]
    raw = newline.join(json.dumps(m, ensure_ascii=False).encode() for m in messages)
    if final_newline:
        raw += newline
    t = read_transcript("rt.jsonl", raw)
    assert t.format == "openai"
    assert write_transcript(t, t.messages) == raw


@pytest.mark.parametrize("value", [[], {}])
def test_sniffing_unhashable_type(value):
    _read_ok_or_compactor_error(json.dumps({"type": value, "payload": {}}).encode() + b"\n")
    # a content block's type too (found by test_damaged_records_never_crash_the_reader)
    block = {"role": "assistant", "content": [{"type": value}]}
    _read_ok_or_compactor_error(json.dumps(block).encode() + b"\n")
