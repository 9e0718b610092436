"""Blind check 14's "where work stands" (issue 28, rows 590-599): a call that exited 0 but
printed tagged error lines is not "no error line"; the CLI's usage-limit message is no answer
and leaves the work blocked; a background agent whose result says it was denied did not do its
work; a failure a later call of the same program got past is not unresolved."""

from __future__ import annotations

from compactor.facts.outcomes import error_lines
from compactor.models.local import summarize_transcript
from compactor.schema import CONTENT_TYPE_KEY

from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- 595: error lines tagged by level in a result that exited 0 ----------------------------------


def _seed_output() -> str:
    lines = ["Exit code: 0", "Wall time: 2.1 seconds", "Output:", "seeding items…"]
    for name in ("a4-paper.jpeg", "stapler.jpg", "laptop.jpg"):
        lines.append(
            f"[APP ?(seed:run)] [ERROR] 'image read error ({name}):' "
            f"[Error: Request to http://localhost:3000/items/{name} forbidden]"
        )
        lines.append(f"[APP ?(seed:run)] [ERROR] 'image read failed: {name}'")
    lines.append("[APP ?(seed:run)] [LOG] 'done: 12 items'")
    return "\n".join(lines)


def test_level_tagged_lines_after_a_source_tag_are_error_lines() -> None:
    text = "[APP x(y)] [ERROR] 'image failed: a.jpg'\n[APP x(y)] [LOG] 'ok'\n"
    text += '2025-01-02 10:00:00 ERROR: pool exhausted\nprint("[ERROR] x")\n'
    found = [line for _, line in error_lines(text)]
    assert found == [
        "[APP x(y)] [ERROR] 'image failed: a.jpg'",
        "2025-01-02 10:00:00 ERROR: pool exhausted",
    ]


def test_a_call_that_exited_0_but_printed_error_lines_is_not_said_error_free() -> None:
    """sn-legacy: ``pnpm -s db:seed`` exited 0 and printed twenty ``[CONVEX …] [ERROR]`` lines
    (ten "forbidden"); section 4 said no result "printed an error line"."""
    s = SessionBuilder()
    s.user("seed the database with the sample images")
    s.call("shell", {"command": ["bash", "-lc", "pnpm -s db:seed"]}, _seed_output())
    s.say("Seeded; some images could not be read (403).")
    errors = section(summarize_transcript(s.messages), 4)
    assert "printed an error line" not in errors, errors
    assert "pnpm -s db:seed did not fail, but printed:" in errors, errors
    assert "items/a4-paper.jpeg forbidden" in errors, errors
    assert "(6 error lines in all)" in errors, errors


# -- 590: the CLI's usage-limit message is no answer; the work ended blocked ---------------------

_LIMIT = "You're out of extra usage · resets 9pm (UTC)"


def _blocked_session() -> SessionBuilder:
    s = SessionBuilder()
    s.user("seed every table, then work in a loop until every page works")
    s.call("Bash", {"command": "psql -U app -c 'select 1'"}, "psql (16.1) ok")
    s.call(
        "Bash",
        {"command": "psql -U app -f seed_batch4.sql"},
        'Exit code 2\npsql: error: FATAL:  password authentication failed for user "app"',
        error=True,
    )
    s.say(_LIMIT)
    s.say(_LIMIT)
    s.user("llama")
    s.say(_LIMIT)
    return s


def test_a_usage_limit_message_is_no_answer_and_a_probe_typed_then_no_request() -> None:
    """as-compact: "llama" typed after the limit notices was the current request and the
    notice its verbatim answer; "nothing is pending" while nine tables were unseeded."""
    text = summarize_transcript(_blocked_session().messages)
    intent, pending = section(text, 1), section(text, 7)
    current, step = section(text, 8), section(text, 9)
    assert '"seed every table, then work in a loop until every page works" (the current' in intent
    assert '"llama"' not in intent, intent
    assert "stopped at the agent CLI's usage limit" in pending, pending
    assert "not finished" in pending, pending
    assert "password authentication failed" in pending, pending
    assert 'not a new request): "llama"' in pending, pending
    assert "completed" not in current and "answer to it" not in current, current
    assert "usage limit" in current, current
    assert "Once the limit allows: Continue the latest request" in step, step
    assert "resets 9pm (UTC)" in step, step
    assert "nothing is pending" not in text, text


def test_a_limit_hit_after_the_answer_leaves_the_answer_standing() -> None:
    s = SessionBuilder()
    s.user("what does the seed script do?")
    s.call("Read", {"file_path": "seed.sql"}, "1\tINSERT INTO t VALUES (1);")
    s.say("It inserts one row into t.")
    s.say(_LIMIT)
    s.user("continue")
    s.say(_LIMIT)
    text = summarize_transcript(s.messages)
    assert "came after the last answer" in section(text, 7), section(text, 7)
    assert "not finished" not in text, text
    assert "Once the limit allows" not in section(text, 9), section(text, 9)
    assert "The latest request was completed" in section(text, 8), section(text, 8)


# -- 591: a sub-agent that "completed" after reporting it was denied did not do its work ---------


def _agent_notice(agent: str, description: str, result: str, status: str = "completed") -> str:
    return (
        f"<task-notification>\n<task-id>{agent}</task-id>\n<status>{status}</status>\n"
        f'<summary>Agent "{description}" {status}</summary>\n<result>{result}</result>\n'
        "</task-notification>"
    )


def test_a_completed_agent_whose_report_says_it_was_denied_did_not_do_the_work() -> None:
    """as-inflight: five agents "completed"; each result said Write/Edit were denied and
    nothing was written; the summary said "Group 1 …, which completed"."""
    s = SessionBuilder()
    s.user("rebuild all the frontend modules, in parallel")
    agents = [("a8203813574986110", "Modules group 1"), ("a77c1d0e2f3b4a596", "Modules group 2")]
    for agent, description in agents:
        s.call(
            "Agent",
            {
                "description": description,
                "prompt": "Rewrite the modules.",
                "run_in_background": True,
            },
            f"Async agent launched successfully.\nagentId: {agent} (internal ID)",
        )
    s.say("Two agents are running.")
    denied = (
        "Both Write and Edit permissions have been denied. I cannot modify the files without "
        "those permissions enabled.\n\n**What I was doing:** rewriting 10 modules."
    )
    s.user(_agent_notice(agents[0][0], agents[0][1], denied))
    s.user(_agent_notice(agents[1][0], agents[1][1], "Build passes. All 10 modules rewritten."))
    s.call("Bash", {"command": "ls src/modules"}, "Accounting.tsx\nCIS.tsx")
    text = summarize_transcript(s.messages)
    work = section(text, 8)
    assert (
        "`Agent: Modules group 1`, which completed, but its report says it was blocked: "
        "Both Write and Edit permissions have been denied." in work
    ), work
    assert "`Agent: Modules group 2`, which completed:" in work, work
    # not "re-run it": the assistant may have done the work itself since (as-inflight did)
    assert "Re-run" not in section(text, 9), section(text, 9)


# -- 592: a missing program a later call ran is no unresolved failure ------------------------------


def test_a_missing_program_a_later_chain_ran_is_fixed_not_unresolved() -> None:
    """as-inflight: ``chmod +x … && psql --version && …`` failed (psql: command not found);
    PostgreSQL was installed and ``systemctl start … && psql --version`` printed its version;
    section 7 still listed the chain as an "Unresolved failure"."""
    s = SessionBuilder()
    s.user("create the database and any dependencies")
    s.call(
        "Bash",
        {"command": "chmod +x scripts/install.sh && psql --version && node --version"},
        "Exit code 127\n/bin/bash: line 1: psql: command not found",
        error=True,
    )
    s.call("Bash", {"command": "apt-get install -y postgresql 2>&1 | tail -3"}, "Setting up ok")
    s.call(
        "Bash",
        {"command": "systemctl start postgresql && psql --version"},
        "psql (PostgreSQL) 16.13",
    )
    s.call("Bash", {"command": "sudo -u postgres psql -c 'CREATE DATABASE app'"}, None)
    text = summarize_transcript(s.messages)
    assert "Unresolved failure" not in section(text, 7), section(text, 7)
    errors = section(text, 4)
    assert "Fixed: a later `Bash: systemctl start postgresql && psql --version` ran" in errors
    assert "`psql` is there now" in errors, errors


def test_a_missing_program_still_missing_later_stays_unresolved() -> None:
    s = SessionBuilder()
    s.user("check the tools")
    s.call("Bash", {"command": "jq --version"}, "Exit code 127\njq: command not found", error=True)
    s.call(
        "Bash", {"command": "jq . data.json"}, "Exit code 127\njq: command not found", error=True
    )
    s.call("Bash", {"command": "ls"}, None)
    text = summarize_transcript(s.messages)
    assert "is there now" not in text and "Fixed" not in section(text, 4), section(text, 4)


# -- 590 (also): a report of a task launched before an earlier summary is read -----------------


def test_reports_of_tasks_launched_before_the_earlier_summary_are_kept() -> None:
    """as-compact: four ``<task-notification>``s after Claude Code's own compaction (one agent
    killed, one "completed" with only the usage-limit text) were dropped: their launches were
    in the part the earlier summary covers."""
    earlier = (
        "This session is being continued from a previous conversation that ran out of context. "
        "The summary below covers the earlier portion of the conversation.\n\nSummary:\n"
        "1. Primary Request and Intent:\n   Build every module.\n"
        "7. Pending Tasks:\n   - **Settings UI** (agent running)\n   - **Modules B** (agent "
        "running)\n   - **Modules A** (agent running)\n"
        "8. Current Work:\n   Seeding the remaining tables.\n"
    )
    s = SessionBuilder()
    s.user(earlier, **{CONTENT_TYPE_KEY: "summary"})
    s.call("Bash", {"command": "pm2 status"}, "cortexbuild-api online")
    s.user(_agent_notice("a2afd0e9b37afd332", "Settings UI", "Now let me write it:", "killed"))
    s.user(_agent_notice("a562625e12c50ac40", "Modules B", _LIMIT))
    s.user(_agent_notice("a3ec9576eab48b7b8", "Modules A", "Build passes with no errors."))
    s.call("Bash", {"command": "ls"}, "src")
    pending = section(summarize_transcript(s.messages), 7)
    assert "`a2afd0e9b37afd332` killed" in pending, pending
    assert (
        "`a562625e12c50ac40` completed, but its report says it was blocked: \"You're out of "
        "extra usage" in pending
    ), pending
    assert '`a3ec9576eab48b7b8` completed: "Agent "Modules A" completed"' in pending, pending
