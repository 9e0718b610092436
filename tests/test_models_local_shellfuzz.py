"""Property tests (blind check 20, C1): no shell-ish command crashes a command-parsing helper of
the facts layer or the embedded summarizer.

phish-cc's ``echo "--- logs ---"`` inside a failed chain gave an empty step, and an
``IndexError`` killed the whole run. The helpers below split commands by hand (segments, shlex
words, heredocs, quotes): each gets arbitrary shell-ish strings (quotes, dashes, pipes, ``&&``,
``;``, heredocs, unbalanced quotes, empty segments, unicode, very long words), and the whole
summarizer gets small sessions whose Bash commands and outputs are such strings."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compactor.facts import Call
from compactor.facts.commands import (
    command_of,
    is_reading_call,
    main_program,
    programs,
    shell_words,
)
from compactor.facts.kills import later_kill, later_report, later_use
from compactor.facts.outcomes import exit_code
from compactor.facts.reads import only_reads
from compactor.facts.shellmade import made_folders, might_make
from compactor.facts.shellwrap import inner_command
from compactor.facts.shellwrites import script_writes
from compactor.facts.text import Entry, Result
from compactor.facts.wrappedread import is_wrapped_read
from compactor.models.local import summarize_transcript
from compactor.models.local_gotpast import _step
from compactor.models.local_heredoc import as_printed, heredoc_text
from compactor.models.local_partof import only_a_part

from .planted_session import SessionBuilder

_PIECES = (
    "echo", "printf", "cd", "sudo", "env", "yes", "docker", "run", "-d", "--", "-", "---",
    "--- logs ---", '"--- x ---"', "'-'", "--name", "X=1", "=", "2>&1", ">/dev/null", ">", "<",
    "|", "||", "&&", "&", ";", ";;", "\n", "\\\n", "tail", "-30", "head", "grep", "cat", "git",
    "clone", "https://github.com/a/b.git", "mkdir", "-p", "dir/sub", "kill", "-9", "1234",
    "pkill", "-f", "uvicorn", "--port", "8000", ":8000", "python", "-c", "bash", "-lc", "sh",
    "pip", "install", "npm", "npx", "pnpm", "exec", "cat <<'EOF'", "<<EOF", "<<-EOF", "EOF",
    "tee", "file.txt", "sed", "-i", "s/a/b/", "\"", "'", "`", "$(", ")", "(", "{", "}", "*",
    "~", "ü", "日本語", "\u200b", "\t", "", " ", "x" * 300, "-" * 80, "\"unbalanced", "'open",
    "$VAR", "${A:-b}", "#", "# comment", "\\", "nohup", "setsid", "timeout", "5",
)  # fmt: skip

_segment = st.lists(st.sampled_from(_PIECES), min_size=1, max_size=4).map(" ".join)
_chain = st.lists(
    st.tuples(_segment, st.sampled_from(("\n", " && ", "; ", " | ", " || ", " & "))),
    min_size=1,
    max_size=6,
).map(lambda parts: "".join(seg + sep for seg, sep in parts))
"""A chain of segments (``docker run -d x\necho "--- logs ---"\n…``)."""
shellish = st.one_of(
    _chain,
    st.lists(st.sampled_from(_PIECES), max_size=14).map(" ".join),
    st.lists(st.sampled_from(_PIECES), max_size=10).map("".join),
    st.text(max_size=80),
    st.tuples(
        st.lists(st.sampled_from(_PIECES), max_size=6).map(" ".join), st.text(max_size=40)
    ).map(lambda t: f"{t[0]} <<'EOF'\n{t[1]}\nEOF\n{t[0]}"),
)
_NAMES = st.sampled_from(("Bash", "shell", "exec_command", "local_shell", "run_terminal_cmd"))


def _call(command: str, name: str = "Bash", index: int = 1, key: str = "command") -> Call:
    return Call(f"c{index}", name, json.dumps({key: command}), index)


@settings(max_examples=400, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(shellish, shellish, _NAMES, st.sampled_from(("command", "cmd", "script")))
def test_no_command_parsing_helper_raises(first: str, second: str, name: str, key: str) -> None:
    failed, later = _call(first, name, 1, key), _call(second, name, 3, key)
    argv = Call("c9", name, json.dumps({key: ["bash", "-lc", first]}), 9)
    for call in (failed, later, argv):
        inner_command(call)
        command_of(call)
        is_reading_call(call)
        only_reads(call)
        is_wrapped_read(call)
        _step(call)
    only_a_part(failed, later)
    only_a_part(later, failed)
    for command in (first, second):
        shell_words(command)
        assert all(isinstance(p, str) for p in programs(command))
        main_program(command)
        made_folders(command)
        might_make(command)
        script_writes(command)
        exit_code(command)
        heredoc_text(command)
        as_printed(command, second)
    entries = [
        Entry(0, "assistant", "", calls=(failed,)),
        Entry(1, "user", "", results=(Result("c1", name, second),)),
        Entry(2, "assistant", second, calls=(later,)),
        Entry(3, "user", "", results=(Result("c3", name, first, is_error=True),)),
    ]
    later_kill(entries, "c1", first, 0)
    later_use(entries, "c1", first, 0)
    later_report(entries, first, second, 0)


_outputs = st.one_of(
    shellish,
    st.sampled_from(
        (
            "Exit code 1\nERROR: failed",
            "Exit code 127\nbash: line 1: foo: command not found",
            "--- logs ---\nstarting",
            "Process running with session ID 123",
            "Command running in background with ID: b1x. Output is being written to: /tmp/o",
            "",
        )
    ),
)
_turn = st.tuples(shellish, _outputs, st.booleans(), st.booleans())
_tool = st.sampled_from((("Bash", "command"), ("exec_command", "cmd"), ("shell", "command")))


@settings(max_examples=60, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_turn, min_size=1, max_size=6), st.booleans(), _tool)
def test_the_embedded_summarizer_summarizes_any_shell_session(
    turns: list[tuple[str, str, bool, bool]], answered: bool, tool: tuple[str, str]
) -> None:
    """A small session whose shell commands and outputs are arbitrary: a summary comes back."""
    s = SessionBuilder()
    s.user("Get the service running and check its logs")
    name, key = tool
    for command, output, error, background in turns:
        args: dict[str, object] = {key: command}
        if background:
            args["run_in_background"] = True
        s.call(name, args, output, error=error)
    if answered:
        s.say("Done: the service runs.")
    text = summarize_transcript(s.messages)
    assert "Current request" in text or "request" in text.lower(), text
