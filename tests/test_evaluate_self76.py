"""``compact eval`` of a transcript against itself scores 100 on every measure (blind check 76
N6: sk_react's hybrid output, byte-identical to its input, scored 96.9: items derived as
"The user rejected this call: …" or ``/update-config change model to sonnet`` were looked for
in the raw text, which holds them only in another form)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.runs.evaluate import evaluate_files

from .cc_session import Session as CcSession
from .conftest import shared_transcript_files
from .fake_server_cli import invoke

_BARE = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was "
    "a file edit, the new_string was NOT written to the file). STOP what you are doing and wait "
    "for the user to tell you how to proceed."
)
_WORDS = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was "
    "a file edit, the new_string was NOT written to the file). To tell you how to proceed, the "
    "user said:\nSave this plan to a markdown file inside the project repo"
)


def _assert_full(path: Path) -> None:
    found = evaluate_files(str(path), str(path))
    lost = {c.name: [i for i in c.items if i.score < 1.0] for c in found.categories}
    assert not any(lost.values()), (path.name, lost)
    assert found.score == 100.0, (path.name, found.score)


def test_a_session_with_rejections_and_a_command_scores_100_against_itself(tmp_path: Path) -> None:
    s = CcSession()
    s.user("Design the app and save the plan.")
    s.call("ExitPlanMode", {"plan": "# Plan\n1. a"}, _WORDS, error=True)
    s.call("Write", {"file_path": "/home/dev/app/PLAN.md", "content": "# Plan"}, "File created")
    s.call("ExitPlanMode", {"plan": "# Plan\n1. a"}, _BARE, error=True)
    s.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
    s.user(
        "<command-message>update-config</command-message>\n<command-name>/update-config"
        "</command-name>\n<command-args>change model to sonnet</command-args>"
    )
    s.say("I'm in plan mode, so I can't change the configuration now.")
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    _assert_full(path)


@pytest.mark.parametrize("path", shared_transcript_files(), ids=lambda p: p.name)
def test_each_shared_transcript_scores_100_against_itself(path: Path) -> None:
    _assert_full(path)


def test_an_unreadable_last_message_is_no_request_to_eval(tmp_path: Path) -> None:
    """Blind check 76 N1: eval, like the summary, takes a binary paste for no request."""
    s = CcSession()
    s.user("the texture bleeds into the terrain; fix it")
    s.call("Edit", {"file_path": "/home/dev/rts/main.cpp", "old_string": "a", "new_string": "b"},
           "The file /home/dev/rts/main.cpp has been updated successfully.")  # fmt: skip
    s.say("Fixed: the terrain now binds a black 1x1 texture first. Build and test it.")
    s.user("\n\n\x88\x13\n\nX\n\n@@\n\n\x80ÚB\x05\x85±")
    raw = tmp_path / "s.jsonl"
    raw.write_bytes(b"\n".join(s.lines()) + b"\n")
    out = tmp_path / "out.jsonl"
    proc = invoke(["run", "--model", "local", "--force", "--no-cache", str(raw), "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    found = evaluate_files(str(raw), str(out))
    assert not found.contradictions, found.contradictions
    ended = next(c for c in found.categories if c.name == "ended")
    assert ended.items and ended.items[0].kept, ended.items
