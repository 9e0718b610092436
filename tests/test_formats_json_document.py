"""Transcripts stored as one JSON document (issue 32, point 6): a JSON array of messages is
read in every chat format and written back as one array in the input's style; an object
holding the list under a key, and pretty-printed records, get an error that says how to
convert them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.errors import TranscriptError
from compactor.formats.registry import read_transcript, write_transcript
from compactor.schema import Message

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "formats"
LONG = REPO / "sample_transcripts" / "coding-session-long.jsonl"
CHAT = {
    "openai": REPO / "sample_transcripts" / "coding-session.jsonl",
    "eino": FIXTURES / "eino.jsonl",
    "anthropic": FIXTURES / "anthropic.jsonl",
}
STYLES: dict[str, dict[str, Any]] = {
    "indented": {"indent": 2},
    "tabs": {"indent": "\t"},
    "compact": {"separators": (",", ":")},
    "spaced": {},
}
EXPECTED = "JSON Lines expected (one record per line); this file is one JSON document"


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _array(records: list[Any], style: str) -> bytes:
    return (json.dumps(records, ensure_ascii=False, **STYLES[style]) + "\n").encode()


@pytest.mark.parametrize("style", list(STYLES))
@pytest.mark.parametrize("fmt", list(CHAT))
def test_an_array_reads_as_its_lines_and_writes_back_in_its_style(fmt: str, style: str) -> None:
    lines = CHAT[fmt].read_bytes()
    raw = _array(_records(CHAT[fmt]), style)
    as_lines = read_transcript("x.jsonl", lines, fmt)
    as_array = read_transcript("x.json", raw)  # detected, not forced
    assert as_array.format == fmt
    assert as_array.messages == as_lines.messages
    # nothing changed: the same bytes, in the same style
    assert write_transcript(as_array, as_array.messages) == raw
    # a compacted history is one array in the same style
    summary = Message(role="user", content="Summary: the user asked for X; Y was done.")
    out = write_transcript(as_array, [summary, *as_array.messages[-1:]])
    records = json.loads(out)
    assert isinstance(records, list) and len(records) >= 2
    assert out == _array(records, style)
    again = read_transcript("y.json", out)
    assert again.format == fmt and again.messages[-1] == as_array.messages[-1]


def test_compact_run_writes_an_array_beside_an_array(tmp_path: Path) -> None:
    src = tmp_path / "log.json"
    src.write_bytes(_array(_records(LONG), "indented"))
    before = src.read_bytes()
    result = CliRunner().invoke(app, ["run", str(src), "--model", "local"])
    assert result.exit_code == 0, result.output
    out = tmp_path / "log.compact.json"
    assert f"→ {out}" in result.stderr + result.stdout
    records = json.loads(out.read_bytes())
    assert isinstance(records, list) and 1 < len(records) < len(_records(LONG))
    assert out.read_bytes() == _array(records, "indented")
    assert src.read_bytes() == before
    check = CliRunner().invoke(app, ["check", str(src)])
    assert check.exit_code == 1, check.output
    assert "openai, 132 messages" in check.stdout


def test_an_untriggered_array_passes_through_byte_for_byte(tmp_path: Path) -> None:
    src = tmp_path / "log.json"
    src.write_bytes(_array(_records(CHAT["openai"]), "compact"))
    out = tmp_path / "out.json"
    result = CliRunner().invoke(app, ["run", str(src), "--model", "local", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == src.read_bytes()


def test_a_bad_element_names_the_line_where_it_starts(tmp_path: Path) -> None:
    records: list[Any] = _records(CHAT["openai"])[:4]
    records[2] = {"role": "wizard", "content": "hi"}
    src = tmp_path / "bad.json"
    src.write_bytes(_array(records, "indented"))
    starts = [n for n, line in enumerate(src.read_text().splitlines(), start=1) if line == "  {"]
    with pytest.raises(TranscriptError) as err:
        read_transcript(str(src), src.read_bytes())
    assert err.value.line == starts[2]
    assert "(element 3 of the JSON array)" in str(err.value)
    records[2] = "not an object"
    src.write_bytes(_array(records, "indented"))
    result = CliRunner().invoke(app, ["run", str(src), "--model", "local"])
    assert result.exit_code == 2
    assert "expected a JSON object, got str (element 3 of the JSON array)" in result.stderr
    assert "jq -c '.[]'" in result.stderr


@pytest.mark.parametrize(
    ("name", "key", "wrapper"),
    [
        ("tau-bench.json", "traj", lambda m: {"task_id": 48, "reward": 1.0, "traj": m}),
        ("swe-agent.traj", "history", lambda m: {"history": m, "info": {"exit": "submitted"}}),
    ],
)
@pytest.mark.parametrize("command", ["run", "check"])
def test_an_object_holding_the_messages_is_not_guessed_at(
    tmp_path: Path, name: str, key: str, wrapper: Any, command: str
) -> None:
    messages = _records(CHAT["openai"])
    src = tmp_path / name
    src.write_text(json.dumps(wrapper(messages), indent=2))
    before = sorted(os.listdir(tmp_path))
    model = ["--model", "local"] if command == "run" else []
    result = CliRunner().invoke(app, [command, str(src), *model])
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1
    assert EXPECTED in line
    assert f"an object whose {key!r} holds {len(messages)} records" in line
    assert f"jq -c '.{key}[]' {src}" in line
    assert sorted(os.listdir(tmp_path)) == before


def test_pretty_printed_records_get_the_jsonl_hint(tmp_path: Path) -> None:
    src = tmp_path / "pretty.jsonl"
    src.write_text("".join(json.dumps(r, indent=2) + "\n" for r in _records(CHAT["openai"])[:3]))
    for args in (["run", str(src), "--model", "local"], ["check", str(src)]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, result.output
        assert f"{src}:1: JSON Lines expected (one record per line)" in result.stderr
        assert f"jq -c . {src} > {tmp_path / 'pretty.lines.jsonl'}" in result.stderr
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"role": "user", "content": "hi"}, indent=2))
    result = CliRunner().invoke(app, ["check", str(one)])
    assert result.exit_code == 2
    assert EXPECTED in result.stderr and "jq -c ." in result.stderr


@pytest.mark.parametrize(
    "source", [CHAT["openai"], LONG, FIXTURES / "codex.jsonl"], ids=["openai", "long", "codex"]
)
def test_a_last_line_cut_short_is_called_incomplete_not_pretty_printed(
    tmp_path: Path, source: Path
) -> None:
    # a JSONL file copied while an agent was still writing it: the last record stops in the
    # middle, without a final newline; the hint is to wait or drop that line, not jq -c
    whole = source.read_bytes().rstrip(b"\n")
    last = whole.rsplit(b"\n", 1)[1]
    src = tmp_path / "live.jsonl"
    src.write_bytes(whole[: len(whole) - len(last) // 2])
    before = src.read_bytes()
    n = before.count(b"\n") + 1
    for args in (["run", str(src), "--model", "local", "--force"], ["check", str(src)]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, result.output
        line = result.stderr.strip()
        assert f"{src}:{n}: this line (the last line) is incomplete" in line, line
        assert "the file ends in the middle of a record" in line
        assert "pretty-printed" not in line and "jq -c" not in line
        assert f"head -n -1 {src} > " in line
    assert src.read_bytes() == before
    fixed = tmp_path / "fixed.jsonl"
    fixed.write_bytes(b"\n".join(before.split(b"\n")[:-1]) + b"\n")  # what head -n -1 writes
    assert CliRunner().invoke(app, ["check", str(fixed)]).exit_code in (0, 1)
    # a pretty-printed file without a final newline still gets the jq hint
    pretty = tmp_path / "pretty.jsonl"
    pretty.write_text(
        "".join(json.dumps(r, indent=2) + "\n" for r in _records(CHAT["openai"])[:3]).rstrip()
    )
    result = CliRunner().invoke(app, ["check", str(pretty)])
    assert result.exit_code == 2 and "jq -c ." in result.stderr, result.stderr
