"""Blind check 22's superseded statements and rejected fixes (issue 28 point 2, fix22b), each on
a session built here by shape: a change the user said did not work and had reverted, an
instruction a later accepted change made void, lead-in fragments ("Here's the fix:") listed as
decisions."""

from __future__ import annotations

import re

from compactor.counting.tokens import estimate_message
from compactor.models.local import _summary, summarize_transcript
from compactor.models.local_decisions import decision_score
from compactor.pipeline.user_block import CURRENT_NOTE, PART_NOTE, refer_to_quoted

from .planted_session import SessionBuilder
from .test_models_local_session import section

_PAGE = "docs/chart.md"


def _items(text: str) -> list[str]:
    """The bullet items of a section, each on one line."""
    return [" ".join(x.split()) for x in re.split(r"\n\s*- ", text)]


def _reverted_session(*, answer: str) -> SessionBuilder:
    s = SessionBuilder()
    s.user("Why does the chart legend show literal <br> tags in the preview?")
    s.call("Read", {"file_path": _PAGE}, "1\tlegend: a<br>b\n")
    s.call(
        "Edit",
        {"file_path": _PAGE, "old_string": "legend: a<br>b", "new_string": "legend: a&#10;b"},
        "The file docs/chart.md has been updated successfully.",
        text="The legend escapes HTML, so the tag is printed as text. Here's the fix:",
    )
    s.say(
        "Done. I replaced `<br>` with `&#10;` in the legend labels. This works because:\n\n"
        "1. The renderer decodes entities\n2. The legend then breaks the line\n\n"
        "The legend should now render on two lines."
    )
    s.user(answer)
    s.call(
        "Edit",
        {"file_path": _PAGE, "old_string": "legend: a&#10;b", "new_string": "legend: a<br>b"},
        "The file docs/chart.md has been updated successfully.",
    )
    s.say("Reverted back to `<br>`.")
    s.user("Now list the other charts in docs/.")
    s.call("Bash", {"command": "ls docs"}, "chart.md\nbars.md\n")
    s.say("There are two charts: chart.md and bars.md. Want me to check bars.md too?")
    return s


def test_a_change_the_user_had_reverted_is_no_decision() -> None:
    text = summarize_transcript(
        _reverted_session(answer="That didn't work, can you revert it?").messages
    )
    solving = section(text, 5)
    assert "Here's the fix:" not in solving, solving
    assert "This works because:" not in solving, solving
    flat = " ".join(solving.split())
    for line in _items(solving):
        if "I replaced" in line:
            assert line.startswith("Reverted at the user's request"), line
    assert "Reverted at the user's request" in flat, flat
    assert "That didn't work, can you revert it?" in flat, flat
    assert "Reverted back to `<br>`" in flat or "Reverted back to <br>" in flat, flat


def test_a_plain_follow_up_leaves_the_change_a_decision() -> None:
    text = summarize_transcript(
        _reverted_session(answer="Thanks, and is it the same in bars.md?").messages
    )
    flat = " ".join(section(text, 5).split())
    assert "Reverted at the user's request" not in flat, flat
    assert "Not accepted by the user" not in flat, flat


def _replaced_session() -> SessionBuilder:
    conf = "config/site.toml"
    s = SessionBuilder()
    s.user("Add a pinned download of the theme to the site config.")
    s.call("Read", {"file_path": conf}, '1\t[theme]\n2\tname = "plain"\n')
    pinned = '[theme]\nurl = "https://example.org/theme.tar"\nchecksum_sha1 = ""  # fill in later'
    s.call(
        "Edit",
        {"file_path": conf, "old_string": "[theme]", "new_string": pinned},
        "The file config/site.toml has been updated successfully.",
    )
    s.say(
        "I've added the pinned theme download to site.toml.\n\n"
        "**First build**: Run `make site` - it will fail and print the correct checksum that "
        "you need to copy into the checksum_sha1 field."
    )
    s.user("Can it follow the latest release instead of a pinned copy?")
    s.say(
        "Yes: a release feed needs no checksum. Would you like me to switch to the release "
        "feed, or keep the pinned copy?"
    )
    s.user("yes")
    s.call(
        "Edit",
        {
            "file_path": conf,
            "old_string": pinned,
            "new_string": '[theme]\nfeed = "latest"  # no checksum_sha1 needed',
        },
        "The file config/site.toml has been updated successfully.",
    )
    s.say("Done! The theme now follows the latest release.")
    return s


def test_an_instruction_a_later_accepted_change_made_void_no_longer_holds() -> None:
    solving = section(summarize_transcript(_replaced_session().messages), 5)
    flat = " ".join(solving.split())
    assert "checksum_sha1 field" in flat, flat
    for line in _items(solving):
        if "checksum_sha1 field" in line:
            assert line.startswith('No longer holds (a later change to site.toml removed "'), line


def test_a_lead_in_ending_in_a_colon_is_no_decision() -> None:
    assert decision_score("Here's the fix:") == 0
    assert decision_score("This works because:") == 0
    assert decision_score("**The fix I applied**:") == 0
    assert decision_score("I changed the retry limit to 5 because the API throttles.") > 0


_REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)


def test_a_rejected_retry_is_no_part_of_the_later_fix() -> None:
    mod = "app/prompts.py"
    edit: dict[str, object] = {"file_path": mod, "old_string": "A = 1", "new_string": "A = 2"}
    s = SessionBuilder()
    s.user("Set A to 2 in the prompt module.")
    s.call(
        "Edit",
        edit,
        "<tool_use_error>File has not been read yet. Read it first before writing to it."
        "</tool_use_error>",
        error=True,
    )
    s.call("Read", {"file_path": mod}, "1\tA = 1\n")
    s.call("Edit", edit, _REJECTED, error=True)
    s.user("[Request interrupted by user for tool use]")
    s.user("Set it to 3 instead.")
    s.call("Edit", {**edit, "new_string": "A = 3"}, f"The file {mod} has been updated.")
    s.say("A is 3 now.")
    errors = " ".join(section(summarize_transcript(s.messages), 4).split())
    assert "Fixed: a later `Edit(app/prompts.py)` succeeded." in errors, errors
    assert "ran; The user rejected this call" not in errors, errors


def _question_rejection(words: str) -> str:
    page = "docs/chart.md"
    s = SessionBuilder()
    s.user("Make the legend break its lines.")
    s.call("Read", {"file_path": page}, "1\tlegend: a<br>b\n")
    s.call(
        "Edit",
        {"file_path": page, "old_string": "a<br>b", "new_string": "a&#10;b"},
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
        "it was a file edit, the new_string was NOT written to the file). To tell you how to "
        f"proceed, the user said:\n{words}",
        error=True,
    )
    s.call(
        "Edit",
        {"file_path": page, "old_string": "a<br>b", "new_string": "a\\\\nb"},
        f"The file {page} has been updated successfully.",
    )
    s.say("Done: the legend now uses a double backslash.")
    return summarize_transcript(s.messages)


def test_a_question_given_as_a_rejections_reason_is_no_constraint() -> None:
    text = _question_rejection("can we use a double backslash?")
    request = " ".join(section(text, 1).split())
    assert "can we use a double backslash?" not in request, request
    errors = " ".join(section(text, 4).split())
    assert "can we use a double backslash?" in errors, errors  # the feedback on that call
    ruled = " ".join(section(_question_rejection("never use HTML entities here"), 1).split())
    assert "never use HTML entities here (the user's reason for rejecting a Edit call)" in ruled


def _answered(reply: str, asked: str = "") -> str:
    s = SessionBuilder()
    s.user("Pin the theme download in the site config.")
    s.call("Edit", {"file_path": "site.toml", "old_string": "a", "new_string": "b"}, "updated")
    s.say("Pinned it.")
    s.user("Does the release feed need a checksum?")
    s.say(
        "No, a release feed needs none.\n\n"
        + (
            asked
            or "Would you like me to switch to the release feed, or would you prefer keeping "
            "the pin?"
        )
    )
    s.user(reply)
    s.call("Edit", {"file_path": "site.toml", "old_string": "b", "new_string": "c"}, "updated")
    s.say("Done: it follows the release feed now.")
    return " ".join(section(summarize_transcript(s.messages), 1).split())


def test_a_short_reply_to_the_assistants_question_says_what_it_answers() -> None:
    intent = _answered("yes")
    assert (
        'Current request: "yes" (a short reply: it answers the assistant\'s question "Would you '
        'like me to switch to the release feed, or would you prefer keeping the pin?"' in intent
    ), intent
    offer = _answered("sure", "If you want, I can also pin the fonts the same way.")
    assert "it answers the assistant's offer \"If you want, I can also pin the fonts" in offer
    redirect = _answered("commit it first")  # a request of its own, no answer
    assert "it answers the assistant's" not in redirect, redirect
    own = _answered("why not?")  # the user's own question answers nothing
    assert "it answers the assistant's question" not in own, own


def test_with_a_kept_tail_section_1_names_the_tails_request_as_current() -> None:
    """cc-nixdot hybrid N4: §1 "Current request: <the summarized part's last>" beside §8 "The
    latest request was completed: "yes"" (a request of the kept tail), and the analysis's
    counts of the summarized part only beside §4's rejected call of the tail."""
    s = SessionBuilder()
    s.user("Add the theme download to the site config.")
    s.call("Edit", {"file_path": "site.toml", "old_string": "a", "new_string": "b"}, "updated")
    s.say("Added it; the checksum is filled in after the first build.")
    s.user("Can it follow the latest release automatically instead of a pinned copy?")
    cut = len(s.messages)
    s.say("Would you like me to switch to the release feed, or keep the pin?")
    s.user("yes")
    s.call("Edit", {"file_path": "site.toml", "old_string": "b", "new_string": "c"}, "updated")
    s.say("Done: it follows the release feed now.")
    head, tail = s.messages[:cut], s.messages[cut:]
    text = _summary(head, sum(map(estimate_message, head)), "", tail)
    intent = " ".join(section(text, 1).split())
    assert (
        'Latest request in the part this summary covers: "Can it follow the latest release '
        'automatically instead of a pinned copy?"' in intent
    ), intent
    assert (
        'Current request: "yes" (in the messages kept after this summary; a short reply: it '
        "answers the assistant's question \"Would you like me to switch to the release feed, or "
        'keep the pin?")' in intent
    ), intent
    assert intent.count("Current request:") == 1, intent
    assert "The messages kept after this summary are not counted." in text, text
    alone = " ".join(section(summarize_transcript(s.messages), 1).split())
    assert "Latest request in the part" not in alone and 'Current request: "yes"' in alone


def test_the_user_block_names_the_summarized_parts_latest_request_so() -> None:
    long = "Can it follow the latest release automatically? Not a pinned copy of the theme. " * 2
    long = long.strip()
    said = f'1. Latest request in the part this summary covers: "{long}"\n'
    assert refer_to_quoted(said, ["first", long]) == ["first", PART_NOTE]
    assert refer_to_quoted(f'1. Current request: "{long}"\n', ["first", long])[-1] == CURRENT_NOTE


def _agents_made() -> str:
    s = SessionBuilder()
    s.user("Build the monitoring feature: its types and its page.")
    s.call(
        "Task",
        {
            "description": "Create types",
            "prompt": "Create src/types/monitor.ts",
            "run_in_background": True,
        },
        "Async agent launched successfully.\nagentId: ab12cd3 (internal ID)\nThe agent is working "
        "in the background.",
    )
    s.call(
        "Task",
        {"description": "Create page", "prompt": "Create src/pages/Monitor.tsx"},
        "I created the file `src/pages/Monitor.tsx` with the dashboard layout and two charts.",
    )
    s.call(
        "Write",
        {"file_path": "src/App.tsx", "content": "import Monitor from './pages/Monitor'\n"},
        "The file src/App.tsx has been overwritten successfully.",
    )
    s.user(
        "<task-notification>\n<task-id>ab12cd3</task-id>\n<status>completed</status>\n"
        '<summary>Agent "Create types" completed</summary>\n<result>The file has been created at '
        "`src/types/monitor.ts` with the interfaces MonitorRow and MonitorResult.</result>\n"
        "</task-notification>"
    )
    s.say("The monitoring types, page and route are in place.")
    s.user("restart the dev server and check the page")
    s.call("Bash", {"command": "rm -rf .next/trace"}, "")
    s.call("Bash", {"command": "npm run dev -- --port 3001"}, None)
    return summarize_transcript(s.messages)


def test_files_sub_agents_report_they_created_are_in_section_3() -> None:
    files = " ".join(section(_agents_made(), 3).split())
    assert "src/types/monitor.ts (created by a sub-agent" in files, files
    assert "src/pages/Monitor.tsx (created by a sub-agent" in files, files


def test_a_write_that_overwrote_a_file_did_not_create_it() -> None:
    files = " ".join(section(_agents_made(), 3).split())
    assert "src/App.tsx (written by Write)" in files, files


def test_a_deleted_build_trace_is_no_file_changed_for_the_request() -> None:
    work = " ".join(section(_agents_made(), 8).split())
    assert "Files changed for it: .next/trace" not in work, work
    assert ".next/trace" in " ".join(section(_agents_made(), 3).split())  # still shown there


def test_a_deleted_file_in_a_config_folder_stays_a_change_for_the_request() -> None:
    s = SessionBuilder()
    s.user("Drop the template files from the skill.")
    s.call("Bash", {"command": "rm -rf ~/.claude/skills/planner/scripts"}, "")
    s.call("Bash", {"command": "rm -f yarn.lock"}, "")
    work = " ".join(section(summarize_transcript(s.messages), 8).split())
    changed = "~/.claude/skills/planner/scripts (deleted), yarn.lock (deleted)"  # (68 W6)
    assert f"Files changed for it: {changed}" in work, work


def test_a_no_to_the_assistants_follow_up_question_rejects_no_change() -> None:
    s = SessionBuilder()
    s.user("Raise the retry limit to 5.")
    s.call(
        "Edit",
        {"file_path": "conf/net.toml", "old_string": "retries = 3", "new_string": "retries = 5"},
        "The file conf/net.toml has been updated successfully.",
    )
    s.say(
        "Done. I changed the retry limit to 5 because the API throttles. Should I also lower "
        "the timeout?"
    )
    s.user("no, that's all")
    s.say("Alright.")
    flat = " ".join(section(summarize_transcript(s.messages), 5).split())
    assert "Not accepted by the user" not in flat and "Reverted at" not in flat, flat
    assert "I changed the retry limit to 5" in flat, flat


def test_a_sub_agent_describing_a_file_it_read_made_no_file() -> None:
    s = SessionBuilder()
    s.user("Explore how the legacy loader works.")
    s.call(
        "Task",
        {"description": "Explore loader", "prompt": "Explore src/legacy"},
        "The loader lives in `src/legacy/loader.ts`; that file was created in 2023 by the "
        "migration and is read at start-up.",
    )
    s.say("The legacy loader is read at start-up.")
    files = " ".join(section(summarize_transcript(s.messages), 3).split())
    assert "created by a sub-agent" not in files, files
