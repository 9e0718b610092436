"""Blind check 32 (fix32a): a bare rejection's fixed text is the CLI's, not the user's (W1); a
question to the user keeps its options wherever the summary names it, and a question left open at
the end is listed with every option (N1); a dismissed question is no proposal turned down."""

from __future__ import annotations

import json
from typing import Any

from compactor.facts import Call
from compactor.facts.samecommand import core_command, core_tool
from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.models.local_question import questions_of
from compactor.models.local_text import call_line

from .cc_session import Session as CcSession
from .codex_rollout import rec
from .test_models_local_session import section

_BARE = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)
_NOTICE = "[Request interrupted by user for tool use]"
_ASK = "Can the dashboard skip the login screen on my laptop?"
_QUESTION = {
    "question": "Which way should the login be skipped locally?",
    "header": "Bypass",
    "multiSelect": False,
    "options": [
        {
            "label": "Open every route",
            "description": "Let the gateway accept any request until we revert it",
            "preview": "gateway.allow_all = true",
        },
        {"label": "Local flag", "description": "Add skip_login: true to settings.local.toml"},
    ],
}


def _summary(s: CcSession, tmp_path: Any) -> str:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


def _asked(result: str | None, notice: bool) -> CcSession:
    """A request, a search, then the agent's question with two options; its result (``None``:
    none, the session ended on it) and the CLI's interrupt notice after it."""
    s = CcSession()
    s.user(_ASK)
    s.bash("grep -rn login_required src/", "src/gateway.py:12: @login_required")
    ask = {"type": "tool_use", "id": "toolu_q1", "name": "AskUserQuestion"}
    lead = {"type": "text", "text": "Every route needs a token. There are two ways; which one?"}
    s.assistant([lead, {**ask, "input": {"questions": [_QUESTION]}}])
    if result is not None:
        s.user([{"type": "tool_result", "tool_use_id": "toolu_q1", "content": result}])
    if notice:
        s.user([{"type": "text", "text": _NOTICE}])
    return s


def _has_options(part: str) -> None:
    assert "Which way should the login be skipped locally?" in part, part
    assert "Option 1: Open every route — Let the gateway accept any request" in part, part
    assert "Option 2: Local flag — Add skip_login: true to settings.local.toml" in part, part


def test_a_bare_rejection_is_never_quoted_as_the_users_words(tmp_path: Any) -> None:
    """cc-ohc: "they rejected AskUserQuestion(…), saying "STOP what you are doing …"": the
    sentence is Claude Code's fixed text; the user typed nothing."""
    text = _summary(_asked(_BARE, notice=True), tmp_path)
    for number in (7, 8, 9):
        part = section(text, number)
        assert "STOP what you are doing" not in part, part
        assert "saying" not in part and "and said" not in part, part
        assert "not the user's words" in part, part
        assert "the turn was interrupted" in part, part
    assert "Wait for the user" in section(text, 9), section(text, 9)


def test_a_rejection_of_another_call_says_the_clis_text_is_not_the_users(tmp_path: Any) -> None:
    s = CcSession()
    s.user("Clean the build folder.")
    rm = {"type": "tool_use", "id": "toolu_r", "name": "Bash", "input": {"command": "rm -rf b/"}}
    s.assistant([{"type": "text", "text": "I'll remove it."}, rm])
    s.user([{"type": "tool_result", "tool_use_id": "toolu_r", "content": _BARE, "is_error": True}])
    text = _summary(s, tmp_path)
    for number in (7, 8, 9):
        part = section(text, number)
        assert "STOP what you are doing" not in part and "saying" not in part, part
        assert "rm -rf b/" in part and "not the user's words" in part, part


def test_a_dismissed_question_keeps_its_options_and_is_no_proposal(tmp_path: Any) -> None:
    """cc-ohc o2: the two options were lost ("questions=[1 items]") and the question was listed
    among "Proposals the user turned down"."""
    text = _summary(_asked(_BARE, notice=True), tmp_path)
    assert "items]" not in text, text
    for number in (7, 8, 9):
        _has_options(section(text, number))
    assert "still open" in section(text, 7), section(text, 7)
    assert "Proposals the user turned down" not in section(text, 5), section(text, 5)
    assert "a proposal the user REJECTED" not in section(text, 8), section(text, 8)
    assert "dismissed the question" in section(text, 5), section(text, 5)


def test_a_question_the_session_ended_on_keeps_every_option(tmp_path: Any) -> None:
    """No result (the session was saved while the question waited), or the CLI's interrupt as
    its result: the next step is to wait for the answer, with each option."""
    for result, notice in ((None, False), (_NOTICE, True)):
        text = _summary(_asked(result, notice), tmp_path)
        assert "items]" not in text, text
        for number in (7, 8, 9):
            _has_options(section(text, number))
        assert "Wait for the user's answer" in section(text, 9), section(text, 9)


def test_an_answered_question_is_not_left_open(tmp_path: Any) -> None:
    answer = 'User has answered your questions: "Which way should the login be skipped locally?"'
    s = _asked(answer + '="Local flag"', notice=False)
    s.assistant([{"type": "text", "text": "I'll add the flag."}])
    text = _summary(s, tmp_path)
    assert "Option 1:" not in text and "Wait for the user's answer" not in text, text


def test_question_inputs_of_other_shapes_name_their_options() -> None:
    """Other harnesses' list-of-options inputs: a question with options as strings, choices."""
    plain = {"question": "Deploy now?", "options": ["yes, to staging", "no"]}
    assert questions_of(plain) == [("Deploy now?", [("yes, to staging", ""), ("no", "")])]
    listed = {"questions": [{"question": "Pick a db", "choices": [{"title": "Postgres"}]}]}
    assert questions_of(listed) == [("Pick a db", [("Postgres", "")])]
    assert questions_of({"paths": ["a", "b"]}) == []
    line = call_line(Call("c1", "request_user_input", json.dumps(plain), 0), 90)
    assert line == 'request_user_input("Deploy now?" options: yes, to staging / no)', line


# -- 1412: a failure a variant of its command later passed is fixed (W2) ---------------------------


def _codex(records: list[dict[str, Any]], tmp_path: Any) -> str:
    head = rec("session_meta", {"id": "1a2b3c4d-0000-4000-8000-000000000032", "cwd": "/w/kit"})
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in [head, *records]))
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


def _shell(n: int, command: str, out: str) -> list[dict[str, Any]]:
    call = {"type": "function_call", "name": "shell", "call_id": f"call_{n}"}
    call["arguments"] = json.dumps({"command": ["bash", "-lc", command]})
    result = {"type": "function_call_output", "call_id": f"call_{n}", "output": out}
    return [rec("response_item", call), rec("response_item", result)]


def _message(role: str, text: str) -> dict[str, Any]:
    kind = "input_text" if role == "user" else "output_text"
    body = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
    return rec("response_item", body)


def _suite_session(later: str) -> list[dict[str, Any]]:
    """cx-opk's shape: ``pytest -q`` fails (no module), the agent adds ``__init__.py`` files, a
    lint fails and is left, then ``later`` passes and the user asks for the next thing."""
    failed = "Exit code: 1\nOutput:\nE   ModuleNotFoundError: No module named 'kit'\n1 error\n"
    return [
        _message("user", "Add the profile schema and make the test suite pass."),
        *_shell(1, "pytest -q", failed),
        _message("assistant", "I'll add the missing __init__.py files."),
        *_shell(2, "touch kit/__init__.py kit/core/__init__.py", "Exit code: 0\nOutput:\n"),
        *_shell(3, "ruff check kit", "Exit code: 1\nOutput:\nkit/x.py:3:1: F401 unused\n"),
        *_shell(4, later, "Exit code: 0\nOutput:\n46 passed in 1.2s\n"),
        _message("assistant", "The suite passes: 46 passed."),
        _message("user", "Now add the convert command."),
        *_shell(5, "python -m kit.cli convert --help", "Exit code: 0\nOutput:\nusage: kit\n"),
    ]


def test_a_failure_a_variant_of_its_command_later_passed_is_fixed(tmp_path: Any) -> None:
    """cx-opk §4: "bash -lc pytest -q failed: No module named 'opk'" listed first among "the
    unfixed ones" although every later ``PYTHONPATH=. pytest -q`` passed."""
    for later in (
        "PYTHONPATH=. pytest -q",
        "cd /w/kit && FOO=1 BAR=x pytest -q -x tests",
        "uv run pytest -q",
        "python -m pytest -q",
        "sh -c 'pytest -q'",
    ):
        errors = section(_codex(_suite_session(later), tmp_path), 4)
        first = errors[errors.index("pytest -q` failed") :]
        assert first.split("\n")[1].strip().startswith("- Fixed: a later"), (later, errors)
        lint = errors[errors.index("ruff check kit` failed") :]
        assert "Fixed" not in lint.split("\n")[1], (later, errors)  # the lint was never rerun


def test_another_tool_or_step_is_no_variant() -> None:
    assert core_command("bash -lc 'cd /w && PYTHONPATH=. uv run pytest -q'") == "pytest -q"
    assert core_command("env A=1 python3 -m pytest -x") == "pytest -x"
    assert core_tool("PYTHONPATH=. pytest -q tests/test_a.py") == core_tool("pytest")
    assert core_tool("npm run build") != core_tool("npm run test")
    assert core_tool("ruff check kit") != core_tool("ruff format kit")
    assert core_tool("python scripts/gen.py") == ""
    assert core_tool("pytest -q && git push") == ""
    assert core_command("git push origin main") == "git push origin main"


# -- 1413: a nohup server a later ss/ps/curl showed alive is a running job (N2) --------------------

_START = (
    "cd /home/dev/watch && nohup streamlit run src/board/app.py --server.port 8502 "
    "--server.address 0.0.0.0 > /tmp/board.log 2>&1 & sleep 3; tail -2 /tmp/board.log"
)
_SS = 'LISTEN 0  128  0.0.0.0:8502  0.0.0.0:*  users:(("streamlit",pid=81031,fd=6))'


def _served(*later: tuple[str, str]) -> CcSession:
    """cc-ikn7comp's shape: a restart killed with its shell (exit 144), the server started with
    ``nohup … &`` then more commands (no ``echo $!``), a later ``ss`` shows it listening, then
    ``later`` (command, output) calls and the answer."""
    s = CcSession()
    s.user("I can't reach the board from another machine on the LAN.")
    killed = "pkill -f 'streamlit run' && streamlit run src/board/app.py --server.port 8502 &"
    s.assistant(
        [{"type": "tool_use", "id": "toolu_k", "name": "Bash", "input": {"command": killed}}]
    )
    s.user(
        [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_k",
                "content": "Exit code 144",
                "is_error": True,
            }
        ]
    )
    s.bash(_START, "  You can now view your Streamlit app in your browser.")
    s.bash("sleep 2 && ss -tlnp | grep 8502", _SS)
    for command, output in later:
        s.bash(command, output)
    s.assistant([{"type": "text", "text": "Port 8502 is open on 0.0.0.0. Try again."}])
    return s


def test_a_nohup_server_a_later_listing_showed_alive_is_running(tmp_path: Any) -> None:
    """cc-ikn7comp: the dashboard started with ``nohup … &`` (no ``echo $!``) was listening
    (pid 81031, port 8502) and never killed; the summary listed no running job."""
    pending = section(_summary(_served(), tmp_path), 7)
    assert "Background job still running" in pending, pending
    assert "pid 81031" in pending and "port 8502" in pending, pending
    assert "nohup streamlit run src/board/app.py" in pending, pending
    shown = section(
        _summary(
            _served(
                (
                    "ps aux | grep streamlit",
                    "dev 81031 1.2 streamlit run src/board/app.py\ndev 9 grep streamlit",
                )
            ),
            tmp_path,
        ),
        7,
    )
    assert "pid 81031" in shown, shown


def test_a_nohup_server_killed_later_is_not_running(tmp_path: Any) -> None:
    for kill in ("pkill -f 'streamlit run'", "kill 81031"):
        pending = section(_summary(_served((kill, "")), tmp_path), 7)
        assert "still running" not in pending, (kill, pending)


def test_a_nohup_command_never_seen_alive_is_no_job_by_this_rule(tmp_path: Any) -> None:
    """No later listing: nothing says the process outlived its call (``& sleep 3; tail``)."""
    s = CcSession()
    s.user("Start the board.")
    s.bash(_START, "  You can now view your Streamlit app in your browser.")
    s.bash("curl -s localhost:9000/health", "curl: (7) Failed to connect to localhost port 9000")
    s.assistant([{"type": "text", "text": "Started."}])
    assert "still running" not in section(_summary(s, tmp_path), 7)


def test_a_trailing_ampersand_job_gets_the_pid_a_later_listing_showed(tmp_path: Any) -> None:
    s = CcSession()
    s.user("Serve the docs.")
    s.bash("nohup python3 -m http.server 8000 --directory site > /tmp/docs.log 2>&1 &", "")
    s.bash(
        "lsof -i :8000", "COMMAND PID USER FD TYPE\npython3 4242 dev 3u IPv4 TCP *:8000 (LISTEN)"
    )
    s.assistant([{"type": "text", "text": "The docs are served on port 8000."}])
    pending = section(_summary(s, tmp_path), 7)
    assert "Background job still running" in pending and "pid 4242" in pending, pending
