"""Blind check 19's job-state wrong statements (issue 28, fix19a), each on a session built here
by shape: async agents a notification (``<agent-notification>``, in ``queue-operation`` records
only) reported completed, agents a poll found gone ("No task found with ID"), background Task
calls the user rejected, the "nothing is pending" beside a running job, and a background shell
started before the Claude Code CLI restarted (its ``sessionId`` changed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.runs.claims import contradictions
from compactor.runs.evaluate import evaluate_files
from compactor.schema import PROCESS_KEY

from .cc_session import OLD_SUMMARY, SESSION, Session, queue_record
from .fake_server_cli import invoke
from .planted_session import SessionBuilder
from .test_evaluate import _compacted
from .test_models_local_session import section

_REJECTED = (
    "The user doesn't want to take this action right now. STOP what you are doing and wait for "
    "the user to tell you how to proceed."
)


def _agent(s: SessionBuilder, key: str, what: str) -> None:
    s.call(
        "Task",
        {"description": what, "prompt": f"{what} in deploy/", "run_in_background": True},
        f"Async agent launched successfully.\nagentId: {key} (internal ID)\nThe agent is "
        "currently working in the background.",
    )


def _agents_session(*, polled: str) -> list[Any]:
    s = SessionBuilder()
    s.user("Create the deployment files: Helm chart, Ansible playbook, Nomad job.")
    _agent(s, "c1d2e3f", "Create Helm chart")
    s.call(
        "Task",
        {"description": "Create Ansible playbook", "prompt": "x", "run_in_background": True},
        _REJECTED,
        error=True,
    )
    s.user("[Request interrupted by user for tool use]")
    s.user("Check on the agents")
    s.call(
        "TaskOutput",
        {"task_id": "c1d2e3f", "block": False},
        polled,
        error=polled.startswith("<tool_use_error>"),
    )
    s.say("The background agents were cancelled when you interrupted. What next?")
    return s.messages


def test_a_background_task_the_user_rejected_started_nothing() -> None:
    pending = section(summarize_transcript(_agents_session(polled="still working")), 7)
    assert "Create Ansible playbook" not in pending, pending
    assert "toolu_0002" not in pending, pending
    assert "c1d2e3f" in pending, pending  # the launched agent, never seen ending, is listed


def test_a_poll_answered_no_task_found_ends_the_job() -> None:
    gone = "<tool_use_error>No task found with ID: c1d2e3f</tool_use_error>"
    text = summarize_transcript(_agents_session(polled=gone))
    pending = section(text, 7)
    assert "still running" not in pending, pending
    assert "c1d2e3f" not in pending, pending


def _queue(content: str) -> dict[str, Any]:
    return queue_record("enqueue", content)


def _notice(key: str, what: str) -> str:
    return (
        f"<agent-notification>\n<agent-id>{key}</agent-id>\n<output-file>/tmp/claude/tasks/"
        f'{key}.output</output-file>\n<status>completed</status>\n<summary>Agent "{what}" '
        "completed.</summary>\nRead the output file to retrieve the full result.\n"
        "</agent-notification>"
    )


def _launch(s: Session, call: str, key: str, what: str) -> None:
    task = {"description": what, "prompt": f"{what} in deploy/", "run_in_background": True}
    s.assistant([{"type": "tool_use", "id": call, "name": "Task", "input": task}])
    launched = f"Async agent launched successfully.\nagentId: {key} (internal ID)"
    s.user([{"type": "tool_result", "tool_use_id": call, "content": launched}])


def _notified_session(tmp_path: Path, *, earlier: bool = False) -> Path:
    s = Session()
    if earlier:  # Claude Code's own compaction before it
        s.user(OLD_SUMMARY + "\n\n7. Pending Tasks:\n   - Deploy the board to staging.")
    s.user("Create the Helm chart and the Nomad job for the board.")
    _launch(s, "toolu_helm", "e4f5a6b", "Create Helm chart")
    _launch(s, "toolu_nomad", "f5a6b7c", "Create Nomad job")
    s.assistant([{"type": "text", "text": "Both agents are working in the background."}])
    s.records.append(_queue(_notice("e4f5a6b", "Create Helm chart")))
    s.user("Thanks. Is the Helm chart in place?")
    s.bash("ls deploy/helm", "Chart.yaml\nvalues.yaml\ntemplates")
    s.assistant([{"type": "text", "text": "Yes: deploy/helm has Chart.yaml and values.yaml."}])
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"\n".join(orjson.dumps(r) for r in s.records) + b"\n")
    return src


def test_an_agent_notification_in_a_queue_record_ends_the_agent(tmp_path: Path) -> None:
    src = _notified_session(tmp_path)
    t = read_transcript(str(src), src.read_bytes())
    pending = section(summarize_transcript(t.messages), 7)
    assert "e4f5a6b" not in pending, pending  # reported completed by the CLI
    assert "f5a6b7c" in pending, pending  # never reported: still listed


def test_an_answered_session_with_a_running_job_does_not_say_nothing_is_pending(
    tmp_path: Path,
) -> None:
    src = _notified_session(tmp_path, earlier=True)
    t = read_transcript(str(src), src.read_bytes())
    text = summarize_transcript(t.messages)
    assert "Since the earlier summary, the last request was answered" in section(text, 7)
    assert "f5a6b7c" in section(text, 7)
    assert "nothing is pending" not in text, section(text, 7)
    assert contradictions(t.messages, text) == []


def test_eval_judges_the_jobs_as_the_summarizer_does(tmp_path: Path) -> None:
    """``compact eval`` counts a job a poll found gone, or one the user rejected, as no running
    job: a summary saying nothing is pending is no contradiction, and the job is no fact the
    summary lacks."""
    gone = "<tool_use_error>No task found with ID: c1d2e3f</tool_use_error>"
    messages = _agents_session(polled=gone)
    said = "7. Pending Tasks:\n   - None: the last request was answered; nothing is pending."
    assert contradictions(messages, said) == []
    wrong = "Background job still running (started, never seen finishing): x (id c1d2e3f)"
    found = contradictions(messages, wrong)
    assert [(c.kind, c.original) for c in found] == [("running job", "job c1d2e3f finished")]
    src = _notified_session(tmp_path)
    summary = summarize_transcript(read_transcript(str(src), src.read_bytes()).messages)
    out = _compacted(tmp_path / "out.jsonl", summary.split("<summary>", 1)[1])
    result = evaluate_files(str(src), str(out))
    assert result.contradictions == [], result.contradictions
    jobs = next(c for c in result.categories if c.name == "running jobs")
    assert [i.text for i in jobs.items] == ["f5a6b7c"], jobs.items


# -- W1: a background shell started before the CLI restarted ended with that run ---------------

_NEW_RUN = "9a8b7c6d-1111-4222-8333-944455556666"


def _restarted_session(tmp_path: Path, *, restart: bool) -> Path:
    s = Session()
    s.user("The CI run failed; fetch the failing job's log.")
    command = "gh api repos/acme/board/actions/runs/42/jobs | head -100"
    s.assistant(
        [
            {
                "type": "tool_use",
                "id": "toolu_bg",
                "name": "Bash",
                "input": {"command": command, "run_in_background": True},
            }
        ]
    )
    s.user(
        [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_bg",
                "content": "Command running in background with ID: b9x8y7z. Output is being "
                f"written to: /tmp/claude-0/board/{SESSION}/tasks/b9x8y7z.output",
            }
        ]
    )
    s.assistant([{"type": "text", "text": "Fetching the log in the background."}])
    first_of_new_run = len(s.records)
    s.user("Merged, branch deleted. Now deploy it to the server.")
    s.bash("git pull && ./deploy.sh", "Deployed board 1.4.2 to prod-1")
    s.assistant([{"type": "text", "text": "Deployed 1.4.2 to prod-1."}])
    for rec in s.records[first_of_new_run:] if restart else ():
        rec["sessionId"] = _NEW_RUN  # a new CLI process (restart or --resume)
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"\n".join(orjson.dumps(r) for r in s.records) + b"\n")
    return src


def test_a_background_shell_started_before_a_cli_restart_is_not_running(tmp_path: Path) -> None:
    src = _restarted_session(tmp_path, restart=True)
    t = read_transcript(str(src), src.read_bytes())
    text = summarize_transcript(t.messages)
    pending, step = section(text, 7), section(text, 9)
    assert "still running" not in pending, pending
    assert "do not start it again" not in pending, pending
    assert "was started in an earlier run of the CLI (it ended with that run" in pending, pending
    assert "start it again if still needed: `gh api repos/acme/board" in pending, pending
    assert "b9x8y7z" in pending and "still running" not in step, step
    assert contradictions(t.messages, text) == []
    out = _compacted(tmp_path / "out.jsonl", text.split("<summary>", 1)[1])
    jobs = next(
        c for c in evaluate_files(str(src), str(out)).categories if c.name == "running jobs"
    )
    assert jobs.items == [], jobs.items  # eval expects no running job either


def test_a_background_shell_of_the_same_cli_run_is_still_running(tmp_path: Path) -> None:
    src = _restarted_session(tmp_path, restart=False)
    t = read_transcript(str(src), src.read_bytes())
    pending = section(summarize_transcript(t.messages), 7)
    assert "Background job still running" in pending and "b9x8y7z" in pending, pending
    assert "earlier run of the CLI" not in pending, pending


def test_the_process_mark_is_never_written_back(tmp_path: Path) -> None:
    """The reader marks each message with its CLI process only when the file has several, and
    no writer copies the mark into a record."""
    src = _restarted_session(tmp_path, restart=True)
    t = read_transcript(str(src), src.read_bytes())
    marks = {m.extra.get(PROCESS_KEY) for m in t.messages}
    assert marks == {SESSION, _NEW_RUN}, marks
    one = _restarted_session(tmp_path, restart=False)
    assert all(
        PROCESS_KEY not in m.extra for m in read_transcript(str(one), one.read_bytes()).messages
    )
    for how in (["--strategy", "reduce"], ["--model", "local"]):
        out = tmp_path / f"out{len(how[1])}.jsonl"
        run = invoke(["run", *how, "--force", "--no-cache", str(src), "-o", str(out)])
        assert run.returncode == 0, run.stderr
        assert PROCESS_KEY.encode() not in out.read_bytes()


def test_the_eino_writer_drops_the_process_mark(tmp_path: Path) -> None:
    """The one writer that copies ``extra`` into its records leaves the reader's mark out and
    keeps the user's own keys."""
    from compactor.formats.eino import FORMAT
    from compactor.schema import Message

    src = tmp_path / "eino.jsonl"
    src.write_bytes(b'{"role":"user","content":"hi","extra":{"team":"ops"}}\n')
    t = FORMAT.read(str(src), src.read_bytes())
    new = Message(role="user", content="hello", extra={PROCESS_KEY: "p1", "team": "ops"})
    written = FORMAT.write(t, [new])
    assert PROCESS_KEY.encode() not in written, written
    assert b'"team":"ops"' in written, written
