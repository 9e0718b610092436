"""The quick paths of the local summarizer's per-result scans (issue 28 point 7, the agent shape):
each one says what the plain pattern or the plain code said, checked with hypothesis over the
characters it looks at, and the background-job scan that now reads a result's listening ports
only when a job can use them ends jobs as before."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from compactor import jsontext
from compactor.facts import (
    Call,
    Job,
    background_jobs,
    clean,
    entry_of,
    hintfind,
    lowers_exactly,
    one_line,
)
from compactor.facts import jobs as jobs_module
from compactor.facts import outcomes as outcomes_module
from compactor.facts import text as text_module
from compactor.models import local_noise

from .conftest import examples
from .planted_session import SessionBuilder

_CONTROL_AND_SPACE = st.text(
    alphabet="ab é\t\n\r\x0b\x0c\x00\x01\x08\x0e\x1c\x1d\x1e\x1f\x7f\x85\xa0\u2028\u3000\u200b",
    max_size=40,
)
"""Letters, every kind of whitespace (the separators \\x1c-\\x1f and the Unicode spaces that
``\\s`` and ``str.split`` take), control characters and zero-width characters that are neither."""


@settings(max_examples=examples(2000), deadline=None, database=None, derandomize=True)
@given(_CONTROL_AND_SPACE)
def test_property_clean_and_one_line_are_their_patterns(text: str) -> None:
    """``clean`` drops control characters in C for ASCII text and ``one_line`` joins the
    ``str.split`` words: the same as the patterns they replaced, on any text."""
    newlines = text.replace("\r\n", "\n").replace("\r", "\n")
    assert clean(text) == text_module._CLEAN_RE.sub("", newlines)
    assert (
        one_line(text) == text_module._WS_RE.sub(" ", text_module._CONTROL_RE.sub("", text)).strip()
    )


def test_clean_bytes_are_the_clean_pattern() -> None:
    dropped = bytes(c for c in range(128) if text_module._CLEAN_RE.match(chr(c)))
    assert text_module._CLEAN_BYTES == dropped


def test_control_bytes_are_the_control_pattern() -> None:
    dropped = bytes(c for c in range(128) if text_module._CONTROL_RE.match(chr(c)))
    assert text_module._CONTROL_BYTES == dropped


_HINT_PIECES = st.sampled_from(
    [*outcomes_module._ERROR_HINTS, "Error", "ERROR", "rro", "rr", "o", "!", "err", "not ", "ed",
     "l", "ai", "ata", "x", "d", "f", "z", "g", "y", "p", "c", " ", "\n", "\r", "\r\n", "é", "ſ",
     "ı", "İ", "\u212a", "Faıled", "KILLED", "tımed out"]
)  # fmt: skip


@settings(max_examples=examples(3000), deadline=None, database=None, derandomize=True)
@given(st.lists(_HINT_PIECES, max_size=14).map("".join))
def test_property_hinted_lines_are_the_lines_that_hold_a_hint(text: str) -> None:
    """The hint pattern finds each hint at its rarest character, looking behind for the rest:
    the lines it yields are those in which the plain alternation of the hints finds one (any
    case), each once, in order."""
    plain = re.compile("|".join(map(re.escape, outcomes_module._ERROR_HINTS)), re.IGNORECASE)
    expected = []
    start = 0
    for piece in re.split(r"(\r|\n)", text):
        if piece not in ("\r", "\n") and plain.search(piece):
            expected.append((start, piece))
        start += len(piece)
    assert list(outcomes_module._hinted_lines(text)) == expected
    if lowers_exactly(text):  # the str.find passes a long text takes: the same lines (perf68)
        hints = outcomes_module._ERROR_HINTS
        assert list(hintfind.found_lines(text, text.lower(), hints)) == expected


_TOOL_ERROR_PIECES = st.sampled_from(
    ["CreateProcess", "CreateProcessW failed", " failed", "CreateProcessAsUser failed.", " ",
     "\t", "\n", "\u3000", "x", "x" * 10, "x" * 45, "x" * 150, "<error>", "Error: ",
     "exec error", "FAILED TO RUN THE COMMAND", "spawn error", "ok"]
)  # fmt: skip


_CREATE_PROCESS_AT = st.builds(
    lambda lead, filler, word, rest: lead + filler + word + rest,
    st.sampled_from(["", " ", "\t\n ", "\u3000", "\n" * 3]),
    st.integers(180, 220).map(lambda n: "y" * (n - 1) + " ") | st.sampled_from(["a\nb", "x " * 99]),
    st.sampled_from(["CreateProcessW failed", " CreateProcess failed.", "CreateProcess", "_Create"
                     "Process failed"]),
    st.sampled_from(["", "\n", " more"]),
)  # fmt: skip
"""``CreateProcess … failed`` around where the pattern stops looking (200 characters after the
leading whitespace)."""


@settings(max_examples=examples(2000), deadline=None, database=None, derandomize=True)
@given(st.lists(_TOOL_ERROR_PIECES, max_size=10).map("".join) | _CREATE_PROCESS_AT)
def test_property_tool_error_is_its_pattern(text: str) -> None:
    """The ``CreateProcess … failed`` branch is tried only where it can match (within 200
    characters after the leading whitespace); the answer is the whole pattern's."""
    expected = outcomes_module._TOOL_ERROR_RE.match(text) is not None
    assert outcomes_module._tool_error(text) is expected


_HARNESS_PIECES = st.sampled_from(
    ["Running in background with ID: ", "running in the BACKGROUND with id ", "Process running "
     "with session ID ", "process running with session id: ", "background shell started: ",
     "Background task ID ", "bash_1", "b7x9", "ſession", "İD", "ıd", "\nChunk ID: 1\n", " ",
     "\n", "x" * 150, "def f():\n", "background", "session id"]
)  # fmt: skip


@settings(max_examples=examples(2000), deadline=None, database=None, derandomize=True)
@given(st.lists(_HARNESS_PIECES, max_size=12).map("".join))
def test_property_a_read_starts_a_job_only_as_the_harness_pattern_says(text: str) -> None:
    """A file read's result starts a job only in the harness's own words; the result is looked
    at with the pattern only when it holds ``background`` or the session-id words (lower-cased,
    when that is what the pattern compares): the ids found are the pattern's."""
    read = Call("c1", "Read", json.dumps({"file_path": "notes.txt"}), 0)
    where = text[: jobs_module._HARNESS_HEAD + text.find("\nChunk ID", 0, 8_000)]
    match = jobs_module._HARNESS_START_RE.search(where)
    assert jobs_module._started(text, read) == ([match.group(1).strip(".")] if match else [])
    if lowers_exactly(where) and not jobs_module._says_harness_words(where.lower()):
        assert match is None


def _jobs(s: SessionBuilder) -> dict[str, Job]:
    return {j.id: j for j in background_jobs([entry_of(i, m) for i, m in enumerate(s.messages)])}


def _started(s: SessionBuilder, command: str, session: int, output: str) -> None:
    s.call(
        "exec_command",
        {"cmd": command},
        f"Chunk ID: a1\nWall time: 1.0 seconds\nProcess running with session ID {session}\n"
        f"Output:\n{output}",
    )


def test_a_port_a_poll_reported_ends_the_job_when_a_later_process_listens_on_it() -> None:
    """The job's own start said nothing of a port; its poll did ("Running on …:5000"). A later
    foreground command (no job, no poll) that reports listening on 5000 ends it: the ports of
    that result are read because a running job serves on a port."""
    s = SessionBuilder()
    s.user("Start the app, then start the admin app.")
    _started(s, "python app.py", 4411, "starting\n")
    s.call(
        "write_stdin",
        {"session_id": 4411, "chars": ""},
        "Chunk ID: a2\nWall time: 5.0 seconds\nProcess running with session ID 4411\n"
        "Output:\n * Running on http://127.0.0.1:5000\n",
    )
    assert _jobs(s)["4411"].running and _jobs(s)["4411"].ports == {"5000"}
    s.call(
        "exec_command", {"cmd": "python admin.py"}, "Output:\n * Running on http://127.0.0.1:5000\n"
    )
    assert _jobs(s)["4411"].finished == "gone: a later process listens on port 5000"


def test_a_port_named_at_the_end_of_a_long_start_result_is_the_jobs() -> None:
    """A start result whose "listening on" stands after 2,000 characters of log: the job serves
    there (the ports of a new job's result are read), and a later listener there ends it."""
    s = SessionBuilder()
    s.user("Run the server, then the other one.")
    _started(s, "./serve", 7001, "compiling module\n" * 200 + "listening on port 8443\n")
    assert _jobs(s)["7001"].ports == {"8443"}
    _started(s, "./serve --other", 7002, "ready: listening on port 8443\n")
    jobs = _jobs(s)
    assert jobs["7001"].finished == "gone: a later process listens on port 8443"
    assert jobs["7002"].running


def test_without_a_job_serving_on_a_port_no_listener_ends_anything() -> None:
    """A job that serves on no port is not ended by a later listener (nothing to compare)."""
    s = SessionBuilder()
    s.user("Run the worker and the web server.")
    _started(s, "./worker", 9001, "worker up\n")
    s.call("exec_command", {"cmd": "./web"}, "Output:\nlistening on port 8080\n")
    assert _jobs(s)["9001"].running


_NUMBER_TEXTS = st.lists(
    st.sampled_from(["1", "9" * 9, "0" * 18, "12345678901234567890", "x", " ", '"', "١", "٣" * 19,
                     "²", "-", ".", "e"]),
    max_size=12,
).map("".join)  # fmt: skip
"""Digit runs around 19 long, with Arabic-Indic digits (``\\d`` takes them) and a superscript
two (it does not)."""


@settings(max_examples=examples(2000), deadline=None, database=None, derandomize=True)
@given(_NUMBER_TEXTS)
def test_property_a_long_number_is_what_the_pattern_finds(text: str) -> None:
    """Whether tool-call arguments hold an integer orjson cannot keep (19 digits in a row) is
    what ``\\d{19}`` says, marked in C for ASCII text."""
    expected = jsontext._LONG_NUMBER_RE.search(text) is not None
    assert jsontext._has_long_number(text) is expected


_REPORT_PIECES = st.sampled_from(
    ["No tests found, exiting with code 1", "exited with code 2", "EXİTED with code 1",
     "exıting with code 2", "Exit", "exit ", "with code ", "with exit code ", "1", "0",
     "No projects matched", "no tests found", "ERR_PNPM_", "err_pnpm_X",
     "command failed with exit code 3", "FAIL", "FAIL ", "npm ERR!", "ELIFECYCLE", "fail", " ",
     "\t", "\u3000", "x", "ſ", "\u212a", "é"]
)  # fmt: skip


@settings(max_examples=examples(2000), deadline=None, database=None, derandomize=True)
@given(st.lists(_REPORT_PIECES, max_size=8).map("".join))
def test_property_a_masked_failure_report_is_what_its_pattern_finds(line: str) -> None:
    """The substring test before the masked-failure pattern (blind check 21, run on every line a
    successful command printed) only skips lines the pattern would not find a report in."""
    from compactor.facts import masked

    expected = len(line) <= 400 and masked._REPORT_RE.search(line.strip()) is not None
    assert masked.failure_report(line) is expected


def test_a_pipe_hides_the_exit_of_a_command_but_not_of_a_read_or_a_call_without_a_pipe() -> None:
    from compactor.facts.masked import hides_exit

    def bash(command: str, name: str = "Bash") -> Call:
        return Call("c1", name, json.dumps({"command": command}), 0)

    assert hides_exit(bash("pnpm run test 2>&1 | tail -100"))
    assert not hides_exit(bash("pnpm run test"))
    assert not hides_exit(bash("tail -50 app.log | grep ERROR"))  # a read of a log
    assert not hides_exit(Call("c2", "Read", json.dumps({"file_path": "a | tail"}), 0))
    assert not hides_exit(None)


_CUT_PIECES = st.sampled_from(
    ["truncated", "TRUNCAT", "omitted", "OMİTTED", "omıtted", "more lines", "More Lines",
     "showing lines", "Showing  lines", "xshowing lines", "ſhowing lines", "\u212a", " ", "\n",
     "x", "é", "line"]
)  # fmt: skip


@settings(max_examples=examples(2000), deadline=None, database=None, derandomize=True)
@given(st.lists(_CUT_PIECES, max_size=8).map("".join))
def test_property_a_whole_read_is_what_the_cut_pattern_says(text: str) -> None:
    """The substring test before the pattern that tells a read the tool cut (run on each whole
    file read after its last change) only skips texts the pattern finds nothing in."""
    from compactor.models import local_lost

    expected = text.count("\n") < 1_900 and local_lost._CUT_RE.search(text) is None
    assert local_lost._whole(text) is expected


@settings(max_examples=examples(2000), deadline=None, database=None, derandomize=True)
@given(_CONTROL_AND_SPACE, st.integers(min_value=0, max_value=40))
def test_property_one_line_of_a_head_starts_one_line_of_the_text(text: str, cut_at: int) -> None:
    """perf68: ``local_replies`` rejects a long request by ``one_line`` of its head alone: that
    starts ``one_line`` of the whole text (no ANSI escape in the head, no IDE note)."""
    if "\x1b" not in text[:cut_at]:
        assert one_line(text).startswith(one_line(text[:cut_at]))


@settings(max_examples=examples(2000), deadline=None, database=None, derandomize=True)
@given(st.text(alphabet="/ab-1 \t\n\r\x0b\x0c\x1c\x85\u2028\u200b", max_size=30))
def test_property_only_commands_starts_with_a_slash(text: str) -> None:
    """perf68: ``_only_commands`` rules out a text whose first non-blank character is no
    ``/`` before splitting it into lines: the same answers as splitting every text."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    bare = len(lines) >= 2 and all(local_noise._BARE_COMMAND_RE.fullmatch(ln) for ln in lines)
    assert (local_noise._only_commands(text) is not None) == bare
