"""Reduction keeps whole a short result that reports a background job ended (blind check 68 N6,
a Claude Code session: after ``--strategy reduce`` the agent saw "Command running in background
with ID: …" but not the later poll that said the job exited on EADDRINUSE, nor the kill of the
other one: both short results were cleared like any output, so a resuming agent thought the jobs
still ran). A long output of the same tool is still cleared; both reduce paths decide alike and
count the kept reports (``job_ends_kept``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compactor.reduction.jobs import MAX_END_CHARS, reports_end
from compactor.runs.run_reduce import INLINE_ENV, STREAM_OFF_ENV

from .cc_session import Session, tool_results, tool_round
from .fake_server_cli import invoke
from .test_reduction_jobs import chat_with_results
from .test_reduction_user_words import LONG

EXITED = (
    "<status>completed</status>\n\n<exit_code>1</exit_code>\n\n<stdout>\n</stdout>\n\n<stderr>\n"
    "Failed to start server\nError: listen EADDRINUSE: address already in use :::4100\n"
    "    at Server.setupListenHandle (node:net:1817:16)\n"
    "    at listenInCluster (node:net:1865:12)\n"
    "  code: 'EADDRINUSE', syscall: 'listen', port: 4100\n</stderr>"
)
"""A poll's answer: the job ended (the shape, not the session's words)."""
KILLED = json.dumps(
    {"success": True, "shell_id": "shell_7",
     "message": "Successfully killed shell: shell_7 (cd /srv/app && PORT=4100 "
                "DATABASE_URL=file:./dev.db npm run dev -- --hostname 0.0.0.0 --port 4100)"}
)  # fmt: skip
RUNNING = "Command running in background with ID: shell_9\n"


def _session() -> Session:
    s = Session()
    s.user("Start the dev server and check the products page.")
    s.bash("npm run build", LONG)
    background = {"command": "npm run dev", "run_in_background": True}
    tool_round(s, "toolu_bg", "Bash", background, RUNNING)
    tool_round(s, "toolu_poll", "BashOutput", {"bash_id": "shell_9"}, EXITED)
    tool_round(s, "toolu_kill", "KillShell", {"shell_id": "shell_7"}, KILLED)
    long_poll = "<status>completed</status>\n<exit_code>0</exit_code>\n<stdout>\n" + LONG
    tool_round(s, "toolu_long", "BashOutput", {"bash_id": "shell_5"}, long_poll)
    s.bash("npm test", LONG)
    s.bash("ls", "a.txt")
    return s


@pytest.mark.parametrize("strategy", ["reduce", "hybrid"])
def test_a_short_report_that_a_job_ended_is_kept_when_clearing(
    tmp_path: Path, strategy: str
) -> None:
    src, out, report = tmp_path / "s.jsonl", tmp_path / "out.jsonl", tmp_path / "r.json"
    src.write_bytes(b"\n".join(_session().lines()) + b"\n")
    args = ["run", "--strategy", strategy, "--force", "--model", "local", str(src), "-o", str(out),
            "--report", str(report)]  # fmt: skip
    proc = invoke(args)
    assert proc.returncode == 0, proc.stderr
    results = tool_results(out)
    assert results["toolu_poll"] == EXITED and results["toolu_kill"] == KILLED
    assert ".offload" in json.dumps(results["toolu_long"])  # a long output of the tool: cleared
    assert not (tmp_path / "out.offload" / "clear" / "toolu_poll").exists()
    if strategy == "reduce":
        assert json.loads(report.read_text("utf-8"))["reduction"]["job_ends_kept"] == 2
        assert b"2 job end reports kept" in proc.stderr


def _chat(tmp: Path) -> Path:
    """An OpenAI-chat log (the streaming pass's format) with a poll's end report in an old round."""
    texts = [LONG, EXITED, LONG, LONG]
    return chat_with_results(tmp / "chat.jsonl", "Run the server, then stop it.", texts)


@pytest.mark.parametrize("general", [False, True], ids=["stream", "general"])
def test_both_reduce_paths_keep_and_count_a_jobs_end_report(tmp_path: Path, general: bool) -> None:
    src = _chat(tmp_path)
    out, report = tmp_path / "out.jsonl", tmp_path / "r.json"
    env = {STREAM_OFF_ENV: "1" if general else None, INLINE_ENV: None}
    proc = invoke(["run", "--strategy", "reduce", "--force", str(src), "-o", str(out),
                   "--report", str(report)], env=env)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    reduction = json.loads(report.read_text("utf-8"))["reduction"]
    assert bool(reduction.get("streamed")) is not general
    assert reduction["job_ends_kept"] == 1
    by_id = {m["tool_call_id"]: m["content"] for m in map(json.loads, out.read_bytes().splitlines())
             if m.get("role") == "tool"}  # fmt: skip
    assert by_id["c1"] == EXITED
    assert ".offload" in by_id["c0"] and ".offload" in by_id["c2"]


@pytest.mark.parametrize(
    ("text", "ends"),
    [
        (EXITED, True),
        (KILLED, True),
        ("Shell bash_2 was killed.", True),
        ("<status>failed</status>\n<exit_code>137</exit_code>", True),
        ("<status>running</status>\n<stdout>GET / 200</stdout>", False),
        ("Exit code 1\nnpm ERR! missing script: lint", False),  # any failed command
        ("Compiled in 280ms\nGET /products 200 in 122ms", False),
        ("<status>completed</status>\n" + "x" * MAX_END_CHARS, False),  # mostly output
    ],
)
def test_what_reads_as_a_jobs_end_report(text: str, ends: bool) -> None:
    assert reports_end(text) is ends
