"""Codex Desktop's ``# AGENTS.md instructions`` message names no folder (blind check 23 G2,
cx-qz: Codex Desktop 0.142.5 wrote ``# AGENTS.md instructions\\n\\n<INSTRUCTIONS>…``, the CLI
writes ``# AGENTS.md instructions for /dir``). The summary kept the CLI's file in its system
reminder and neither kept nor named the Desktop's. It is an injected instruction file all the
same: kept verbatim as ``AGENTS.md`` and named among the injected context. The session is the
one :func:`tests.test_durable_context._codex_session` builds, its heading without the folder."""

from __future__ import annotations

from pathlib import Path

from .test_durable_context import AGENTS_MD, _codex_session, _compact

CLI_HEADING = "# AGENTS.md instructions for /home/dev/shop"


def test_agents_md_without_a_folder_is_kept(tmp_path: Path) -> None:
    src = _codex_session(tmp_path / "cx.jsonl", ["Apply for the grant."])
    raw = src.read_bytes()
    assert raw.count(CLI_HEADING.encode()) == 1
    src.write_bytes(raw.replace(CLI_HEADING.encode(), b"# AGENTS.md instructions"))
    text = _compact(src, tmp_path / "out.jsonl")
    assert "### Instructions: AGENTS.md\n\n" + AGENTS_MD in text, text[:600]
    assert "AGENTS.md instructions were injected (rules for the agent, not requests)" in text


def test_the_folder_is_still_named_when_there_is_one(tmp_path: Path) -> None:
    text = _compact(_codex_session(tmp_path / "cx.jsonl", ["Go."]), tmp_path / "out.jsonl")
    assert "### Instructions: AGENTS.md for /home/dev/shop\n\n" + AGENTS_MD in text
    assert "AGENTS.md instructions for /home/dev/shop were injected" in text
