"""Issue 28 after blind check 17 (last17): files a download command wrote are created."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- 1. a file curl/wget/yt-dlp wrote with an output option is a created file ------------------


def test_files_a_download_command_writes_are_created() -> None:
    s = SessionBuilder()
    s.user("download the talk and the helper to my desktop")
    s.call(
        "Bash",
        {"command": "curl -sL 'https://example.org/v.mp4' -o ~/Desktop/talk_full.mp4"},
        "",
    )
    s.call("Bash", {"command": "wget -q -O /tmp/dl/helper.crx https://example.org/h"}, "")
    s.call(
        "Bash",
        {"command": "yt-dlp -f best --output ~/Videos/talk.mp4 'https://example.org/w?v=1'"},
        "[download] 100% of 16.2MiB",
    )
    s.call(
        "Bash",
        {"command": "ls -lh ~/Desktop/talk_full.mp4"},
        "-rw-r--r--@ 1 me staff 75M May 4 21:53 /Users/me/Desktop/talk_full.mp4",
    )
    s.say("Video downloaded to your Desktop.")
    files = section(summarize_transcript(s.messages), 3)
    assert "No file was created, edited or deleted." not in files, files
    for path in ("~/Desktop/talk_full.mp4", "/tmp/dl/helper.crx", "~/Videos/talk.mp4"):
        assert f"{path} (created by Bash" in files, files


def test_a_download_to_stdout_or_a_name_template_names_no_file() -> None:
    s = SessionBuilder()
    s.user("check the page")
    s.call("Bash", {"command": "curl -s -o /dev/null -w '%{http_code}' https://example.org"}, "200")
    s.call("Bash", {"command": "yt-dlp -o '%(title)s.%(ext)s' https://example.org/w"}, "")
    s.call("Bash", {"command": "wget -qO- https://example.org/api | head"}, "{}")
    s.say("The page answers 200.")
    files = section(summarize_transcript(s.messages), 3)
    assert "/dev/null" not in files and "%(title)s" not in files, files
    assert "example.org" not in files, files


def test_a_download_whose_output_option_is_on_a_continued_line_is_created() -> None:
    s = SessionBuilder()
    s.user("save the video")
    s.call(
        "Bash",
        {"command": "curl 'https://cdn.example.org/v.mp4' \\\n  -H 'Accept: */*' \\\n"
                    "  -o ~/Desktop/video_full.mp4 && rm \\\n  old.part"},
        "",
    )  # fmt: skip
    s.say("Saved.")
    files = section(summarize_transcript(s.messages), 3)
    assert "~/Desktop/video_full.mp4 (created by Bash" in files, files
    assert "old.part (deleted by Bash" in files, files


# -- 2. a task-output poll that retrieved a finished search is no failure ----------------------


def _polled_search(command: str, *, flag: bool = True) -> SessionBuilder:
    s = SessionBuilder()
    s.user("find the course files that mention the hectare")
    s.call(
        "Bash",
        {"command": command, "run_in_background": True} if flag else {"command": command},
        "Command running in background with ID: bq7x. Output is being written to: /tmp/t/x.out",
    )
    s.call(
        "TaskOutput",
        {"task_id": "bq7x", "block": True, "timeout": 30000},
        "<retrieval_status>success</retrieval_status>\n\n<task_id>bq7x</task_id>\n\n"
        "<task_type>local_bash</task_type>\n\n<status>failed</status>\n\n<exit_code>1</exit_code>",
    )
    s.say("No file mentions it.")
    return s


def test_a_task_output_that_retrieved_a_search_with_no_match_is_no_failure() -> None:
    s = _polled_search("grep -rl 'hectare' --include='*.md' . 2>/dev/null | grep -i courses")
    summary = summarize_transcript(s.messages)
    errors = section(summary, 4)
    assert "TaskOutput(task_id=bq7x" not in errors, errors
    assert "TaskOutput(task_id=bq7x, block=true, timeout=30000) (failed)" not in summary, summary


def test_a_search_sent_to_the_background_without_the_flag_is_polled_the_same() -> None:
    s = _polled_search("grep -rl 'hectare' . | grep -i courses", flag=False)
    assert "TaskOutput(task_id=bq7x" not in section(summarize_transcript(s.messages), 4)


def test_a_task_output_that_retrieved_a_failed_build_is_a_failure() -> None:
    s = _polled_search("make -C build all")
    errors = section(summarize_transcript(s.messages), 4)
    assert "exit code 1" in errors, errors


def test_a_kill_of_a_job_already_seen_completed_keeps_it_completed() -> None:
    s = SessionBuilder()
    s.user("build the image")
    s.call("Bash", {"command": "./build.sh all"}, "error: no pool", error=True)
    s.call(
        "Bash",
        {"command": "./build.sh all 2>&1 | tee /tmp/b.log"},
        "Command running in background with ID: bash_8",
    )
    s.call(
        "BashOutput",
        {"bash_id": "bash_8"},
        "<status>completed</status>\n\n<exit_code>0</exit_code>",
    )
    s.call(
        "KillBash",
        {"shell_id": "bash_8"},
        '{"success":false,"message":"Shell bash_8 is not running (status: completed)"}',
    )
    s.say("The image is built.")
    summary = summarize_transcript(s.messages)
    assert "ended: killed" not in summary, summary
