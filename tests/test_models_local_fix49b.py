"""Blind check 49 (RELIABILITY rows 2330-2349), by shape, with invented sessions.

W3: Claude Code wrote a tool_result record BEFORE the tool_use record it answers (file order
differs from the ``parentUuid`` chain: parallel calls, a resume). The file tracker paired a
result only with a call already seen, so an Edit that changed README.md left it listed as
"Read, not changed". A result is paired with its call by id, whatever their order.
"""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary

README = "/home/dev/mailbridge/README.md"


def _result_first_session() -> Session:
    s = Session()
    s.user("Document in README.md how the pre-loaded context works, then commit it.")
    s.call("Read", {"file_path": README}, "     1\t# mailbridge\n     2\t\n     3\tBridges mail.")
    s.call(
        "Read",
        {"file_path": "/home/dev/mailbridge/docs/SETUP.md"},
        "     1\t# Setup\n     2\tRun make.",
    )
    key = "toolu_edit_readme"
    s.assistant(
        [
            {
                "type": "tool_use",
                "id": key,
                "name": "Edit",
                "input": {
                    "file_path": README,
                    "old_string": "Bridges mail.",
                    "new_string": "Bridges mail.\n\n### How It Works\n\nContext is pre-loaded.",
                },
            }
        ]
    )
    s.user(
        [
            {
                "type": "tool_result",
                "tool_use_id": key,
                "content": f"The file {README} has been updated successfully.",
            }
        ]
    )
    call, result = s.records[-2], s.records[-1]
    s.records[-2:] = [result, call]  # the result is written first, same chain
    s.call("Bash", {"command": "git add README.md && git commit -m 'docs'"}, "[main 1a2b3c4] docs")
    s.say("README.md documents the pre-loaded context; committed.")
    return s


def test_result_written_before_its_call_still_changes_the_file(tmp_path: Path) -> None:
    summary = cc_summary(_result_first_session(), tmp_path)
    read_only = [ln for ln in summary.splitlines() if "Read, not changed" in ln]
    assert not any("README.md" in ln for ln in read_only), read_only
    assert "README.md" in summary
