"""Blind check 16's wrong statements 2-4 and noise in the local summary (issue 28, agents16), each
on a session built here by shape: async sub-agents launched with the Agent tool, reported by
``<task-notification>``, a resume refused while one was still running, listings of the folder
the agents write to, then the CLI's usage limit."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_OUT = "/home/dev/proj/deliverables"


def _launch(s: SessionBuilder, key: str, files: str) -> None:
    s.call(
        "Agent",
        {
            "description": f"Write {files}",
            "prompt": f"Create {files} in {_OUT}/ from the notes in research/.",
            "run_in_background": True,
        },
        f"Async agent launched successfully.\nagentId: {key} (use this id to resume)",
    )


def _notify(s: SessionBuilder, key: str, wrote: str) -> None:
    s.user(
        f"<task-notification><task-id>{key}</task-id><status>completed</status>"
        f'<summary>Agent "{key}" completed</summary>'
        f"<result>All files written: {wrote}.</result></task-notification>"
    )


def _agents_session(*, finished: bool = True, last_ls: bool = True) -> str:
    s = SessionBuilder()
    s.user(
        f"Implement the plan: create {_OUT.rsplit('/', 1)[1]}/ with alpha.md, beta.md, "
        "gamma.md and delta.md from the research notes."
    )
    s.call("Bash", {"command": f"mkdir -p {_OUT}"}, "")
    s.say("Launching two agents in parallel.")
    _launch(s, "a11c0ffee7d2b93e1", "alpha.md and beta.md")
    _launch(s, "b22d0ffee8e3c04f2", "gamma.md and delta.md")
    s.call(
        "Agent",
        {"description": "Resume agent check", "prompt": "list", "resume": "a11c0ffee7d2b93e1"},
        "Cannot resume agent a11c0ffee7d2b93e1: it is still running. Use TaskStop to stop it "
        "first, or wait for it to complete.",
        error=True,
    )
    s.say("I'll wait for the agents to finish.")
    s.call("Bash", {"command": "sleep 60"}, "")
    if finished:
        _notify(s, "a11c0ffee7d2b93e1", f"{_OUT}/alpha.md, {_OUT}/beta.md")
    if last_ls:
        s.say("Checking the folder.")
        s.call(
            "Bash",
            {"command": f"ls -la {_OUT}/"},
            "total 40\ndrwxr-xr-x  4 dev staff  128 Mar 11 15:45 .\n"
            "drwxr-xr-x 20 dev staff  640 Mar 11 15:40 ..\n"
            "-rw-r--r--  1 dev staff 17221 Mar 11 15:45 alpha.md\n"
            "-rw-r--r--  1 dev staff  9299 Mar 11 15:45 beta.md\n",
        )
    s.say("You've hit your limit · resets 9pm (Europe/Berlin)")
    return summarize_transcript(s.messages)


# -- 2. a refusal because the agent was still running is moot once it reported completed --------


def test_a_resume_refused_while_the_agent_ran_is_no_failure_once_it_completed() -> None:
    text = _agents_session()
    errors, pending = section(text, 4), section(text, 7)
    assert "it is still running" in errors, errors  # the refusal is still told
    assert "was still running then; it completed later (message " in errors, errors
    assert "Unresolved failure" not in pending, pending
    assert "not fixed" not in pending, pending


def test_a_refusal_whose_agent_never_reported_stays_open() -> None:
    text = _agents_session(finished=False)
    assert "completed later" not in section(text, 4), section(text, 4)
    assert "a11c0ffee7d2b93e1" in section(text, 7), section(text, 7)


# -- 3. the listing of the folder the agents write to is the last action, with its names --------


def test_a_listing_of_the_work_folder_is_the_last_action_with_its_file_names() -> None:
    text = _agents_session()
    current, step = section(text, 8), section(text, 9)
    action = current.split("The last action", 1)[1].split("What the results", 1)[0]
    assert f"ls -la {_OUT}/" in action, current
    assert "alpha.md (17,221 B), beta.md (9,299 B)" in action, current
    assert "Cannot resume" not in action, current
    stopped = step.split("Work stopped after the last action:", 1)[1]
    assert stopped.lstrip().startswith("`Bash: ls -la"), step
    assert "alpha.md" in stopped, step


def test_a_listing_of_an_unrelated_folder_stays_a_status_check() -> None:
    s = SessionBuilder()
    s.user("fix the failing parser test in src/parse.py")
    s.call("Edit", {"file_path": "src/parse.py", "old_string": "a", "new_string": "b"}, "ok")
    s.say("Fixed; looking around.")
    s.call("Bash", {"command": "ls -la /tmp/scratch/"}, "total 0\n-rw-r--r-- 1 a b 5 M 1 1 x\n")
    action = section(summarize_transcript(s.messages), 8).split("The last action", 1)[1]
    assert action.index("Edit") < action.index("ls -la /tmp/scratch"), action
    assert "housekeeping or status checks" in action, action


# -- 4. a folder made by mkdir and files sub-agents report writing are no "no file was created" --


def test_files_written_by_sub_agents_and_a_mkdir_folder_are_named_in_section_3() -> None:
    files = section(_agents_session(), 3)
    assert "No file was created, edited or deleted." not in files, files
    assert f"Created by mkdir: `{_OUT}`" in files, files
    assert "Written by background agent a11c0ffee7d2b93e1 (its report):" in files, files
    assert f"`{_OUT}/alpha.md`, `{_OUT}/beta.md`" in files, files
    assert "alpha.md (17,221 B), beta.md (9,299 B)" in files, files  # the last listing


def test_sub_agents_without_a_report_of_files_are_said_to_have_been_told_to_write() -> None:
    files = section(_agents_session(finished=False, last_ls=False), 3)
    assert "No file was created, edited or deleted." not in files, files
    assert "Background agents were told to write files" in files, files
    assert "`Write alpha.md and beta.md`" in files, files


def test_a_session_of_reads_only_still_says_no_file_was_created() -> None:
    s = SessionBuilder()
    s.user("what does src/parse.py do?")
    s.call("Bash", {"command": "ls src"}, "parse.py\n")
    s.call("Read", {"file_path": "src/parse.py"}, "def parse(x):\n    return x\n")
    s.say("It returns its input.")
    assert "No file was created, edited or deleted." in section(summarize_transcript(s.messages), 3)


def test_a_report_that_only_announces_a_write_names_no_written_file() -> None:
    s = SessionBuilder()
    s.user("redesign the settings page")
    s.call(
        "Agent",
        {"description": "Redesign settings", "prompt": "Rewrite src/Settings.tsx"},
        "Async agent launched successfully.\nagentId: c33e0ffee9f4d15a3",
    )
    s.user(
        "<task-notification><task-id>c33e0ffee9f4d15a3</task-id><status>completed</status>"
        "<result>Now let me write the new Settings.tsx:</result></task-notification>"
    )
    s.say("The agent stopped before writing.")
    files = section(summarize_transcript(s.messages), 3)
    assert "Written by background agent" not in files, files
    assert "Background agents were told to write files" in files, files


# -- noise: a remark is no constraint -------------------------------------------------------------


def test_a_remark_that_the_user_does_not_really_understand_is_no_constraint() -> None:
    s = SessionBuilder()
    s.user("Which option should we take for the cleanup, A or B? You must keep the API stable.")
    s.say("Option A removes the cache; option B keeps it. Which one?")
    s.user("i dont really understand the implications of each option")
    s.say("A is faster; B is safer.")
    s.user("Ok, option B")
    s.call("Bash", {"command": "git status"}, "clean")
    s.say("Applied option B.")
    intent = section(summarize_transcript(s.messages), 1)
    assert "You must keep the API stable" in intent, intent  # a constraint stays one
    rules = intent.split("Constraints and preferences", 1)[-1]
    assert "implications of each option" not in rules, intent


# -- noise: a long plan or instruction list is printed once, its lines kept ----------------------


def _run_local(tmp_path: Path, request: str) -> str:
    src = tmp_path / "plan.jsonl"
    bulk = " ".join(f"line {i} of the research notes read so far." for i in range(300))
    records = [
        {"role": "user", "content": request},
        *({"role": "assistant", "content": f"Notes part {n}: {bulk}"} for n in range(8)),
        {"role": "assistant", "content": "Starting with step 1: creating the folder."},
    ]
    src.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(
        app, ["run", str(src), "--model", "local", "--force", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    return str(json.loads(out.read_text().splitlines()[0])["content"])


def test_a_long_plan_is_printed_once_whole_in_section_6(tmp_path: Path) -> None:
    steps = [
        f"## Step {i}: write deliverable-{i:02d}.md with its checklist table" for i in range(60)
    ]
    plan = "Implement the following plan:\n# Plan\n" + "\n".join(steps) + "\nVerify the build."
    text = _run_local(tmp_path, plan)
    middle = "## Step 30: write deliverable-30.md with its checklist table"
    assert text.count(middle) == 1, text  # not cut in section 1 and whole again in section 6
    assert f"\n{middle}\n" in text.split("<all_user_messages>")[1], text  # its lines kept
    intent = section(text, 1)
    assert "Implement the following plan" in intent and "Verify the build." in intent, intent
    assert f"{len(plan):,} characters" in intent and "latest user message in section 6" in intent


def test_a_structured_instruction_list_keeps_its_lines(tmp_path: Path) -> None:
    rules = [f"- rule {i}: run the tests of module m{i} before each commit" for i in range(24)]
    request = "Work through doc/tasks.json in order.\n## Rules\n" + "\n".join(rules)
    text = _run_local(tmp_path, request)
    block = text.split("<all_user_messages>")[1]
    assert "\n- rule 12: run the tests of module m12 before each commit\n" in block, block
    assert text.count("rule 12: run the tests of module m12") == 1, text


def test_a_short_request_is_still_quoted_whole_in_section_1(tmp_path: Path) -> None:
    text = _run_local(tmp_path, "Fix the parser.\n- keep the API\n- add a test")
    assert "Fix the parser. - keep the API - add a test" in section(text, 1), section(text, 1)
