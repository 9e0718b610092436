"""The local summary's account of where the session ended (issue 28, point 1): the current
request, the last action and what it returned, calls in flight, running jobs judged by shape,
and, when the session ended answered, the words that say nothing is pending."""

from __future__ import annotations

from compactor.models.local import summarize_transcript
from compactor.models.local_state import ANSWERED
from compactor.schema import CONTENT_TYPE_KEY

from .planted_session import SessionBuilder
from .test_models_local_session import section


def test_an_answered_session_says_so_and_names_no_place_where_work_stopped() -> None:
    s = SessionBuilder()
    s.user("Why does the cache miss on every call?")
    s.call("Bash", {"command": "rg -n 'lru_cache' src/"}, "src/a.py:3:@lru_cache(maxsize=0)")
    s.say("The cache has maxsize=0, so it never stores anything. Use maxsize=128.")
    text = summarize_transcript(s.messages)
    assert f"None: {ANSWERED}." in section(text, 7)
    step = section(text, 9)
    assert f"None: {ANSWERED}." in step
    assert "Work stopped" not in step and "Continue" not in step


def test_the_last_action_is_the_last_calls_and_their_results_not_the_last_text() -> None:
    """ "Please hold on" was written before the calls ran and returned: it is not where work
    stopped; the calls and what they established are."""
    s = SessionBuilder()
    s.user("Deploy the staging build.")
    s.say("Please hold on while I build and push the image.")
    s.call("Bash", {"command": "docker build -t app:1.4.2 ."}, "Successfully tagged app:1.4.2")
    s.call(
        "Bash",
        {"command": "docker push registry.local/app:1.4.2"},
        "denied: requested access to the resource is denied\nexit code 1",
        error=True,
    )
    s.call("Bash", {"command": "date +%s"}, "1767225600")  # housekeeping, never the last action
    text = summarize_transcript(s.messages)
    work = section(text, 8)
    assert "The last action (the last tool calls and what they returned):" in work
    assert "docker push registry.local/app:1.4.2" in work
    assert "failed" in work and "denied: requested access to the resource is denied" in work
    assert "date +%s" not in work
    step = section(text, 9)
    assert (
        "Work stopped after the last action: `Bash: docker push registry.local/app:1.4.2`" in step
    )
    assert "Please hold on" not in step
    assert ANSWERED not in text


def test_a_job_named_by_an_unknown_tools_result_is_running_until_reported_finished() -> None:
    s = SessionBuilder()
    s.user("Fetch every PR of the last 90 days.")
    s.call(
        "Monitor",
        {"command": "python fetch.py --days 90", "description": "PR fetch"},
        "Monitor started. Task ID: btk9x2. Events will arrive as notifications.",
    )
    s.call("Bash", {"command": "wc -l data/prs.jsonl"}, "1200 data/prs.jsonl")
    text = summarize_transcript(s.messages)
    pending = section(text, 7)
    assert "Background job still running" in pending and "btk9x2" in pending
    assert "python fetch.py --days 90" in pending
    # what its start returned is kept with it (issue 28, point 3)
    assert 'it returned: "Monitor started. Task ID: btk9x2. Events will arrive' in pending
    assert "btk9x2" in section(text, 9) and "do not start them again" in section(text, 9)

    s.user("<task-notification> <task-id>btk9x2</task-id> <status>completed</status>")
    s.say("The fetch finished: 1,287 PRs.")
    done = summarize_transcript(s.messages)
    assert "btk9x2" not in section(done, 7)
    assert f"None: {ANSWERED}." in section(done, 9)


def test_a_process_stopped_with_ctrl_c_is_not_running() -> None:
    s = SessionBuilder()
    s.user("Run the server, check it, then stop it.")
    s.call("exec_command", {"cmd": "cargo run -- serve"}, "Compiling app\nSESSION_ID=4411")
    s.call("write_stdin", {"session_id": 4411, "chars": "\u0003"}, "^C")
    s.call("exec_command", {"cmd": "cargo run -- serve --port 9"}, "Compiling\nSESSION_ID=5120")
    text = summarize_transcript(s.messages)
    pending = section(text, 7)
    assert "5120" in pending and "4411" not in pending


def test_the_question_the_session_ended_on_is_the_real_question() -> None:
    s = SessionBuilder()
    s.user("Ship FW-005, then help decide FW-007.")
    s.call("Bash", {"command": "git commit -m 'feat: FW-005'"}, "[main f8e6fe0] feat: FW-005")
    s.say(
        "Both commits landed. Want me to (a) lock future-only, or (b) add the demo mock too? "
        "Let me know when you want a separate commit for the roadmap files."
    )
    step = section(summarize_transcript(s.messages), 9)
    assert "Want me to (a) lock future-only, or (b) add the demo mock too?" in step


def test_a_telemetry_file_is_never_the_file_changed_for_the_request() -> None:
    s = SessionBuilder()
    s.user("Use the grant skill.")
    s.call(
        "exec_command",
        {"cmd": 'echo \'{"event":"start"}\' >> ~/.superstack/telemetry.jsonl'},
        "",
    )
    s.call("exec_command", {"cmd": "bash export-session.sh ."}, None)
    work = section(summarize_transcript(s.messages), 8)
    assert "telemetry" not in work


# -- decisions and constraints from the dialogue (issue 28, point 2) -------------------------


def test_a_proposal_the_user_turned_down_is_not_a_decision() -> None:
    s = SessionBuilder()
    s.user("The importer is slow on big files.")
    s.say("The cause is the per-row commit. I will switch the importer to Redis streams.")
    s.user("No, don't add Redis. Batch the commits instead.")
    s.say("I'll commit every 1,000 rows in one transaction.")
    s.user("Yes, go ahead.")
    s.call("Edit", {"file_path": "importer.py", "old_string": "a", "new_string": "b"}, "ok")
    s.say("Changed importer.py to commit every 1,000 rows.")
    text = summarize_transcript(s.messages)
    solving = section(text, 5)
    decided = solving.split("Proposals the user turned down", 1)[0]
    assert "Redis streams" not in decided
    assert "Proposals the user turned down (not decisions; do not act on them):" in solving
    assert "I will switch the importer to Redis streams." in solving.split("turned down", 1)[1]
    assert "Accepted by the user: I'll commit every 1,000 rows in one transaction." in decided
    assert "The cause is the per-row commit." in decided  # a cause stays a cause


def test_questions_fragments_and_descriptions_are_not_constraints() -> None:
    s = SessionBuilder()
    s.user(
        "Events created in the admin do not appear until a restart. Should we never cache "
        "the list? The loader is never used for. Do not start the dev server. "
        "The app must never crash on a broken image."
    )
    s.say("Understood.")
    intent = section(summarize_transcript(s.messages), 1)
    rules = intent.split("Constraints and preferences stated by the user:", 1)[1]
    assert "Do not start the dev server." in rules
    assert "The app must never crash on a broken image." in rules
    assert "do not appear until a restart" not in rules
    assert "Should we never cache" not in rules
    assert "never used for" not in rules


# -- no raw JSON (issue 28, point 6) ----------------------------------------------------------


def test_tool_calls_are_shown_without_raw_json() -> None:
    s = SessionBuilder()
    s.user("Find the reservation and hand over to a human.")
    s.call("get_reservation_details", {"reservation_id": "EUJUY6"}, "EUJUY6: basic economy")
    s.call("update_plan", {"plan": [{"step": "a", "status": "pending"}]}, "ok")
    s.call(
        "exec",
        {},
        "Finished",
        text="Checking the server.",
    )
    code_mode = 'const r = await tools.write_stdin({"session_id":4411,"chars":""}); text(r.output);'
    s.messages[-2].blocks[-1].arguments = code_mode
    s.call("exec", {}, None)
    s.messages[-1].blocks[
        -1
    ].arguments = (
        'const r = await tools.exec_command({"cmd":"cargo test -q","workdir":"/w"}); text(r);'
    )
    text = summarize_transcript(s.messages)
    assert "get_reservation_details(reservation_id=EUJUY6)" in text
    assert "update_plan(plan=[1 items])" in text
    assert "exec → write_stdin(session_id=4411, chars=)" in text
    assert "exec: cargo test -q" in text
    summary = text.split("<summary>", 1)[1]
    assert '{"' not in summary and "tools." not in summary


def test_a_user_message_sent_again_is_listed_once() -> None:
    s = SessionBuilder()
    for _ in range(3):
        s.user("please continue")
        s.say("Continuing with the migration of the billing tables.")
    s.user("Now add the index on invoices.customer_id.")
    s.say("Added the index.")
    listed = section(summarize_transcript(s.messages), 6)
    assert listed.count("please continue") == 1
    assert "please continue (sent 3 times)" in listed


def test_a_round_of_more_than_four_calls_in_flight_is_listed_once_and_never_as_a_stop() -> None:
    s = SessionBuilder()
    s.user("Gather the release notes.")
    s.say("Reading the changelog and the git history in parallel.")
    for i in range(6):
        s.call("shell_command", {"command": f"git show v1.{i} --stat"}, None)
    text = summarize_transcript(s.messages)
    assert "The last action" not in section(text, 8)  # section 7 lists the calls in flight
    assert "Tool calls in flight when the session was saved (6;" in section(text, 7)
    step = section(text, 9)
    assert "Work stopped after" not in step and "earlier calls" not in step


def test_every_file_an_earlier_summary_names_is_kept() -> None:
    files = [f"src/module_{i}/handler_{i}.py" for i in range(8)]
    sections = "\n".join(
        f"   - **`{p}`** (rewritten twice)\n     - " + "details " * 60 for p in files
    )
    earlier = (
        "This session is being continued from a previous conversation that ran out of context. "
        "The summary below covers the earlier portion of the conversation.\n\nSummary:\n"
        "1. Primary Request and Intent:\n   Build the impact dashboard.\n"
        f"2. Key Technical Concepts:\n   - PageRank\n3. Files and Code Sections:\n{sections}\n"
        "4. Errors and fixes:\n   - none\n"
    )
    s = SessionBuilder()
    s.user(earlier, **{CONTENT_TYPE_KEY: "summary"})  # as Claude Code's isCompactSummary reads
    s.user("Now deploy it.")
    s.say("Deployed.")
    listed = section(summarize_transcript(s.messages), 3)
    for path in files:
        assert path in listed, path


def test_a_patch_written_in_a_code_mode_script_is_a_file_change() -> None:
    """Codex code-mode runs ``const patch = "*** Begin Patch…"; tools.apply_patch(patch)`` inside
    an ``exec`` script: the file it updates is changed, not "no file was created, edited or
    deleted" (held-out edgerunner's .gitignore)."""
    from compactor.schema import AgenticMessage, Block

    script = (
        'const patch = "*** Begin Patch\\n*** Update File: .gitignore\\n@@\\n-/target\\n'
        '+/target/\\n+*.tsbuildinfo\\n*** End Patch\\n"; await tools.apply_patch(patch);'
    )
    s = SessionBuilder()
    s.user("add a gitignore file")
    s.messages.append(
        AgenticMessage(
            "assistant",
            [Block("function_tool_call", call_id="c1", name="exec", arguments=script)],
        )
    )
    result = Block("user_input_text", "Script completed\nWall time 0.1 seconds\nOutput:\nSuccess.")
    s.messages.append(
        AgenticMessage(
            "user",
            [Block("function_tool_result", call_id="c1", name="exec", content=[result])],
        )
    )
    s.say("Updated .gitignore.")
    files = section(summarize_transcript(s.messages), 3)
    assert ".gitignore (edited by exec)" in files and "+ *.tsbuildinfo" in files
    assert "No file was created" not in files


def test_calls_in_flight_are_to_be_checked_and_run_again_not_read_and_all_are_named() -> None:
    """Blind check 2: the saved session ends with five calls and no results. After compaction
    those results never arrive, so the next step must not say "read the results"; it says they
    were in flight when the session was saved, to check whether they ran and to run again the
    ones still needed, and names all five (the fifth, ``git remote -v``, was dropped)."""
    s = SessionBuilder()
    s.user("Prepare the grant application.")
    s.say("Running the export helper, then reading the project files.")
    commands = [
        "bash export-session.sh .",
        "cat package.json",
        "cat README.md",
        "git log --oneline -20",
        "git remote -v",
    ]
    for command in commands:
        s.call("shell_command", {"command": command}, None)
    text = summarize_transcript(s.messages)
    assert "Read the results" not in text
    assert "still waiting for their result" not in text
    pending = section(text, 7)
    assert "in flight when the session was saved (5;" in pending
    assert "results are not in the transcript" in pending
    step = section(text, 9)
    assert "in flight when the session was saved" in step
    assert "their results are not in the transcript" in step
    assert "check whether they ran" in step and "run them again if still needed" in step
    for command in commands:
        assert command in step, command


def test_a_command_the_harness_could_not_run_counts_as_failed() -> None:
    """Blind check 2: two read-only listings came back as the sandbox's own error (the command
    never ran). They are failures: counted in the header and listed under Errors, like the
    missing file read that was counted."""
    sandbox = (
        'execution error: Io(Custom { kind: Other, error: "windows sandbox: runner error: '
        'CreateProcessAsUserW failed: 1312" })'
    )
    s = SessionBuilder()
    s.user("List the repository and read the skill.")
    s.call("shell_command", {"command": "Get-ChildItem -Force"}, sandbox)
    s.call("shell_command", {"command": "Get-Content -Path SKILL.md"}, sandbox)
    s.call("shell_command", {"command": "ls -la"}, "failed to spawn process: sandbox denied")
    s.call("shell_command", {"command": "cat notes.txt"}, "Exit code: 1\nOutput:\nno such file")
    s.call("shell_command", {"command": "cat README.md"}, "# Project\nA game.")
    s.say("Retrying outside the sandbox.")
    text = summarize_transcript(s.messages)
    assert "5 tool calls (4 failed)" in text
    errors = section(text, 4)
    assert "Get-ChildItem -Force" in errors and "CreateProcessAsUserW failed: 1312" in errors
    assert "failed to spawn process" in errors


def test_amounts_keep_their_unit_suffix() -> None:
    """Blind check 2: a page said "Approved So Far $48k"; the summary reported `$48`, a wrong
    amount. An amount keeps its k/M/B/bn suffix, its % and a following million/billion."""
    from compactor.facts import amounts

    page = (
        "Budget $200 per grant. Approved So Far $48k. Raised $1.5M, valued at $2B and "
        "€3.2bn; fees 12,500 units, $4,000.50 paid, $7 million pledged, lift $10%."
    )
    assert amounts(page) == [
        "$200", "$48k", "$1.5M", "$2B", "€3.2bn", "12,500", "$4,000.50", "$7 million", "$10%",
    ]  # fmt: skip
    s = SessionBuilder()
    s.user("Check the grant page.")
    s.call("web_run", {"open": "https://grants.example/gildore"}, page)
    text = summarize_transcript(s.messages)
    assert "`$48k`" in section(text, 8) and "`$48`" not in text


def test_a_question_is_never_a_constraint_even_inside_quotes() -> None:
    """Blind check 2: the user pasted a quoted command whose last sentence was a question
    (``… What must I fix before submitting?"``): the closing quote hid the "?" and the question
    was listed as a constraint."""
    from compactor.models.local_views import is_constraint

    for question in (
        'What must I fix before submitting?"',
        "Should we never cache this?'",
        "Must it always run first?)",
        "Do I have to always commit?**",
    ):
        assert not is_constraint(question), question
    assert is_constraint('Never push to main."')
    s = SessionBuilder()
    s.user(
        'Run this for me: "roast-my-product Bhavana MVP, scoped small for a grant. '
        'What must I fix before submitting?" Never push to main.'
    )
    s.say("Running the roast.")
    text = summarize_transcript(s.messages)
    assert "Constraints and preferences stated by the user" in text
    assert "- What must I fix" not in text and "- Never push to main." in text


def test_status_checks_and_housekeeping_after_the_real_action_do_not_hide_it() -> None:
    """A ``git status``, an ``ls`` and a telemetry preamble that ran after the real last action
    are said to have run after it; they are not where work stopped (issue 28)."""
    s = SessionBuilder()
    s.user("Fix the rounding in billing/totals.py and run its tests.")
    s.call(
        "Edit",
        {"file_path": "billing/totals.py", "old_string": "round(x)", "new_string": "round(x, 2)"},
        "The file billing/totals.py has been updated.",
    )
    s.call(
        "Bash",
        {"command": "pytest -q tests/test_totals.py"},
        "FAILED tests/test_totals.py::test_cents - assert 1.0 == 1.01\n1 failed, 7 passed",
        error=True,
    )
    s.call("Bash", {"command": "git status --short"}, " M billing/totals.py")
    s.call("Bash", {"command": "ls -la billing"}, "totals.py\n__init__.py")
    s.call("Bash", {"command": "echo $(date) >> ~/.superstack/analytics.jsonl"}, "")
    text = summarize_transcript(s.messages)
    work = section(text, 8)
    assert "`Bash: pytest -q tests/test_totals.py` → failed" in work, work
    after = "(then only housekeeping or status checks ran: `Bash: git status --short` → returned"
    assert after in work and "`Bash: ls -la billing` → returned: totals.py" in work, work
    assert "analytics.jsonl" not in work  # housekeeping programs only: not worth a word
    step = section(text, 9)
    assert "Work stopped after the last action: `Bash: pytest -q tests/test_totals.py`" in step
    assert "git status" not in step


def test_a_status_check_is_the_last_action_when_the_request_saw_nothing_else() -> None:
    s = SessionBuilder()
    s.user("Fix the rounding in billing/totals.py.")
    s.call("Edit", {"file_path": "billing/totals.py", "old_string": "a", "new_string": "b"}, "ok")
    s.say("Fixed.")
    s.user("What does git status say now?")
    s.call("Bash", {"command": "git status --short"}, " M billing/totals.py")
    text = summarize_transcript(s.messages)
    assert "Work stopped after the last action: `Bash: git status --short`" in section(text, 9)


def test_a_later_round_of_status_checks_does_not_hide_the_real_action() -> None:
    s = SessionBuilder()
    s.user("Deploy the worker.")
    s.call("Bash", {"command": "fly deploy --app worker-7"}, "Error: app not found", error=True)
    s.say("Let me check the working tree.")
    s.call("Bash", {"command": "git status"}, "nothing to commit, working tree clean")
    s.call("Bash", {"command": "ls"}, "fly.toml\nsrc")
    text = summarize_transcript(s.messages)
    step = section(text, 9)
    assert "Work stopped after the last action: `Bash: fly deploy --app worker-7`" in step, step
    assert "(then only housekeeping or status checks ran:" in section(text, 8)


def test_a_user_picking_among_listed_options_is_a_decision_of_the_user() -> None:
    s = SessionBuilder()
    s.user("Which gaps are there in the Solana RWA space?")
    s.say("Six gaps:\n1. A unified token standard\n2. Private credit\n3. NAV oracles\n"
          "4. Price feeds\n5. Secondary markets\n6. Compliance")  # fmt: skip
    s.user("Isn't number 4 covered by Pyth?")
    s.say("Partly: Pyth has prices, not NAV.")
    s.user("ok now ditch number 5 and 6. Dive deep into 1-4.")
    s.say("Here is the deep dive.")
    text = summarize_transcript(s.messages)
    assert "Decided by the user: ok now ditch number 5 and 6." in section(text, 5), section(text, 5)


def test_the_same_words_without_listed_options_are_no_decision() -> None:
    s = SessionBuilder()
    s.user("Drop the cache table and re-run the migration.")
    s.say("Done: the table is dropped and the migration ran.")
    assert "Decided by the user" not in summarize_transcript(s.messages)
