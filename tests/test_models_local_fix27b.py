"""Blind check 26's W3, W4 and N5 (issue 28, rows 1210-1229): where files are after a project
moved up and its folder was removed; which later command fixes a failed build; what a small
session's commands printed. Sessions are built here, by shape, with invented content."""

from __future__ import annotations

import json
from typing import Any

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .cc_session import Session
from .codex_rollout import rec
from .test_models_local_session import section

_REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing."
)

# -- the directory a call ran in, and moves of a directory's contents --------------------------


class _Claude(Session):
    """Claude Code records whose ``cwd`` is ``where`` (None: a harness that records none)."""

    def __init__(self, where: str | None) -> None:
        super().__init__()
        self.where = where

    def _add(self, rec: dict[str, Any]) -> dict[str, Any]:
        full = super()._add(rec)
        if self.where is None:
            full.pop("cwd", None)
        else:
            full["cwd"] = self.where
        return full


def _moved_up(where: str | None) -> str:
    """A project written under /w/proj, moved up to /w by ``mv proj/* .`` (a dotfile by its
    own ``mv``), ``proj`` removed, then a config rewritten there by a relative name; before it,
    a rejected ``cd /w/proj && …`` that never ran."""
    s = _Claude(where)
    s.user("add a deploy config to the project")
    if where is None:  # no recorded directory: the shell's is the last cd of a call that ran
        s.call("Bash", {"command": "cd /w && git status --short"}, "?? proj/")
    s.call("Write", {"file_path": "/w/proj/deploy.json", "content": '{"out": "proj/dist"}\n'},
           "File created successfully at: /w/proj/deploy.json")  # fmt: skip
    s.call("Write", {"file_path": "/w/proj/src/app.ts", "content": "export const app = 1;\n"},
           "File created successfully at: /w/proj/src/app.ts")  # fmt: skip
    s.call("Bash", {"command": "cd /w/proj && echo 'PORT=1' > .env.example"}, "")
    if where is None:
        s.call("Bash", {"command": "cd /w && git log --oneline -1"}, "1a2b3c4 start")
    s.say("Added the deploy config.")
    s.user("move the project to the repository root")
    s.call("Bash", {"command": "cd /w/proj && rm deploy.json && git add -A"}, _REJECTED, True)
    s.call("Bash", {"command": "mv proj/* . && mv proj/.env.example src/.env.example"}, "")
    s.call("Bash", {"command": "rm -rf proj"}, "")
    s.call("Bash", {"command": 'cat > deploy.json << \'EOF\'\n{"out": "dist"}\nEOF'}, "")
    s.say("The project is at the root now.")
    return s.summary()


def test_files_moved_out_of_a_removed_folder_are_listed_where_they_are() -> None:
    """cc-matt (blind check 26 W3): ``mv DIR/* .``, ``mv DIR/.env.example packages/…``, ``rm
    -rf DIR`` (all succeeded, record cwd the home folder), then ``cat > vercel.json``; §3 and
    §8 still listed every file under the removed DIR/, the heredoc merged into the old file."""
    for where in ("/w", None):
        text = _moved_up(where)
        files, work = section(text, 3), section(text, 8)
        assert "/w/proj/" not in files.replace("moved from /w/proj/", ""), (where, files)
        assert "/w/deploy.json (created, then moved from /w/proj/deploy.json" in files, files
        at = files.index("/w/deploy.json")
        assert '{"out": "dist"}' in files[at : files.find("\n   - ", at + 1)], files
        assert "/w/src/app.ts" in files and "/w/src/.env.example" in files, files
        assert "/w/proj/" not in work, (where, work)


def test_a_file_left_in_a_removed_folder_is_deleted_and_never_written_again() -> None:
    """``rm -rf DIR`` removes the files still in it; a later relative write with the same name
    is not put back into DIR (no directory known: the name the agent last used is in DIR)."""
    s = _Claude(None)
    s.user("write the notes, then clean up")
    s.call("Write", {"file_path": "/w/tmp/notes.md", "content": "# Notes\n"}, "File created")
    s.call("Bash", {"command": "rm -rf /w/tmp"}, "")
    s.call("Bash", {"command": "cat > notes.md << 'EOF'\n# Fresh\nEOF"}, "")
    s.say("Cleaned up; the notes are fresh.")
    files = section(s.summary(), 3)
    assert "/w/tmp/notes.md (created, then deleted by Bash" in files, files
    assert "written by Bash" not in files.split("/w/tmp/notes.md", 1)[1].split("\n   - ")[0]


def test_a_failed_move_moves_nothing_and_git_mv_moves() -> None:
    s = _Claude("/w")
    s.user("rename the module")
    s.call("Write", {"file_path": "/w/lib/old.py", "content": "X = 1\n"}, "File created")
    s.call("Write", {"file_path": "/w/lib/keep.py", "content": "Y = 2\n"}, "File created")
    s.call("Bash", {"command": "mv lib/keep.py /w/gone/keep.py"},
           "mv: cannot move 'lib/keep.py' to '/w/gone/keep.py': No such file or directory\n"
           "Exit code 1", True)  # fmt: skip
    s.call("Bash", {"command": "git mv lib/old.py lib/new.py"}, "")
    s.call("Write", {"file_path": "/w/run.sh", "content": "echo run\n"}, "File created")
    s.call("Bash", {"command": "mv run.sh scripts"}, "")  # into the folder scripts/
    s.say("Renamed lib/old.py to lib/new.py.")
    files = section(s.summary(), 3)
    assert "/w/lib/new.py (created, then moved from /w/lib/old.py" in files, files
    assert "/w/scripts/run.sh (created, then moved from /w/run.sh" in files, files
    assert "/w/lib/keep.py (created by Write)" in files, files
    assert "/w/gone/" not in files, files


def test_a_removal_inside_a_heredoc_is_data_and_a_wrapped_move_moves() -> None:
    """A script a heredoc writes (``rm -rf dist`` in ``clean.sh``) removed nothing; a move run
    through ``bash -lc`` (Codex's shell tool) is followed like any other."""
    s = _Claude("/w")
    s.user("add the app and a clean script, then move the app")
    s.call("Write", {"file_path": "/w/dist/app.js", "content": "run();\n"}, "File created")
    s.call("Bash", {"command": "cat > clean.sh << 'EOF'\nrm -rf dist\nEOF"}, "")
    s.call("Bash", {"command": "bash -lc 'mv dist/app.js web/app.js'"}, "")
    s.say("Added the clean script and moved the app.")
    files = section(s.summary(), 3)
    assert "/w/web/app.js (created, then moved from /w/dist/app.js by Bash" in files, files
    assert "deleted" not in files, files


# -- a failure fixed by a later command that does the same job --------------------------------


class _Codex:
    """A Codex rollout (``turn_context`` with the directory, ``shell_command`` calls)."""

    def __init__(self, where: str = "/w/shop") -> None:
        meta = {"id": "1a2b3c4d-0000-4000-8000-000000000027", "cwd": where}
        self.records = [rec("session_meta", meta), rec("turn_context", {"cwd": where})]
        self.n = 0

    def message(self, role: str, text: str) -> None:
        part = "output_text" if role == "assistant" else "input_text"
        item = {"type": "message", "role": role, "content": [{"type": part, "text": text}]}
        self.records.append(rec("response_item", item))

    def run(self, command: str, code: int, output: str) -> None:
        self.n += 1
        key = f"call_{self.n}"
        args = json.dumps({"command": command, "workdir": "/w/shop"})
        call = {"type": "function_call", "name": "shell_command", "arguments": args}
        out = f"Exit code: {code}\nWall time: 3.2 seconds\nOutput:\n{output}"
        self.records += [
            rec("response_item", {**call, "call_id": key}),
            rec("response_item", {"type": "function_call_output", "call_id": key, "output": out}),
        ]

    def summary(self) -> str:
        raw = b"".join(json.dumps(r).encode() + b"\n" for r in self.records)
        return summarize_transcript(read_transcript("r.jsonl", raw).messages)


_NU1301 = (
    "/w/shop/src/Api/Api.csproj : error NU1301: Unable to load the service index for source "
    "https://api.nuget.org/v3/index.json.\n\nBuild FAILED.\n    0 Warning(s)\n    1 Error(s)"
)
_TESTED = "Build succeeded.\n    0 Warning(s)\n    0 Error(s)\nPassed!  - Failed: 0, Passed: 20"


_NO_ASSETS = (
    "/w/shop/src/Api/Api.csproj : error NETSDK1004: Assets file '/w/shop/src/Api/obj/project.assets"
    ".json' not found. Run a NuGet package restore to generate this file.\n\nBuild FAILED."
)


def _errors(build: str, later: list[tuple[str, int, str]], failed: str = _NU1301) -> str:
    s = _Codex()
    s.message("user", "fix the order totals and make sure the tests pass")
    s.run(build, 1, failed)
    for command, code, output in later:
        s.run(command, code, output)
    s.message("assistant", "The totals are fixed; the tests pass.")
    return section(s.summary(), 4)


def test_a_failed_build_that_a_later_test_run_built_is_fixed() -> None:
    """cx-crm (blind check 26 W4): ``dotnet build X --no-restore`` failed (restore blocked,
    NU1301); after ``dotnet restore``, ``dotnet test`` built and passed 20/20, yet §4 said
    "Not fixed"."""
    same = [("dotnet test tests/Shop.Tests/Shop.Tests.csproj", 0, _TESTED)]
    errors = _errors("dotnet build tests/Shop.Tests/Shop.Tests.csproj", same)
    assert "Fixed" in errors and "Not fixed" not in errors, errors
    whole = [("dotnet test", 0, _TESTED)]  # no project: the whole
    errors = _errors("dotnet build tests/Shop.Tests/Shop.Tests.csproj", whole)
    assert "Fixed" in errors and "Not fixed" not in errors, errors
    restored = "Restored /w/shop/src/Api/Api.csproj (in 2.1 s)."
    tested = "dotnet test tests/Shop.Tests/Shop.Tests.csproj --no-restore"
    blocked = [("dotnet restore /m:1", 0, restored), (tested, 0, _TESTED)]
    for failed in (_NU1301, _NO_ASSETS):  # the restore blocked, or never run (--no-restore)
        errors = _errors("dotnet build src/Shop.sln --no-restore", blocked, failed)
        assert "Fixed" in errors and "Not fixed" not in errors, errors
    for build, later in (("cargo build", "cargo test"), ("go build ./...", "go test ./..."),
                         ("mvn -q compile", "mvn package"), ("npm run build", "npx next build"),
                         ("tsc --noEmit", "npm run build")):  # fmt: skip
        for shown in ("> app@1.0.0 build\n> tsc && vite build\n\nbuilt", "$ tsc -b\nDone in 2.1s."):
            errors = _errors(build, [(later, 0, shown)])
            assert "Fixed" in errors and "Not fixed" not in errors, (build, errors)


def test_a_later_success_on_another_project_or_stage_fixes_nothing() -> None:
    for build, later in (
        ("dotnet build src/Shop.sln", "dotnet test tests/Other.Tests/Other.Tests.csproj"),
        ("dotnet test tests/Shop.Tests/Shop.Tests.csproj", "dotnet build src/Shop.sln"),
        ("cargo test", "cargo build"),
        ("tsc --noEmit", "npm run build"),  # its script does not run tsc
        ("dotnet build src/Shop.sln --no-restore", "dotnet restore"),
    ):
        errors = _errors(build, [(later, 0, "built in 2.3s")])
        assert "Fixed" not in errors, (build, later, errors)


# -- a small session keeps what its commands printed ------------------------------------------

_ROOT_COMMIT = (
    "[master (root-commit) 59f0b77] Initial commit\n 404 files changed, 76000 insertions(+)\n"
    " create mode 100644 .codex/auth.json\n"
    + "\n".join(f" create mode 100644 src/module_{i:03d}.ts" for i in range(403))
)


def _first_commit(status: list[str]) -> str:
    s = _Codex()
    s.message("user", "put this project under git and make the first commit")
    s.run("git init", 0, "Initialized empty Git repository in /w/shop/.git/")
    s.run('git add -A && git commit -m "Initial commit"', 0, _ROOT_COMMIT)
    for out in status:
        s.run("git status --short", 0, out)
    s.message("assistant", "Done: the repository is initialized and everything is committed.")
    return s.summary()


def test_a_small_session_keeps_its_commit_and_says_files_were_committed() -> None:
    """cx-personalize (blind check 26 N5, 14 messages): the root commit's id, "404 files
    changed" and the committed ``.codex/auth.json`` were lost (the commit's header came before
    the last 400 lines of its output), and §3 said "No file was created, edited or deleted"."""
    text = _first_commit(["?? notes/\n?? .env.local\n"])
    printed, files = section(text, 5), section(text, 3)
    assert "59f0b77" in printed and "404 files changed" in printed, printed
    assert "No file was created, edited or deleted." not in files, files
    assert "Committed by `git commit`" in files and ".codex/auth.json" in files, files
    assert "untracked (not committed): notes/, .env.local" in printed, printed


def test_only_the_latest_git_status_says_what_is_untracked() -> None:
    printed = section(_first_commit(["?? notes/\n", ""]), 5)
    assert "untracked" not in printed, printed
    printed = section(_first_commit(["?? notes/\n", "?? build/\n"]), 5)
    assert "untracked (not committed): build/" in printed and "notes/" not in printed, printed
