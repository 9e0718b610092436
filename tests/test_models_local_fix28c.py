"""Blind check 28 (helper fix28c): one masking rule for the whole embedded summary; curl
bodies that are API errors; menus offered, not chosen; a plan never updated; files
overwritten, not created, and a missing program not "fixed" by a file."""

from __future__ import annotations

import pytest

from compactor.facts.apierror import api_error
from compactor.models.local import summarize_transcript
from compactor.models.local_mask import mask_repeats

from .codex_rollout import sections
from .planted_session import SessionBuilder

TOKEN = "ghp_" + "Xb3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c"
PASSWORD = "Zq7!mKp2vRw"


def _credential_session() -> SessionBuilder:
    s = SessionBuilder()
    s.user("set up the deploy user and push the branch")
    s.say("Sure. Which account should I use?")
    s.user(
        f"my github personal token\n{TOKEN}\n"
        f"and log in as admin@example.com with the password {PASSWORD} please"
    )
    body = f'{{"email":"admin@example.com","password":"{PASSWORD}"}}'
    s.call("Bash", {"command": f"curl -s -X POST http://127.0.0.1:9999/token -d '{body}'"}, "{}")
    s.call("Bash", {"command": "git push origin main"}, "Everything up-to-date")
    s.say("Logged in and pushed.")
    s.user(f"thanks. keep {PASSWORD} out of the logs, and the token {TOKEN} too")
    s.say("Understood.")
    return s


def test_a_credential_masked_in_one_section_is_masked_in_every_section() -> None:
    s = _credential_session()
    text = summarize_transcript(s.messages)
    parts = sections(text)
    assert len(parts) >= 9
    for number, body in parts.items():
        assert PASSWORD not in body, number
        assert TOKEN not in body and TOKEN[:12] not in body, number
    assert "admin@example.com" in text  # what is no credential stays readable
    assert "keep *** out of the logs" in text


def test_a_fragment_a_cut_left_of_a_masked_value_is_masked() -> None:
    text = f'6. User: "token {TOKEN[:20]} … (387 more characters)" and {TOKEN}; {TOKEN}x'
    out = mask_repeats(text, {TOKEN, "short"})
    assert TOKEN[:8] not in out.replace(f"{TOKEN}x", "")
    # a longer word that holds the whole value holds the secret: its run is masked (68 S1)
    assert f"{TOKEN}x" not in out and out.endswith("; ***x")
    assert mask_repeats("a shorter word", {"short"}) == "a shorter word"


# W1: an HTTP client that exits 0 on an API error failed; it worked around nothing


DUPLICATE = (
    '{"code":"23505","message":"duplicate key value violates unique constraint \\"u_key\\""}'
)
SIGNUP = 'curl -s -X POST http://localhost:9999/signup -d \'{"email":"a@b.c"}\''


def test_a_curl_whose_body_is_an_api_error_failed_and_fixed_nothing() -> None:
    s = SessionBuilder()
    s.user("create an admin user in the auth server")
    s.call("Bash", {"command": "node /tmp/create_user.js"}, "Error: Cannot find module 'bcrypt'")
    s.call("Bash", {"command": f"# try the signup endpoint\n{SIGNUP}"}, DUPLICATE)
    s.say("Done.")
    text = summarize_transcript(s.messages)
    errors = sections(text)["4"]
    assert "Worked around" not in errors and "(succeeded)" not in errors
    assert "duplicate key value violates unique constraint" in errors
    assert "(failed)" in sections(text)["5"]


@pytest.mark.parametrize(
    ("command", "output"),
    [
        (SIGNUP, DUPLICATE),
        ("curl -s https://api.example.com/v1/x", '{"error": {"type": "invalid_request"}}'),
        (
            "curl -s https://api.example.com/v1/x | jq .",
            '{\n  "errors": [\n    {"m": "no"}\n  ]\n}',
        ),
        ("http POST :8000/items name=x", '{"status": 422, "detail": "bad"}'),
        ("curl -i https://x.example/api", "HTTP/1.1 404 Not Found\nServer: x\n\n<html>no</html>"),
        ("xh :3000/a", 'Exit code: 0\nOutput:\n{"statusCode": 500, "message": "boom"}'),
    ],
)
def test_an_api_error_body_or_status_line_is_a_failure(command: str, output: str) -> None:
    assert api_error(command, output)


@pytest.mark.parametrize(
    ("command", "output"),
    [
        (SIGNUP, '{"id": 7, "email": "a@b.c"}'),
        ("curl -s https://cn.example/api", '{"code": 0, "message": "ok", "data": []}'),
        ("curl -s https://x.example/api", '{"error": null, "result": 1}'),
        ("curl -si https://x.example/api", 'HTTP/1.1 200 OK\n\n{"ok": true}'),
        ("cat response.json", DUPLICATE),  # a file's content, not a call to an API
        ("curl -s https://x.example/api", "plain text, error: none"),
    ],
)
def test_a_successful_api_reply_or_another_program_is_no_api_error(
    command: str, output: str
) -> None:
    assert api_error(command, output) == ""


# W5: the items of a menu the assistant offered are no decisions


MENU = (
    "Advanced elicitation — choose a number:\n"
    "1. First Principles — strip the name down to what it must convey.\n"
    "2. Pre-mortem — imagine the name failed and find why.\n"
    "5. Decision Matrix — define criteria and score name options objectively.\n"
    "You can also choose 9 to continue without it."
)


def test_the_items_of_a_menu_offered_are_no_decisions() -> None:
    s = SessionBuilder()
    s.user("help me name the product")
    s.call("Bash", {"command": "ls docs"}, "README.md\narchitecture.md")
    s.say(MENU)
    s.user("1")
    s.say("I decided to use the name Nu because it is short.")
    s.user("ok")
    s.say("Summary of changes:\n- Changed the retry limit from 3 to 5 because calls timed out.")
    s.user("thanks")
    s.say("Options:\n- Keep Nu — the result is short.\n- Use Swift — decided by speed.\nWhich one?")
    text = sections(summarize_transcript(s.messages))["5"]
    assert "Decision Matrix" not in text and "Pre-mortem" not in text
    assert "Use Swift" not in text
    assert "I decided to use the name Nu because it is short." in text
    assert "Changed the retry limit from 3 to 5" in text  # a list that offers no choice


# W6: a plan written once and left alone while the work went on is not the current step


def _planned(calls_after: int, answer: bool) -> str:
    s = SessionBuilder()
    s.user("run the product-brief workflow")
    steps = ["Load workflow config", "Scan project for artifacts", "Write the brief"]
    plan = [
        {"step": x, "status": "in_progress" if i == 0 else "pending"} for i, x in enumerate(steps)
    ]
    s.call("update_plan", {"plan": plan}, "Plan updated")
    for i in range(calls_after):
        s.call("shell_command", {"command": f"cat bmad/step{i}.yaml"}, f"name: step{i}")
    if answer:
        s.say("State classified as CLEAN. Which naming method? 1. First Principles 2. Analogies")
        s.user("1")
        s.call("shell_command", {"command": "cat docs/brief.md"}, "# Brief")
    s.say("Working on it.")
    return summarize_transcript(s.messages)


def test_a_plan_not_updated_while_the_work_went_on_is_no_current_step() -> None:
    for text in (_planned(5, answer=False), _planned(4, answer=True)):
        parts = sections(text)
        assert "In progress on the task list" not in parts["8"]
        assert "last written" in parts["7"] and "not updated since" in parts["7"]
        assert "not necessarily the current step): Load workflow config" in parts["8"]


def test_a_plan_written_just_before_the_last_calls_is_current() -> None:
    for text in (_planned(3, answer=False), _planned(1, answer=True)):
        parts = sections(text)
        assert "In progress on the task list: Load workflow config" in parts["8"]
        assert "not updated since" not in parts["7"]


# W7: a file read or listed before it was written is overwritten; a missing program is no file


def _rewrote() -> str:
    s = SessionBuilder()
    s.user("fill in the README and the constitution")
    s.call("exec_command", {"cmd": "cat .specify/memory/constitution.md"}, "# [PROJECT] [RULE_1]")
    s.call(
        "exec_command",
        {"cmd": "rg --files -g 'README.md'"},
        "Exit code: 127\nOutput:\n/bin/bash: line 1: rg: command not found",
    )
    s.call("exec_command", {"cmd": "find . -name README.md"}, "Exit code: 0\nOutput:\n./README.md")
    for path, body in (
        (".specify/memory/constitution.md", "# Platform Constitution"),
        ("README.md", "# Platform Architect"),
        ("docs/new.md", "# New"),
    ):
        command = f"cat > {path} <<'EOF'\n{body}\nEOF"
        s.call("exec_command", {"cmd": command}, "Exit code: 0\nOutput:\n")
    s.say("README and constitution updated.")
    return summarize_transcript(s.messages)


def test_a_file_read_or_listed_before_its_write_is_overwritten_not_created() -> None:
    files = sections(_rewrote())["3"]
    assert "README.md (overwritten by exec_command)" in files
    assert ".specify/memory/constitution.md (overwritten by exec_command)" in files
    assert "docs/new.md (created by exec_command)" in files  # never seen before: new


def test_a_missing_program_is_not_fixed_by_a_file_a_later_call_wrote() -> None:
    errors = sections(_rewrote())["4"]
    assert "rg: command not found" in errors
    assert "created `README.md`" not in errors and "exists now" not in errors
    assert "Done without it" in errors and "find . -name README.md" in errors


def test_a_list_after_a_select_component_or_build_settings_is_no_menu() -> None:
    from compactor.models.local_menu import menu_items

    text = "I updated the select component:\n- Changed the dropdown because it hid items.\n- Done."
    assert menu_items(text) == frozenset()
    assert menu_items(MENU)  # (the elicitation menu is one)
    assert (
        menu_items("Build options:\n- minify: true because size matters\n- sourcemap: off") == set()
    )
    assert menu_items("I looked at it.\n\nOptions:\n- Keep it — small\n- Drop it — simpler")


def test_the_next_step_names_no_stale_plan_step_as_the_task_in_progress() -> None:
    def next_step(calls_after: int) -> str:
        s = SessionBuilder()
        s.user("run the product-brief workflow")
        plan = [{"step": "Load workflow config", "status": "in_progress"}]
        s.call("update_plan", {"plan": plan}, "Plan updated")
        for i in range(calls_after):
            s.call("shell_command", {"command": f"cat bmad/step{i}.yaml"}, f"name: step{i}")
        return sections(summarize_transcript(s.messages))["9"]

    assert "task in progress: Load workflow config" in next_step(2)
    assert "task in progress" not in next_step(6)
