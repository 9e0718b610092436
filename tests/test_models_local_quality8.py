"""Blind check 9's wrong statements in the local summary (issue 28, quality pass 8), each on a
session built here by shape: a retry that only started a background job or whose pipe hid its
failure is not a fix; a short diagnostic is the last action; a disputed or overtaken answer is
labelled; Claude Code's own summary with bold headings is read by sections; the next step after a
timed-out command and after a failed check."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_BG = "Command running in background with ID: {}"
_BANNER = "\x1b[0;36m[INFO]\x1b[0m Dynamic memory allocation ENABLED\n"


def _failed_build(s: SessionBuilder) -> None:
    s.user("build the image, the full variant")
    s.call(
        "Bash",
        {"command": "sudo ./make-image.sh"},
        _BANNER + "E: Unable to locate package foo-tools\nBuild failed at stage 3",
        error=True,
    )
    s.say("The package name is wrong. Let me fix it and run the full build again.")


# -- 1. a retry that started a job, or whose pipe hid its exit status, is not a fix ------------


def test_a_retry_that_started_a_job_which_then_failed_is_not_a_fix() -> None:
    s = SessionBuilder()
    _failed_build(s)
    s.call("Bash", {"command": "sudo VARIANT=full ./make-image.sh"}, _BG.format("bash_4"))
    s.call("BashOutput", {"bash_id": "bash_4"}, "<status>running</status>")
    s.say("The full build is running successfully in the background.")
    s.call(
        "BashOutput",
        {"bash_id": "bash_4"},
        "<status>failed</status>\n\n<exit_code>1</exit_code>",
    )
    s.say("Let me check the build logs to see what went wrong.")
    errors = section(summarize_transcript(s.messages), 4)
    block = errors[errors.index("sudo ./make-image.sh` failed") :]
    assert "Fixed: a later" not in block.split("\n   - ")[0], errors
    assert "Not fixed: a later" in block and "background job bash_4 ended: failed" in block, errors


def test_a_retry_whose_job_ended_well_is_a_fix_and_one_not_seen_ending_is_not_known() -> None:
    s = SessionBuilder()
    _failed_build(s)
    s.call("Bash", {"command": "sudo VARIANT=full ./make-image.sh"}, _BG.format("bash_4"))
    s.call(
        "BashOutput", {"bash_id": "bash_4"}, "<status>completed</status>\n<exit_code>0</exit_code>"
    )
    s.say("The image is built.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Fixed: a later" in errors and "bash_4 ended: completed" in errors, errors
    s = SessionBuilder()
    _failed_build(s)
    s.call("Bash", {"command": "sudo VARIANT=full ./make-image.sh"}, _BG.format("bash_9"))
    s.say("The full build is running in the background.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Fixed: a later" not in errors and "bash_9, not seen finishing" in errors, errors


def test_a_piped_retry_whose_output_holds_an_error_line_is_not_a_fix() -> None:
    s = SessionBuilder()
    _failed_build(s)
    s.call(
        "Bash",
        {"command": "sudo ./make-image.sh 2>&1 | tee /tmp/full.log"},
        _BANNER + "./src/mem.sh: line 3: SCRIPT_DIR: readonly variable\nCleanup complete",
    )
    s.say("There's an error with a readonly variable in the memory script. Let me look.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Fixed: a later" not in errors, errors
    assert "Not fixed: a later" in errors and "SCRIPT_DIR: readonly variable" in errors, errors


def test_a_piped_retry_with_a_clean_output_is_still_a_fix() -> None:
    s = SessionBuilder()
    _failed_build(s)
    s.call(
        "Bash",
        {"command": "sudo ./make-image.sh 2>&1 | tee /tmp/full.log"},
        "stage 3 ok\nimage written to out/image.iso",
    )
    s.say("The image is built.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Fixed: a later" in errors and "Not fixed" not in errors, errors


# -- 2. a short diagnostic whose result answers the assistant's question is the last action ----


def _hunt(s: SessionBuilder) -> None:
    s.user("where does the banner printed before every command come from?")
    s.call(
        "Bash",
        {"command": 'grep -rn "Activation" tools/bridge.py'},
        "Activation banner v10\n",
        error=True,
    )
    s.say("Even grep prints the banner. Let me check if a shell function or alias wraps grep:")


def test_a_diagnostic_that_answers_the_check_is_the_last_action() -> None:
    s = SessionBuilder()
    _hunt(s)
    s.call("Bash", {"command": "type grep"}, "grep is /usr/bin/grep")
    text = summarize_transcript(s.messages)
    action = section(text, 8).split("The last action", 1)[1].split("\n   - ")[0]
    assert "type grep" in action and "grep is /usr/bin/grep" in action, text
    assert "type grep" in section(text, 9) and "tools/bridge.py" not in section(text, 9), text


def test_a_diagnostic_that_printed_nothing_and_date_stay_housekeeping() -> None:
    s = SessionBuilder()
    _hunt(s)
    s.call("Bash", {"command": "command -v grepx"}, "")
    s.call("Bash", {"command": "date"}, "Sun Dec  6 07:00:00 UTC 2026")
    text = summarize_transcript(s.messages)
    assert "tools/bridge.py" in section(text, 9) and "grepx" not in section(text, 9), text
    assert "date" not in section(text, 8).split("The last action", 1)[1], text


# -- 3. an earlier answer the user disputed next, or a later failure overtook, is said so -------

_ANSWER = (
    "The banner is not in your files. It is printed by the CLI's own hook system every time a"
    " command runs, so it cannot be turned off from the configuration.\n\n"
    "- Banner text not found in the project\n- Only old logs mention it\n"
    "- This confirms the banner is built into the CLI itself, not your project files\n\n"
    "To hide it you would have to patch the CLI's hook runner or wrap every command; neither is"
    " possible from the settings file, and the environment flags that exist (the quiet flag and"
    " the banner flag) are already set in your shell profile."
)


def _answered(s: SessionBuilder) -> None:
    s.user("where does the banner printed before every command come from?")
    s.call("Bash", {"command": 'grep -rn "Activation" src'}, "")
    s.say(_ANSWER)


def _earlier_title(text: str) -> str:
    return text.split("An earlier request's answer", 1)[1].split("\n", 1)[0]


def test_an_answer_the_user_disputed_next_is_labelled_so() -> None:
    for protest in ("yes but I BUILT THE AGENTS BRIDGE so where is it COMING FROM", "no, wrong"):
        s = SessionBuilder()
        _answered(s)
        s.user(protest)
        s.say("Let me look at the bridge script.")
        s.call("Bash", {"command": "wc -l tools/bridge.py"}, "120 tools/bridge.py")
        title = _earlier_title(summarize_transcript(s.messages))
        assert f"the user disputed it next: '{protest}'" in title, title


def test_an_answer_a_later_failure_overtook_is_labelled_so_and_a_plain_one_is_not() -> None:
    s = SessionBuilder()
    s.user("start the full build")
    s.call("Bash", {"command": "./make-image.sh --full"}, _BG.format("bash_2"))
    s.say(
        "The full build is running successfully! It is downloading packages, using the 16GB"
        " RAM pool, and will go on through every module until the ISO is written. " * 4
    )
    s.user("check on it and then write the release notes")
    s.call("BashOutput", {"bash_id": "bash_2"}, "<status>failed</status>\n<exit_code>1</exit_code>")
    s.say("It failed; let me read the log.")
    s.call("Bash", {"command": "tail -3 build.log"}, "E: Unable to locate package foo-tools")
    title = _earlier_title(summarize_transcript(s.messages))
    assert "a later result overtook it: BashOutput" in title and "failed" in title, title
    s = SessionBuilder()
    _answered(s)
    s.user("thanks, now list the hook files")
    s.call("Bash", {"command": "ls hooks"}, "pre.sh\npost.sh")
    title = _earlier_title(summarize_transcript(s.messages))
    assert "disputed" not in title and "overtook" not in title, title


# -- 4. Claude Code's own summary with bold headings is read by sections ------------------------


def _own_summary() -> str:
    steps = "\n".join(
        f"{i}. **Step {i}**: The assistant looked at wrapper function number {i} and its status"
        " output, then reported what it found to the user in some detail."
        for i in range(1, 40)
    )
    return (
        "This session is being continued from a previous conversation that ran out of context."
        " The conversation is summarized below:\nAnalysis:\n" + steps + "\n\nSummary:\n"
        "1. **Primary Request and Intent:**\n"
        "   - Suppress the activation banner printed before every command output\n"
        "   - Keep every wrapper function: the user said 'just suppress the banner, don't remove"
        " functions'\n\n"
        "2. **Key Technical Concepts:**\n   - Shell hooks\n\n"
        "7. **Pending Tasks:**\n   - Find which hook prints the activation banner\n\n"
        "8. **Current Work:**\n   Searching the hooks directories.\n\n"
        "9. **Optional Next Step:**\n   Read the hook bridge script.\n"
        "Please continue the conversation from where we left it off without asking the user any"
        " further questions."
    )


def test_an_own_summary_with_bold_headings_is_read_by_sections() -> None:
    s = SessionBuilder()
    s.user(_own_summary())
    s.say("Let me look at the hooks.")
    s.call("Bash", {"command": "ls hooks"}, "bridge.py\nsetup.sh")
    s.user("check bridge.py")
    s.call("Bash", {"command": "wc -l hooks/bridge.py"}, "88 hooks/bridge.py")
    text = summarize_transcript(s.messages)
    intent = section(text, 1)
    assert "From the earlier summary:" in intent, text
    prior = intent.split("From the earlier summary:", 1)[1]
    assert "don't remove functions" in prior and "**Step 1**" not in prior, intent
    assert "Find which hook prints the activation banner" in section(text, 7), text


# -- 5. the next step: a short request's work, a cut-off foreground run, the last failed check --


def test_a_short_retry_names_the_work_it_continues_and_the_step_being_done() -> None:
    s = SessionBuilder()
    s.user("DNS resolution fails inside the build container, this is the problem we had")
    s.say("Let me fix the resolver config in the container.")
    s.call("Bash", {"command": "cat chroot/etc/resolv.conf"}, "nameserver 8.8.8.8")
    s.say("API Error: 502 Bad Gateway")
    s.user("retry")
    s.say("Let me retry fixing the DNS issue with a more direct approach:")
    s.call(
        "Bash",
        {"command": "sudo machinectl shell chroot /bin/true"},
        "No machine 'chroot'",
        error=True,
    )
    step = section(summarize_transcript(s.messages), 9)
    assert '"retry" is a short reply' in step and "DNS resolution fails inside" in step, step
    assert 'doing: "Let me retry fixing the DNS issue' in step, step


def test_a_foreground_run_cut_off_by_the_time_limit_may_still_run() -> None:
    s = SessionBuilder()
    s.user("build the full image now")
    s.say("Now let me restart the full build with the fixed package names:")
    s.call(
        "Bash",
        {"command": "sudo ./make-image.sh --full 2>&1 | tee /tmp/full.log"},
        "Command timed out after 2m 0.0s\n" + _BANNER + "33% [10 Sources 7281 kB/10.5 MB]",
        error=True,
    )
    step = section(summarize_transcript(s.messages), 9)
    assert "cut off by the time limit" in step and "may still be running" in step, step
    assert "run a long job in the background" in step, step


def test_a_failed_check_run_names_its_last_failing_check_line() -> None:
    s = SessionBuilder()
    s.user("run the validation script and fix what fails")
    s.say("Running the validation script.")
    checks = "".join(
        f"\x1b[0;36mTesting: {name}... \x1b[0m\x1b[0;32m✓ PASSED\x1b[0m\n"
        for name in ("die function exists", "library copy", "pre-flight checks")
    )
    s.call(
        "Bash",
        {"command": "./validate-build.sh"},
        "\x1b[0;36m================================\x1b[0m\n" + checks
        + "\x1b[0;36mTesting: Memory check for pool... \x1b[0m\x1b[0;31m✗ FAILED\x1b[0m",
        error=True,
    )  # fmt: skip
    step = section(summarize_transcript(s.messages), 9)
    assert 'last failing check: "Testing: Memory check for pool... ✗ FAILED"' in step, step
