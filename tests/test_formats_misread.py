"""Nothing is read as empty silently (blind check 51, format gaps).

A record of a chat format fits it by its ``role`` alone. A file of another shape whose text sits
under other keys (a Cursor transcript's ``message.content``, a new agent's ``data.text``) was read
as messages with no text: ``check`` said "0 tokens, ok", a summary was refused as not smaller and a
reduction copied the file. Such a file is now refused at its first silent record, naming the key,
with the exit code of a file no format claims — by the full read, the streaming ``check`` and the
streaming reduction alike, detected or forced with ``--format``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.errors import TranscriptError
from compactor.formats.misread import silent_field
from compactor.formats.registry import read_transcript

from .fake_server_cli import invoke


def _unknown_shape(n: int = 8) -> list[dict[str, Any]]:
    """An agent log no format knows: ``{role, data: {text}}`` records (text under ``data``)."""
    out: list[dict[str, Any]] = []
    for i in range(n):
        out.append({"role": "user", "data": {"text": f"Please rename the field number {i}."}})
        out.append({"role": "assistant", "data": {"text": f"Renamed field {i} in models.py."}})
    return out


def _write(tmp_path: Path, records: list[dict[str, Any]], name: str = "t.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_record_with_text_only_under_another_key_is_silent() -> None:
    assert silent_field({"role": "user", "data": {"text": "hi"}}) == "data"
    assert silent_field({"role": "user", "content": "hi", "data": {"text": "x"}}) is None
    assert silent_field({"role": "assistant", "content": None, "tool_calls": [{}]}) is None
    assert silent_field({"role": "assistant", "content": None}) is None  # nothing else either
    assert silent_field({"role": "tool", "tool_call_ids": ["c1"], "meta": 1}) is None
    assert silent_field({"role": "assistant", "content": "", "response_meta": {"u": 1}}) is None


@pytest.mark.parametrize("forced", [None, "openai", "eino"])
def test_a_file_of_silent_records_is_refused_not_read_as_empty(
    tmp_path: Path, forced: str | None
) -> None:
    path = _write(tmp_path, _unknown_shape())
    with pytest.raises(TranscriptError) as caught:
        read_transcript(str(path), path.read_bytes(), forced)
    err = caught.value
    assert (err.line, err.field) == (1, "data")
    assert "16 of 16 records hold no text" in err.message


@pytest.mark.parametrize(
    "args",
    [
        ["check"],
        ["check", "--format", "openai"],
        ["check", "--json"],
        ["run", "--strategy", "reduce", "--no-cache"],
        ["run", "--strategy", "summarize", "--model", "local", "--no-cache"],
        ["run", "--strategy", "reduce", "--format", "openai", "--no-cache"],
        ["eval", "{path}"],
        ["show"],
    ],
)
def test_every_command_refuses_it_with_the_unknown_format_exit_code(
    tmp_path: Path, args: list[str]
) -> None:
    path = _write(tmp_path, _unknown_shape(40))  # past the streaming check's first records
    out = tmp_path / "out.jsonl"
    extra = ["-o", str(out)] if args[0] == "run" else []
    rest = [a.format(path=path) for a in args[1:]]
    result = invoke([args[0], str(path), *rest, *extra])
    unknown = invoke(["check", str(_write(tmp_path, [{"kind": "x"}], "u.jsonl"))])
    assert result.returncode == unknown.returncode == 2, result.stderr
    assert b":1: field 'data': 80 of 80 records hold no text" in result.stderr
    assert not out.exists()


def test_a_few_silent_records_among_messages_are_still_read(tmp_path: Path) -> None:
    """Most records hold text: the odd one with only another key is an empty message, as
    before (the guard is for files of another shape, not for stray records)."""
    records: list[dict[str, Any]] = [{"role": "user", "content": f"question {i}"} for i in range(5)]
    records.append({"role": "user", "data": {"text": "a note"}})
    path = _write(tmp_path, records)
    transcript = read_transcript(str(path), path.read_bytes())
    assert len(transcript.messages) == 6
    assert invoke(["check", str(path)]).returncode == 0
