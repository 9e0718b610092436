"""``compact run --strategy reduce``'s streaming pass (:mod:`compactor.reduction.stream`) against
the general path (every record parsed, :meth:`Reduction.reduce`, the format's writer), on real
files through the real command line: the same output bytes, the same offload files, the same
counts, events and exit codes; the inputs it must leave to the general path go there."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from compactor.runs.run_reduce import INLINE_ENV, STREAM_OFF_ENV

from .fake_server_cli import invoke

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "transcripts" / "openai-chat"


def _call(cid: str, name: str = "sh", args: str = "{}") -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


def _mixed() -> list[dict[str, Any]]:
    """Records of every shape a chat transcript holds: parallel calls, an orphan, a reused id,
    a result of parts (text + image), extra keys, names, reasoning, non-ASCII text, a result
    reduced by an earlier run, a huge result, and content parts in a user message."""
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    big = "line of output ü " * 5_000
    return [
        {"role": "system", "content": "Du bist ein Agent. 上下文"},
        {"role": "user", "content": [{"type": "text", "text": "look"}, image]},
        {"role": "tool", "tool_call_id": "ghost", "content": "orphan output " * 300},
        {"role": "assistant", "content": None, "tool_calls": [_call("p1"), _call("p2", "read")]},
        {"role": "tool", "tool_call_id": "p1", "content": "parallel one " * 400, "name": ""},
        {"role": "tool", "tool_call_id": "p2", "content": [{"type": "text", "text": "x"}, image]},
        {
            "role": "assistant",
            "content": "again",
            "reasoning_content": "think " * 50,
            "tool_calls": [_call("dup", args='{"cmd": "ls"}')],
        },
        {"tool_call_id": "dup", "content": "first dup " * 300, "role": "tool", "name": "sh"},
        {"role": "assistant", "content": "", "tool_calls": [_call("dup")]},
        {"role": "tool", "tool_call_id": "dup", "content": "second dup " * 300, "x_meta": 7},
        {"role": "assistant", "content": "", "tool_calls": [_call("big", "cat")]},
        {"role": "tool", "tool_call_id": "big", "content": big},
        {"role": "assistant", "content": "", "tool_calls": [_call("old")]},
        {"role": "tool", "tool_call_id": "old", "content": "[Old tool result content cleared]"},
        {"role": "user", "content": "now the last step, ça va"},
        {"role": "assistant", "content": "", "tool_calls": [_call("last")]},
        {"role": "tool", "tool_call_id": "last", "content": "kept " * 200},
        {"role": "assistant", "content": "done"},
    ]


def _write(path: Path, recs: list[dict[str, Any]], *, end: str = "\n") -> None:
    path.write_bytes(("\n".join(json.dumps(r, ensure_ascii=False) for r in recs) + end).encode())


def _run(tmp: Path, src: Path, args: list[str], config: dict[str, Any], streaming: bool) -> Any:
    """One run; what a user sees of it (paths made relative to ``tmp``)."""
    (tmp / "c.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    out, folder = tmp / "out.jsonl", tmp / "out.offload"
    out.unlink(missing_ok=True)
    shutil.rmtree(folder, ignore_errors=True)
    env = {"COLUMNS": "100", "NO_COLOR": "1", STREAM_OFF_ENV: None if streaming else "1"}
    argv = ["run", "-c", str(tmp / "c.yaml"), str(src), "--strategy", "reduce", *args]
    argv += ["-o", str(out), "--report", str(tmp / "r.json"), "--events", str(tmp / "e.jsonl")]
    proc = invoke(argv, env=env, cwd=tmp)
    rep = json.loads((tmp / "r.json").read_text())
    reduction = rep.get("reduction") or {}
    streamed = reduction.pop("streamed", None)
    files = {
        str(p.relative_to(tmp)): (p.read_bytes(), p.stat().st_mode & 0o777)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }
    events = [json.loads(x) for x in (tmp / "e.jsonl").read_text().splitlines()]
    for event in events:
        event.pop("elapsed_s", None)
        event.pop("duration_s", None)
        event.pop("time", None)
        event.pop("ts", None)
    seen = {
        "exit": proc.returncode,
        "stderr": proc.stderr.decode(),
        "output": out.read_bytes() if out.exists() else None,
        "files": files,
        "reduction": reduction,
        "counts": [rep.get(k) for k in ("messages_before", "messages_after", "tokens_before",
                                        "tokens_after", "triggered", "format", "error")],
        "events": [e.get("type") for e in events],
        "event_data": [e for e in events if e.get("type") in ("before_reduce", "after_reduce",
                                                              "trigger_checked")],
    }  # fmt: skip
    return streamed, seen


def _both(tmp: Path, src: Path, args: list[str], config: dict[str, Any] | None = None) -> Any:
    before = src.read_bytes()
    streamed, fast = _run(tmp, src, args, config or {}, True)
    parsed, slow = _run(tmp, src, args, config or {}, False)
    assert src.read_bytes() == before
    assert parsed in (False, None)
    for key in fast:
        assert fast[key] == slow[key], key
    return streamed, fast


CASES: list[tuple[str, list[str], dict[str, Any]]] = [
    ("force, offload", ["--force"], {}),
    ("force, no offload", ["--force"], {"reduction": {"offload": False}}),
    ("threshold, truncation", ["--threshold", "1000"],
     {"reduction": {"max_length_for_trunc": 3000}}),
    ("under the threshold", ["--threshold", "10000000"], {}),
    ("under, truncation only", ["--threshold", "10000000"],
     {"reduction": {"max_length_for_trunc": 2000, "trunc_preview_chars": 50}}),
    ("no offload, truncation needs a line", ["--force", "--transcript-path", "none"],
     {"reduction": {"offload": False, "max_length_for_trunc": 2000}}),
    ("retain two, exclude", ["--force"],
     {"reduction": {"clear_retention_suffix_limit": 2, "clear_exclude_tools": ["read"],
                    "trunc_exclude_tools": ["cat"]}}),
    ("retain none", ["--force"], {"reduction": {"clear_retention_suffix_limit": 0}}),
    ("refused: frees too little", ["--force"],
     {"reduction": {"clear_at_least_tokens": 10**9, "max_length_for_trunc": 10**7}}),
    ("a shell reader", ["--force"], {"reduction": {"read_file_tool_name": "shell"}}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "args", "config"), CASES, ids=[c[0] for c in CASES])
def test_streaming_pass_writes_what_the_general_path_writes(
    tmp_path: Path, name: str, args: list[str], config: dict[str, Any]
) -> None:
    src = tmp_path / "s.jsonl"
    _write(src, _mixed())
    streamed, seen = _both(tmp_path, src, args, config)
    assert streamed is True, name
    if name.startswith("refused"):
        assert seen["exit"] == 4 and seen["output"] is None
    else:
        assert seen["exit"] == 0, seen["stderr"]


def test_streaming_pass_on_real_sessions(tmp_path: Path) -> None:
    files = [REPO / "sample_transcripts" / "coding-session.jsonl", *sorted(SHARED.glob("*.jsonl"))]
    for path in files:
        src = tmp_path / path.name
        shutil.copy(path, src)
        for args in (["--force"], ["--threshold", "500"]):
            streamed, seen = _both(tmp_path, src, args)
            assert streamed is True and seen["exit"] == 0, (path.name, seen["stderr"])
            assert seen["output"] is not None


def test_a_rerun_on_its_own_output_changes_nothing_more(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    _write(src, _mixed(), end="")  # no final newline either
    _both(tmp_path, src, ["--force"])
    again = tmp_path / "again.jsonl"
    shutil.copy(tmp_path / "out.jsonl", again)
    streamed, seen = _both(tmp_path, again, ["--force"])
    assert streamed is True and seen["reduction"]["cleared"] == 0


@pytest.mark.parametrize(
    "damage",
    [
        "bom",
        "crlf",
        "blank line",
        "bad json",
        "deep",
        "deep beside long calls",
        "deep beside a long content",
        "not a chat record",
        "bad tool_calls",
        "a list role",
    ],
)
def test_inputs_left_to_the_general_path(tmp_path: Path, damage: str) -> None:
    """What the streaming pass does not read the reader's way is read by the reader: the same
    output, or the same error, as with the streaming pass switched off."""
    recs = _mixed()
    lines = [json.dumps(r).encode() for r in recs]
    if damage == "bom":
        lines[0] = b"\xef\xbb\xbf" + lines[0]
    elif damage == "crlf":
        lines = [line + b"\r" for line in lines]
    elif damage == "blank line":
        lines.insert(3, b"   ")
    elif damage == "bad json":
        lines[4] = lines[4][:-1]
    elif damage == "deep":
        lines[4] = json.dumps({"role": "tool", "tool_call_id": "p1", "x": [[[[0]]]] * 0 + [
            json.loads("[" * 140 + "]" * 140)]}).encode()  # fmt: skip
    elif damage == "deep beside long calls":  # the calls' strings do not hide the nesting
        call = {"id": "dz", "type": "function", "function": {"name": "f", "arguments": "x" * 5000}}
        deep = json.loads("[" * 140 + "]" * 140)
        lines[4] = json.dumps({"role": "assistant", "tool_calls": [call], "meta": deep}).encode()
    elif damage == "deep beside a long content":
        deep = json.loads("[" * 140 + "]" * 140)
        lines[2] = json.dumps({"role": "user", "content": "é" * 5000, "meta": deep}).encode()
    elif damage == "not a chat record":
        lines[2] = json.dumps({"type": "user", "message": {"role": "user"}}).encode()
    elif damage == "a list role":
        lines[5] = json.dumps({"role": ["tool"], "content": "x"}).encode()
    elif damage == "bad tool_calls":
        lines[14] = json.dumps({"role": "user", "content": "hi", "tool_calls": 5}).encode()
    src = tmp_path / "s.jsonl"
    src.write_bytes(b"\n".join(lines) + b"\n")
    streamed, seen = _both(tmp_path, src, ["--force"])
    assert streamed in (False, None)
    if damage in ("bom", "crlf", "blank line"):
        assert seen["exit"] == 0 and seen["output"] is not None
    else:
        assert seen["exit"] != 0 and seen["output"] is None
        assert "s.jsonl" in seen["stderr"]


@pytest.mark.parametrize(
    ("streaming", "inline"),
    [(True, False), (True, True), (False, False)],
    ids=["streaming-writer-process", "streaming-inline", "general"],
)
def test_offload_files_are_made_durable_once_before_the_output_is_renamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streaming: bool, inline: bool
) -> None:
    """No fsync per file: one ``syncfs`` of the offload folder's file system, after the last
    file is written and before the transcript that names them is renamed into place (by the
    writer process when there is one: the spy notes each call in a file, which the forked
    child writes too)."""
    import compactor.reduction.offload as offload
    import compactor.reduction.writer as writer
    from compactor.io import sync_filesystem

    real = sync_filesystem
    out, folder, log = tmp_path / "out.jsonl", tmp_path / "out.offload", tmp_path / "syncs"

    def spy(path: Any) -> None:
        files = [p for p in folder.rglob("*") if p.is_file()]
        with log.open("a") as fh:
            fh.write(json.dumps([out.exists(), len(files), os.getpid()]) + "\n")
        real(path)

    monkeypatch.setattr(offload, "sync_filesystem", spy)
    monkeypatch.setattr(writer, "sync_filesystem", spy)
    monkeypatch.setenv(INLINE_ENV, "1" if inline else "0")
    src = tmp_path / "s.jsonl"
    _write(src, _mixed())
    streamed, result = _run(tmp_path, src, ["--force"], {}, streaming)
    assert result["exit"] == 0, result["stderr"]
    assert streamed is streaming
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    # once, every file written, no output yet; by the writer process or by the run itself
    assert [s[:2] for s in seen] == [[False, len(result["files"])]]
    assert (seen[0][2] != os.getpid()) is (streaming and not inline)
    assert len(result["files"]) == result["reduction"]["offloaded"] > 0
    assert all(mode == 0o600 for _, mode in result["files"].values())


def test_reduction_does_not_import_the_summarizing_pipeline() -> None:
    """``--strategy reduce`` loads no summarizer: ``compactor.reduction`` imports its stacking
    (middleware, retry, tenacity) only when asked for it."""
    import subprocess
    import sys

    code = (
        "import sys, compactor.reduction as r, compactor.reduction.stream\n"
        "assert 'compactor.pipeline.middleware' not in sys.modules, 'middleware'\n"
        "assert 'tenacity' not in sys.modules, 'tenacity'\n"
        "assert r.reduce_then_summarize.__module__ == 'compactor.reduction.stack'\n"
        "assert 'compactor.pipeline.middleware' in sys.modules\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr


_PROBE = (
    "import atexit, sys\n"
    "where = sys.argv[1]\n"
    "def seen():\n"
    "    heavy = ('asyncio', 'tenacity', 'rich', 'compactor.facts',\n"
    "             'compactor.pipeline.finalize')\n"
    "    names = [m for m in heavy if m in sys.modules]\n"
    "    open(where, 'w').write(' '.join(names))\n"
    "atexit.register(seen)\n"
    "sys.argv = ['compact', *sys.argv[2:]]\n"
    "from compactor.cli.app import main\n"
    "main()\n"
)


@pytest.mark.parametrize(
    ("args", "general", "loaded"),
    [
        (["--strategy", "reduce", "-q"], False, ""),
        (["--strategy", "reduce", "-q"], True, ""),  # the general path needs no loop either
        (["--strategy", "reduce"], False, "rich"),  # the final line is rich's to show
        (
            ["--strategy", "summarize", "--model", "local", "-q"],
            False,
            "compactor.facts compactor.pipeline.finalize",  # no loop, no tenacity either
        ),
    ],
    ids=["reduce", "reduce-general", "reduce-not-quiet", "summarize"],
)
def test_reduce_starts_without_asyncio_and_a_quiet_run_without_rich(
    tmp_path: Path, args: list[str], general: bool, loaded: str
) -> None:
    """Issue 30 point 5: start-up is a third of ``reduce``'s time on 50 MB. ``reduce`` awaits
    nothing that needs an event loop and runs without one (asyncio, with ssl and socket, is
    not imported); a quiet run shows nothing and imports no rich; no run of ``reduce`` imports
    the summarizer's finalizer or its fact patterns (~20 ms: checking the config asked the
    finalizer for the user-message budget). What is written is the same
    (the other tests here compare it with the general path)."""
    import os
    import subprocess
    import sys

    src, out, seen = tmp_path / "s.jsonl", tmp_path / "out.jsonl", tmp_path / "seen.txt"
    _write(src, _mixed())
    env = {k: v for k, v in os.environ.items() if k != STREAM_OFF_ENV}
    if general:
        env[STREAM_OFF_ENV] = "1"
    argv = [str(seen), "run", str(src), "--force", "-o", str(out), *args]
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, cwd=REPO, env=env
    )
    assert proc.returncode == 0, proc.stderr
    assert seen.read_text() == loaded
    assert out.stat().st_size > 0


def test_run_without_loop_passes_bare_yields_and_refuses_a_future() -> None:
    """What drives ``reduce``: ``asyncio.sleep(0)`` is passed over; a coroutine that waits on
    a future (it needed a loop after all) gets a RuntimeError raised inside it."""
    import asyncio

    from compactor._util import run_without_loop

    async def sleepy() -> int:
        await asyncio.sleep(0)
        return 5

    assert run_without_loop(sleepy()) == 5

    class Future:
        def __await__(self) -> Any:
            yield self  # as an asyncio future does, to its loop
            return 1

    async def waits() -> str:
        try:
            await Future()
        except RuntimeError as err:
            return str(err)
        return "resumed"

    assert "outside an event loop" in run_without_loop(waits())


def test_stdin_to_stdout_streams_too(tmp_path: Path) -> None:
    """A transcript piped in and out: the same bytes either way, files under
    ``$XDG_DATA_HOME/compact/offload``."""
    src = tmp_path / "s.jsonl"
    _write(src, _mixed())
    outputs = []
    for streaming in (True, False):
        data = tmp_path / ("xdg-a" if streaming else "xdg-b")
        env = {"XDG_DATA_HOME": str(data), STREAM_OFF_ENV: None if streaming else "1"}
        argv = ["run", "-", "-o", "-", "--strategy", "reduce", "--force", "--report", "r.json"]
        proc = invoke(argv, env=env, cwd=tmp_path, stdin=src.read_bytes())
        assert proc.returncode == 0, proc.stderr
        rep = json.loads((tmp_path / "r.json").read_text())
        assert rep["reduction"]["streamed"] is streaming
        folder = data / "compact" / "offload"
        files = {
            str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()
        }
        outputs.append((proc.stdout.replace(str(data).encode(), b"XDG"), files))
    assert outputs[0] == outputs[1]
    assert outputs[0][1]  # files were written


def test_a_line_over_the_input_limit_is_the_same_error_either_way(tmp_path: Path) -> None:
    """The streaming pass reads the input whole, through the same limits as the reader."""
    src = tmp_path / "s.jsonl"
    _write(src, _mixed())
    config = {"input": {"max_line_bytes": 50_000}}
    _, seen = _both(tmp_path, src, ["--force"], config)
    assert seen["exit"] == 2 and seen["output"] is None
    assert "line longer than" in seen["stderr"] and "input.max_line_bytes" in seen["stderr"]
    assert ":12:" in seen["stderr"] or "line 12" in seen["stderr"]  # the huge result's line


SHORT = ["(Bash completed with no output)", "File created successfully at: /w/app.py", "ok"]


@pytest.mark.parametrize("offload", [True, False], ids=["offload", "no offload"])
def test_a_result_shorter_than_its_placeholder_is_kept_on_both_paths(
    tmp_path: Path, offload: bool
) -> None:
    """Clearing "(Bash completed with no output)" would make it longer: such a result stays
    as it is (no file written for it), counted as kept; the longer results are cleared."""
    recs: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    bodies = [*SHORT, "long output " * 200, "more output " * 200]
    for i, body in enumerate([*bodies, "last"]):
        recs.append({"role": "assistant", "content": "", "tool_calls": [_call(f"c{i}")]})
        recs.append({"role": "tool", "tool_call_id": f"c{i}", "content": body})
    src = tmp_path / "s.jsonl"
    _write(src, recs)
    config = {} if offload else {"reduction": {"offload": False}}
    _, seen = _both(tmp_path, src, ["--force"], config)
    assert seen["exit"] == 0, seen["stderr"]
    out = [json.loads(x) for x in seen["output"].decode().splitlines()]
    results = [r["content"] for r in out if r["role"] == "tool"]
    assert results[:3] == SHORT  # kept as they were
    for old, new in zip(bodies[3:], results[3:5], strict=True):
        assert len(new) < len(old) and old not in new
    assert results[5] == "last"  # the retained round
    assert seen["reduction"]["kept"] == 3 and seen["reduction"]["cleared"] == 2
    after = [e for e in seen["event_data"] if e["type"] == "after_reduce"]
    assert after[0]["kept"] == 3 and after[0]["cleared"] == 2
    assert sorted(Path(f).name for f in seen["files"]) == (["c3", "c4"] if offload else [])
