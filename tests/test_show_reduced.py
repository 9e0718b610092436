"""``compact show`` of a transcript that was reduced, not summarized (blind check 19: show
exited 2 "it has not been compacted" on every hybrid output under its trigger): it exits 0 and
lists the cleared results and the offload file of each."""

from __future__ import annotations

import json
from pathlib import Path

from .test_reduction_cli import compact, report, write_session


def _reduced(tmp: Path) -> Path:
    write_session(tmp / "s.jsonl", size=500)
    proc = compact(
        tmp, "run", "s.jsonl", "--strategy", "reduce", "--force", "--report", "report.json",
        config={"reduction": {"clear_retention_suffix_limit": 2}},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert report(tmp)["reduction"]["cleared"] == 3
    return tmp / "s.compact.jsonl"


def test_show_of_a_reduced_transcript_lists_its_cleared_results_and_files(
    tmp_path: Path,
) -> None:
    out = _reduced(tmp_path)
    proc = compact(tmp_path, "show", "--no-pager", str(out))
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    lines = text.splitlines()
    assert lines[0] == f"{out} · openai · no summary, 3 reduced result(s) in 13 messages"
    assert (
        "No summary in this transcript: it was reduced, not summarized. 3 tool result(s) cleared"
        in text
    )
    offload = tmp_path / "s.compact.offload"
    for i in range(3):
        file = offload / "clear" / f"call_{i}"
        assert f"· cleared · sh call_{i} → {file}" in text
        assert file.read_text().startswith(f"out {i} zzz")  # the original is where it says
    assert "call_3" not in text and "call_4" not in text  # the retained rounds are not listed
    assert f"Offload folder: {offload}" in text
    assert proc.stderr == b""


def test_show_json_of_a_reduced_transcript(tmp_path: Path) -> None:
    out = _reduced(tmp_path)
    proc = compact(tmp_path, "show", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["summary"] is None and record["format"] == "openai"
    files = [r["file"] for r in record["reduced"]]
    assert files == [str(tmp_path / "s.compact.offload" / "clear" / f"call_{i}") for i in range(3)]
    assert [r["position"] for r in record["reduced"]] == [4, 6, 8]
    assert {r["state"] for r in record["reduced"]} == {"cleared"}


def test_show_of_a_transcript_neither_summarized_nor_reduced_is_still_exit_2(
    tmp_path: Path,
) -> None:
    write_session(tmp_path / "s.jsonl", size=500)
    proc = compact(tmp_path, "show", "s.jsonl")
    assert proc.returncode == 2
    assert "it has not been compacted" in proc.stderr.decode()


def test_show_names_a_truncated_result_and_a_transcript_line(tmp_path: Path) -> None:
    """A truncated result names its offload file; without offload, a cleared one names the
    transcript line that holds it."""
    write_session(tmp_path / "s.jsonl", big=60_000)
    proc = compact(tmp_path, "run", "s.jsonl", "--strategy", "reduce", "-o", "t.jsonl")
    assert proc.returncode == 0, proc.stderr
    proc = compact(tmp_path, "show", "--json", "t.jsonl")
    assert proc.returncode == 0, proc.stderr
    (only,) = json.loads(proc.stdout)["reduced"]
    assert only["state"] == "truncated" and only["call_id"] == "call_2"
    assert Path(only["file"]).read_text().startswith("out 2 zzz")
    write_session(tmp_path / "s.jsonl", size=500)
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--force", "-o", "n.jsonl",
        config={"reduction": {"offload": False, "clear_retention_suffix_limit": 2}},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    proc = compact(tmp_path, "show", "--raw", "n.jsonl")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    assert f"message 4 · cleared · sh call_0 → {tmp_path / 's.jsonl'}, line 4" in text
    assert "Offload folder" not in text
