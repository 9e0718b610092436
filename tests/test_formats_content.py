"""Issue 27: nothing is lost at the formats' edges.

* Point 3: content parts and blocks the readers do not model (chat ``input_text``,
  ``output_text``, ``refusal``; Anthropic ``document``, ``server_tool_use``,
  ``web_search_tool_result``, ``search_result``, any unknown block) keep their text: the
  summarizer receives it, and a part written back is byte for byte the part read.
* Point 15: an earlier summary in an openai or anthropic file (no key marks it there) is known by
  our preamble, so compacting again never quotes it back as the user's own words.

Runs go through the real command line (in-process) with the embedded summarizer, or with the fake
OpenAI server on 127.0.0.1 whose recorded requests show what the summarizer was sent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.formats.registry import read_transcript
from compactor.prompts import PREAMBLE
from compactor.schema import content_type, user_text

from .fake_server_cli import invoke

# -- point 15: re-compacting never re-inserts an earlier summary as the user's words ------------

_REQUESTS = [
    "Please find out why the nightly backup on db-2 did not run.",
    "Check the timer unit file and the journal for backup-nightly.",
    "Fix the OnCalendar line and reload systemd.",
    "Now run the backup once by hand and show me the log.",
    "Write a short note in OPERATIONS.md about what went wrong.",
]


def _chat_turns(fmt: str) -> list[dict[str, Any]]:
    """A conversation with long tool output (so a summary is much smaller than it), as openai or
    anthropic records."""
    records: list[dict[str, Any]] = [{"role": "system", "content": "You are an operator."}]
    for i, request in enumerate(_REQUESTS):
        output = "\n".join(f"journal line {i}.{j}: backup-nightly step {j} ok" for j in range(60))
        args = {"command": f"journalctl -u backup-nightly --lines 60 # step {i}"}
        records.append({"role": "user", "content": request})
        if fmt == "openai":
            call = {"id": f"call_{i}", "type": "function"}
            call["function"] = {"name": "bash", "arguments": json.dumps(args)}
            records.append({"role": "assistant", "content": None, "tool_calls": [call]})
            records.append({"role": "tool", "tool_call_id": f"call_{i}", "content": output})
        else:
            use = {"type": "tool_use", "id": f"toolu_{i}", "name": "bash", "input": args}
            records.append({"role": "assistant", "content": [use]})
            result = {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": output}
            records.append({"role": "user", "content": [result]})
        records.append({"role": "assistant", "content": f"Done with step {i}."})
    return records


def _write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _user_block(text: str) -> list[str]:
    """The lines inside the ``<all_user_messages>`` block of a summary."""
    start = text.index("<all_user_messages>") + len("<all_user_messages>")
    end = text.index("</all_user_messages>")
    return [line for line in text[start:end].splitlines() if line.strip()]


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_recompacting_three_rounds_keeps_one_summary_and_no_summary_as_user_words(
    tmp_path: Path, fmt: str
) -> None:
    src = tmp_path / "r0.jsonl"
    _write_jsonl(src, _chat_turns(fmt))
    for round_ in (1, 2, 3):
        out = tmp_path / f"r{round_}.jsonl"
        proc = invoke(
            ["run", str(tmp_path / f"r{round_ - 1}.jsonl"), "--force", "--model", "local"]
            + ["--format", fmt, "-o", str(out), "-q"],
            env={"NO_COLOR": "1", "XDG_CACHE_HOME": str(tmp_path / "xdg")},
            cwd=tmp_path,
        )
        assert proc.returncode == 0, proc.stderr.decode()
        raw = out.read_text(encoding="utf-8")
        assert raw.count(PREAMBLE) == 1, (round_, raw.count(PREAMBLE))
        messages = read_transcript(str(out), out.read_bytes()).messages
        summaries = [m for m in messages if content_type(m) == "summary"]
        assert len(summaries) == 1  # the reader knows our own summary by its preamble
        (summary,) = summaries
        lines = _user_block(user_text(summary))
        quoted = "\n".join(lines)
        assert PREAMBLE not in quoted
        assert "<summary>" not in quoted
        # Round 1 quotes the five requests; later rounds have no user message of their own to
        # quote (the requests live on inside the earlier summary the summarizer read).
        assert len(lines) == (len(_REQUESTS) if round_ == 1 else 0), lines
        # Only the system prompt and the summary: the earlier summary was summarized away.
        assert [m.role for m in messages] == ["system", "user"]
    # The file as written is still what the provider's API takes: no marker key in any record.
    for line in (tmp_path / "r3.jsonl").read_text(encoding="utf-8").splitlines():
        assert set(json.loads(line)) == {"role", "content"}
