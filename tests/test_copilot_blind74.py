"""GitHub Copilot CLI sessions of blind check 74's shapes (W3, W4, W5), each invented here.

* W3: ``str_replace_editor`` ``create`` answers with a diff of the whole file it wrote. A guide
  whose text says "failed" or "not found" (a troubleshooting section) was judged a failed write,
  so a file deleted and then created again was still called "(deleted)".
* W5: a ``create`` that failed ("Path already exists") was called fixed by a later create of
  ANOTHER file.
* W4: a tool that failed and then succeeded with one more argument (``workspace_root``) was
  still an "Unresolved failure".
"""

from __future__ import annotations

import json
from typing import Any

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .cc_session import section
from .test_formats_cursor_copilot import _Events

GUIDE = "C:\\work\\app\\GUIDE.md"
_BODY = "\n".join(
    [
        "# App guide",
        "",
        "## Troubleshooting",
        "- The build failed: run the install again.",
        "- Module not found: check requirements.txt.",
        *(f"- step {j}: run the app" for j in range(20)),
    ]
)


def _call(
    s: _Events, cid: str, name: str, args: dict[str, Any], *, ok: bool = True, out: str = ""
) -> None:
    request = {"toolCallId": cid, "name": name, "arguments": args}
    s.add("assistant.message", {"messageId": f"m{cid}", "content": "", "toolRequests": [request]})
    s.add("tool.execution_start", {"toolCallId": cid, "toolName": name, "arguments": args})
    done: dict[str, Any] = {"toolCallId": cid, "success": ok}
    if ok:
        done["result"] = {"content": out}
    else:
        done["error"] = {"message": out, "code": "failure"}
    s.add("tool.execution_complete", done)


def _created(path: str, body: str) -> str:
    """What Copilot's editor answers to a create: a diff of the whole new file."""
    p = path.replace("\\", "/")
    plus = "".join(f"+{ln}\n" for ln in body.splitlines())
    n = len(body.splitlines())
    return (
        f"\ndiff --git a/{p} b/{p}\ncreate file mode 100644\nindex 0000000..0000000\n"
        f"--- a/dev/null\n+++ b/{p}\n@@ -1,0 +1,{n} @@\n{plus}"
    )


def _lines(events: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(e) + "\n" for e in events).encode()


def _summary(events: list[dict[str, Any]]) -> str:
    t = read_transcript("events.jsonl", _lines(events))
    return summarize_transcript(t.messages)


def _start(s: _Events, words: str) -> None:
    s.add("session.start", {"sessionId": "s-74", "version": 1, "producer": "copilot-agent"})
    s.add("user.message", {"content": words})


def guide_recreated() -> list[dict[str, Any]]:
    """The guide is created, the create of a new version fails (it exists), the old one is
    removed by PowerShell and the new one created: it exists at the end."""
    s = _Events()
    _start(s, "write the guide GUIDE.md")
    first = {"command": "create", "path": GUIDE, "file_text": "# Old guide\n\nsoon\n"}
    _call(s, "c1", "str_replace_editor", first, out=_created(GUIDE, "# Old guide\n\nsoon\n"))
    s.add("assistant.message", {"messageId": "a1", "content": "Guide written."})
    s.add("user.message", {"content": "create the guide again, complete"})
    args = {"command": "create", "path": GUIDE, "file_text": _BODY}
    _call(s, "c2", "str_replace_editor", args, ok=False, out="Path already exists")
    rm = {"command": f"Remove-Item {GUIDE} -Force\nWrite-Host 'removed'", "async": False}
    _call(s, "c3", "powershell", rm, out="removed\n<exited with exit code 0>")
    _call(s, "c4", "str_replace_editor", args, out=_created(GUIDE, _BODY))
    s.add("assistant.message", {"messageId": "a2", "content": "GUIDE.md created again."})
    return s.events


def test_a_file_removed_then_created_again_by_the_editor_exists() -> None:
    summary = _summary(guide_recreated())
    files = section(summary, 3)
    assert "GUIDE.md (created, then deleted by powershell" not in files, files
    assert "GUIDE.md (created, then deleted, then created by str_replace_editor" in files, files
    assert "Module not found: check requirements.txt." in files, files  # its latest content
    assert "GUIDE.md (deleted)" not in summary, section(summary, 8)


def create_refused_then_other_files() -> list[dict[str, Any]]:
    """A create of ``.gitignore`` fails (it exists, left as it was); the next creates write
    other files."""
    s = _Events()
    _start(s, "set up the project files")
    ignore = {"command": "create", "path": "C:\\work\\app\\.gitignore", "file_text": "venv/\n"}
    _call(s, "c1", "str_replace_editor", ignore, ok=False, out="Path already exists")
    for n, name in enumerate(("Procfile", "runtime.txt"), 2):
        path = f"C:\\work\\app\\{name}"
        args = {"command": "create", "path": path, "file_text": f"{name} body\n"}
        _call(s, f"c{n}", "str_replace_editor", args, out=_created(path, f"{name} body\n"))
    s.add("assistant.message", {"messageId": "a1", "content": "Project files written."})
    return s.events


def test_a_failed_create_is_not_fixed_by_a_create_of_another_file() -> None:
    errors = section(_summary(create_refused_then_other_files()), 4)
    assert "create` failed: Path already exists" in errors, errors
    assert "Fixed: a later" not in errors, errors
    assert "Worked around by" not in errors, errors


def test_a_failed_create_is_fixed_by_a_later_create_of_the_same_file() -> None:
    errors = section(_summary(guide_recreated()), 4)
    assert "Fixed: a later `str_replace_editor: create` succeeded." in errors, errors


def mcp_retried_with_workspace(added: str = "workspace_root") -> list[dict[str, Any]]:
    """An MCP tool fails for want of a workspace; the agent sets it with another tool, then the
    same call with the workspace added succeeds."""
    s = _Events()
    _start(s, "show the ready tasks")
    missing = "MCP server 'tasks': Error calling tool 'ready': No workspace found."
    _call(s, "c1", "tasks-ready", {"limit": 20}, ok=False, out=missing)
    where = {"action": "set", "workspace_root": "D:\\work\\app"}
    _call(s, "c2", "tasks-context", where, out="Workspace set.")
    again = {added: "D:\\work\\app", "limit": 20}
    _call(s, "c3", "tasks-ready", again, out="[task-1.6] in_progress")
    s.add("assistant.message", {"messageId": "a1", "content": "Task 1.6 is the ready one."})
    return s.events


def test_a_tool_that_succeeded_with_the_argument_it_lacked_is_no_open_failure() -> None:
    summary = _summary(mcp_retried_with_workspace())
    assert "Unresolved failure: tasks-ready" not in section(summary, 7), section(summary, 7)
    errors = section(summary, 4)
    assert "Fixed: a later `tasks-ready(" in errors, errors
    assert "the retry with workspace_root=D:\\work\\app added completed" in errors, errors


def test_a_later_call_that_adds_a_target_is_another_call_not_the_retry() -> None:
    errors = section(_summary(mcp_retried_with_workspace("path")), 4)
    assert "Fixed: a later `tasks-ready(" not in errors, errors
