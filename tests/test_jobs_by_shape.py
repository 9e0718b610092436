"""Running jobs judged by shape (issue 28, points 1 and 3): a job started by a call whose result
names a job/task/process/session id runs until a LATER call that names that id reports an exit.
Words such as cargo's "Finished `dev` profile", a harness's "Script completed" header or a
"done" in some other output never end it. Synthetic transcripts of each harness's shape: Claude
Code (``run_in_background`` + ``BashOutput``/``KillShell``, ``Monitor``), Codex (``exec_command``
+ ``write_stdin``, code-mode ``exec`` printing ``SESSION_ID=``) and a generic tool pair
(``start_job`` → ``job_id``, ``job_status``)."""

from __future__ import annotations

from compactor.facts import Job, background_jobs, entry_of
from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

CARGO_RUN = (
    "   Compiling app v0.1.0 (/src/app)\n"
    "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 3.54s\n"
    "     Running `target/debug/app serve --bind 127.0.0.1:8080`\n"
    "INFO app::server: listening address=127.0.0.1:8080\n"
)


def _jobs(s: SessionBuilder) -> dict[str, Job]:
    return {j.id: j for j in background_jobs([entry_of(i, m) for i, m in enumerate(s.messages)])}


def _code_mode(s: SessionBuilder, script: str, output: str) -> None:
    """Codex code-mode ``exec``: a script calls the tools; the result has the harness's
    ``Script completed`` header, and the script prints ``SESSION_ID=`` while the process runs."""
    s.call("exec", {"input": script}, f"Script completed\nWall time 5.0 seconds\nOutput:\n{output}")


def test_codex_code_mode_poll_printing_cargo_finished_leaves_the_server_running() -> None:
    """The poll's output says "Finished `dev` profile" and the harness says "Script completed",
    but the script printed the session id again: the server still runs."""
    s = SessionBuilder()
    s.user("Start the service and check it answers.")
    _code_mode(
        s,
        "const r = await tools.exec_command({cmd: 'cargo run -- serve'}); text(r.output); "
        "if (r.session_id) text(`SESSION_ID=${r.session_id}`);",
        "   Compiling reqwest v0.13.4\nSESSION_ID=89726",
    )
    _code_mode(
        s,
        'const r = await tools.write_stdin({"session_id":89726,"chars":""}); text(r.output); '
        "if (r.session_id) text(`SESSION_ID=${r.session_id}`);",
        CARGO_RUN + "SESSION_ID=89726",
    )
    jobs = _jobs(s)
    assert jobs["89726"].running, jobs["89726"].finished
    pending = section(summarize_transcript(s.messages), 7)
    assert "Background job still running" in pending and "89726" in pending

    # the same poll without the id printed again, only cargo's words: still no exit reported
    s2 = SessionBuilder()
    s2.user("Start the service.")
    _code_mode(s2, "tools.exec_command({cmd: 'cargo run'})", "Compiling\nSESSION_ID=5120")
    _code_mode(s2, 'tools.write_stdin({"session_id":5120,"chars":""})', CARGO_RUN)
    assert _jobs(s2)["5120"].running


def test_codex_exec_command_session_ends_only_when_a_poll_of_it_reports_the_exit() -> None:
    s = SessionBuilder()
    s.user("Build and run the tests in the background.")
    s.call(
        "exec_command",
        {"cmd": "cargo test --workspace", "yield_time_ms": 1000},
        "Chunk ID: a1\nWall time: 1.0 seconds\nProcess running with session ID 4411\n"
        "Output:\n   Compiling core v0.2.0\n",
    )
    # an unrelated call whose output says finished/completed/done
    s.call("exec_command", {"cmd": "cargo build -p docs"}, CARGO_RUN + "build completed, done")
    s.call(
        "write_stdin",
        {"session_id": 4411, "chars": ""},
        "Chunk ID: a2\nWall time: 5.0 seconds\nProcess running with session ID 4411\n"
        "Output:\n    Finished `test` profile [unoptimized] target(s) in 9.1s\n"
        "     Running unittests src/lib.rs\n",
    )
    assert _jobs(s)["4411"].running
    s.call(
        "write_stdin",
        {"session_id": 4411, "chars": ""},
        "Chunk ID: a3\nWall time: 2.0 seconds\nProcess exited with code 0\nOutput:\n"
        "test result: ok. 212 passed; 0 failed\n",
    )
    job = _jobs(s)["4411"]
    assert not job.running and "Process exited with code 0" in job.finished


def test_claude_code_background_bash_runs_until_bashoutput_reports_completed() -> None:
    s = SessionBuilder()
    s.user("Run the benchmark in the background and tell me the number.")
    s.call(
        "Bash",
        {"command": "cargo bench --bench parse", "run_in_background": True},
        "Command running in background with ID: bash_7",
    )
    s.call(
        "BashOutput",
        {"bash_id": "bash_7"},
        "<status>running</status>\n<stdout>\n    Finished `bench` profile [optimized] target(s)\n"
        "</stdout>",
    )
    assert _jobs(s)["bash_7"].running
    text = summarize_transcript(s.messages)
    assert "bash_7" in section(text, 7) and "cargo bench --bench parse" in section(text, 7)
    s.call(
        "BashOutput",
        {"bash_id": "bash_7"},
        "<status>completed</status>\n<exit_code>0</exit_code>\n<stdout>parse  time: 41.2 µs"
        "</stdout>",
    )
    job = _jobs(s)["bash_7"]
    assert not job.running and "<status>completed" in job.finished
    assert "bash_7" not in section(summarize_transcript(s.messages), 7)


def test_a_killed_shell_is_not_running() -> None:
    s = SessionBuilder()
    s.user("Start the dev server.")
    s.call(
        "Bash",
        {"command": "npm run dev", "run_in_background": True},
        "Command running in background with ID: shell_3",
    )
    s.call("KillShell", {"shell_id": "shell_3"}, "Successfully killed shell: shell_3")
    assert not _jobs(s)["shell_3"].running


def test_a_monitor_task_is_not_ended_by_another_calls_completed_output() -> None:
    s = SessionBuilder()
    s.user("Watch the deploy while you fix the lint.")
    s.call(
        "Monitor",
        {"command": "kubectl rollout status deploy/api", "description": "deploy watch"},
        "Monitor started. Task ID: mon4k2. Events arrive as notifications.",
    )
    s.call("Bash", {"command": "ruff check ."}, "All checks passed! Lint completed, done.")
    s.call("Bash", {"command": "pytest -q"}, "212 passed in 4.10s\nFinished.")
    assert _jobs(s)["mon4k2"].running
    s.user(
        "<task-notification> <task-id>mon4k2</task-id> <status>completed</status> "
        "</task-notification>",
        injected=True,
    )
    assert not _jobs(s)["mon4k2"].running


def test_a_generic_job_tool_pair_is_judged_by_the_id_and_the_status() -> None:
    s = SessionBuilder()
    s.user("Export the March invoices.")
    s.call(
        "start_job",
        {"kind": "export", "month": "2026-03"},
        '{"job_id": "j-8841", "status": "queued"}',
    )
    s.call("read_file", {"path": "NOTES.md"}, "Phase one finished. Migration done.")
    s.call("job_status", {"job_id": "j-8841"}, '{"job_id": "j-8841", "status": "running"}')
    assert _jobs(s)["j-8841"].running
    pending = section(summarize_transcript(s.messages), 7)
    assert "j-8841" in pending
    s.call(
        "job_status",
        {"job_id": "j-8841"},
        '{"job_id": "j-8841", "status": "succeeded", "rows": 1200}',
    )
    job = _jobs(s)["j-8841"]
    assert not job.running and "succeeded" in job.finished


def test_finished_in_the_starting_calls_own_output_does_not_end_the_job() -> None:
    s = SessionBuilder()
    s.user("Run the server.")
    s.call(
        "exec_command",
        {"cmd": "cargo run --release -- serve"},
        "Chunk ID: b1\nWall time: 10.0 seconds\nProcess running with session ID 9001\nOutput:\n"
        + CARGO_RUN,
    )
    assert _jobs(s)["9001"].running


def test_a_poll_that_finds_the_process_gone_ends_it() -> None:
    s = SessionBuilder()
    s.user("Start the worker.")
    s.call("start_process", {"cmd": "python worker.py"}, "started process, pid: 73114 (running)")
    assert _jobs(s)["73114"].running
    s.call(
        "Bash", {"command": "kill -0 73114"}, "bash: kill: (73114) - No such process", error=True
    )
    assert not _jobs(s)["73114"].running


def test_a_poll_that_prints_the_id_while_alive_and_did_not_means_the_process_is_gone() -> None:
    """The poll script prints ``SESSION_ID=`` only while the process lives; this time the
    process printed an error and the id was not printed: it exited."""
    s = SessionBuilder()
    s.user("Start the service.")
    _code_mode(s, "tools.exec_command({cmd: 'cargo run -- serve'})", "Compiling\nSESSION_ID=63477")
    _code_mode(
        s,
        'const r = await tools.write_stdin({"session_id":63477,"chars":""}); text(r.output); '
        "if (r.session_id) text(`SESSION_ID=${r.session_id}`);",
        CARGO_RUN + "Error: Operation not permitted (os error 1)\n",
    )
    job = _jobs(s)["63477"]
    assert not job.running and "SESSION_ID=" in job.finished


def test_a_poll_that_returned_long_before_its_wait_was_over_saw_the_process_exit() -> None:
    s = SessionBuilder()
    s.user("Run the benchmark.")
    _code_mode(
        s,
        "tools.exec_command({cmd: 'cargo run --release -- bench'})",
        "Compiling\nSESSION_ID=95469",
    )
    s.call(
        "exec",
        {"input": 'tools.write_stdin({"session_id":95469,"chars":"","yield_time_ms":30000})'},
        'Script completed\nWall time 0.0 seconds\nOutput:\n{"events_per_second":529726.07}\n',
    )
    job = _jobs(s)["95469"]
    assert not job.running and "0.0 s of a 30 s wait" in job.finished
    # the same poll that used its whole wait: the process may still run
    s2 = SessionBuilder()
    s2.user("Run the server.")
    _code_mode(s2, "tools.exec_command({cmd: 'cargo run -- serve'})", "Compiling\nSESSION_ID=777")
    s2.call(
        "exec",
        {"input": 'tools.write_stdin({"session_id":777,"chars":"","yield_time_ms":5000})'},
        "Script completed\nWall time 5.0 seconds\nOutput:\n" + CARGO_RUN,
    )
    assert _jobs(s2)["777"].running


def test_a_run_id_in_a_record_is_not_a_job() -> None:
    s = SessionBuilder()
    s.user("Show the snapshot.")
    s.call(
        "Bash",
        {"command": "curl -s localhost:8080/api/snapshot"},
        '{"run_id":"7e9081ad-b42e-471f-a442-b2448355650a","mode":"paper","running":true}',
    )
    assert _jobs(s) == {}


def test_a_running_jobs_latest_poll_output_is_kept_with_it() -> None:
    """Point 3: what the latest poll of a running job printed (the server listening), not
    cargo's build line."""
    s = SessionBuilder()
    s.user("Start the service.")
    _code_mode(s, "tools.exec_command({cmd: 'cargo run -- serve'})", "Compiling\nSESSION_ID=89726")
    _code_mode(
        s,
        'const r = await tools.write_stdin({"session_id":89726,"chars":""}); text(r.output); '
        "if (r.session_id) text(`SESSION_ID=${r.session_id}`);",
        CARGO_RUN + "SESSION_ID=89726",
    )
    s.call("Bash", {"command": "curl -s localhost:8080/api/ready"}, '{"ready":true}')
    pending = section(summarize_transcript(s.messages), 7)
    line = next(ln for ln in pending.splitlines() if "89726" in ln)
    assert 'its latest poll returned: "INFO app::server: listening address=127.0.0.1:8080' in line


def test_the_facts_the_last_rounds_results_established_are_kept() -> None:
    """Point 3: paths, amounts and failures printed by the last three rounds' calls (not by
    reads that succeeded, not by housekeeping, not again for the last action's calls), one
    compact line per call."""
    s = SessionBuilder()
    s.user("Refund order 5521 and archive the invoice.")
    s.call(
        "refund_order",
        {"order_id": "5521"},
        '{"refund_id": "re_3PqX9", "amount": "$1,250.00", "status": "succeeded"}',
    )
    s.say("Refunded. Now the invoice.")
    s.call(
        "Bash",
        {"command": "mv invoices/5521.pdf archive/"},
        "mv: cannot stat 'invoices/5521.pdf': No such file or directory",
        error=True,
    )
    s.call("Bash", {"command": "ls archive/2026/"}, "invoice-5521-final.pdf\nindex.json")
    s.call("Bash", {"command": "date"}, "Sat Dec  5 22:00:00 UTC 2026")
    work = section(summarize_transcript(s.messages), 8)
    facts = work.split("What the results of the last rounds established:")[1]
    assert "`refund_order(order_id=5521)` → ok; printed" in facts and "`$1,250.00`" in facts
    assert "`refund_id=re_3PqX9`" in facts
    # the last action's calls are listed once, with what they returned
    assert "→ failed: mv: cannot stat 'invoices/5521.pdf': No such file" in work
    assert "mv invoices" not in facts and "date" not in facts


def test_a_server_whose_port_a_later_process_listens_on_is_gone() -> None:
    """Two processes cannot listen on one port: the server started first, never polled again,
    is gone once a later one reports listening on its port; one on another port still runs."""
    s = SessionBuilder()
    s.user("Run the service, then restart it with the new config.")
    _code_mode(
        s,
        "tools.exec_command({cmd: 'cargo run -- serve'})",
        "Running `target/debug/app serve --bind '127.0.0.1:8080'`\nSESSION_ID=85147",
    )
    _code_mode(
        s,
        "tools.exec_command({cmd: 'python -m http.server 9000'})",
        "Serving HTTP on 0.0.0.0 port 9000 (http://0.0.0.0:9000/) ...\nSESSION_ID=4100",
    )
    assert _jobs(s)["85147"].running
    _code_mode(
        s,
        "tools.exec_command({cmd: 'cargo run -- serve --config new.toml'})",
        "Compiling\nSESSION_ID=89726",
    )
    _code_mode(
        s,
        'const r = await tools.write_stdin({"session_id":89726,"chars":""}); text(r.output); '
        "if (r.session_id) text(`SESSION_ID=${r.session_id}`);",
        CARGO_RUN + "SESSION_ID=89726",
    )
    jobs = _jobs(s)
    assert jobs["89726"].running and jobs["4100"].running
    assert not jobs["85147"].running
    assert jobs["85147"].finished == "gone: a later process listens on port 8080"


def test_a_session_id_echoed_by_a_foreground_command_that_exited_is_not_a_job() -> None:
    """Blind check 2: a skill preamble ran in the foreground, echoed its telemetry
    ``SESSION_ID: <pid>-<epoch>`` as its last line and returned. Nothing was started in the
    background: no job, and the summary names none. The same id line after an explicit exit
    (``Process exited with code 0``) is not a job either; a command that printed the id of a
    process it left running still is one."""
    s = SessionBuilder()
    s.user("Launch the grant skill.")
    s.call(
        "Bash",
        {
            "command": '_TEL_START=$(date +%s)\n_SESSION_ID="$$-$(date +%s)"\n'
            'echo "TELEMETRY: anonymous"\necho "SESSION_ID: $_SESSION_ID"'
        },
        "TELEMETRY: anonymous\nTEL_PROMPTED: yes\nTEL_START: 1781488580\n"
        "SESSION_ID: 2072-1781488580",
    )
    s.call(
        "exec_command",
        {"cmd": "./report.sh"},
        "Chunk ID: c1\nWall time: 0.2 seconds\nProcess exited with code 0\n"
        "Output:\nreport written\nsession_id: 5531",
    )
    assert _jobs(s) == {}
    text = summarize_transcript(s.messages)
    assert "Background job" not in text and "2072-1781488580" not in section(text, 9)
    assert "5531" not in section(text, 7)

    # a process left running with its id as the last line is still a job
    s2 = SessionBuilder()
    s2.user("Start the service.")
    _code_mode(s2, "tools.exec_command({cmd: 'cargo run'})", "Compiling\nSESSION_ID=5120")
    _code_mode(
        s2,
        "const r = await tools.exec_command({cmd: 'npm run dev'}); "
        'console.log("SESSION_ID=" + r.session_id);',
        "ready in 300 ms\nSESSION_ID=6230",
    )
    jobs = _jobs(s2)
    assert jobs["5120"].running and jobs["6230"].running
