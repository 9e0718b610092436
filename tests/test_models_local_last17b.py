"""Issue 28 after blind check 17, continued (last17b): a job's plain end notice, the latest
answer to a request, the text an unquoted heredoc wrote."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- 1. a job a plain-form notification reports ended is not running ---------------------------


def test_a_job_a_plain_notification_reports_completed_is_not_running() -> None:
    s = SessionBuilder()
    s.user("run the suite in the background and bump the version")
    s.call(
        "Bash",
        {"command": "pytest -q tests/"},
        "Command running in background with ID: bq41d. Output goes to /tmp/bq41d.log",
    )
    s.call("Bash", {"command": "sed -i 's/2.4.0/2.4.1/' pyproject.toml"}, "")
    s.user("<task-notification> bq41d completed (exit code 0)")
    summary = summarize_transcript(s.messages)
    assert "still running" not in summary, summary
    assert "Nothing is running" in section(summary, 7), section(summary, 7)


# -- 2. the latest answer before the current request is quoted first ---------------------------

_NO_LINK = (
    "I could not find a direct link to the video. The page is small (5 KB): the video is "
    "loaded by JavaScript and needs a logged-in session on the site, so a plain download "
    "cannot reach it.\n\n**Options:**\n"
    "1. Open the video in Chrome, press F12, open the Network tab, reload the page, find the "
    ".mp4 or .m3u8 file, right-click it, choose 'Copy as cURL' and send it to me: I will "
    "download it.\n"
    "2. Use a browser extension that records videos from pages.\n"
    "3. Save it through the site's own player (right-click the video, 'Save video as').\n\n"
    "Which option do you prefer?"
)


def _superseded_answer() -> str:
    s = SessionBuilder()
    s.user("download the lecture video from https://course.example.org/l/42 to my Desktop")
    s.call("Bash", {"command": "yt-dlp -o '~/Desktop/%(title)s.%(ext)s' URL"}, "ERROR: Unsupported URL", error=True)  # fmt: skip  # noqa: E501
    s.call("Bash", {"command": "curl -s https://course.example.org/l/42 | wc -c"}, "5388")
    s.say(_NO_LINK)
    s.user("curl 'https://cdn.example.org/v/360p.mp4' -H 'Referer: https://player.example.org/'")
    s.call(
        "Bash",
        {"command": "curl 'https://cdn.example.org/v/360p.mp4' -o ~/Desktop/video_full.mp4"},
        "100 75.1M  100 75.1M",
    )
    s.call("Bash", {"command": "ls -lh ~/Desktop/video_full.mp4"}, "-rw-r--r-- 1 me 75M video_full.mp4")  # fmt: skip  # noqa: E501
    s.say("The video is downloaded: video_full.mp4 (75 MB) is on your Desktop.")
    s.user("now install the page recorder extension")
    s.say("Browser extensions cannot be installed from the command line: open the store page.")
    return section(summarize_transcript(s.messages), 8)


def test_a_later_answer_to_the_same_work_is_quoted_before_the_longer_superseded_one() -> None:
    work = _superseded_answer()
    earlier = work.split("An earlier request's answer, verbatim", 1)[1]
    first = earlier.split("\n   - ", 1)[0]
    assert "The video is downloaded: video_full.mp4 (75 MB)" in first, work
    assert "could not find a direct link" not in first, work
    if "could not find a direct link" in work:  # kept, but said to be older than the above
        older = work.split("could not find a direct link", 1)[0].rsplit("\n   - ", 1)[1]
        assert "came after it" in older, work


# -- 3. an unquoted here-document's $(…)/$VAR are the shell's, not the file's text -------------

_STATUS = '{\n  "timestamp": "%s",\n  "host": "%s",\n  "action": "NOTHING",\n  "healthy": true\n}'
_PATH = "/srv/boot/.status.json"


def _written(*commands: tuple[str, str]) -> str:
    s = SessionBuilder()
    s.user("write the boot status file")
    for command, printed in commands:
        s.call("Bash", {"command": command}, printed)
    s.say("Status written.")
    return section(summarize_transcript(s.messages), 3)


def test_an_unquoted_heredoc_printed_back_shows_the_printed_text() -> None:
    quoted = (
        f"cat > {_PATH} << 'EOF'\n{_STATUS % ('$(date -Iseconds)', '$HOSTNAME')}\nEOF\ncat {_PATH}"
    )
    literal = _STATUS % ("$(date -Iseconds)", "$HOSTNAME")
    unquoted = quoted.replace("<< 'EOF'", "<< EOF")
    printed = _STATUS % ("2026-01-24T20:12:58+00:00", "boot-7")
    files = _written((quoted, literal), (unquoted, printed))
    assert '"timestamp": "2026-01-24T20:12:58+00:00"' in files, files
    assert '"host": "boot-7"' in files, files
    assert "$(date" not in files and "$HOSTNAME" not in files, files


def test_an_unquoted_heredoc_not_printed_back_marks_what_the_shell_expanded() -> None:
    body = _STATUS % ("$(date -Iseconds)", "`hostname`")
    files = _written((f"mkdir -p /srv/boot && cat > {_PATH} <<EOF\n{body}\nEOF", ""))
    assert _PATH in files, files
    content = files[files.index(_PATH) :]
    if "$(date -Iseconds)" in content or "`hostname`" in content:
        head = content[: content.index('"action"')]
        assert "the shell replaced its" in head, files


def test_a_quoted_heredoc_is_the_files_literal_text() -> None:
    body = _STATUS % ("$(date -Iseconds)", "${HOST:-x}")
    files = _written((f"cat > {_PATH} <<'EOF'\n{body}\nEOF", ""))
    assert '"timestamp": "$(date -Iseconds)"' in files, files
    assert "the shell replaced" not in files, files


def test_lines_an_unquoted_heredoc_appended_are_marked_expanded() -> None:
    files = _written(("cat >> /srv/boot/runs.md <<EOF\n- triage run at $(date -u)\nEOF", ""))
    change = files[files.index("/srv/boot/runs.md") :]
    assert "$(date -u)" in change, files
    assert "the shell replaced its" in change[: change.index("$(date -u)")], files


def test_an_unquoted_heredoc_with_escaped_dollars_is_literal() -> None:
    body = _STATUS % ("\\$(date)", "\\$HOST")
    files = _written((f"cat > {_PATH} <<EOF\n{body}\nEOF", ""))
    assert "the shell replaced" not in files, files
    assert '"timestamp": "$(date)"' in files, files


# -- 4. a job started before the user ended the session with /exit is not "still running" -------

_EXIT = (
    "<command-name>/exit</command-name>\n            <command-message>exit</command-message>\n"
    "            <command-args></command-args>"
)


def _dev_server(*, resumed: bool, polled: bool = False) -> str:
    s = SessionBuilder()
    s.user("start the dev server and check the page")
    s.call(
        "Bash",
        {"command": "npm run dev", "run_in_background": True},
        "Command running in background with ID: b1",
    )
    s.call("Bash", {"command": "curl -s localhost:5173 | head -3"}, "<!doctype html>")
    s.say("The dev server runs at http://localhost:5173.")
    s.user(_EXIT)
    s.user("<local-command-stdout>See ya!</local-command-stdout>")
    if resumed:
        s.user("now add a footer to the page")
        if polled:
            s.call("BashOutput", {"bash_id": "b1"}, "<status>running</status>\n  VITE ready")
        s.call("Read", {"file_path": "/app/src/App.tsx"}, "export default function App() {}")
    return summarize_transcript(s.messages)


def test_a_job_started_before_exit_is_no_order_not_to_start_it_again() -> None:
    for resumed in (False, True):
        summary = _dev_server(resumed=resumed)
        assert "still running" not in summary, summary
        pending = " ".join(section(summary, 7).split())
        assert "`npm run dev` (id b1)" in pending, pending
        assert "ended the session with /exit" in pending, pending
        assert "check whether it runs before starting it again" in pending, pending
    step = " ".join(section(_dev_server(resumed=False), 9).split())
    assert "may still be running (b1; section 7)" in step, step
    assert "nothing is pending" not in step, step  # (compact eval: b1 was never seen ending)


def test_a_job_polled_running_after_exit_is_still_running() -> None:
    summary = _dev_server(resumed=True, polled=True)
    assert "Background job still running" in summary, summary
