"""Issue 28 after blind check 5: what the embedded summary says of where work stands.

Synthetic sessions of each kind of wrong statement blind check 5 found (none copied from a held-out
file): a background job made up from a log a command printed; a Codex unified-exec process kept
"running" after the harness recorded its end, and named after the poll instead of its start; stale
early state and a constraint the user later lifted, shown as current; Codex Desktop's output
header read as the output; a superseded earlier answer quoted; a user's rejection reason lost."""

from __future__ import annotations

import json

from compactor.facts import background_jobs, entry_of
from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section


def _rollout(*payloads: tuple[str, dict[str, object]]) -> bytes:
    meta = {"id": "s-1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w", "originator": "codex"}
    records = [{"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": meta}]
    for kind, payload in payloads:
        records.append({"timestamp": "2026-01-01T00:00:01Z", "type": kind, "payload": payload})
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def _user(text: str) -> tuple[str, dict[str, object]]:
    content = [{"type": "input_text", "text": text}]
    return "response_item", {"type": "message", "role": "user", "content": content}


def _exec(call_id: str, name: str, args: dict[str, object]) -> tuple[str, dict[str, object]]:
    return "response_item", {"type": "function_call", "name": name,
                             "arguments": json.dumps(args), "call_id": call_id}  # fmt: skip


def _output(call_id: str, text: str) -> tuple[str, dict[str, object]]:
    return "response_item", {"type": "function_call_output", "call_id": call_id, "output": text}


def _end(call_id: str, process: str, code: int) -> tuple[str, dict[str, object]]:
    payload: dict[str, object] = {"type": "exec_command_end", "call_id": call_id}
    payload.update(process_id=process, exit_code=code, aggregated_output="", status="failed")
    return "event_msg", payload


def _running(session: int) -> str:
    return (
        f"Chunk ID: 4f1a\nWall time: 1.0010 seconds\nProcess running with session ID {session}\n"
        "Original token count: 0\nOutput:\n"
    )


# -- 1. running jobs: only from a call that started one; over when the harness says so -----------


def test_a_pid_in_a_log_that_a_command_printed_is_not_a_running_job() -> None:
    s = SessionBuilder()
    s.user("Check why the dev server did not come up.")
    s.call(
        "Bash",
        {"command": 'cat /tmp/web_smoke.log; echo "---pid file---"; cat tmp/pids/web.pid'},
        "=> Booting Puma\nA server is already running (pid: 51234, file: /srv/app/tmp/pids/web.pid"
        ").\n---pid file---\ncat: tmp/pids/web.pid: No such file or directory",
    )
    s.say("A stale server held the port; I killed it.")
    entries = [entry_of(i, m) for i, m in enumerate(s.messages)]
    assert background_jobs(entries) == []
    text = summarize_transcript(s.messages)
    assert "51234" not in section(text, 7) and "Background job" not in text
    assert "file---" not in text.split("<summary>", 1)[1].split("8. ", 1)[0].split("7. ", 1)[1]


def test_a_foreground_command_that_says_a_server_is_running_started_nothing() -> None:
    s = SessionBuilder()
    s.user("Start the app.")
    s.call(
        "Bash",
        {"command": "bin/rails server -p 3001"},
        "A server is already running (pid: 61990, file: tmp/pids/server.pid).\nExiting",
    )
    entries = [entry_of(i, m) for i, m in enumerate(s.messages)]
    assert background_jobs(entries) == []
    s2 = SessionBuilder()
    s2.user("Start the worker in the background.")
    s2.call(
        "Bash", {"command": "nohup python worker.py > w.log 2>&1 &"}, "worker running, pid: 7311"
    )
    jobs = background_jobs([entry_of(i, m) for i, m in enumerate(s2.messages)])
    assert [j.id for j in jobs if j.running] == ["7311"]  # a command that backgrounds may say so


def test_a_codex_process_whose_end_event_is_recorded_is_over_and_named_after_its_start() -> None:
    raw = _rollout(
        _user("Find the grant notes on this machine."),
        _exec("call_f", "exec_command", {"cmd": "find ~ -maxdepth 3 -name 'grant*.md'"}),
        _output("call_f", _running(7001)),
        _exec("call_p", "write_stdin", {"session_id": 7001, "chars": "", "yield_time_ms": 1000}),
        _output("call_p", _running(7001)),
        _exec("call_k", "write_stdin", {"session_id": 7001, "chars": "\u0003"}),
        _output("call_k", "write_stdin failed: stdin is closed for this session"),
        _end("call_f", "7001", 1),
        _exec("call_r", "exec_command", {"cmd": "rg --files -g '*.md' ~/projects"}),
        _output("call_r", _running(7002)),
    )
    t = read_transcript("rollout.jsonl", raw)
    text = summarize_transcript(t.messages)
    pending = section(text, 7)
    assert "7002" in pending and "rg --files" in pending
    assert "7001" not in pending  # its exec_command_end (exit 1) is in the rollout
    assert "write_stdin (id" not in text
    assert "Chunk ID" not in pending and "Original token count" not in pending  # header, no output


def test_a_codex_write_stdin_poll_that_returns_an_exit_ends_the_job_named_after_its_start() -> None:
    raw = _rollout(
        _user("Run the test suite."),
        _exec("call_t", "exec_command", {"cmd": "cargo test --workspace"}),
        _output("call_t", _running(8123)),
        _exec("call_p", "write_stdin", {"session_id": 8123, "chars": "", "yield_time_ms": 5000}),
        _output("call_p", _running(8123)),
    )
    text = summarize_transcript(read_transcript("rollout.jsonl", raw).messages)
    pending = section(text, 7)
    assert "cargo test --workspace" in pending and "8123" in pending
    assert "write_stdin (id" not in pending
    raw2 = raw + _rollout(
        _exec("call_q", "write_stdin", {"session_id": 8123, "chars": "", "yield_time_ms": 5000}),
        _output("call_q", "Chunk ID: 9\nWall time: 0.2 seconds\nProcess exited with code 101\n"
                "Original token count: 3\nOutput:\ntest result: FAILED. 3 passed; 1 failed"),
    ).split(b"\n", 1)[1]  # fmt: skip
    pending2 = section(summarize_transcript(read_transcript("r.jsonl", raw2).messages), 7)
    assert "Background job" not in pending2 and "jobs still running" not in pending2


# -- 3. Codex Desktop's output header: the output is what follows "Output:" ---------------------


def _desktop(command: str, code: int, output: str) -> str:
    return (
        f"Command: /bin/zsh -lc {command!r}\nChunk ID: c0ffee\nWall time: 0.0112 seconds\n"
        f"Process exited with code {code}\nOriginal token count: 57\nOutput:\n{output}"
    )


def test_codex_desktop_header_is_not_the_output_and_its_exit_code_is_read() -> None:
    export = "sh scripts/export.sh --all\n# keeps every record\ncp out.jsonl ./backup/"
    raw = _rollout(
        _user("Send the session export to the reviewers."),
        _exec("call_n", "exec_command", {"cmd": "git config --get user.name"}),
        _output("call_n", _desktop("git config --get user.name", 0, "Jordan Vale\n")),
        _exec("call_e", "exec_command", {"cmd": export}),
        _output("call_e", _desktop(export, 0, "Exported 41 records to ./backup/out.jsonl\n")),
        _exec("call_x", "exec_command", {"cmd": "make upload"}),
        _output("call_x", _desktop("make upload", 2, "make: *** No rule to make target 'upload'.")),
    )
    text = summarize_transcript(read_transcript("rollout.jsonl", raw).messages)
    assert "Jordan Vale" in text and "Exported 41 records" in text
    assert "c0ffee" not in text and "Original token count" not in text
    assert "printed /bin/zsh" not in text
    assert "No rule to make target" in section(text, 4)  # exit 2 read from the header: failed


# -- 2. early state and constraints a later request or call superseded -----------------------------


def test_a_hold_the_user_later_lifted_is_not_a_standing_constraint() -> None:
    s = SessionBuilder()
    s.user("Plan the ledger service. Do not write any code yet. Modules must stay under 300 lines.")
    s.say("Here is the plan: a parser, a ledger and a report module.")
    s.user("Looks right. Please write the parser module now.")
    s.call(
        "Write", {"file_path": "ledger/parser.py", "content": "def parse(): ...\n"}, "File created"
    )
    rules = section(summarize_transcript(s.messages), 1).split("Constraints and preferences")[1]
    assert "Do not write any code yet" not in rules
    assert "Modules must stay under 300 lines" in rules  # not lifted: still stands
    s2 = SessionBuilder()
    s2.user("Add the models. Do not run the migration.")
    s2.say("Models added.")
    s2.user("Thanks, and never run anything against production.")
    rules2 = section(summarize_transcript(s2.messages), 1).split("Constraints and preferences")[1]
    assert "Do not run the migration" in rules2  # nothing later asked for it
    s3 = SessionBuilder()
    s3.user("Write the Dockerfile. Do not include any private registry images.")
    s3.say("Dockerfile written.")
    s3.user("Check that all elements (including text, images and icons) are aligned.")
    rules3 = section(summarize_transcript(s3.messages), 1).split("Constraints and preferences")[1]
    assert "Do not include any private registry images" in rules3  # not asked for: still stands


def test_a_not_yet_done_statement_that_a_later_call_did_is_not_a_current_result() -> None:
    s = SessionBuilder()
    s.user("Add the invoices table.")
    s.call("Write", {"file_path": "db/migrate/001_invoices.rb", "content": "create_table"}, "ok")
    s.say(
        "Migration file created. No migration has been run yet, so the database is untouched; "
        "the schema decision is to keep amounts in integer cents."
    )
    s.user("Good, run it.")
    s.call("Bash", {"command": "bin/rails db:migrate"}, "== 001 CreateInvoices: migrated (0.01s)")
    s.say("Done: the invoices table exists now.")
    solving = section(summarize_transcript(s.messages), 5)
    assert "No migration has been run" not in solving
    s2 = SessionBuilder()
    s2.user("Add the invoices table.")
    s2.say(
        "No migration has been run yet, so the database is untouched; "
        "the schema decision is to keep amounts in integer cents."
    )
    s2.call(
        "Bash", {"command": "bin/rails db:migrate"}, "Exit code 1\nPG::ConnectionBad", error=True
    )
    assert "No migration has been run" in section(summarize_transcript(s2.messages), 5)
    s3 = SessionBuilder()
    s3.user("Fix the parser.")
    s3.say(
        "I changed the parser. Nothing has been committed — the changes are in the working tree."
    )
    s3.call("Bash", {"command": "cd ~/work/tree-changes && make test"}, "12 passed")
    assert "Nothing has been committed" in section(summarize_transcript(s3.messages), 5)


# -- 4. an earlier answer a later turn revised is not quoted as the answer ----------------------


def test_the_latest_answer_that_revised_an_earlier_draft_is_quoted_first() -> None:
    s = SessionBuilder()
    s.user("Draft the release notes for 4.2.")
    draft = (
        "Drafted the release notes in docs/RELEASE-4.2.md:\n\n"
        + "".join(
            f"- Change {n}: the parser now handles case {n} without copying.\n" for n in range(12)
        )
        + "\nStill to fill: the release date and the upgrade command."
    )
    s.call("Write", {"file_path": "docs/RELEASE-4.2.md", "content": draft}, "File created")
    s.say(draft)
    s.user("The date is June 3, 2026 and the command is pip install -U parsekit.")
    s.call("Edit", {"file_path": "docs/RELEASE-4.2.md", "old_string": "x", "new_string": "y"}, "ok")
    s.say(
        "Updated docs/RELEASE-4.2.md: release date June 3, 2026; upgrade: pip install -U parsekit."
    )
    s.user("Now tag the release.")
    s.call("Bash", {"command": "git tag v4.2 && git push --tags"}, None)
    work = section(summarize_transcript(s.messages), 8)
    latest = work.index("Updated docs/RELEASE-4.2.md: release date June 3, 2026")
    assert "REVISED since" in work and latest < work.index("Drafted the release notes")
    assert "Change 11" in work  # the earlier draft is still there, marked as revised


# -- 5. losses: a rejection's reason, a file the user asked for, facts tool results established ---

_REJECT = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was "
    "a file edit, the new_string was NOT written to the file). The user provided the following "
    "reason for the rejection:  please key orders by order_ref instead of the row id"
)


def test_a_rejected_calls_reason_is_kept_as_the_users_decision_not_a_fixed_failure() -> None:
    s = SessionBuilder()
    s.user("Add the order lookup endpoint.")
    edit: dict[str, object] = {
        "file_path": "app/orders.py",
        "old_string": "def get(id)",
        "new_string": "def get(i)",
    }
    s.call("Edit", edit, _REJECT, error=True)
    edit2: dict[str, object] = {
        "file_path": "app/orders.py",
        "old_string": "def get(id)",
        "new_string": "def get(r)",
    }
    s.call("Edit", edit2, "The file app/orders.py has been updated.")
    s.say("Switched the lookup to order_ref.")
    text = summarize_transcript(s.messages)
    reason = "please key orders by order_ref instead of the row id"
    assert reason in section(text, 1)  # with the user's constraints
    errors = section(text, 4)
    assert reason in errors and "Rejected by the user" in errors
    assert "Fixed: a later" not in errors


def test_a_finding_a_check_confirmed_is_kept_among_many_decisions() -> None:
    s = SessionBuilder()
    s.user("Prepare the deploy.")
    for n in range(30):
        s.say(f"Decided to use pool size {n} instead of {n + 1} for worker group w{n}.")
        s.call("Bash", {"command": f"make step{n}"}, "ok")
    check = "git check-ignore -v config/app.key; git log --all -- config/app.key"
    s.call("Bash", {"command": check}, ".gitignore:34:/config/*.key\tconfig/app.key\n")
    s.say("Good — confirmed `config/app.key` is gitignored and has never been committed.")
    s.user("Thanks. Now write the release note.")
    solving = section(summarize_transcript(s.messages), 5)
    assert "`config/app.key` is gitignored and has never been committed" in solving


def test_what_git_status_reported_in_the_last_rounds_is_kept() -> None:
    s = SessionBuilder()
    s.user("Package the report for the reviewers.")
    s.call("Bash", {"command": "git status --short"}, " M out/summary.csv\n M out/chart.svg\n")
    s.say("The worktree has uncommitted changes in out/; I'll leave them as they are.")
    s.call("Bash", {"command": "zip -r report.zip out"}, None)
    work = section(summarize_transcript(s.messages), 8)
    assert "out/summary.csv" in work and "out/chart.svg" in work


# -- 6. what Claude Code's own summary keeps: the approved plan, the attempt that worked -----------


def test_a_plan_the_user_approved_is_an_accepted_decision() -> None:
    s = SessionBuilder()
    s.user("Make me a tiny always-visible notes window.")
    plan = (
        "# Notes window\n\n## Window\n- `alwaysOnTop: true` — stays above other windows\n"
        "- `width: 280, height: 360` — small\n- frameless, rounded corners\n"
    )
    s.call("ExitPlanMode", {"plan": plan}, "User has approved your plan. You can now start coding.")
    for n in range(3):
        s.call("Write", {"file_path": f"src/part{n}.ts", "content": "export {}\n"}, "File created")
    solving = section(summarize_transcript(s.messages), 5)
    assert "The user approved the plan: alwaysOnTop: true" in solving
    assert "width: 280, height: 360" in solving


def test_the_attempt_that_fixed_a_dependency_conflict_is_what_the_summary_keeps() -> None:
    s = SessionBuilder()
    s.user("Get the desktop build working again.")
    for n in range(10):
        s.call("Bash", {"command": f"cargo test -p part{n}"}, f"test result: ok. {n + 3} passed")
    s.call("Bash", {"command": "cargo build"}, "error: multiple versions of zstd-sys", error=True)
    s.call(
        "Bash", {"command": "cargo update -p zstd --precise 0.13.1"},
        "    Updating crates.io index\n  Downgrading zstd v0.13.2 -> v0.13.1",
    )  # fmt: skip
    s.call("Bash", {"command": "cargo build"}, "error: multiple versions of zstd-sys", error=True)
    s.call(
        "Bash", {"command": "cargo update -p zstd-sys --precise 2.0.8"},
        "    Updating crates.io index\n    Removing zstd-safe v7.2.1\n"
        "  Downgrading zstd-sys v2.0.9+zstd.1.5.6 -> v2.0.8+zstd.1.5.5",
    )  # fmt: skip
    s.call("Bash", {"command": "cargo build"}, "    Finished `dev` profile in 41.2s")
    solving = section(summarize_transcript(s.messages), 5)
    printed = solving.split("What commands printed:", 1)[1].split("Tool calls", 1)[0]
    assert "cargo update -p zstd-sys --precise 2.0.8" in printed
    assert "Downgrading zstd-sys v2.0.9+zstd.1.5.6 -> v2.0.8+zstd.1.5.5" in printed
