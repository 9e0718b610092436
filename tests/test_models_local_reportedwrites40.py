"""Blind check 40 W4 (helper scriptwrites): a file a shell call's own output says it wrote
("Copied plan template to /…/plan.md", "Created /…/notes.md") is a change of that call, for
Codex and Claude Code sessions alike; a read of a log holding such a line, a count without a
path ("Created 3 files") and the agent's own ``echo`` are not. Every session is built here, by
shape, with invented content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.facts import Call
from compactor.facts.reportedwrites import reported_writes

from .cc_session import Session, cc_summary
from .codex_rollout import codex_say, codex_summary, codex_user, rec, sections

_ROOT = "/home/dev/Tally"
_PLAN = f"{_ROOT}/specs/001-login/plan.md"
_SESSION = "0b1c2d3e-0000-4000-8000-0000000000a4"


def _line(section: str, name: str) -> str:
    return next((x for x in section.splitlines() if name in x), "")


class _Rollout:
    """A Codex rollout of ``exec_command`` calls run in :data:`_ROOT`."""

    def __init__(self, request: str) -> None:
        self.records: list[dict[str, Any]] = [
            rec("turn_context", {"cwd": _ROOT}),
            codex_user(request),
        ]
        self.n = 0

    def exec(self, cmd: str, code: int, output: str) -> None:
        self.n += 1
        key = f"call_{self.n}"
        call = {"type": "function_call", "name": "exec_command", "call_id": key}
        call["arguments"] = json.dumps({"cmd": cmd, "workdir": _ROOT})
        head = f"Chunk ID: 7a{self.n}\nWall time: 0.3 seconds\nProcess exited with code {code}\n"
        out = {"type": "function_call_output", "call_id": key, "output": head + output}
        self.records += [rec("response_item", call), rec("response_item", out)]

    def summary(self, tmp_path: Path) -> dict[str, str]:
        return sections(codex_summary(self.records, tmp_path, _SESSION, _ROOT), after="<summary>")


def _setup_output() -> str:
    return (
        "ERROR: Multiple spec directories found with prefix '001': 001-login 001-signup\n"
        f"Copied plan template to {_PLAN}\n"
        + json.dumps({"FEATURE_SPEC": f"{_ROOT}/specs/001-login/spec.md", "IMPL_PLAN": _PLAN})
    )


def test_a_setup_scripts_copy_report_makes_the_file_changed_in_codex(tmp_path: Path) -> None:
    r = _Rollout("plan the login feature")
    r.exec("cat specs/001-login/spec.md", 0, "# Login\n- users sign in with an email link\n")
    r.exec(".tools/setup-plan.sh --json", 0, _setup_output())
    r.exec(f"sed -n 1,80p {_PLAN}", 0, "# Implementation Plan: [FEATURE]\n")
    r.records.append(codex_say("The plan template is in place; I fill it in next."))
    files = r.summary(tmp_path)["3"]
    line = _line(files, "plan.md")
    assert line and "Read, not changed" not in line, files
    assert "written by `.tools/setup-plan.sh --json`" in line, line
    assert "Copied plan template to" in line and "created" not in line, line
    assert "No file was created, edited or deleted" not in files, files
    assert "spec.md" in _line(files, "Read, not changed"), files  # the JSON names it: no write


def test_a_relative_path_a_script_reports_is_resolved_where_it_ran(tmp_path: Path) -> None:
    r = _Rollout("export the totals")
    r.exec("python3 tools/export.py", 0, "[INFO] Wrote 14 rows to reports/totals.csv\n")
    r.exec("head -3 reports/totals.csv", 0, "day,total\nmon,12\n")
    files = r.summary(tmp_path)["3"]
    assert f"{_ROOT}/reports/totals.csv (written by `python3 tools/export.py`" in files, files
    assert "Read, not changed" not in files, files


def test_a_cat_of_a_log_holding_a_copy_report_changes_nothing(tmp_path: Path) -> None:
    r = _Rollout("why did the setup fail yesterday?")
    r.exec("cat /tmp/setup-run.log", 0, "Copied plan template to /srv/app/specs/plan.md\nDone\n")
    r.exec("bash -lc 'sed -n 1,40p logs/setup.txt'", 0, "Created /srv/app/notes/todo.md\n")
    r.records.append(codex_say("The log shows the template copy; nothing failed."))
    files = r.summary(tmp_path)["3"]
    assert "plan.md" not in files and "todo.md" not in files, files
    assert "No file was created, edited or deleted" in files, files


def test_a_count_without_a_path_and_the_agents_own_echo_change_nothing(tmp_path: Path) -> None:
    r = _Rollout("scaffold the widgets")
    r.exec("./scaffold.sh widgets", 0, "Created 3 files\nCreated directory widgets/base\n")
    r.exec("echo 'Created docs/widgets.md' && date", 0, "Created docs/widgets.md\nMon Dec 7\n")
    files = r.summary(tmp_path)["3"]
    assert "widgets" not in files.replace("scaffold", ""), files
    assert "No file was created, edited or deleted" in files, files


def _cc_session(failed: bool) -> Session:
    s = Session()
    s.user("write the release notes draft")
    s.bash("ls docs", "guide.md\nindex.md")
    s.call(
        "Bash",
        {"command": "node scripts/draft-notes.mjs --since v2.3"},
        ("Exit code 1\n" if failed else "")
        + "Created /home/dev/board/docs/release-notes.md\n"
        + "Created /home/dev/board/docs/index.md\n"
        + (
            "Error: GitHub API rate limit exceeded while fetching pull requests"
            if failed
            else "Fetched 14 pull requests"
        ),
        error=failed,
    )
    s.say("The draft script ran; see its output.")
    return s


def test_a_failed_calls_create_report_still_counts_in_claude_code(tmp_path: Path) -> None:
    parts = sections(cc_summary(_cc_session(failed=True), tmp_path), after="<summary>")
    files = parts["3"]
    line = _line(files, "release-notes.md")
    assert "created by `node scripts/draft-notes.mjs --since v2.3`'s script" in line, files
    assert "rate limit" in parts["4"], parts["4"]
    index = _line(files, "docs/index.md")  # `ls docs` listed it: there before, not new
    assert index and "created" not in index and "written by `node" in index, files
    assert "No file was created, edited or deleted" not in files, files


def test_a_successful_claude_code_call_reports_the_same(tmp_path: Path) -> None:
    files = sections(cc_summary(_cc_session(failed=False), tmp_path), after="<summary>")["3"]
    assert "release-notes.md (created by `node scripts/draft-notes.mjs" in files, files


def _call(cmd: str) -> Call:
    return Call("c1", "exec_command", json.dumps({"cmd": cmd}), 1)


def test_the_report_shapes_by_line() -> None:
    out = (
        "==> Saved to /srv/app/out/chart.png\n"
        "✓ Generated dist/site.css in 41ms\n"
        "created file src/routes/login.ts\n"
        "Copied config.example.toml -> config.toml\n"
        "Generating /srv/app/migrations/0004_users.py ...  done\n"
    )
    found = [(r.path, r.created) for r in reported_writes(_call("./gen.sh"), out)]
    assert found == [
        ("/srv/app/out/chart.png", False),
        ("dist/site.css", False),
        ("src/routes/login.ts", True),
        ("config.toml", False),
        ("/srv/app/migrations/0004_users.py", False),
    ]


def test_lines_that_report_no_file_write() -> None:
    out = (
        "Created 3 files\n"
        "Copied 12 files to dist/assets\n"
        "Created branch feature/login\n"
        "Created https://github.com/acme/tally/pull/12\n"
        "Created directory /srv/app/cache\n"
        "writing tally.egg-info/PKG-INFO\n"
        "  see: Copied plan template to /srv/app/plan.md\n"
        "- Created src/auth/session.ts\n"
        "## Created docs/auth.md\n"
        '{"IMPL_PLAN": "/srv/app/specs/plan.md"}\n'
    )
    assert reported_writes(_call("./gen.sh"), out) == []
    assert reported_writes(_call("grep -r Created logs/"), "Created /srv/a/b.md\n") == []
