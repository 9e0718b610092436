"""Blind check 34 (helper fix34a): a file is the same file only at the same resolved path (a
fresh clone's files are created, not "overwritten" because the parent project's namesakes were
read), a path inside a read document is no listing, and Ctrl-C written to a server to stop it
is no failure. Every session is built here, by shape, with invented content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .cc_session import Session as CcSession
from .cc_session import cc_summary
from .codex_rollout import codex_say, codex_summary, codex_user, rec, sections

_PARENT = "/work/asset site"  # a folder with a space, as real ones have
_CLONE = f"{_PARENT}/assets-new"


class _Rollout:
    """Records of a Codex rollout: exec_command calls with a ``workdir`` and apply_patch."""

    def __init__(self, cwd: str) -> None:
        self.records: list[dict[str, Any]] = [rec("turn_context", {"cwd": cwd})]
        self.n = 0

    def exec(self, cmd: str, output: str, workdir: str = "", **more: Any) -> str:
        self.n += 1
        key = f"call_{self.n}"
        args: dict[str, Any] = {"cmd": cmd, **more}
        if workdir:
            args["workdir"] = workdir
        call = {"type": "function_call", "name": "exec_command", "call_id": key}
        call["arguments"] = json.dumps(args)
        out = {"type": "function_call_output", "call_id": key, "output": output}
        self.records += [rec("response_item", call), rec("response_item", out)]
        return key

    def stdin(self, session: int, chars: str, output: str) -> None:
        self.n += 1
        key = f"call_{self.n}"
        call = {"type": "function_call", "name": "write_stdin", "call_id": key}
        call["arguments"] = json.dumps({"session_id": session, "chars": chars})
        out = {"type": "function_call_output", "call_id": key, "output": output}
        self.records += [rec("response_item", call), rec("response_item", out)]

    def patch(self, body: str, output: str) -> None:
        self.n += 1
        key = f"call_{self.n}"
        call = {"type": "custom_tool_call", "name": "apply_patch", "call_id": key, "input": body}
        out = {"type": "custom_tool_call_output", "call_id": key, "output": output}
        self.records += [rec("response_item", call), rec("response_item", out)]


def _done(output: str) -> str:
    return f"Chunk ID: 1a2b\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\n{output}"


# W1: files created in a fresh clone are not the parent project's namesakes


def _fresh_clone(tmp_path: Path) -> str:
    r = _Rollout(_PARENT)
    r.records.append(codex_user("build a separate inventory app; do not touch the live project"))
    r.exec("ls", _done("README.md\nnotes.md\npackage.json\npublic\nserver.js\n"), _PARENT)
    r.exec("sed -n '1,80p' server.js", _done("const http = require('http')\n"), _PARENT)
    r.exec("cat package.json README.md", _done('{"name": "live"}\n# Live site\n'), _PARENT)
    r.exec("cat notes.md", _done("- old note\n"), _PARENT)
    r.exec(
        "git clone git@example.org:team/assets-new.git",
        _done(
            "Cloning into 'assets-new'...\n"
            "warning: You appear to have cloned an empty repository.\n"
        ),
        _PARENT,
    )
    r.exec("find . -maxdepth 2", _done(".\n./.git\n"), _CLONE)
    patch = f"*** Begin Patch\n*** Add File: {_CLONE}/server.js\n+const app = 1\n*** End Patch\n"
    r.patch(patch, f"Success. Updated the following files:\nA {_CLONE}/server.js\n")
    r.exec('cat > package.json <<\'EOF\'\n{"name": "assets"}\nEOF', _done(""), _CLONE)
    r.exec("cd assets-new && cat > README.md <<'EOF'\n# Assets\nEOF", _done(""), _PARENT)
    r.exec("cat > notes.md <<'EOF'\n- new note\nEOF", _done(""), _PARENT)  # the parent's own
    r.records.append(codex_say("The new app is in assets-new; the live project is untouched."))
    text = codex_summary(r.records, tmp_path, "0b1c2d3e-0000-4000-8000-000000000034", _PARENT)
    return sections(text)["3"]


def test_files_made_in_a_fresh_clone_are_created_not_the_parents_overwritten(
    tmp_path: Path,
) -> None:
    files = _fresh_clone(tmp_path)
    for name in ("server.js", "package.json", "README.md"):
        line = next((x for x in files.splitlines() if f"{_CLONE}/{name}" in x), "")
        assert "(created" in line and "overwritten" not in line, (name, files)
    # the parent's own file, read there and rewritten there, was overwritten
    assert f"{_PARENT}/notes.md (overwritten" in files, files


def test_claude_code_a_namesake_read_under_another_cwd_is_another_file(tmp_path: Path) -> None:
    s = CcSession()
    s.user("start a clean copy of the board in ./fresh, keep the old one as it is")
    s.call("Bash", {"command": "cat src/index.ts"}, "export const board = 1\n")
    s.call(
        "Bash",
        {"command": "mkdir fresh && cd fresh && git init"},
        "Initialized empty Git repository",
    )
    at = len(s.records)
    s.call(
        "Write",
        {"file_path": "src/index.ts", "content": "export const fresh = 1\n"},
        "File created successfully at: src/index.ts",
    )
    s.call("Bash", {"command": "cat > src/app.ts <<'EOF'\nexport {}\nEOF"}, "")
    for record in s.records[at:]:
        record["cwd"] = "/home/dev/board/fresh"  # Claude Code's record cwd after the cd
    s.say("The clean copy is in fresh/.")
    files = sections(cc_summary(s, tmp_path))["3"]
    line = next((x for x in files.splitlines() if "fresh/src/index.ts" in x), "")
    assert "(created" in line and "overwritten" not in line, files


def test_a_namesake_read_where_the_directory_is_unknown_is_only_written(tmp_path: Path) -> None:
    r = _Rollout(_PARENT)
    r.records = []  # no turn_context: the read's directory is not known
    r.records.append(codex_user("write the config"))
    r.exec("cat config.json", _done('{"a": 1}\n'))
    patch = f"*** Begin Patch\n*** Add File: {_CLONE}/config.json\n+{{}}\n*** End Patch\n"
    r.patch(patch, f"Success. Updated the following files:\nA {_CLONE}/config.json\n")
    r.records.append(codex_say("Config written."))
    files = sections(
        codex_summary(r.records, tmp_path, "0b1c2d3e-0000-4000-8000-000000000035", "")
    )["3"]
    assert f"{_CLONE}/config.json (written" in files, files


# W2: a path inside a read document's content is no sign the file existed


def test_a_path_in_a_read_documents_code_sample_is_no_listing(tmp_path: Path) -> None:
    root = "/work/roadmap"
    route = "src/app/api/orgs/[orgId]/invites/route.ts"
    r = _Rollout(root)
    r.records.append(codex_user("implement the invitations API from the plan"))
    doc = f"## Invitations\n```ts\n// {route}\nexport async function POST() {{}}\n```\n"
    r.exec("sed -n '900,1200p' docs/plan.md", _done(doc), root)
    r.exec(
        "find src/app/api/orgs",
        _done("src/app/api/orgs/route.ts\nsrc/app/api/orgs/switch/route.ts\n"),
        root,
    )
    body = "+export async function POST() {}\n"
    patch = f"*** Begin Patch\n*** Add File: {route}\n{body}*** End Patch\n"
    r.patch(patch, f"Success. Updated the following files:\nA {route}\n")
    r.records.append(codex_say("Added the invitations route."))
    files = sections(
        codex_summary(r.records, tmp_path, "0b1c2d3e-0000-4000-8000-000000000036", root)
    )["3"]
    line = next((x for x in files.splitlines() if "invites/route.ts" in x), "")
    assert "(created" in line and "overwritten" not in line, files


# W3: Ctrl-C written to a dev server to stop it is the agent's stop, no failure


def test_ctrl_c_written_to_a_server_is_a_stop_not_a_failure(tmp_path: Path) -> None:
    root = "/work/shopapp"
    r = _Rollout(root)
    r.records.append(codex_user("start the app, check it answers, then stop it"))
    for session, port in ((15657, 3001), (35626, 3002)):
        running = (
            f"Chunk ID: 1\nWall time: 1.0 seconds\nProcess running with session ID {session}\n"
        )
        r.exec(f"PORT={port} npm start", f"{running}Output:\nShop listening on :{port}\n", root)
        r.exec(f"curl -s http://localhost:{port}/api/health", _done('{"ok":true}\n'), root)
        r.stdin(
            session, "\u0003", "Wall time: 0.2 seconds\nProcess exited with code 1\nOutput:\n^C\n"
        )
    r.records.append(codex_say("Both servers answered on /api/health; I stopped them."))
    text = codex_summary(r.records, tmp_path, "0b1c2d3e-0000-4000-8000-000000000037", root)
    parts = sections(text)
    assert "write_stdin" not in parts["4"] and "Not fixed" not in text, parts["4"]
    for session, port in ((15657, 3001), (35626, 3002)):
        line = f"stopped with Ctrl-C by the agent: session {session} (`PORT={port} npm start`)"
        assert line in parts["5"], parts["5"]
    assert "(failed)" not in parts["5"], parts["5"]
