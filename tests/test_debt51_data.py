"""An exit-0 call whose printed DATA holds error words did not fail (debt51, item 1): a JSON
response's ``"status": "401 Unauthorized"``, a dict, a log record quoted from a log; a real
failure (a non-zero exit, the command's own error report or traceback) still fails. Sessions
are invented, by shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compactor.facts.outcomes import outcome
from compactor.facts.text import Call, Result
from compactor.models.local import summarize_transcript

from .codex_rollout import codex_say, codex_summary, codex_user, rec
from .planted_session import SessionBuilder
from .test_failures_fix41a import _shell

_EXIT0 = "Exit code: 0\nWall time: 1 seconds\nOutput:\n"
_RESPONSE = '{\n  "id": 3,\n  "status": "401 Unauthorized",\n  "detail": "token expired"\n}'
_DATA = [
    ("node scripts/fetch.js", _RESPONSE),
    ("node scripts/fetch.js", '{"id": 3, "status": "401 Unauthorized", "detail": "expired"}'),
    ("python3 check_api.py", "{'status': '404 Not Found', 'url': '/v1/items'}"),
    ("gh api repos/o/r/runs --jq .runs", '[\n  {\n    "error": "HTTP/1.1 500 upstream"\n  }\n]'),
    ("cat data.json | python3 -m json.tool", '{\n    "message": "403 Forbidden"\n}'),
    (
        "ssh prod 'tail -n 2 /var/log/app.log' | python3 scripts/fmt.py",
        "2025-01-02 10:00:00 ERROR: connection refused\n"
        "2025-01-02 10:00:02 upstream returned 503 Service Unavailable",
    ),
]


@pytest.mark.parametrize(("command", "out"), _DATA)
def test_exit_zero_output_whose_data_holds_error_words_did_not_fail(command: str, out: str) -> None:
    codex = Call("c1", "shell_command", json.dumps({"command": command}), 0)
    assert not outcome(Result("c1", "shell_command", _EXIT0 + out), codex).failed
    claude = Call("c1", "Bash", json.dumps({"command": command}), 0)  # is_error false
    judged = outcome(Result("c1", "Bash", out), claude)
    assert not judged.failed or not judged.lines[0].startswith("Its output reports"), judged


@pytest.mark.parametrize(("command", "out"), _DATA[:3])
def test_the_same_data_after_a_non_zero_exit_is_a_failure(command: str, out: str) -> None:
    codex = Call("c1", "shell_command", json.dumps({"command": command}), 0)
    assert outcome(Result("c1", "shell_command", "Exit code: 1\nOutput:\n" + out), codex).failed
    claude = Call("c1", "Bash", json.dumps({"command": command}), 0)
    assert outcome(Result("c1", "Bash", "Exit code 1\n" + out, True), claude).failed


def test_the_command_s_own_error_report_or_traceback_still_fails() -> None:
    call = Call("c1", "shell_command", json.dumps({"command": "python fetch.py"}), 0)
    own = "ERR: The server returned an error: (401) Unauthorized.\n"
    assert outcome(Result("c1", "shell_command", _EXIT0 + own), call).failed
    claude = Call("c1", "Bash", json.dumps({"command": "python fetch.py 2>&1 | tail -3"}), 0)
    trace = "Traceback (most recent call last):\n  File \"fetch.py\", line 3\nKeyError: 'id'"
    assert outcome(Result("c1", "Bash", trace), claude).failed


def test_a_printed_api_response_is_no_unresolved_error_in_the_summary(tmp_path: Path) -> None:
    records = [
        codex_user("show me what the items endpoint answers without a token"),
        *_shell(1, "node scripts/fetch.js /v1/items", _EXIT0 + _RESPONSE),
        codex_say("Without a token the endpoint answers 401, as expected."),
    ]
    summary = codex_summary(records, tmp_path, "s1", "/w")
    assert "1 tool call (0 failed)" in summary or "1 tool calls (0 failed)" in summary, summary
    assert "reports an error" not in summary and "Unresolved" not in summary, summary
    s = SessionBuilder()
    s.user("what does the items endpoint answer without a token?")
    s.call("Bash", {"command": "node scripts/fetch.js /v1/items"}, _RESPONSE)
    s.say("It answers 401, as expected.")
    summary = summarize_transcript(s.messages)
    assert "reports an error" not in summary and "Unresolved" not in summary, summary


_LOG = "ERROR: connection refused\nERROR: upstream returned status 500"
_SSH_READ = "ssh -p 2222 deploy@prod 'tail -n 50 /var/log/app.log | grep -i error'"
_EXEC_READ = "docker compose exec -T api sh -c 'tail -n 20 /app/logs/err.log'"
_OTHER_READS = ("docker exec -it api cat /app/logs/err.log", "kubectl exec api -- cat /log/x")


@pytest.mark.parametrize("command", [_SSH_READ, _EXEC_READ, *_OTHER_READS])
def test_a_log_read_on_another_host_or_in_a_container_is_data(command: str) -> None:
    codex = Call("c1", "shell_command", json.dumps({"command": command}), 0)
    assert not outcome(Result("c1", "shell_command", _EXIT0 + _LOG), codex).failed
    claude = Call("c1", "Bash", json.dumps({"command": command}), 0)
    assert not outcome(Result("c1", "Bash", _LOG), claude).failed
    assert outcome(
        Result("c1", "Bash", "Exit code 255\nssh: connect: refused", True), claude
    ).failed


def test_a_remote_command_that_does_more_than_read_is_judged_as_before() -> None:
    restart = "ssh prod 'sudo systemctl restart app && tail -n 5 /var/log/app.log'"
    claude = Call("c1", "Bash", json.dumps({"command": restart}), 0)
    assert outcome(Result("c1", "Bash", _LOG), claude).failed


def test_a_codex_process_whose_end_event_says_exit_0_did_not_fail(tmp_path: Path) -> None:
    """A unified-exec start answered "Process running with session ID …" holds no exit code;
    its ``exec_command_end`` (exit 0) does: the log records it printed while running are data."""
    started = "Chunk ID: 1\nWall time: 1.0 seconds\nProcess running with session ID 7\nOutput:\n"
    printed = (
        "2025-01-02 10:00:00 ERROR: cache miss for lodash, fetching\n"
        "2025-01-02 10:00:01 ERROR: registry request failed, retrying\n"
    )
    args = json.dumps({"cmd": "npm ci"})
    call = {"type": "function_call", "name": "exec_command", "call_id": "c1", "arguments": args}
    output = {"type": "function_call_output", "call_id": "c1", "output": started + printed}
    end = {"type": "exec_command_end", "call_id": "c1", "exit_code": 0, "aggregated_output": ""}
    records = [
        codex_user("install the dependencies"),
        rec("response_item", call),
        rec("response_item", output),
        rec("event_msg", end),
        codex_say("Installed."),
    ]
    summary = codex_summary(records, tmp_path, "s3", "/w")
    assert "1 tool call (0 failed)" in summary, summary
    assert "`exec_command: npm ci` failed" not in summary, summary
    ran = Call("c1", "exec_command", args, 0, ended="exit code 0")
    assert not outcome(Result("c1", "exec_command", started + printed), ran).failed
    died = Call("c1", "exec_command", args, 0, ended="exit code 1")  # as before: its lines
    assert outcome(Result("c1", "exec_command", started + printed), died).failed
