"""Generate the bad-input corpus for ``tests/test_cli_bad_inputs.py`` into a folder.

Nothing here is committed as data: every case (including the 50 MB single line) is written at test
time by :func:`build_all`. Run standalone to inspect the corpus::

    python tests/bad_inputs/make_corpus.py /tmp/corpus

Each :class:`Case` says what a careful tool must do with it: the exit code of ``compact run FILE -o
OUT`` and of ``compact check FILE``, and which substrings stderr must contain (the file name and,
where it applies, the line or the field).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

OK = 0
BAD = 2

SYS = {"role": "system", "content": "You are a helpful assistant."}
USER = {"role": "user", "content": "Please list the files."}
ASSIST = {"role": "assistant", "content": "Sure."}
CALL = {
    "role": "assistant",
    "content": "",
    "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    ],
}
RESULT = {"role": "tool", "tool_call_id": "call_1", "content": "a.txt b.txt"}


def jl(*records: object, nl: bytes = b"\n") -> bytes:
    """JSON lines, one record a line, final newline included."""
    return b"".join(json.dumps(r).encode() + nl for r in records)


VALID = jl(SYS, USER, ASSIST)


@dataclass
class Case:
    """One corpus entry. ``kind``: transcript (bad or odd input file), config, or cli (flags)."""

    name: str
    kind: str
    run_code: int
    check_code: int | None = None
    """``compact check`` exit code; None: not a transcript case, check is not run."""
    stderr_has: list[str] = field(default_factory=list)
    """Substrings stderr must contain (besides the file name, added by the builder)."""
    xfail: str | None = None
    """Reason, when the current CLI disagrees with the expected behaviour (a real bug)."""
    make: Callable[[Path], tuple[Path, list[str]]] | None = None
    """Build the case under a folder; returns (the file named in errors, extra run args)."""


CASES: list[Case] = []


def case(
    name: str,
    kind: str,
    run_code: int,
    check_code: int | None = None,
    stderr_has: list[str] | None = None,
    xfail: str | None = None,
) -> Callable[[Callable[[Path], tuple[Path, list[str]]]], Callable[[Path], tuple[Path, list[str]]]]:
    def deco(
        fn: Callable[[Path], tuple[Path, list[str]]],
    ) -> Callable[[Path], tuple[Path, list[str]]]:
        CASES.append(Case(name, kind, run_code, check_code, stderr_has or [], xfail, fn))
        return fn

    return deco


def transcript(
    name: str,
    data: bytes,
    code: int = BAD,
    stderr_has: list[str] | None = None,
    xfail: str | None = None,
) -> None:
    """A transcript case whose file holds ``data``; check exits like run (0 → 0, 2 → 2)."""

    def make(folder: Path) -> tuple[Path, list[str]]:
        p = folder / f"{name}.jsonl"
        p.write_bytes(data)
        return p, []

    CASES.append(Case(name, "transcript", code, code, stderr_has or [], xfail, make))


# -- transcripts: encoding and framing ------------------------------------------------------------

transcript("empty", b"", stderr_has=["empty"])
transcript("only_whitespace", b"  \n\n\t \r\n", stderr_has=["empty"])
transcript("only_bom", b"\xef\xbb\xbf", stderr_has=["empty"])
transcript("bom_valid", b"\xef\xbb\xbf" + VALID, OK)
transcript("crlf_valid", jl(SYS, USER, ASSIST, nl=b"\r\n"), OK)
transcript("no_final_newline_valid", VALID.rstrip(b"\n"), OK)
transcript("blank_lines_valid", b"\n" + jl(SYS) + b"\n\n" + jl(USER, ASSIST), OK)
transcript("truncated_last_line", VALID + b'{"role": "user", "content": "half', stderr_has=[":4"])
transcript("invalid_json_mid_file", jl(SYS, USER) + b"{not json}\n" + jl(ASSIST), stderr_has=[":3"])
transcript("trailing_comma", jl(SYS) + b'{"role": "user", "content": "x",}\n', stderr_has=[":2"])
transcript(
    "invalid_utf8", jl(SYS) + b'{"role": "user", "content": "\xff\xfe bad"}\n', stderr_has=[":2"]
)
transcript("latin1_file", jl(SYS) + '{"role": "user", "content": "café"}\n'.encode("latin-1"))
transcript("utf16_file", VALID.decode().encode("utf-16"))
transcript("nul_bytes", jl(SYS) + b"\x00\x00\x00\n")
transcript("binary_garbage", bytes(range(256)) * 4)
transcript("json_array_line", jl(SYS) + b"[1, 2, 3]\n", stderr_has=[":2"])
transcript("json_null_line", jl(SYS) + b"null\n", stderr_has=[":2"])
transcript("json_number_line", jl(SYS) + b"42\n", stderr_has=[":2"])
# One JSON document (issue 32): an array of messages is read; an object holding them is not
# guessed at, and pretty-printed records are refused: both say how to convert the file.
transcript("whole_file_json_array", json.dumps([SYS, USER, ASSIST]).encode() + b"\n", OK)
transcript(
    "whole_file_json_object",
    json.dumps({"history": [SYS, USER, ASSIST], "info": {}}, indent=2).encode(),
    stderr_has=["JSON Lines expected (one record per line)", "jq -c '.history[]'"],
)
transcript(
    "pretty_printed_records",
    b"".join(json.dumps(r, indent=2).encode() + b"\n" for r in (SYS, USER, ASSIST)),
    stderr_has=[":1: JSON Lines expected", "jq -c ."],
)
transcript("deep_nesting", jl(SYS) + b"[" * 100_000 + b"]" * 100_000 + b"\n", stderr_has=[":2"])
transcript(
    "deep_nesting_in_content",
    jl(SYS) + b'{"role": "user", "content": ' + b"[" * 50_000 + b"]" * 50_000 + b"}\n",
    stderr_has=[":2"],
)
transcript("markdown_not_jsonl", b"# Notes\n\nuser: hi\nassistant: hello\n")
transcript("yaml_not_jsonl", b"- role: user\n  content: hi\n")

# -- transcripts: fields ---------------------------------------------------------------------------

transcript("role_is_int", jl(SYS, {"role": 5, "content": "x"}), stderr_has=[":2", "role"])
transcript("role_is_null", jl(SYS, {"role": None, "content": "x"}), stderr_has=[":2", "role"])
transcript(
    "content_is_object", jl(SYS, {"role": "user", "content": {}}), stderr_has=[":2", "content"]
)
transcript("content_is_int", jl(SYS, {"role": "user", "content": 7}), stderr_has=[":2", "content"])
# Lenient by design: records the reader does not understand are kept, not rejected.
transcript("unknown_role", jl(SYS, {"role": "wizard", "content": "x"}), stderr_has=[":2", "role"])
transcript("missing_role", jl(SYS, {"content": "x"}), stderr_has=[":2"])
transcript("empty_object", jl(SYS, {}), stderr_has=[":2"])
transcript(
    "tool_calls_not_list",
    jl(SYS, USER, {"role": "assistant", "content": "", "tool_calls": "ls"}),
    stderr_has=[":3", "tool_calls"],
)
transcript(
    "tool_call_no_function",
    jl(SYS, USER, {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "type": "x"}]}),
    OK,
)
transcript(
    "tool_without_tool_call_id",
    jl(SYS, USER, CALL, {"role": "tool", "content": "a.txt"}),
    OK,
)
transcript("duplicated_tool_call_ids", jl(SYS, USER, CALL, RESULT, CALL, RESULT), OK)
transcript("dangling_tool_call", jl(SYS, USER, CALL), OK)
transcript("dangling_tool_call_mid_file", jl(SYS, USER, CALL, USER, ASSIST), OK)
transcript("tool_result_before_call", jl(SYS, USER, RESULT, CALL), OK)
transcript("orphan_tool_result", jl(SYS, USER, RESULT, ASSIST), OK)
transcript("unknown_fields_valid", jl(SYS, {**USER, "x-trace": {"a": [1]}}, ASSIST), OK)
transcript("unicode_and_emoji_valid", jl(SYS, {"role": "user", "content": "héllo 🌍 \u2028"}), OK)
transcript(
    "lone_surrogate_escape",
    jl(SYS) + b'{"role": "user", "content": "bad \\ud800 half"}\n',
    stderr_has=[":2"],
)
transcript(
    "mixed_formats",
    jl(
        SYS,
        USER,
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": "s",
            "message": {"role": "user", "content": "hi"},
        },
    ),
    # lines 1-2 are openai messages: detection picks openai and line 3 is the odd one out
    stderr_has=[":3", "a claude-code record, not openai"],
)
transcript(
    "type_is_list",
    # An odd unknown field on a valid chat message is kept, never an error (issue 8).
    jl(SYS, {"type": [], "role": "user", "content": "x"}),
    code=0,
)
transcript(
    "type_is_object",
    jl(SYS, {"type": {}, "payload": {}}),
    stderr_has=[":2"],
)
transcript(
    "mixed_openai_then_eino",
    jl(SYS, USER, {"role": "assistant", "content": "x", "response_meta": {"finish_reason": 1}}),
    OK,
)


@case("huge_single_line_50mb", "transcript", BAD, BAD, [":1"])
def _huge(folder: Path) -> tuple[Path, list[str]]:
    # 50 MB of one unterminated JSON string on one line, no newline: malformed, must fail fast
    # and must not echo the line into the error.
    p = folder / "huge.jsonl"
    with p.open("wb") as fh:
        fh.write(b'{"role": "user", "content": "')
        chunk = b"a" * (1 << 20)
        for _ in range(50):
            fh.write(chunk)
    return p, []


# -- files that are not files ------------------------------------------------------------------


@case("nonexistent_file", "transcript", BAD, BAD, ["not found"])
def _missing(folder: Path) -> tuple[Path, list[str]]:
    return folder / "no-such-file.jsonl", []


# `run` now treats a directory as a batch of transcripts (then -o is a usage error, exit 2); the
# message is about the flags, so only the exit code and the "nothing written" rules apply here.
@case("directory", "cli", BAD, None, [])
def _directory(folder: Path) -> tuple[Path, list[str]]:
    p = folder / "a-directory.jsonl"
    p.mkdir()
    return p, []


@case("unreadable_chmod_000", "transcript", BAD, BAD, ["permission"])
def _unreadable(folder: Path) -> tuple[Path, list[str]]:
    p = folder / "secret.jsonl"
    p.write_bytes(VALID)
    p.chmod(0)
    return p, []


@case("dangling_symlink", "transcript", BAD, BAD, ["not found"])
def _dangling_symlink(folder: Path) -> tuple[Path, list[str]]:
    p = folder / "link.jsonl"
    p.symlink_to(folder / "gone.jsonl")
    return p, []


# -- config files ------------------------------------------------------------------


def config(
    name: str, text: str, stderr_has: list[str] | None = None, xfail: str | None = None
) -> None:
    def make(folder: Path) -> tuple[Path, list[str]]:
        (folder / "t.jsonl").write_bytes(VALID)
        c = folder / f"{name}.yaml"
        c.write_text(text, encoding="utf-8")
        return c, ["-c", str(c)]

    CASES.append(Case(name, "config", BAD, None, stderr_has or [], xfail, make))


config("cfg_wrong_type_tokens", "trigger:\n  context_tokens: lots\n", ["context_tokens"])
config("cfg_wrong_type_section", "retry: 5\n", ["retry"])
config(
    "cfg_negative_tokens",
    "trigger:\n  context_tokens: -5\n",
    ["context_tokens"],
)
config("cfg_unknown_key", "model:\n  provider: local\ntrigerr:\n  context_tokens: 5\n", ["trigerr"])
config("cfg_unknown_nested_key", "model:\n  provider: local\n  nmae: x\n", ["nmae"])
config(
    "cfg_unset_var",
    "model:\n  provider: openai\n  name: ${COMPACT_NO_SUCH_VAR_X}\n",
    ["COMPACT_NO_SUCH_VAR_X"],
)
config("cfg_bad_counter_import", "token_counter: no_such_pkg_zz.mod:func\n", ["no_such_pkg_zz"])
# Checked up front although the trigger does not fire (the whole config is validated first).
config("cfg_bad_callback_import", "callback: no_such_pkg_zz.mod:func\n", ["no_such_pkg_zz", ":1"])
config("cfg_bad_gen_model_input", "gen_model_input: json:no_such_fn\n", ["no_such_fn", ":1"])
config("cfg_bad_finalize_ref", "finalize: no_such_pkg_zz.mod:f\n", ["no_such_pkg_zz", ":1"])
config(
    "cfg_bad_failover_model",
    "failover:\n  models:\n    - provider: openai\n      timeout: -1\n",
    ["failover.models[0]", "timeout"],
)
config("cfg_counter_attr_missing", "token_counter: json:no_such_func\n", ["no_such_func"])
config("cfg_unknown_provider", "model:\n  provider: martian\n", ["martian", ":2"])
config("cfg_invalid_yaml", "model: [unclosed\n", [])
config("cfg_top_level_list", "- a\n- b\n", [])
config("cfg_binary", "\x00\x01\x02", [])


@case("cfg_missing_file", "config", BAD)
def _cfg_missing(folder: Path) -> tuple[Path, list[str]]:
    (folder / "t.jsonl").write_bytes(VALID)
    c = folder / "nope.yaml"
    return c, ["-c", str(c)]


@case("cfg_env_compact_config_missing", "config", BAD)
def _cfg_env(folder: Path) -> tuple[Path, list[str]]:
    (folder / "t.jsonl").write_bytes(VALID)
    c = folder / "env-nope.yaml"
    return c, ["--env", f"COMPACT_CONFIG={c}"]


# -- flags ------------------------------------------------------------------


@case("flag_unknown_format", "cli", BAD, None, ["fmt-x", "known formats"])
def _bad_format(folder: Path) -> tuple[Path, list[str]]:
    p = folder / "t.jsonl"
    p.write_bytes(VALID)
    return p, ["--format", "fmt-x"]


@case(
    "flag_wrong_format_forced", "cli", BAD, None, ["t.jsonl:1:", "a chat message, not claude-code"]
)
def _wrong_format(folder: Path) -> tuple[Path, list[str]]:
    p = folder / "t.jsonl"
    p.write_bytes(VALID)
    return p, ["--format", "claude-code"]


@case("flag_output_dir_missing", "cli", BAD, None, ["no-dir"])
def _out_missing(folder: Path) -> tuple[Path, list[str]]:
    p = folder / "t.jsonl"
    p.write_bytes(VALID)
    return p, ["--output-override", str(folder / "no-dir" / "out.jsonl")]


def build_all(folder: Path) -> dict[str, tuple[Case, Path, list[str]]]:
    """Build every case under ``folder/<name>/``."""
    out = {}
    for c in CASES:
        sub = folder / c.name
        sub.mkdir(parents=True, exist_ok=True)
        assert c.make is not None
        path, args = c.make(sub)
        out[c.name] = (c, path, args)
    return out


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "corpus")
    for name, (_c, path, _a) in build_all(target).items():
        print(name, path, os.path.getsize(path) if path.is_file() else "-")
