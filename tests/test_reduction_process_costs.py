"""Issue 30 point 5 (``reduce``'s speed): what the process spends besides the pass itself.

The command line ends with ``os._exit``: it runs with the cyclic collector's thresholds of a run
from its start to its end (no young pass every 700 allocations, none over the history at the
end), and keeps its last run, and the streaming pass's scan, to that end instead of freeing
them; a run made through the library (a batch holds every run) keeps nothing it would free.
With the writer process, the scan keeps no result's text that the writer reads from its line
itself (only those whose call id an earlier result had: their files' names need a hash of
them), and the files and the transcript are those of a scan that keeps every text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from compactor._util import _GC_THRESHOLDS, run_without_loop
from compactor.formats.registry import FORMATS
from compactor.reduction import FileOffload, Reduction, ReductionConfig
from compactor.reduction.speculate import Speculator
from compactor.reduction.stream import Scan, StreamResult, scan
from compactor.reduction.stream_reduce import reduce_scanned
from compactor.reduction.writer import ProcessOffload
from compactor.runs.run_plan import RunOptions
from compactor.runs.runner import Run, plan

REPO = Path(__file__).resolve().parent.parent


def _session(path: Path, rounds: int) -> None:
    """An openai session: every fifth call id used again (another result: a hashed name), one
    result again the same as the first of its id, non-ASCII results, a placeholder, a result
    carrying the user's words, a result longer than any truncation limit below."""
    recs: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for i in range(rounds):
        cid = f"call_{i % 5}" if i % 5 == 0 and i else f"call_{i}"
        call = {"id": cid, "type": "function", "function": {"name": "sh", "arguments": "{}"}}
        recs.append({"role": "assistant", "content": f"step {i}", "tool_calls": [call]})
        body = f"out {i} " + ("é✓ " if i % 3 == 0 else "z") * (300 + i)
        if i == 10:
            body = "out 0 " + "é✓ " * 300  # call_0's first result again: the same file
        if i == 4:
            body = "[Old tool result content cleared]"
        if i == 7:
            body = "The user doesn't want to proceed with this tool use. " * 3
        if i == 12:
            body = "y" * 9_000
        recs.append({"role": "tool", "tool_call_id": cid, "content": body})
    recs.append({"role": "assistant", "content": "done"})
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), "utf-8")


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the writer process needs fork")
@pytest.mark.parametrize("limit", [None, 2_000])
def test_with_the_writer_the_scan_keeps_only_the_texts_a_name_needs(
    tmp_path: Path, limit: int | None
) -> None:
    src = tmp_path / "s.jsonl"
    _session(src, 60)
    raw = src.read_bytes()
    fmt: Any = FORMATS["openai"]
    got = []
    for texts in (True, False):
        folder = tmp_path / f"off-{int(texts)}"  # the same length: the same token counts
        backend = ProcessOffload(folder, raw)
        cfg = ReductionConfig(force=True, max_length_for_trunc=limit, backend=backend)
        reduction: Reduction[Any] = Reduction(cfg)
        scanned = scan(str(src), raw, fmt, texts=texts, ahead=Speculator(reduction, backend))
        assert isinstance(scanned, Scan)
        kept = {r.call_id: r.text is not None for r in scanned.results}
        if texts:
            assert all(kept.values())
        else:  # the second result of call_0, call_5, ... keeps its text, no other does
            ids = [r.call_id for r in scanned.results]
            again = {i for i, c in enumerate(ids) if c in ids[:i]}
            assert again and {i for i, r in enumerate(scanned.results) if r.text} == again
            assert all(r.size > 0 for r in scanned.results if r.text is None)
        outcome, data = run_without_loop(reduce_scanned(scanned, raw, reduction, fmt))
        assert data is not None and len(outcome.cleared) > 40
        got.append((data.replace(str(folder).encode(), b"OFF"), _files(folder), outcome.to_dict()))
    assert got[0] == got[1]
    files = got[1][1]
    assert any("-" in name for name in files)  # reused call ids: hashed names
    assert ("trunc/call_12" in files) == (limit is not None)


def _stream_run(tmp_path: Path, held: list[object] | None) -> Run:
    src = tmp_path / "s.jsonl"
    _session(src, 20)
    options = RunOptions(
        input=str(src), output=str(tmp_path / "out.jsonl"), force=True, strategy="reduce"
    )
    run = Run(plan(options))
    run.held = held
    result = run_without_loop(run.execute())
    assert result.exit_code == 0, result.error
    assert result.extras["reduction"]["streamed"] is True
    return run


def test_a_run_made_through_the_library_keeps_nothing_it_would_free(tmp_path: Path) -> None:
    """A batch holds every run it made: none may hold its scan (20,000 records, 40 MB of
    result texts on a 50 MB file) after it ended."""
    assert _stream_run(tmp_path, None).held is None


def test_a_run_given_a_list_keeps_its_scan_in_it(tmp_path: Path) -> None:
    held: list[object] = []
    _stream_run(tmp_path, held)
    assert len(held) == 1 and isinstance(held[0], Scan)
    assert all(isinstance(r, StreamResult) for r in held[0].results)


_PROBE = (
    "import atexit, gc, json, sys\n"
    "where = sys.argv[1]\n"
    "passes = []\n"
    "def report():\n"
    "    from compactor.cli import run\n"
    "    kept = [type(o).__name__ for r in run._KEPT for o in r.held]\n"
    "    json.dump({'passes': len(passes), 'threshold': gc.get_threshold(), 'kept': kept},\n"
    "              open(where, 'w'))\n"
    "atexit.register(report)\n"
    "sys.argv = ['compact', *sys.argv[2:]]\n"
    "from compactor.cli.app import main\n"
    "gc.callbacks.append(lambda phase, info: passes.append(info) if phase == 'start' else None)\n"
    "main()\n"
)


def test_the_command_line_collects_no_garbage_and_frees_no_run_before_it_exits(
    tmp_path: Path,
) -> None:
    """Freeing a 50 MB reduce's scan took 5-10 ms, and the young pass that followed the run's
    end walked the history it still held; the start-up's passes every 700 allocations ~3 ms:
    ``compact`` exits with ``os._exit`` right after, so it spends neither."""
    src, out, seen = tmp_path / "s.jsonl", tmp_path / "out.jsonl", tmp_path / "seen.json"
    _session(src, 20)
    argv = [str(seen), "run", str(src), "--strategy", "reduce", "--force", "-q", "-o", str(out)]
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, cwd=REPO
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(seen.read_text())
    assert got == {"passes": 0, "threshold": list(_GC_THRESHOLDS), "kept": ["Scan"]}
    assert out.stat().st_size > 0


def test_the_clearing_makes_each_placeholder_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The estimate of what clearing frees and the replacement used one placeholder each,
    made twice (8,000 f-strings on the bench file); a result whose file got a hashed name
    (a reused call id: not the name the estimate guessed) gets its own."""
    src = tmp_path / "s.jsonl"
    _session(src, 60)
    raw = src.read_bytes()
    fmt: Any = FORMATS["openai"]
    made: list[str | None] = []
    cleared_text = Reduction.cleared_text

    def counted(self: Reduction[Any], where: str | None) -> str:
        made.append(where)
        return cleared_text(self, where)

    monkeypatch.setattr(Reduction, "cleared_text", counted)
    backend = FileOffload(tmp_path / "off")
    reduction: Reduction[Any] = Reduction(ReductionConfig(force=True, backend=backend))
    scanned = scan(str(src), raw, fmt)
    assert scanned is not None
    made.clear()
    outcome, data = run_without_loop(reduce_scanned(scanned, raw, reduction, fmt))
    assert data is not None
    hashed = [p for p in outcome.offloaded if Path(p).name.count("-") == 1]
    assert len(outcome.cleared) > 40 and hashed
    assert len(made) == 1 + len(outcome.cleared) + len(hashed)  # 1: the longest placeholder
