"""Blind check 29's wrong statements, on sessions built here by shape (fix28b): a merged
repeated failure keeps each failure's own error (W3), a wait on a subagent is fixed only by a
wait on the same agent (W4)."""

from __future__ import annotations

import json

import pytest

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder

TYPE_ERROR = (
    "Traceback (most recent call last):\n"
    '  File "skills/weather/scripts/weather.py", line 12, in <module>\n'
    "    def lookup(city: str) -> tuple[float, float, str] | None:\n"
    "TypeError: 'type' object is not subscriptable\n"
    "Exit code 1"
)
SYNTAX_ERROR = (
    '  File "skills/weather/scripts/weather.py", line 2\n'
    "    from __future__ import annotations\n"
    "SyntaxError: future feature annotations is not defined\n"
    "Exit code 1"
)


def _section(text: str, number: int) -> str:
    text = text[text.index("<summary>") :]
    start = text.index(f"\n{number}. ")
    end = text.find(f"\n{number + 1}. ", start)
    return text[start : end if end != -1 else len(text)]


def test_a_repeated_failure_with_two_different_errors_keeps_both_in_order() -> None:
    s = SessionBuilder()
    s.user("写一个查询天气的脚本 skills/weather/scripts/weather.py，然后用北京测试")
    s.call("Write", {"file_path": "skills/weather/scripts/weather.py", "content": "x = 1\n"}, "ok")
    cmd = "python skills/weather/scripts/weather.py Beijing"
    s.call("Bash", {"command": cmd}, TYPE_ERROR, error=True)
    s.say("The interpreter is old; I add the future import.")
    s.call(
        "Edit",
        {
            "file_path": "skills/weather/scripts/weather.py",
            "old_string": "x = 1",
            "new_string": "from __future__ import annotations\nx = 1",
        },
        "The file has been updated.",
    )
    s.call("Bash", {"command": cmd}, SYNTAX_ERROR, error=True)
    s.say("Still failing; Python is older than 3.7.")
    errors = _section(summarize_transcript(s.messages), 4)
    assert "failed 2 times" in errors
    assert "TypeError: 'type' object is not subscriptable" in errors, errors
    assert errors.index("TypeError") < errors.index("SyntaxError"), errors


def test_a_repeated_failure_with_one_error_names_it_once() -> None:
    s = SessionBuilder()
    s.user("run the weather script for Beijing")
    cmd = "python skills/weather/scripts/weather.py Beijing"
    s.call("Bash", {"command": cmd}, TYPE_ERROR, error=True)
    s.call("Bash", {"command": cmd}, TYPE_ERROR, error=True)
    s.say("It fails the same way twice.")
    errors = _section(summarize_transcript(s.messages), 4)
    assert "failed 2 times" in errors
    assert errors.count("TypeError: 'type' object is not subscriptable") == 1, errors


# -- W4: a wait on a subagent is fixed only by a wait on the same agent ---------------------------

NOETHER = "019d52ee-1111-7aaa-8bbb-0123456789ab"
LORENTZ = "019d52fd-2222-7ccc-8ddd-0123456789cd"


def _waits(*later: tuple[str, str]) -> str:
    """An interrupted wait on one architect, then ``later`` (agent id, result) waits, a new
    architect spawned before the first wait on it."""
    s = SessionBuilder()
    s.user("$plan review the permissions PRD with an architect")
    spawned = json.dumps({"agent_id": NOETHER, "nickname": "Noether"})
    s.call("spawn_agent", {"agent_type": "architect", "message": "Review the PRD"}, spawned)
    wait = {"targets": [NOETHER], "timeout_ms": 180000}
    s.call("wait_agent", wait, "aborted by user after 87.6s", error=True)
    s.user("continue")
    for agent, result in later:
        if agent == LORENTZ:
            again = json.dumps({"agent_id": LORENTZ, "nickname": "Lorentz"})
            s.call("spawn_agent", {"agent_type": "architect", "message": "Review again"}, again)
        s.call("wait_agent", {"targets": [agent], "timeout_ms": 300000}, result)
    s.say("The architect approved the plan.")
    return _section(summarize_transcript(s.messages), 4)


TIMED_OUT = json.dumps({"status": {}, "timed_out": True})
DONE = json.dumps({"status": {LORENTZ: {"completed": "Plan finished"}}, "timed_out": False})


def test_a_wait_on_another_agent_or_a_timed_out_wait_fixes_no_interrupted_wait() -> None:
    errors = _waits((NOETHER, TIMED_OUT), (LORENTZ, DONE))
    assert "aborted by user after 87.6s" in errors, errors
    assert "Fixed: a later" not in errors, errors
    assert "Fixed: a later" not in _waits((LORENTZ, DONE))


def test_a_wait_on_the_same_agent_that_succeeded_still_fixes_it() -> None:
    done = json.dumps({"status": {NOETHER: {"completed": "Plan finished"}}, "timed_out": False})
    errors = _waits((NOETHER, TIMED_OUT), (NOETHER, done))
    assert "Fixed: a later" in errors, errors


# -- W2: files an inline script writes through a joined Path are changes, not reads ---------------

ROOT = "/Users/u/nexus"


def _files_after_script(tool: str, script: str, root_expr: str) -> str:
    code = (
        "from pathlib import Path\n"
        f"root = {root_expr}\n"
        "ctx_dir = root / '.omx' / 'context'\n"
        "ctx_dir.mkdir(parents=True, exist_ok=True)\n"
        "snapshot_path = ctx_dir / 'revision-5-roles.md'\n"
        "snapshot_path.write_text(content)\n"
        "drafts = root / '.omx' / 'drafts'\n"
        "prd = drafts / 'prd-revision-5.md'\n"
        "with open(prd, 'w') as fh:\n    fh.write(text)\n"
    )
    command = script.format(code=code)
    args: dict[str, object] = (
        {"cmd": command, "workdir": ROOT}
        if tool == "exec_command"
        else {"command": ["bash", "-lc", command], "workdir": ROOT}
    )
    s = SessionBuilder()
    s.user("$deep-interview revision 5: roles and permissions")
    s.call(tool, args, "Process exited with code 0\nOutput:\n")
    for name in (".omx/context/revision-5-roles.md", ".omx/drafts/prd-revision-5.md"):
        read: dict[str, object] = {
            "command": ["bash", "-lc", f"sed -n '1,80p' {name}"],
            "workdir": ROOT,
        }
        s.call("shell", read, "# Revision 5\n")
    s.say("The snapshot and the draft PRD are written; round 1 follows.")
    return _section(summarize_transcript(s.messages), 3)


@pytest.mark.parametrize(
    ("tool", "script", "root_expr"),
    [
        ("exec_command", "python3 - <<'PY'\n{code}PY", f"Path('{ROOT}')"),
        ("shell", "python3 - <<'PY'\n{code}PY", "Path.cwd()"),
        ("shell", 'cd /Users/u/nexus && python - <<"EOF"\n{code}EOF', "Path('.')"),
    ],
)
def test_files_an_inline_script_writes_through_a_joined_path_are_changed(
    tool: str, script: str, root_expr: str
) -> None:
    files = _files_after_script(tool, script, root_expr)
    assert "No file was created" not in files, files
    assert "Read, not changed" not in files, files
    assert "revision-5-roles.md" in files and "prd-revision-5.md" in files, files


def test_a_join_with_an_unknown_part_names_no_file() -> None:
    from compactor.facts.shellwrites import script_writes

    code = (
        "python3 - <<'PY'\nfrom pathlib import Path\nhere = Path(__file__).parent\n"
        "out = here / 'x.md'\nout.write_text('a')\nf2 = Path('d') / f'{stamp}.md'\n"
        "f2.write_text('b')\nPY"
    )
    assert script_writes(code) == []


# -- W1: files under a folder a later listing shows gone or empty are not current -----------------

REPO = "/home/d/atelier"
OK = "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n"


def _spec_session(listing: str, printed: str) -> str:
    s = SessionBuilder()
    s.user("crée la spec 002-docs")
    s.call("shell_command", {"command": "mkdir -p specs/002-docs/checklists", "workdir": REPO}, OK)
    for name in ("spec.md", "plan.md", "checklists/requirements.md"):
        write = f"cat > specs/002-docs/{name} <<'EOF'\n# {name}\nEOF"
        s.call("shell_command", {"command": write, "workdir": REPO}, OK)
    s.call("shell_command", {"command": "mv specs/002-docs specs/001-docs", "workdir": REPO}, OK)
    s.user("ok on annule la spec 001 : elle sert à rien")
    s.user("check une derniere mais j'ai suppr à la main")
    s.call("shell_command", {"command": listing, "workdir": REPO}, printed)
    s.say("Voilà l'état du dossier.")
    s.user("tu commits la totale")
    return _section(summarize_transcript(s.messages), 3)


NO_SUCH = (
    "Exit code: 2\nWall time: 0.1 seconds\nOutput:\nls: specs/001-docs: No such file or directory\n"
)


@pytest.mark.parametrize(
    ("listing", "printed"),
    [
        (f"ls -1 {REPO}/specs", OK),
        ("ls -la specs/001-docs", NO_SUCH),
        (f"cd {REPO} && ls specs/", OK),
        ("ls -la specs", OK + "total 0\ndrwxr-xr-x  2 d d  64 .\ndrwxr-xr-x 12 d d 384 ..\n"),
    ],
)
def test_files_under_a_folder_a_later_listing_shows_gone_are_said_deleted(
    listing: str, printed: str
) -> None:
    files = _spec_session(listing, printed)
    for name in ("spec.md", "plan.md", "checklists/requirements.md"):
        line = next(x for x in files.splitlines() if x.strip().startswith("- ") and name in x)
        assert "deleted by hand or outside the calls" in line, files


@pytest.mark.parametrize(
    ("listing", "printed"),
    [
        (f"ls -1 {REPO}/specs", OK + "001-docs\n"),
        (f"ls -1 {REPO}/docs", OK),  # another folder is empty
        (f"ls -1 {REPO}/specs | head", OK),  # a pipe: not all the listing is shown
    ],
)
def test_a_listing_that_shows_the_folder_or_another_one_deletes_nothing(
    listing: str, printed: str
) -> None:
    assert "deleted by hand" not in _spec_session(listing, printed)


# -- G1: a bare reply that picks options by letter and number names them --------------------------

OPTIONS = (
    "分支现在是这样：\n\n选哪个作为 master 的基础？\nA. master = 001-wallet-auth\n"
    "B. master = Initial commit from Specify template\nC. master = latest 002-wallet-connect\n\n"
    "怎么合并？\n1) merge commit\n2) rebase, then merge/fast-forward master\n3) squash"
)


def _branch_plan(reply: str, then: str | None) -> str:
    s = SessionBuilder()
    s.user("把分支整理一下，master 应该是最新的")
    s.say(OPTIONS)
    s.user(reply)
    if then is not None:
        s.say("好的，已经按这个方案合并。.codex 的改动也要提交吗？")
        s.user(then)
    s.say("收到。")
    return _section(summarize_transcript(s.messages), 1)


@pytest.mark.parametrize("then", [None, "1"])
def test_a_reply_picking_options_by_letter_and_number_names_them(then: str | None) -> None:
    request = _branch_plan("C+2", then)
    assert "C: master = latest 002-wallet-connect" in request, request
    assert "2: rebase, then merge/fast-forward master" in request, request
    assert "001-wallet-auth" not in request  # an option not picked


@pytest.mark.parametrize("reply", ["D", "C+7", "好的 C 方案吧但是先别动 master 分支"])
def test_a_reply_with_marks_the_options_do_not_define_names_nothing(reply: str) -> None:
    assert "picks these of the options" not in _branch_plan(reply, None)


@pytest.mark.parametrize(
    "status",
    [
        "On branch main\nChanges not staged for commit:\n\tdeleted:    specs/001-docs/spec.md\n",
        "## main...origin/main\n D specs/001-docs/spec.md\n?? notes.md\n",
    ],
)
def test_a_file_a_later_git_status_lists_deleted_is_said_deleted(status: str) -> None:
    files = _spec_session("git status", OK + status)
    spec = next(x for x in files.splitlines() if x.strip().startswith("- ") and "spec.md" in x)
    assert "deleted by hand or outside the calls" in spec and "lists it deleted" in spec, files
    plan = next(x for x in files.splitlines() if x.strip().startswith("- ") and "plan.md" in x)
    assert "deleted by hand" not in plan  # git status names only spec.md
