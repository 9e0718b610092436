"""Blind check 34 (fix34b): a user's own slash command is a request whose task is the prompt
it expands into (W4); a Node error block is summarised by its error line, never by a bare
``errno: 0,`` property line (W5)."""

from __future__ import annotations

import pytest

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.pipeline.finalize import select_user_messages

from .cc_session import Session

_PROMPT = (
    "# Save a recovery point\n\nDo these steps:\n\n"
    "1. Write the session status to NOTES_STATUS.md (what was done, what is open).\n"
    '2. Create a git save point: `git add -A`, then `git commit -m "Savepoint: [SHORT TEXT]"`.\n'
    '3. Report the short commit hash and the number of changed files ("Restore with /undo-it").\n'
)


def _command_session(name: str = "save-point", prompt: str = _PROMPT) -> Session:
    s = Session()
    s.user("Add a progress bar to the upload dialog.")
    s.call(
        "Edit",
        {"file_path": "/home/dev/board/src/upload.tsx", "old_string": "a", "new_string": "b"},
        "ok",
    )
    s.say("The progress bar is in place.")
    s.user(
        f"<command-message>{name} is running…</command-message>\n"
        f"<command-name>/{name}</command-name>"
    )
    s.user([{"type": "text", "text": prompt}])
    s.records[-1]["isMeta"] = True
    s.call(
        "Write",
        {"file_path": "/home/dev/board/NOTES_STATUS.md", "content": "# Status\n- bar done\n"},
        "File created successfully at: /home/dev/board/NOTES_STATUS.md",
    )
    tool = {"type": "tool_use", "id": "toolu_last", "name": "Bash"}
    s.assistant([{**tool, "input": {"command": "git add -A && git status --short"}}])
    return s


def _messages(s: Session) -> list:  # type: ignore[type-arg]
    raw = b"\n".join(s.lines()) + b"\n"
    return read_transcript("s.jsonl", raw).messages


def test_a_users_own_slash_command_is_a_request_with_its_prompt() -> None:
    text = summarize_transcript(_messages(_command_session()))
    assert "(a CLI command)" not in text, text
    assert 'Current request: "/save-point: # Save a recovery point' in text, text
    assert 'git commit -m "Savepoint: [SHORT TEXT]"' in text, text  # the pending step is there
    assert "- /save-point: # Save a recovery point Do these steps" in text, text  # §6


@pytest.mark.anyio
async def test_the_user_messages_block_shows_a_users_command_with_its_prompt() -> None:
    kept, _ = await select_user_messages(_messages(_command_session()), 10_000, None, 1_500)
    assert kept[0] == "Add a progress bar to the upload dialog."
    assert kept[1].startswith("/save-point: # Save a recovery point Do these steps: 1. Write"), kept
    assert "(a CLI command)" not in kept[1]


@pytest.mark.anyio
async def test_a_long_prompt_is_cut_and_a_builtin_command_stays_a_cli_command() -> None:
    long = _PROMPT + "".join(
        f"{n}. Also check item number {n} of the list.\n" for n in range(4, 90)
    )
    kept, _ = await select_user_messages(
        _messages(_command_session(prompt=long)), 10_000, None, 1_500
    )
    assert kept[1].endswith(" …") and len(kept[1]) < 700, kept[1]
    s = Session()
    s.user("Port the parser to rust.")
    s.user("<command-name>/cost</command-name>\n<command-message>cost</command-message>")
    s.user("<local-command-stdout>Total cost: $0.10</local-command-stdout>")
    kept, _ = await select_user_messages(_messages(s), 10_000, None, 1_500)
    assert kept == ["Port the parser to rust.", "/cost (a CLI command)"], kept
