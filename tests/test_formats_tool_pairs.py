"""Issue 8: tool-call pairs over the whole file match the shared README table."""

from __future__ import annotations

import pytest

from compactor.formats.registry import file_tool_pairs, read_transcript

from .conftest import TRANSCRIPTS, shared_transcript_files

# From ../shared/transcripts/README.md: (tool calls, results paired to them).
EXPECTED = {
    "claude-code/raze-grant-session.jsonl": (3, 2),
    "claude-code/fasthooks-sample-main-compacted.jsonl": (10, 10),
    "claude-code/bastion-glm47-skill-lock.jsonl": (5, 5),
    "claude-code/tokenforge-grant-session.jsonl": (21, 21),
    "codex/soul-grant-rollout.jsonl": (11, 7),
    "codex/empire-of-bits-desktop-rollout.jsonl": (22, 18),
    "openai-chat/tau-bench-gpt4o-airline-task48-trial1-small.jsonl": (2, 2),
    "openai-chat/swe-agent-marshmallow-1867-function-calling.jsonl": (13, 13),
}


@pytest.mark.parametrize(("name", "expected"), sorted(EXPECTED.items()))
def test_file_tool_pairs_match_readme(shared_transcripts, name, expected):
    path = shared_transcripts / name
    t = read_transcript(str(path), path.read_bytes())
    assert file_tool_pairs(t) == expected


def test_every_shared_file_is_in_the_table(shared_transcripts):
    names = {str(p.relative_to(TRANSCRIPTS)) for p in shared_transcript_files()}
    assert names == set(EXPECTED)


@pytest.mark.parametrize(("name", "expected"), sorted(EXPECTED.items()))
def test_check_json_reports_file_tool_pairs(shared_transcripts, name, expected):
    import json

    from typer.testing import CliRunner

    from compactor.cli.app import app

    result = CliRunner().invoke(app, ["check", "--json", str(shared_transcripts / name)])
    record = json.loads(result.stdout)
    assert (record["file_tool_calls"], record["file_tool_results"]) == expected
