"""Claude Code 2.0.x's ``<bash-notification>``: a background shell's end (blind check 44, W1).

Claude Code 2.0.x reports the end of a ``run_in_background`` shell as a plain-string user
record ``<bash-notification><shell-id>ID</shell-id><output-file>…</output-file><status>failed
</status><summary>Background command "…" failed with exit code 137.</summary>
</bash-notification>``, often after an ``enqueue``/``dequeue`` pair of ``queue-operation``
records holding the same text. Only the 2.1.x ``<task-notification>`` (``<task-id>``) was read as
a job event: the summary of a session whose dev server failed twenty minutes after the answer
that called it running said the request was completed and to wait for the user's "stop the
server". Now the notice is read like a ``<task-notification>`` (``<shell-id>`` is the job's id):
the failure after the last answer supersedes the answer's claim (sections 4, 7, 8 and 9), the
notice is never a request of the user's, a notice that only the queue holds is injected context
and not a prompt, and every writer keeps the record as it was. Sessions are invented, built here.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from compactor.formats.registry import read_transcript
from compactor.schema import AgenticMessage

from .cc_session import Session, cc_summary, queue_record
from .fake_server_cli import invoke
from .test_models_local_session import section

SHELL = "c4d9e1f"
OUTPUT = f"/tmp/claude/tasks/{SHELL}.output"
ASK = "When you are done looking at it, let me know and I'll stop the preview server for you!"


def _notice(status: str, summary: str) -> str:
    return (
        f"<bash-notification>\n<shell-id>{SHELL}</shell-id>\n<output-file>{OUTPUT}</output-file>"
        f"\n<status>{status}</status>\n<summary>{summary}</summary>\nRead the output file to "
        "retrieve the output.\n</bash-notification>"
    )


FAILED = _notice("failed", 'Background command "Start preview server" failed with exit code 137.')
COMPLETED = _notice("completed", 'Background command "Start preview server" completed (exit 0).')


def _served() -> Session:
    """A request to run a preview server, started in the background, polled once (running), and
    an answer that says it runs and asks the user to say when to stop it."""
    s = Session()
    s.user("Add the gallery page to the docs site.")
    s.call(
        "Write",
        {"file_path": "/home/dev/docs/content/gallery.md", "content": "# Gallery\n"},
        "File created successfully at: /home/dev/docs/content/gallery.md",
    )
    s.say("The gallery page is in content/gallery.md.")
    s.user("let me see it. start the preview please")
    s.call(
        "Bash",
        {"command": "zola serve", "description": "Start preview server", "run_in_background": True},
        f"Command running in background with ID: {SHELL}. Output is being written to: {OUTPUT}",
    )
    s.call(
        "TaskOutput",
        {"task_id": SHELL, "block": False, "timeout": 3000},
        f"<retrieval_status>not_ready</retrieval_status>\n\n<task_id>{SHELL}</task_id>\n\n"
        "<task_type>local_bash</task_type>\n\n<status>running</status>\n\n<output>\nWeb server "
        "is available at http://127.0.0.1:1111\n</output>",
    )
    s.say(
        "The preview server is now running successfully.\n\n**URL:** http://127.0.0.1:1111/\n\n"
        + ASK
    )
    return s


def _notified(s: Session, text: str) -> Session:
    """The notice as Claude Code 2.0.x writes it: queued, taken, then a plain-string record."""
    s.records.append(queue_record("enqueue", text))
    s.records.append(queue_record("dequeue"))
    s.user(text)
    return s


def test_a_failure_notice_after_the_answer_supersedes_its_running_claim(tmp_path: Path) -> None:
    text = cc_summary(_notified(_served(), FAILED), tmp_path)
    errors, pending = section(text, 4), section(text, 7)
    current, step = section(text, 8), section(text, 9)
    assert f"{SHELL} failed" in errors and "exit code 137" in errors, errors
    assert "None in this part" not in errors, errors
    assert f"{SHELL} failed" in pending and "exit code 137" in pending, pending
    assert "it is not running" in pending and "unanswered" in pending, pending
    assert "awaits an answer" not in pending, pending  # the question came before the failure
    assert "was completed" not in current and "failed after the answer" in current, current
    assert "exit code 137" in current, current
    assert "Wait for the user's answer" not in step, step
    assert SHELL in step and "exit code 137" in step and "tell the user" in step, step
    assert "still running" not in pending, pending
    assert "2 requests from the user" in text, text.split("</analysis>", 1)[0]
    everyone = text.split("<all_user_messages>", 1)[1].split("</all_user_messages>", 1)[0]
    assert "bash-notification" not in everyone and "exit code 137" not in everyone, everyone


def test_a_completed_notice_ends_the_job_and_the_answer_stands(tmp_path: Path) -> None:
    text = cc_summary(_notified(_served(), COMPLETED), tmp_path)
    pending, step = section(text, 7), section(text, 9)
    assert "still running" not in pending and "failed after" not in text, pending
    assert "awaits an answer" in pending and "Wait for the user's answer" in step, step


def test_without_a_notice_the_question_is_the_open_point(tmp_path: Path) -> None:
    text = cc_summary(_served(), tmp_path)
    assert "awaits an answer" in section(text, 7) and "failed after" not in text, text


def _messages(s: Session, tmp_path: Path) -> list[AgenticMessage]:
    src = tmp_path / "queued.jsonl"
    src.write_bytes(b"\n".join(s.lines()) + b"\n")
    read = read_transcript(str(src), src.read_bytes()).messages
    return [m for m in read if isinstance(m, AgenticMessage)]


def _user_texts(messages: list[AgenticMessage]) -> list[tuple[str, bool]]:
    return [
        (b.text or "", bool(m.extra.get("injected")))
        for m in messages
        if m.role == "user"
        for b in m.blocks
        if b.type == "user_input_text"
    ]


@pytest.mark.parametrize("taken", ["remove", None], ids=["removed", "never-dequeued"])
def test_a_notice_only_the_queue_holds_is_context_not_a_prompt(
    tmp_path: Path, taken: str | None
) -> None:
    """A notice enqueued and removed mid-turn, or never taken before the file ends, with no
    record of its own: the job's end (injected), never the user's message or "still queued"."""
    s = _served()
    s.records.append(queue_record("enqueue", FAILED))
    if taken:
        s.records.append(queue_record(taken))
    texts = _user_texts(_messages(s, tmp_path))
    assert (FAILED, True) in texts and (FAILED, False) not in texts, texts
    text = cc_summary(s, tmp_path)
    assert "still queued" not in text.lower(), text
    assert f"{SHELL} failed" in section(text, 7), section(text, 7)


def test_the_plain_string_notice_is_read_as_injected_context(tmp_path: Path) -> None:
    texts = _user_texts(_messages(_notified(_served(), FAILED), tmp_path))
    assert [x for x in texts if x[0] == FAILED] == [(FAILED, True)], texts


@pytest.mark.parametrize(
    "args",
    [
        ["--strategy", "reduce"],
        ["--model", "local", "--append"],
        ["--strategy", "hybrid", "--threshold", "1000"],
    ],
    ids=["reduce", "summarize-append", "hybrid"],
)
def test_the_notice_record_is_written_back_as_it_was(tmp_path: Path, args: list[str]) -> None:
    """The plain-string record and its queue pair come out byte for byte (reduce and
    ``--append`` keep every line; a hybrid keeps the newest records, the notice among them),
    and no output writes the notice a second time as a new record."""
    s = _notified(_served(), FAILED)
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"\n".join(s.lines()) + b"\n")
    raw = src.read_bytes()
    lines = raw.splitlines()
    record = lines[-1]
    assert json.loads(record)["message"]["content"] == FAILED
    (tmp_path / "c.yaml").write_text(
        "model: {provider: local}\nkeep: {messages: 4}\nloop_guard: false\n", encoding="utf-8"
    )
    out = tmp_path / "out.jsonl"
    proc = invoke(
        ["run", str(src), *args, "--force", "-c", "c.yaml", "-o", str(out)],
        env={"XDG_DATA_HOME": str(tmp_path / "data"), "NO_COLOR": "1"},
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    written = out.read_bytes().splitlines()
    assert record in written, [line[:120] for line in written]
    if args[:2] == ["--strategy", "reduce"] or "--append" in args:
        assert written[: len(lines)] == lines
    copies = [
        ln for ln in written if b"bash-notification" in ln and b'"isCompactSummary"' not in ln
    ]
    assert len([ln for ln in copies if b'"queue-operation"' not in ln]) == 1, copies
    assert all(orjson.loads(ln) for ln in written)


def test_a_call_refused_while_the_shell_ran_is_no_failure_once_its_notice_came(
    tmp_path: Path,
) -> None:
    """A call refused because the background shell was still running is moot once a later
    ``<bash-notification>`` reports that shell stopped (as a ``<task-notification>`` would)."""
    s = _served()
    s.user("restart it with drafts shown")
    s.call(
        "Bash",
        {"command": "zola serve --drafts", "run_in_background": True},
        f"Error: cannot bind 127.0.0.1:1111: shell {SHELL} is still running",
        error=True,
    )
    s.say("The old server still holds the port; waiting for it to stop.")
    _notified(s, _notice("killed", 'Background command "Start preview server" was killed.'))
    s.say("The old preview server has stopped.")
    text = cc_summary(s, tmp_path)
    errors = section(text, 4)
    assert "was still running then; it killed later (message " in errors, errors
