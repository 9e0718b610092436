"""``compact eval`` follows a reduced transcript's placeholders (blind check 71 N6: hb_nos's
reduce output scored 84.2, "failures shown" 0, although the failing ``git log`` result was
offloaded and its placeholder named the file that held it exactly). A result the reduction
replaced counts as kept only when the named file (an offload file, or the transcript line the
placeholder names) exists and holds exactly the original result; else it is lost, and the
table and ``--json`` say which placeholder did not resolve and why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .cc_session import Session
from .fake_server_cli import invoke
from .test_reduction_jobs import chat_with_results

FILLER = "line of build output that says nothing in particular\n" * 120


def _outputs(n: int) -> list[str]:
    """``n`` long results, each with its own failure line and identifiers among the filler."""
    return [
        f"{FILLER}error: cannot open shared object libprobe{k}.so (exit code {40 + k})\n"
        f"build id bld_{k}x7q9z3 in /srv/ci/run-{k}/out.log\n{FILLER}"
        for k in range(n)
    ]


def _cc_session(src: Path) -> Path:
    s = Session()
    s.user("Find why the probe build fails on the CI runners and report the cause.")
    for k, text in enumerate(_outputs(5)):
        s.bash(f"make probe-{k}", text)
    s.assistant([{"type": "text", "text": "The probe libraries are not installed on the runners."}])
    src.write_bytes(b"\n".join(s.lines()) + b"\n")
    return src


def _chat_session(src: Path) -> Path:
    request = "Find why the probe build fails on the CI runners and report the cause."
    return chat_with_results(src, request, _outputs(5))


def _reduce(src: Path, out: Path, *extra: str) -> None:
    proc = invoke(["run", "--strategy", "reduce", "--force", "--no-cache", *extra,
                   str(src), "-o", str(out)])  # fmt: skip
    assert proc.returncode == 0, proc.stderr


def _eval(original: Path, compacted: Path) -> dict[str, Any]:
    proc = invoke(["eval", "--json", str(original), str(compacted)])
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def _kept(report: dict[str, Any]) -> dict[str, tuple[int, int]]:
    return {c["name"]: (c["kept"], c["total"]) for c in report["categories"]}


@pytest.mark.parametrize("make", [_cc_session, _chat_session], ids=["claude-code", "openai-chat"])
def test_a_reduce_output_with_every_offload_file_intact_scores_as_the_original(
    tmp_path: Path, make: Any
) -> None:
    src = make(tmp_path / "s.jsonl")
    out = tmp_path / "out.jsonl"
    _reduce(src, out)
    assert "out.offload" in out.read_text("utf-8")  # results were offloaded
    itself, reduced = _eval(src, src), _eval(src, out)
    assert reduced["placeholders"]["resolved"] >= 3, reduced["placeholders"]
    assert reduced["placeholders"]["missing"] == 0
    assert reduced["score"] == itself["score"], (_kept(reduced), _kept(itself))
    assert _kept(reduced) == _kept(itself)
    table = invoke(["eval", str(src), str(out)])
    assert table.returncode == 0, table.stderr
    assert b"missing/changed" in table.stdout and b" 0 missing/changed" in table.stdout


def test_a_deleted_or_altered_offload_file_loses_what_it_held(tmp_path: Path) -> None:
    src = _cc_session(tmp_path / "s.jsonl")
    out = tmp_path / "out.jsonl"
    _reduce(src, out)
    whole = _eval(src, out)
    files = sorted((tmp_path / "out.offload").rglob("*"))
    files = [f for f in files if f.is_file()]
    assert len(files) >= 3, files
    newest = [f for f in files if b"libprobe3" in f.read_bytes() or b"libprobe2" in f.read_bytes()]
    assert len(newest) == 2, files  # the last rounds' results, whose facts eval looks for
    newest[0].unlink()
    after_delete = _eval(src, out)
    assert after_delete["score"] < whole["score"]
    assert after_delete["placeholders"]["missing"] == 1
    assert after_delete["placeholders"]["not_resolved"][0]["why"] == "no such file"
    newest[1].write_bytes(newest[1].read_bytes().replace(b"libprobe", b"libprobX"))
    after_change = _eval(src, out)
    assert after_change["score"] < after_delete["score"]
    assert after_change["placeholders"]["missing"] == 2
    whys = {x["why"] for x in after_change["placeholders"]["not_resolved"]}
    assert whys == {"no such file", "changed: its bytes are not the original result"}
    table = invoke(["eval", str(src), str(out)])
    assert table.returncode == 0, table.stderr
    assert b"2 missing/changed" in table.stdout and b"no such file" in table.stdout


def test_a_transcript_line_placeholder_resolves_only_while_the_line_is_the_original(
    tmp_path: Path,
) -> None:
    """Without an offload folder, Eino's placeholder names the transcript line of the result."""
    src = _chat_session(tmp_path / "s.jsonl")
    named = tmp_path / "named.jsonl"
    named.write_bytes(src.read_bytes())
    cfg = tmp_path / "c.yaml"
    cfg.write_text("reduction:\n  offload: false\n", "utf-8")
    out = tmp_path / "out.jsonl"
    _reduce(named, out, "-c", str(cfg))
    assert "the full result is in the transcript" in out.read_text("utf-8")
    itself, reduced = _eval(src, src), _eval(src, out)
    assert reduced["placeholders"]["missing"] == 0 and reduced["placeholders"]["resolved"] >= 3
    assert reduced["score"] == itself["score"]
    lines = named.read_bytes().splitlines()
    last = max(i for i, line in enumerate(lines) if b"libprobe3" in line)
    lines[last] = lines[last].replace(b"libprobe3", b"libprobeX")
    named.write_bytes(b"\n".join(lines) + b"\n")
    changed = _eval(src, out)
    assert changed["placeholders"]["missing"] == 1, changed["placeholders"]
    assert changed["score"] < itself["score"]
    named.unlink()
    gone = _eval(src, out)
    assert gone["placeholders"]["resolved"] == 0
    assert {x["why"] for x in gone["placeholders"]["not_resolved"]} == {"no such file"}
