"""Blind check 14's file, secret and noise findings in the local summary (issue 28, files14),
each on a session built here by shape: a password written in SQL, in a code fallback or on a
command line is masked everywhere in the summary (a quoted earlier summary and an in-flight call
too); a file an unknown tool wrote is changed, not "read"; a pasted file is named, not printed;
a text cut inside a code fence closes the fence."""

from __future__ import annotations

import json
from pathlib import Path

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .cc_session import Session
from .fake_server_cli import invoke
from .test_models_local_session import section


def _summary(s: Session, tmp_path: Path) -> str:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


# -- passwords in SQL, code fallbacks and command lines -------------------------------------------

_PW = "Qx7!harbor2031"


def test_passwords_of_every_shape_are_masked_in_the_whole_summary(tmp_path: Path) -> None:
    s = Session()
    s.user(
        "This session continues an earlier one. Summary:\n"
        f"- DB auth fixed: ALTER USER appuser WITH PASSWORD '{_PW}' to re-hash in md5.\n"
        f"- Seed hash was for 'password' not '{_PW}'. Fixed.\n"
        "Continue seeding the database."
    )
    s.bash(
        "cat server/db.js",
        f"const pool = new Pool({{\n  password: process.env.DB_PASS || '{_PW}',\n}});",
    )
    s.bash(f"mysql -u root -p'{_PW}' -e 'select 1'", "ERROR 1045 (28000): Access denied")
    s.bash(
        f"PGPASSWORD={_PW} psql -U appuser -c 'select 1'",
        "psql: FATAL: password authentication failed",
    )
    call = f"toolu_{s.n:04d}"
    command = f"sudo -u postgres psql -c \"CREATE USER appuser WITH PASSWORD '{_PW}';\""
    s.assistant([{"type": "tool_use", "id": call, "name": "Bash", "input": {"command": command}}])
    summary = _summary(s, tmp_path)
    assert "CREATE USER appuser WITH PASSWORD '***'" in summary, summary
    assert _PW not in summary and "harbor2031" not in summary, summary


def test_password_shapes_keep_placeholders_and_prose() -> None:
    from compactor.secrets.shapes import mask_key_shapes

    kept = (
        "ALTER USER x WITH PASSWORD $1; password: process.env.DB_PASS || '', "
        "the password reset flow; mysql -p -u root; ssh -p 2222 host; PGPASSWORD=$PW psql"
    )
    assert mask_key_shapes(kept) == kept
    text = "db = os.getenv('DB_PASSWORD', 'fallback-9x'); CREATE ROLE r IDENTIFIED BY 'tiger77'"
    assert (
        mask_key_shapes(text)
        == "db = os.getenv('DB_PASSWORD', '***'); CREATE ROLE r IDENTIFIED BY '***'"
    )


# -- a kept text cut inside a code fence closes it ------------------------------------------------


def _fences(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.lstrip().startswith("```"))


def test_a_skill_cut_inside_its_code_block_closes_the_fence() -> None:
    from compactor.pipeline.skills import PreserveSkillsConfig, Skill, render_skills

    body = (
        "# Update config\n\nEdit settings.json hooks.\n\n```json\n{\n"
        + "".join(
            f'  "field{n}": {{"type": "string", "description": "hook field {n}"}},\n'
            for n in range(400)
        )
        + "}\n```\n\nAfter the block: test the hook with a pipe.\n"
    )
    cfg = PreserveSkillsConfig(max_tokens_per_skill=500)
    kept = render_skills([Skill("update-config", body, 1)], cfg)
    assert "was cut to fit the context" in kept and "field399" not in kept, kept
    assert _fences(kept) % 2 == 0, kept
    assert kept.split("[… skill")[0].rstrip().endswith("```"), kept
    assert len(kept.encode()) < 500 * 4 + 400  # the budget holds: the fence replaces cut bytes


def test_fence_closed_only_closes_an_open_fence() -> None:
    from compactor.facts.fences import cut_bytes, fence_closed

    assert fence_closed("text\n```py\nx = 1\n```\nmore") == "text\n```py\nx = 1\n```\nmore"
    assert fence_closed("text\n~~~~\nx = 1\n```\ny") == "text\n~~~~\nx = 1\n```\ny\n~~~~"
    assert cut_bytes("short ```", 100) == "short ```"
    cut = cut_bytes("a\n```\n" + "é" * 100, 50)
    assert len(cut.encode()) <= 50 and cut.endswith("\n```"), cut


# -- a pasted (attached) file is named, not printed -----------------------------------------------


def _attached(name: str, lines: int) -> str:
    body = "\n".join(
        [f'"""{name}: the tool registry."""', "class ToolRegistry:"]
        + [f"    def tool_{n}(self) -> int:\n        return {n}" for n in range(lines)]
    )
    return f"\n[FILE: {name}]\n{body}\n\n[END {name}]"


def _chat_line(role: str, content: str, **extra: object) -> str:
    return json.dumps({"role": role, "content": content, **extra})


def test_an_attached_file_is_named_with_its_size_not_printed(tmp_path: Path) -> None:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "execute_bash", "arguments": json.dumps({"command": "ls tools"})},
    }
    src = tmp_path / "chat.jsonl"
    lines = [
        _chat_line("system", "You are a CLI agent with tools."),
        _chat_line("user", "Which tools do you have?"),
        _chat_line("assistant", "execute_bash and crawl_web."),
        _chat_line("user", _attached("registry_tools.py", 200)),
        _chat_line("user", "I've attached the registry. Check the code for the new tool."),
        _chat_line("assistant", "", tool_calls=[call]),
        _chat_line("tool", "registry_tools.py\n__init__.py", tool_call_id="call_1"),
        _chat_line("assistant", "The registry defines ToolRegistry with 200 tools."),
        _chat_line("user", "Now expose it in __init__.py."),
        _chat_line("assistant", "Add one import line to __init__.py."),
    ]
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    proc = invoke(["run", "--model", "local", "--force", str(src), "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "return 150" not in text and "def tool_150" not in text, text
    assert "attached file registry_tools.py: 402 lines" in text, text
    assert "class ToolRegistry:" in text  # a key line names what the file is
    assert "I've attached the registry. Check the code for the new tool." in text


# -- a file written by an unknown tool, called from a shell command, is changed -------------------


def _tool_call_in_shell(verb: str, extra: str) -> str:
    return (
        'cd /srv/app && python -c "\nfrom tools import execute\n'
        f"result = execute('text_tool', {{\n    'command': '{verb}',{extra}\n"
        "    'file_path': 'lib/parser.py',\n})\nprint(result)\n\" 2>&1"
    )


def test_a_file_an_unknown_tool_writes_by_shape_is_changed_not_read(tmp_path: Path) -> None:
    s = Session()
    s.user("test the text tool on lib/parser.py, then we roll back if things go south")
    s.bash(
        "cat /srv/app/lib/parser.py",
        "#!/usr/bin/env python3\nimport re\n\ndef parse(x):\n    return x",
    )
    s.bash(_tool_call_in_shell("search", " 'pattern': 'TODO',"), "{'success': True, 'output': ''}")
    s.bash(
        _tool_call_in_shell("replace", " 'lines_range': '1-1', 'snippet_path': '/tmp/snip.txt',"),
        "{'success': True, 'output': '', 'error': '', 'exit_code': 0}",
    )
    s.bash("head -2 /srv/app/lib/parser.py", "test replacement\nimport re")
    s.assistant([{"type": "text", "text": "The replace modified the file correctly."}])
    files = section(_summary(s, tmp_path), 3)
    assert "/srv/app/lib/parser.py (changed by a text_tool call (replace)" in files, files
    assert "Read, not changed: /srv/app/lib/parser.py" not in files, files


def test_a_read_shaped_or_failed_unknown_tool_call_changes_nothing(tmp_path: Path) -> None:
    s = Session()
    s.user("look at lib/parser.py with the text tool")
    s.bash("cat /srv/app/lib/parser.py", "import re\n\ndef parse(x):\n    return x")
    s.bash(
        _tool_call_in_shell("view", " 'lines_range': '1-5',"),
        "{'success': True, 'output': 'import re'}",
    )
    s.bash(
        _tool_call_in_shell("replace", " 'lines_range': '1-1', 'snippet_path': '/tmp/snip.txt',"),
        "{'success': False, 'output': '', 'error': 'snippet not found', 'exit_code': 1}",
    )
    s.assistant([{"type": "text", "text": "The view worked; the replace failed."}])
    files = section(_summary(s, tmp_path), 3)
    assert "changed by a text_tool" not in files and "parser.py (" not in files, files


def _own_tool(s: Session, name: str, args: dict[str, str], result: str) -> None:
    call = f"toolu_{s.n:04d}"
    s.assistant([{"type": "tool_use", "id": call, "name": name, "input": args}])
    s.user([{"type": "tool_result", "tool_use_id": call, "content": result}])


def test_an_unknown_tools_own_write_call_changes_its_file_a_read_does_not(
    tmp_path: Path,
) -> None:
    s = Session()
    s.user("try the text tool on lib/parser.py and lib/lexer.py")
    _own_tool(s, "text_tool", {"command": "search", "file_path": "lib/lexer.py"}, "no matches")
    _own_tool(
        s,
        "text_tool",
        {"command": "replace", "file_path": "lib/parser.py", "lines_range": "1-1"},
        "replaced 1 line",
    )
    _own_tool(s, "save_notes", {"path": "notes/todo.md", "data": "- check"}, "saved")
    s.assistant([{"type": "text", "text": "Both calls worked."}])
    files = section(_summary(s, tmp_path), 3)
    assert "lib/parser.py (edited by text_tool)" in files, files
    assert "notes/todo.md (changed by save_notes)" in files, files
    assert "lib/lexer.py (" not in files, files


def test_an_editor_tool_with_a_command_verb_shows_what_it_wrote(tmp_path: Path) -> None:
    s = Session()
    s.user("create lib/version.py and look at lib/parser.py")
    args = {"command": "create", "path": "lib/version.py", "file_text": "VERSION = '2.4.1'\n"}
    _own_tool(s, "str_replace_based_edit_tool", args, "File created successfully")
    view = {"command": "view", "path": "lib/parser.py"}
    _own_tool(s, "str_replace_based_edit_tool", view, "1\timport re")
    s.assistant([{"type": "text", "text": "Created lib/version.py."}])
    files = section(_summary(s, tmp_path), 3)
    assert "lib/version.py (created by str_replace_based_edit_tool)" in files, files
    assert "VERSION = '2.4.1'" in files, files
    assert "lib/parser.py (" not in files, files
