"""A Claude Code session that ends on the model API's failures says so (blind check 37,
cc-obstruct: the last Read returned, then three ``system/api_error`` records, ConnectionRefused
to the local model endpoint; the summary said the request was "in progress" and not that the
turn died because the model API failed).

The trailing run of ``api_error`` records is read as one ``API Error: …`` assistant message
(``formats/_claude_apierror``) whose origin is those records: every output writes them back
once, as they were (or, in an ``--append`` re-emission, as copies chained like every other
record), and invents no record. The real client's view:
``test_resume_clients.py::test_claude_code_resumes_a_session_that_ended_on_api_errors``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.formats._claude_apierror import API_ERROR_KEY
from compactor.formats.registry import read_transcript
from compactor.models.local_harness import is_harness_error
from compactor.schema import AgenticMessage

from .cc_session import Session, work_session
from .fake_server_cli import invoke
from .test_models_local_session import section

REFUSED = {"code": "ConnectionRefused", "path": "http://10.1.2.3:8080/v1/messages?beta=true"}
LOADING = {
    "status": 503,
    "headers": {},
    "requestID": None,
    "error": {"error": {"message": "Loading model", "type": "unavailable_error"}},
}


def _api_error(s: Session, n: int, shape: str = "refused", sidechain: bool = False) -> None:
    rec: dict[str, Any] = {"type": "system", "subtype": "api_error", "level": "error"}
    if shape == "refused":
        rec["cause"] = {**REFUSED, "errno": 0}
        rec["error"] = {"message": "Connection error.", "cause": {**REFUSED, "errno": 0}}
    else:
        rec["error"] = LOADING
    rec |= {"retryInMs": 500 * n, "retryAttempt": n, "maxRetries": 3}
    s._add(rec)
    if sidechain:
        s.records[-1]["isSidechain"] = True


def _ended_on_api_errors(shape: str = "refused") -> Session:
    s = work_session()
    s.user("Now export the board to CSV.")
    s.call("Read", {"file_path": "/home/dev/board/src/board.ts"}, "export const board = 1;\n" * 5)
    for n in (1, 2, 3):
        _api_error(s, n, shape)
    return s


def _write(s: Session, path: Path) -> bytes:
    raw = b"\n".join(s.lines()) + b"\n"
    path.write_bytes(raw)
    return raw


def _messages(raw: bytes) -> list[AgenticMessage]:
    return [m for m in read_transcript("s.jsonl", raw).messages if isinstance(m, AgenticMessage)]


def _text(msg: AgenticMessage) -> str:
    return "".join(b.text or "" for b in msg.blocks)


def _error_lines(raw: bytes) -> list[bytes]:
    return [line for line in raw.splitlines() if b'"api_error"' in line]


# -- reading --------------------------------------------------------------------------------------


def test_the_trailing_api_errors_are_one_api_error_message() -> None:
    raw = b"\n".join(_ended_on_api_errors().lines()) + b"\n"
    t = read_transcript("s.jsonl", raw)
    last = t.messages[-1]
    assert isinstance(last, AgenticMessage) and last.role == "assistant"
    text = _text(last)
    assert text.startswith("API Error: ConnectionRefused (10.1.2.3:8080) after 3 of 3 retries")
    assert "beta=true" not in text and "/v1/messages" not in text  # the host, not the path
    assert is_harness_error(text)
    assert last.extra[API_ERROR_KEY] == 3 and last.usage is None
    lines = raw.splitlines()
    assert [lines[i] for i in t.meta.origin[-1]] == _error_lines(raw)  # its own records
    assert sum(1 for m in t.messages if m.extra.get(API_ERROR_KEY)) == 1


def test_an_http_error_names_its_status_and_the_apis_message() -> None:
    raw = b"\n".join(_ended_on_api_errors("loading").lines()) + b"\n"
    text = _text(_messages(raw)[-1])
    assert text.startswith("API Error: 503 Loading model after 3 of 3 retries"), text


def test_api_errors_before_a_later_message_or_of_a_sub_agent_add_nothing() -> None:
    """A retried call that then succeeded (its reply follows), and a sub-agent's (sidechain)
    failures after the main chain's last message, say nothing of how the session ended."""
    s = work_session()
    _api_error(s, 1)
    s.say("Retried: the board answers again.")
    _api_error(s, 1, sidechain=True)
    messages = _messages(b"\n".join(s.lines()) + b"\n")
    assert not any(m.extra.get(API_ERROR_KEY) for m in messages)
    assert _text(messages[-1]) == "Retried: the board answers again."


# -- the summary -----------------------------------------------------------------------------------


def test_the_summary_says_the_turn_ended_on_api_errors(tmp_path: Path) -> None:
    src, out = tmp_path / "session.jsonl", tmp_path / "out.jsonl"
    _write(_ended_on_api_errors(), src)
    proc = invoke(["run", "--model", "local", "--force", "--no-cache", str(src), "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    (summary,) = [r["message"]["content"] for r in records if r.get("isCompactSummary")]
    current = section(summary, 8)
    assert "The work on it ended with errors the API or the agent CLI wrote (1)" in current
    assert "API Error: ConnectionRefused (10.1.2.3:8080) after 3 of 3 retries" in current
    assert "API Error" in section(summary, 7)


# -- writing: reduce, hybrid, the kept tail, --append ----------------------------------------------


def _run(tmp_path: Path, src: Path, name: str, *args: str) -> bytes:
    config = tmp_path / "compact.yaml"
    config.write_text("model: {provider: local}\nkeep: {messages: 4}\n", encoding="utf-8")
    out = tmp_path / f"{name}.jsonl"
    argv = ["-c", str(config), "run", "--force", "--no-cache", *args, str(src), "-o", str(out)]
    proc = invoke(argv)
    assert proc.returncode == 0, proc.stderr
    return out.read_bytes()


def _invented(out: bytes) -> list[bytes]:
    """Records of ``out`` holding the notice's text other than our summary (which quotes it)."""
    return [
        line
        for line in out.splitlines()
        if b"API Error" in line and not json.loads(line).get("isCompactSummary")
    ]


def _chain_to_boundary(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The chain Claude Code loads from the last record back to our boundary (every parent
    present, none twice)."""
    by_uuid = {r["uuid"]: r for r in records if isinstance(r.get("uuid"), str)}
    chain: list[dict[str, Any]] = []
    current = records[-1]
    while True:
        assert current["uuid"] not in {r["uuid"] for r in chain}
        chain.append(current)
        parent = current.get("parentUuid")
        if parent is None:
            break
        assert parent in by_uuid, parent
        current = by_uuid[parent]
    assert current.get("subtype") == "compact_boundary"
    return chain[::-1]


@pytest.mark.parametrize(
    "args", [["--strategy", "reduce"], ["--strategy", "hybrid", "--threshold", "3000"], []]
)
def test_the_records_are_written_back_once_as_they_were(tmp_path: Path, args: list[str]) -> None:
    """reduce, hybrid and a summary with a kept tail: each ``api_error`` line once, byte for
    byte, after the message it followed, and no record invented for the notice."""
    src = tmp_path / "session.jsonl"
    raw = _write(_ended_on_api_errors(), src)
    out = _run(tmp_path, src, "out", *args)
    lines = out.splitlines()
    for line in _error_lines(raw):
        assert lines.count(line) == 1
    assert lines[-3:] == _error_lines(raw)  # at their place: the end of the session
    assert not _invented(out)  # the notice is read from them, never written as a record
    assert _text(_messages(out)[-1]).startswith("API Error: ConnectionRefused")
    if b'"compact_boundary"' in out:  # reduce writes the session back as itself
        records = [json.loads(line) for line in lines]
        start = next(i for i, r in enumerate(records) if r.get("subtype") == "compact_boundary")
        _chain_to_boundary(records[start:])


@pytest.mark.parametrize("strategy", ["reduce", "hybrid", "summarize"])
def test_append_keeps_the_records_in_place_or_copies_them_once(
    tmp_path: Path, strategy: str
) -> None:
    """``--append``: the kept tail's records stay in place (the boundary preserves their
    uuids: the notice's records among them); a reduction re-emits each once as a copy, chained
    like the copies of the messages, with nothing but its uuid and parent changed."""
    src = tmp_path / "session.jsonl"
    raw = _write(_ended_on_api_errors(), src)
    extra = {"reduce": ["--strategy", "reduce"], "summarize": []}
    args = extra.get(strategy, ["--strategy", "hybrid", "--threshold", "3000"])
    out = _run(tmp_path, src, "out", *args, "--append")
    assert out.startswith(raw)
    tail = [json.loads(line) for line in out[len(raw) :].splitlines() if line.strip()]
    assert not _invented(out[len(raw) :])
    originals = [json.loads(line) for line in _error_lines(raw)]
    copies = [r for r in tail if r.get("subtype") == "api_error"]
    boundary = next(r for r in tail if r.get("subtype") == "compact_boundary")
    if copies:
        assert len(copies) == 3 and tail[-3:] == copies
        for copy, original in zip(copies, originals, strict=True):
            assert {k: v for k, v in copy.items() if k not in ("uuid", "parentUuid")} == {
                k: v for k, v in original.items() if k not in ("uuid", "parentUuid")
            }
        chain = _chain_to_boundary(tail)
        assert chain[-3:] == copies
    else:  # left in place, named by the boundary after the rest of the kept tail
        preserved = boundary["compactMetadata"]["preservedMessages"]["uuids"]
        assert preserved[-3:] == [r["uuid"] for r in originals]
        assert boundary["compactMetadata"]["preservedSegment"]["tailUuid"] == originals[-1]["uuid"]
    assert boundary["logicalParentUuid"] == originals[-1]["uuid"]
    reread = _messages(out)
    assert _text(reread[-1]).startswith("API Error: ConnectionRefused")
    assert sum(1 for m in reread if m.extra.get(API_ERROR_KEY)) == 1


# -- token counting --------------------------------------------------------------------------------


def test_the_notice_adds_only_its_own_few_tokens_to_the_count(tmp_path: Path) -> None:
    """The count stays anchored on the last assistant usage; the notice (no usage of its own)
    adds the estimate of its text, as a message after that usage does."""
    with_errors, without = tmp_path / "with.jsonl", tmp_path / "without.jsonl"
    raw = _write(_ended_on_api_errors(), with_errors)
    without.write_bytes(
        b"".join(line + b"\n" for line in raw.splitlines() if b"api_error" not in line)
    )
    counts = []
    for path in (without, with_errors):
        proc = invoke(["check", "--json", str(path)])
        counts.append(json.loads(proc.stdout)["tokens"])
    assert 0 < counts[1] - counts[0] <= 60, counts
