"""A sub-agent asked only to search, seen only reading, is no writer: its finding is quoted
instead (blind check 68 W4: a finished ``Task`` told "Search through the index.html file and find
any JavaScript syntax errors", whose inline conversation held only Read/Grep/Bash calls, was
"Background agents were told to write files … check what exists")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .cc_session import Session, cc_summary

SEARCH = "Search through src/parser.ts and find the syntax error near line 40. Check the braces."
FOUND = "Found it! An unclosed brace in parseHeader at line 41.\nDetails follow below."
WRITERS = "Background agents were told to write files"


def _files(summary: str) -> str:
    summary = summary[summary.index("<summary>") :]
    start = summary.index("\n3.")
    return summary[start : summary.index("\n4.", start)]


def _task(s: Session, prompt: str, inline: list[str] | None, result: str = FOUND) -> None:
    """A ``Task`` call; its sub-agent's conversation inline (``isSidechain``) calling the tools
    ``inline`` when given; then the call's result."""
    call = f"toolu_task{s.n}"
    args = {"description": "Find the syntax error", "prompt": prompt}
    s.assistant([{"type": "tool_use", "id": call, "name": "Task", "input": args}])
    if inline is not None:
        main, first = s.parent, len(s.records)
        s.parent = None
        s.user(prompt)
        for k, name in enumerate(inline):
            use: dict[str, Any] = {"file_path": "/home/dev/board/src/parser.ts"}
            if name == "Edit":
                use |= {"old_string": "{", "new_string": "{}"}
            s.assistant([{"type": "tool_use", "id": f"side{k}", "name": name, "input": use}])
            s.user([{"type": "tool_result", "tool_use_id": f"side{k}", "content": "ok"}])
        for rec in s.records[first:]:
            rec["isSidechain"] = True
        s.parent = main
    s.user(
        [
            {
                "type": "tool_result",
                "tool_use_id": call,
                "content": [{"type": "text", "text": result}],
            }
        ]
    )


def _summary(tmp_path: Path, prompt: str, inline: list[str] | None) -> str:
    s = Session()
    s.user("The page shows a syntax error in the parser, find out why.")
    _task(s, prompt, inline)
    s.say("The sub-agent found an unclosed brace in parseHeader.")
    return cc_summary(s, tmp_path)


def test_a_searching_subagent_seen_only_reading_is_no_writer(tmp_path: Path) -> None:
    files = _files(_summary(tmp_path, SEARCH, ["Read", "Grep", "Bash"]))
    assert WRITERS not in files, files
    assert "Found it! An unclosed brace in parseHeader at line 41." in files, files
    assert "changed no file" in files


def test_a_searching_prompt_alone_is_no_writer(tmp_path: Path) -> None:
    files = _files(_summary(tmp_path, SEARCH, None))
    assert WRITERS not in files, files
    assert "An unclosed brace in parseHeader" in files


def test_a_prompt_that_forbids_changes_is_a_reader(tmp_path: Path) -> None:
    prompt = "Do not modify any file. Find where the config is loaded and report the path."
    assert WRITERS not in _files(_summary(tmp_path, prompt, ["Read"]))


def test_a_subagent_seen_editing_is_a_writer(tmp_path: Path) -> None:
    files = _files(_summary(tmp_path, SEARCH, ["Read", "Edit"]))
    assert WRITERS in files, files


def test_a_subagent_told_to_change_files_is_a_writer(tmp_path: Path) -> None:
    prompt = "Find the syntax error in src/parser.ts and fix it."
    assert WRITERS in _files(_summary(tmp_path, prompt, None))
    assert WRITERS in _files(_summary(tmp_path, prompt, ["Read"]))


def test_a_write_word_used_as_a_noun_asks_no_change(tmp_path: Path) -> None:
    prompt = "Investigate the build failure and the recent change to the config. Report the cause."
    files = _files(_summary(tmp_path, prompt, None))
    assert WRITERS not in files, files
