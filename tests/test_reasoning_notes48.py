"""The agent's working notes of a turn that stopped mid-work (blind check 48 N1: a Codex
read-only audit stopped after 30 calls; its findings lived only in the tool results and in the
reasoning summaries, "noting calendar data is plaintext which is a critical gap", and the local
summary kept none of them). Sessions are invented here, by shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.formats.registry import read_transcript
from compactor.models.local_notes import NOTES_TITLE
from compactor.schema import REASONING_NOTES_KEY

from .cc_session import Session, cc_summary
from .codex_rollout import codex_say, codex_summary, codex_user, rec
from .test_codex_legacy import ASK, ENV, META, STATE, _round, _text
from .test_reduction_cli import compact

SECRET = "sk-ant-api03-AbCdEf0123456789_abcdefGHIJ-xyzKLMN"


def _reasoning(*texts: str, encrypted: bool = True) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "reasoning", "summary": []}
    item["summary"] = [{"type": "summary_text", "text": t} for t in texts]
    if encrypted:
        item["encrypted_content"] = "gAAAAB" + "x" * 2_000
    return rec("response_item", item)


def _shell(n: int, command: str, output: str) -> list[dict[str, Any]]:
    call = {"type": "function_call", "name": "shell", "call_id": f"call_{n}"}
    call["arguments"] = json.dumps({"command": ["bash", "-lc", command]})
    out = {"type": "function_call_output", "call_id": f"call_{n}", "output": output}
    return [rec("response_item", call), rec("response_item", out)]


def _audit(answered: bool = False, earlier: bool = False) -> list[dict[str, Any]]:
    """A read-only audit: reasoning summaries between reads, stopped mid-work (``answered``:
    it ended with a report; ``earlier``: an earlier answered turn had notes of its own)."""
    records: list[dict[str, Any]] = []
    if earlier:
        records += [
            codex_user("list the crates"),
            _reasoning("**Listing crates** Noting the old-turn-note about Cargo workspaces."),
            codex_say("The workspace has three crates."),
        ]
    records.append(codex_user("audit how the app stores secrets; read only, change nothing"))
    records.append(_reasoning("**Inspecting storage** Checking how tokens are stored."))
    records += _shell(1, "rg -n keyring src", "src/vault.rs:12: keyring::Entry::new(")
    records.append(
        _reasoning("Noting calendar data is plaintext which is a critical gap. The rest is fine.")
    )
    records += _shell(2, "sed -n 1,40p src/calendar.rs", "CREATE TABLE events (title TEXT)")
    records.append(_reasoning(f"Found the demo token {SECRET} in debug builds only."))
    records += _shell(3, "rg -n rotate src", "src/keys.rs:40: fn rotate_keys() {")
    if answered:
        records.append(codex_say("Audit done: calendar data is stored in plaintext."))
    return records


def test_codex_notes_of_a_mid_work_turn_are_kept_in_order(tmp_path: Path) -> None:
    text = codex_summary(_audit(), tmp_path, "a1", "/w")
    assert NOTES_TITLE in text
    current = text.split("8. Current Work")[1].split("9. ")[0]
    first = current.index("Checking how tokens are stored.")
    assert first < current.index("calendar data is plaintext which is a critical gap")
    assert current.index("critical gap") < current.index("debug builds only")
    assert SECRET not in text  # masked like the rest of the summary
    assert "gAAAAB" not in text


def test_codex_notes_of_an_answered_turn_are_not_added(tmp_path: Path) -> None:
    text = codex_summary(_audit(answered=True), tmp_path, "a2", "/w")
    assert NOTES_TITLE not in text
    assert "Checking how tokens are stored" not in text


def test_codex_notes_of_an_earlier_turn_are_not_kept(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    records = [rec("session_meta", {"id": "a3", "cwd": "/w"}), *_audit(earlier=True)]
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    messages = read_transcript(str(path), path.read_bytes()).messages
    notes = messages[-1].extra[REASONING_NOTES_KEY]
    assert isinstance(notes, list)
    assert len(notes) == 3 and "old-turn-note" not in json.dumps(notes)
    text = codex_summary(_audit(earlier=True), tmp_path, "a3", "/w")
    assert NOTES_TITLE in text and "old-turn-note" not in text


def test_codex_encrypted_only_reasoning_adds_nothing(tmp_path: Path) -> None:
    records = [
        codex_user("audit how the app stores secrets"),
        _reasoning(),
        *_shell(1, "rg -n keyring src", "src/vault.rs:12: keyring"),
        _reasoning(),
        *_shell(2, "rg -n token src", "src/auth.rs:3: token"),
    ]
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    messages = read_transcript(str(path), path.read_bytes()).messages
    assert REASONING_NOTES_KEY not in messages[-1].extra
    assert NOTES_TITLE not in codex_summary(records, tmp_path, "a4", "/w")


def test_notes_are_bounded_newest_chosen_shown_in_order(tmp_path: Path) -> None:
    records: list[dict[str, Any]] = [codex_user("audit the modules")]
    for n in range(20):
        records.append(_reasoning(f"Note number {n:02d} says module {n} is fine. " * 4))
        records += _shell(n, f"cat m{n}.py", f"def f{n}(): pass")
    text = codex_summary(records, tmp_path, "a5", "/w")
    block = text.split(NOTES_TITLE)[1].split("\n   - ")[0]
    shown = [n for n in range(20) if f"Note number {n:02d}" in block]
    assert shown and shown[-1] == 19 and len(shown) <= 8
    assert shown == sorted(shown) and shown == list(range(shown[0], 20))
    assert len(block) <= 1_700


def _cc(answered: bool = False, earlier: bool = False) -> Session:
    s = Session()
    if earlier:
        s.user("what is in src?")
        s.assistant([{"type": "thinking", "thinking": "The old-turn-note.", "signature": "c2ln"}])
        s.say("Three modules.")
    s.user("audit how the app stores secrets; read only")
    s.assistant(
        [{"type": "thinking", "thinking": "Calendar rows look plaintext.", "signature": "c2ln"}]
    )
    s.bash("rg -n keyring src", "src/vault.rs:12: keyring::Entry::new(")
    s.assistant([{"type": "thinking", "thinking": "", "signature": "c2lnbmF0dXJl"}])
    s.assistant([{"type": "redacted_thinking", "data": "RURBQ1RFRA=="}])
    s.bash("sed -n 1,40p src/calendar.rs", "CREATE TABLE events (title TEXT)")
    if answered:
        s.say("Audit done: calendar rows are plaintext.")
    return s


def test_claude_code_thinking_of_a_mid_work_turn_is_kept(tmp_path: Path) -> None:
    text = cc_summary(_cc(earlier=True), tmp_path)
    assert NOTES_TITLE in text
    block = text.split(NOTES_TITLE)[1].split("\n   - ")[0]
    assert "Calendar rows look plaintext." in block
    assert "old-turn-note" not in text
    assert "RURBQ1RFRA" not in text and "c2lnbmF0dXJl" not in text


def test_claude_code_thinking_of_an_answered_turn_is_not_added(tmp_path: Path) -> None:
    assert NOTES_TITLE not in cc_summary(_cc(answered=True), tmp_path)


@pytest.mark.parametrize("extra", [(), ("--append",)])
@pytest.mark.parametrize("harness", ["codex", "claude"])
def test_the_notes_key_is_never_written(
    tmp_path: Path, harness: str, extra: tuple[str, ...]
) -> None:
    src = tmp_path / "s.jsonl"
    if harness == "codex":
        records = [rec("session_meta", {"id": "a6", "cwd": "/w"}), *_audit()]
        for n in range(4):  # something for reduce to clear
            records += _shell(10 + n, f"cat big{n}.txt", "line of text\n" * 400)
        src.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    else:
        s = _cc()
        for n in range(4):
            s.bash(f"cat big{n}.txt", "line of text\n" * 400)
        src.write_bytes(b"\n".join(s.lines()) + b"\n")
    for strategy in ("reduce", "summarize"):
        out = tmp_path / f"out-{strategy}.jsonl"
        proc = compact(
            tmp_path, "run", "s.jsonl", "--strategy", strategy, "--force", "--model", "local",
            *extra, "-o", out.name,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        written = out.read_text(encoding="utf-8")
        assert REASONING_NOTES_KEY not in written and "_compactor_" not in written
        if strategy == "summarize" and harness == "codex" and not extra:  # through finalize
            assert "working notes in this turn" in written and SECRET not in written


def test_a_legacy_rollouts_bare_reasoning_items_are_read_too() -> None:
    rounds = [item for n in range(3) for item in _round(n)]
    rounds[0]["summary"] = [{"type": "summary_text", "text": "Noting the score is never saved."}]
    records = [META, STATE, _text("user", ENV), _text("user", "old"), _text("user", ASK), *rounds]
    raw = b"".join(json.dumps(r).encode() + b"\n" for r in records)
    messages = read_transcript("legacy.jsonl", raw).messages
    assert messages[-1].extra[REASONING_NOTES_KEY] == ["Noting the score is never saved."]


def test_the_reader_keeps_the_newest_notes_of_a_long_turn(tmp_path: Path) -> None:
    records = [rec("session_meta", {"id": "a7", "cwd": "/w"}), codex_user("audit")]
    for n in range(100):
        records += [_reasoning(f"Note {n}."), *_shell(n, f"cat m{n}.py", "pass")]
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    notes = read_transcript(str(path), path.read_bytes()).messages[-1].extra[REASONING_NOTES_KEY]
    assert notes == [f"Note {n}." for n in range(36, 100)]
