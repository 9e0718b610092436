"""Blind check 60 (W2): a text block Claude Code writes beside a tool result in one user record
(ToolSearch's "Tool loaded.") is the harness's, never the user's words: no request, not among
the user's messages, never "sent N times"."""

from __future__ import annotations

from pathlib import Path

from compactor.facts import entries_of
from compactor.formats.registry import read_transcript

from .cc_session import Session, cc_summary
from .test_models_local_session import section

HARNESS = "Widget loaded."


def _session() -> Session:
    s = Session()
    s.user("Rename the ledger export to CSV and keep the column order.")
    for i in range(4):
        call = f"toolu_find{i}"
        search = {"type": "tool_use", "id": call, "name": "ToolSearch"}
        s.assistant([{**search, "input": {"query": f"select:Tool{i}"}}])
        found = [{"type": "tool_reference", "tool_name": f"Tool{i}"}]
        s.user(
            [
                {"type": "tool_result", "tool_use_id": call, "content": found},
                {"type": "text", "text": HARNESS},
            ]
        )
        s.bash(f"grep -n column ledger/export_{i}.py", f"{i + 3}: COLUMNS = ['date', 'amount']")
    s.say("The ledger export writes CSV now; the column order is unchanged.")
    return s


def test_text_beside_a_tool_result_is_not_a_user_message(tmp_path: Path) -> None:
    text = cc_summary(_session(), tmp_path)
    assert HARNESS not in text, text
    six = " ".join(section(text, 6).split())
    assert "Rename the ledger export to CSV" in six, six
    assert "sent 4 times" not in text, text


def test_the_record_keeps_its_text_and_results(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(_session().lines()) + b"\n")
    messages = read_transcript(str(path), path.read_bytes()).messages
    entries = entries_of(messages)
    users = [e.text for e in entries if e.role == "user" and e.text and not e.injected]
    assert users == ["Rename the ledger export to CSV and keep the column order."], users
    assert sum(len(e.results) for e in entries) == 8
