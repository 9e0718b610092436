"""A format is one module that declares what it is (issue 31 point 1).

Each format module's ``SPEC`` (:class:`~compactor.formats.base.FormatSpec`) is the one place that
says how it is detected (its order and record family), whether ``check`` streams it, whether
``--append`` works, its help line and its harness's read tool. The registry, the error messages,
``check``, ``--append`` (plan, runner, CLI help), the reduction and the generated
``formats/_manifest.py`` (what the command line needs without importing the readers) all come
from there: these tests add a format in memory and see it everywhere, and check the manifest
on disk is what the declarations generate.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import compactor.formats as formats_pkg
from compactor.configfile.strategy import HARNESS_READ_TOOLS
from compactor.formats import registry, streaming
from compactor.formats.base import FormatSpec, OneLineEach, Streaming, TranscriptMeta
from compactor.formats.openai_chat import OpenAIChatFormat, message_from_record
from compactor.formats.registry import FORMATS, KNOWN_FORMATS, read_transcript, render_manifest
from compactor.runs.run_plan import APPEND_FORMATS

ROOT = Path(__file__).resolve().parent.parent
FILES = {
    "openai": ROOT / "sample_transcripts" / "coding-session.jsonl",
    "eino": ROOT / "tests" / "fixtures" / "formats" / "eino.jsonl",
    "anthropic": ROOT / "tests" / "fixtures" / "formats" / "anthropic.jsonl",
    "codex": ROOT / "tests" / "fixtures" / "formats" / "codex.jsonl",
    "claude-code": ROOT / "sample_transcripts" / "claude-code-session.jsonl",
}


def _specs() -> list[FormatSpec]:
    return [f.spec for f in FORMATS.values()]


def test_the_manifest_on_disk_is_generated_from_the_declarations() -> None:
    """``formats/_manifest.py`` is stale when a declaration changed and nobody ran
    ``python -m compactor.formats.registry``."""
    path = Path(registry.__file__).with_name(registry.MANIFEST)
    assert path.read_text("utf-8") == render_manifest(), (
        "formats/_manifest.py is stale: run `python -m compactor.formats.registry`"
    )


def test_every_table_comes_from_the_declarations() -> None:
    specs = _specs()
    assert list(FORMATS) == [s.name for s in sorted(specs, key=lambda s: s.detect_order)]
    assert all(FORMATS[s.name].name == s.name for s in specs)
    listed = sorted(specs, key=lambda s: s.list_order)
    assert formats_pkg.FORMAT_NAMES == tuple(s.name for s in listed)
    assert KNOWN_FORMATS == ", ".join(s.name for s in listed[:-1]) + " and " + listed[-1].name
    assert APPEND_FORMATS == tuple(s.name for s in listed if s.can_append)
    assert formats_pkg.FORMAT_HELP == {s.name: s.help for s in listed}
    assert HARNESS_READ_TOOLS == {s.name: s.read_tool for s in listed if s.read_tool}
    assert streaming.STREAM_FORMATS == {s.name: s.streaming for s in specs if s.streaming}
    assert registry._CALL_KEYS == {k: v for s in specs for k, v in s.call_keys.items()}
    assert registry._RESULT_KEYS == {k: v for s in specs for k, v in s.result_keys.items()}


def test_the_cli_help_and_completion_are_generated() -> None:
    from compactor.cli.common import FORMAT_OPTION_HELP, complete_format
    from compactor.cli.run import APPEND_OPTION_HELP

    assert FORMAT_OPTION_HELP.endswith(": " + ", ".join(formats_pkg.FORMAT_NAMES) + ".")
    assert APPEND_OPTION_HELP.startswith(", ".join(APPEND_FORMATS) + ": keep the session")
    assert complete_format("c") == [
        (s.name, s.help) for s in sorted(_specs(), key=lambda s: s.list_order) if s.name[0] == "c"
    ]


class _Probe(OpenAIChatFormat):
    """A throwaway format: openai records under another name, appendable, streamed."""

    spec = FormatSpec(
        name="probe-fmt",
        help="a format added by a test",
        detect_order=45,
        list_order=90,
        family="chat",
        roles=("user", "assistant"),
        streaming=Streaming(message_from_record),
        can_append=True,
        read_tool="cat",
    )
    name = "probe-fmt"


def test_a_declared_format_reaches_the_generated_manifest(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a new format declares is what the command line will show: its name listed last
    (its ``list_order``), its help line, ``--append``, its read tool."""
    monkeypatch.setattr(registry, "_DECLARED", (*registry._DECLARED, _Probe()))
    text = render_manifest()
    namespace: dict[str, Any] = {}
    exec(compile(text, "_manifest.py", "exec"), namespace)
    assert namespace["FORMAT_NAMES"] == (*formats_pkg.FORMAT_NAMES, "probe-fmt")
    assert namespace["APPEND_FORMATS"] == (*APPEND_FORMATS, "probe-fmt")
    assert namespace["FORMAT_HELP"]["probe-fmt"] == "a format added by a test"
    assert namespace["READ_TOOLS"]["probe-fmt"] == "cat"


def test_record_checks_follow_the_declared_family_and_roles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``_family`` checks a chat format's records against the roles it declares."""
    from compactor.errors import TranscriptError
    from compactor.formats import _family

    monkeypatch.setitem(FORMATS, "probe-fmt", _Probe())
    monkeypatch.setattr(_family, "_SPECS", {})
    ok = b'{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "yes"}\n'
    assert read_transcript("p.jsonl", ok, format="probe-fmt").format == "probe-fmt"
    with pytest.raises(TranscriptError, match="unknown probe-fmt role 'tool'"):
        read_transcript("p.jsonl", ok + b'{"role": "tool", "content": "x"}\n', format="probe-fmt")
    monkeypatch.setattr(_family, "_SPECS", {})


@pytest.mark.parametrize("name", list(FILES))
def test_transcript_meta_is_one_typed_structure(name: str) -> None:
    """Every reader fills the same :class:`TranscriptMeta`: each message's origin is a sequence
    of line indexes (openai, eino and anthropic too: one line each), never a bare int."""
    t = read_transcript(str(FILES[name]), FILES[name].read_bytes())
    assert t.format == name
    assert isinstance(t.meta, TranscriptMeta)
    assert len(t.meta.origin) == len(t.messages)
    for where in t.meta.origin:
        assert isinstance(where, Sequence)
        assert all(isinstance(i, int) and 0 <= i < len(t.meta.lines) for i in where)
    assert {f.name for f in dataclasses.fields(TranscriptMeta)} == {
        "lines",
        "origin",
        "start",
        "snapshot",
        "json_document",
        "matches",
        "unknown",
    }
    assert all(isinstance(kind, str) for kind, _, _ in t.meta.unknown)


def test_one_line_each_is_a_sequence_of_one_element_tuples() -> None:
    seq = OneLineEach(3)
    assert list(seq) == [(0,), (1,), (2,)]
    assert seq[-1] == (2,) and seq[1:] == [(1,), (2,)]
    assert seq == [[0], [1], [2]] and seq != [[0], [1]]
    with pytest.raises(IndexError):
        seq[3]
