"""The shared fact extraction (compactor.facts) and the local summarizer's file-change reader."""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterator, Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactor.facts import (
    Call,
    Result,
    entry_of,
    error_lines,
    exit_code,
    is_injected,
    is_reading_call,
    main_program,
    outcome,
    programs,
    strip_output_header,
    text_sources,
)
from compactor.facts import outcomes as outcomes_module
from compactor.models.local_files import file_changes, key_lines
from compactor.schema import AgenticMessage, Block, Message, ToolCall

from .conftest import examples


def bash(command: str) -> Call:
    return Call("c1", "Bash", json.dumps({"command": command}), 0)


def result(text: str, *, is_error: bool = False) -> Result:
    return Result("c1", "Bash", text, is_error)


# -- tool outcomes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Exit code 127\n/bin/bash: line 1: python: command not found", 127),
        ("Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 1\nOutput:\nx", 1),
        ("Exit code: 0\nWall time: 4.6 seconds\nOutput:\nok", 0),
        ("<status>completed</status>\n<exit_code>2</exit_code>", 2),
        ("EXIT CODE 3", 3),  # case-insensitive
        ("all good", None),
        ("the script says exit code 9 in the middle of a line", None),
    ],
)
def test_exit_code(text: str, code: int | None) -> None:
    assert exit_code(text) == code


def test_exit_code_at_the_end_of_a_long_output() -> None:
    assert exit_code("x\n" * 1000 + "exit status 4\n") == 4


def test_output_header_is_stripped() -> None:
    codex = "Chunk ID: a\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nhello\n"
    assert strip_output_header(codex) == "hello\n"
    assert strip_output_header("Exit code 1\ncat: x: No such file") == "cat: x: No such file"
    assert strip_output_header("plain") == "plain"


def test_is_error_flag_fails_the_call_and_keeps_its_line() -> None:
    failed = outcome(
        result("Exit code 127\n/bin/bash: line 1: python: command not found", is_error=True),
        bash("python x.py"),
    )
    assert failed.failed and failed.exit_code == 127
    assert failed.lines[0] == "/bin/bash: line 1: python: command not found"


def test_flag_without_an_error_line_keeps_the_first_line() -> None:
    failed = outcome(result("the hook refused this call", is_error=True), bash("make deploy"))
    assert failed.failed and failed.lines == ("the hook refused this call",)


def test_non_zero_exit_code_without_the_flag() -> None:
    failed = outcome(result("Process exited with code 2\nOutput:\nboom"), bash("./run.sh"))
    assert failed.failed and failed.exit_code == 2


def test_search_without_match_is_not_a_failure() -> None:
    assert not outcome(result("Exit code 1\n"), bash("rg -n 'needle' src")).failed
    assert not outcome(result("Process exited with code 1\nOutput:\n"), bash("grep x f")).failed
    # exit 1 of a program that is not a search stays a failure
    assert outcome(result("Exit code 1\n"), bash("make")).failed


def test_source_lines_from_a_search_are_not_errors() -> None:
    listing = (
        "src/app.py:12:        raise ValueError('bad input')\n"
        "src/errors.py:3:class ParseError(Exception):\n"
        "docs/guide.md:40:Error: shown when the config is missing\n"
        "src/cli.py:88:    except KeyError:\n"
    )
    assert not outcome(result(listing), bash("rg -n 'Error' src docs")).failed
    assert not outcome(result(listing), Call("c1", "Grep", '{"pattern": "Error"}', 0)).failed
    read = "     1→def f():\n     2→    raise RuntimeError('error: x')\n"
    assert not outcome(result(read), Call("c1", "Read", '{"file_path": "a.py"}', 0)).failed


def test_error_lines_in_output_of_a_command_that_does_more_than_read() -> None:
    log = (
        "collected 14 items\nFAILED tests/t.py::test_x - AssertionError\n== 1 failed, 13 passed =="
    )
    failed = outcome(result(log), bash("pytest -q"))
    assert failed.failed
    assert failed.lines[0] == "FAILED tests/t.py::test_x - AssertionError"
    assert "== 1 failed, 13 passed ==" in failed.lines


def test_exit_code_zero_wins_over_error_words() -> None:
    """An error-like log line amid the output (not among its first or last three lines, where
    a catch block prints its error: fix41a, BENCH41 W2) does not outweigh exit 0."""
    log = "starting\nloading config\nconnecting\nERROR: this is a log line the program printed\n"
    text = "Exit code: 0\nOutput:\n" + log + "retrying\nready\nchecks done\nall good\n"
    assert not outcome(result(text), bash("./server --check")).failed


def test_the_last_exception_line_of_a_traceback_comes_first() -> None:
    tb = (
        "Traceback (most recent call last):\n"
        '  File "a.py", line 3, in <module>\n'
        "    main()\n"
        "KeyError: 'user'\n"
    )
    assert outcome(result(tb), bash("python a.py")).lines[0] == "KeyError: 'user'"


@pytest.mark.parametrize(
    ("line", "is_error"),
    [
        ("backup.sh[2211]: pg_dump: error: connection to server failed", True),
        ("systemd[1]: backup.service: Failed with result 'exit-code'.", True),
        ("tests/test_duration.py:41: Failed", True),
        ("src/main.rs:3:5: error[E0308]: mismatched types", True),
        ("E       AssertionError: assert b'' == b'vvvv'", True),
        ("bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted", True),
        ("command timed out after 12475 milliseconds", True),
        ("bash : The term 'bash' is not recognized as the name of a cmdlet, function", True),
        ("ERROR tests/test_x.py - ImportError", True),
        ("error: lowercase diagnostics count", True),
        ("ErRoR: odd case too", True),
        ("src/app.py:12:        raise ValueError('bad')", False),
        ("    12→ValueError: in a numbered listing", False),
        ("+    raise ValueError(x)", False),
        ("# error: a comment", False),
        ('"error": "a JSON field"', False),
        ("Error handling is described below.", False),
        ("0 failed, 12 passed", False),
    ],
)
def test_error_line_rules(line: str, is_error: bool) -> None:
    assert bool(list(error_lines(line))) is is_error


_PIECES = st.sampled_from(
    ["Error", "error", "ERROR", "ErRoR", "Exception", "failed", "FAILED", "Failed", "fatal",
     "panic", "panicked", "panicked at ", "npm ERR! ", "command not found", "COMMAND NOT FOUND",
     "No such file", "denied", "Permission denied", "not permitted", "Killed", "timed out",
     "Segmentation fault", "out of memory", "cannot find module", "is not recognized as an "
     "internal or external", "1 failed", "3 errors", "12 failing", "E   ", ": ", "src/a.py:3:",
     "2026-11-03T12:34:56.789Z ", "raise ", "thread 'main' ", " at ", "x", " ", "_", ".", "1",
     "é", "→", "İ", "ſ", "ı", "\u212a", "CRITICAL", "err!", "No ſuch file", "tımed out",
     "ſegmentation fault", "Faıled", "[", "]", "[ERROR] ", "FATAL:", "PANIC]"]
)  # fmt: skip
"""Pieces of error lines, and the characters that case-insensitive matching treats specially
(``ſ`` matches ``s``, ``ı`` matches ``i``, the Kelvin sign matches ``k``, ``İ`` grows)."""


def _all_patterns(line: str) -> int:
    """The rank from running every pattern in order, no shortcut (the specification)."""
    o = outcomes_module
    body = o._LOCATION_RE.sub("", line, count=1) if line[:1] not in " \t" else line
    if not body or o._NOT_ERROR_RE.match(body):
        return 0
    return o._rank_all_patterns(line, body)


@pytest.mark.parametrize(
    "tag", ["[ERROR]", "[FATAL]", "[PANIC]", "[CRITICAL]", "ERROR:", "FATAL:", "CRITICAL:"]
)
def test_a_level_tag_after_a_prefix_is_an_error_line_and_the_bare_word_is_not(tag: str) -> None:
    """The tagged-level prefilter (a tag in brackets or before a colon) keeps every tag the
    pattern accepts; a log line whose level word stands alone is ranked by the other patterns."""
    line = f"[CONVEX seed(run)] {tag} 'the row was rejected'"
    assert outcomes_module._rank_patterns(line) == _all_patterns(line) == 2
    bare = f"2026-11-03T10:58:14.039Z {tag.strip('[]:')}   [check_limits:104] over the limit"
    assert outcomes_module._rank_patterns(bare) == _all_patterns(bare) == 0


# 1000 in make test too: at 300, prefilters that forgot `critical` or ` error` passed
@settings(max_examples=1000, deadline=None, database=None, derandomize=True)
@given(st.lists(_PIECES, max_size=10).map("".join))
def test_property_prefilters_change_no_rank(line: str) -> None:
    """The substring tests before the regexes (the hints of a line, what each pattern needs)
    only skip what no pattern would accept."""
    expected = _all_patterns(line)
    assert outcomes_module._rank_patterns(line) == expected
    assert outcomes_module._error_rank(line) == (expected if len(line) >= 4 else 0)


# -- commands --------------------------------------------------------------------------------------


def test_programs_and_the_main_one() -> None:
    assert programs("cd repo && FOO=1 sudo pytest -q | tail -5") == ["cd", "pytest", "tail"]
    assert main_program("cd repo && pytest -q") == "pytest"
    assert programs("git log --oneline -5") == ["git log"]
    assert programs("$x = Get-Item a; Get-Content b") == ["get-content"]


@pytest.mark.parametrize(
    ("command", "reading"),
    [
        ("rg -n 'raise ValueError' src", True),
        ("cd repo && nl -ba src/app.py | sed -n '1,80p'", True),
        ("git diff HEAD~1", True),
        ("Get-Content README.md", True),
        ("pytest -q", False),
        ("cat x | python -m json.tool", False),
        ("git commit -m x", False),
    ],
)
def test_reading_commands(command: str, reading: bool) -> None:
    assert is_reading_call(bash(command)) is reading


# -- message views ---------------------------------------------------------------------------------


def test_injected_context_is_not_the_user() -> None:
    env = Message("user", "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>")
    agents = Message("user", "# AGENTS.md instructions for /x\n\nNever use tabs.")
    marked = AgenticMessage("user", [Block("user_input_text", "hi")], extra={"injected": True})
    own = Message("user", "please fix the build")
    assert is_injected(env) and is_injected(agents) and is_injected(marked)
    assert not is_injected(own)
    assert entry_of(0, agents).injected and not entry_of(0, own).injected
    assert list(text_sources(agents)) == []
    assert [s for s, _, _ in text_sources(own)] == ["user"]


def test_entry_carries_the_is_error_flag() -> None:
    msg = AgenticMessage(
        "user",
        [
            Block(
                "function_tool_result",
                call_id="a",
                name="Bash",
                content=[Block("user_input_text", "boom")],
                is_error=True,
            )
        ],
    )
    [res] = entry_of(3, msg).results
    assert (res.call_id, res.name, res.text, res.is_error) == ("a", "Bash", "boom", True)
    chat = Message("tool", "boom", tool_call_id="b", extra={"is_error": True})
    assert entry_of(0, chat).results[0].is_error
    call = Message("assistant", "", tool_calls=[ToolCall("b", "Bash", '{"command": "ls"}')])
    assert entry_of(0, call).calls[0].args == {"command": "ls"}


# -- file changes ----------------------------------------------------------------------------------


def changes(name: str, args: Mapping[str, object] | str) -> list[tuple[str, str]]:
    raw = args if isinstance(args, str) else json.dumps(args)
    return [(c.path, c.action) for c in file_changes(Call("c", name, raw, 0))]


def test_editor_tools() -> None:
    assert changes("Write", {"file_path": "a.py", "content": "x = 1\n"}) == [("a.py", "written")]
    assert changes("create", {"filename": "b.py"}) == [("b.py", "created")]
    edit = file_changes(
        Call("c", "Edit", json.dumps({"file_path": "c.py", "old_string": "a = 1\nb = 2",
                                      "new_string": "a = 1\nb = 3"}), 0)
    )  # fmt: skip
    assert [(e.path, e.action, e.added, e.removed) for e in edit] == [
        ("c.py", "edited", ("b = 3",), ("b = 2",))
    ]
    multi = {"file_path": "d.py", "edits": [{"old_string": "x", "new_string": "y"}]}
    assert changes("MultiEdit", multi) == [("d.py", "edited")]
    assert changes("Read", {"file_path": "e.py"}) == []


def test_editor_without_a_path_edits_the_open_file() -> None:
    call = Call("c", "edit", json.dumps({"search": "a", "replace": "b"}), 0)
    [change] = file_changes(call, open_file="/testbed/src/f.py")
    assert (change.path, change.action, change.added) == ("/testbed/src/f.py", "edited", ("b",))


def test_apply_patch() -> None:
    patch = (
        "*** Begin Patch\n*** Add File: docs/new.md\n+# New\n+text\n"
        "*** Update File: src/app.py\n@@\n-old = 1\n+new = 2\n"
        "*** Delete File: src/dead.py\n*** End Patch\n"
    )
    found = file_changes(Call("c", "apply_patch", patch, 0))
    assert [(c.path, c.action) for c in found] == [
        ("docs/new.md", "created"),
        ("src/app.py", "edited"),
        ("src/dead.py", "deleted"),
    ]
    assert found[0].content == "# New\ntext"
    assert found[1].added == ("new = 2",) and found[1].removed == ("old = 1",)
    shell = {"cmd": "apply_patch <<'EOF'\n" + patch + "EOF\n"}
    assert ("src/app.py", "edited") in changes("exec_command", shell)


def test_shell_writes() -> None:
    heredoc = "cat > conf/app.toml <<'EOF'\n[server]\nport = 8080\nEOF"
    [change] = file_changes(bash(heredoc))
    assert (change.path, change.action, change.content) == (
        "conf/app.toml",
        "written",
        "[server]\nport = 8080",
    )
    assert changes("Bash", {"command": "echo hi >> notes.txt"}) == [("notes.txt", "edited")]
    assert changes("Bash", {"command": "python gen.py > out/report.csv 2>/dev/null"}) == [
        ("out/report.csv", "written")
    ]
    assert changes("Bash", {"command": "sed -i 's/a/b/' src/x.py"}) == [("src/x.py", "edited")]
    assert changes("Bash", {"command": "rm -f build/old.log tmp.txt"}) == [
        ("build/old.log", "deleted"),
        ("tmp.txt", "deleted"),
    ]
    assert changes("Bash", {"command": "mv a.py b.py"}) == [
        ("b.py", "written"),
        ("a.py", "deleted"),
    ]
    ps = {"command": "Set-Content -Path 'notes.md' -Value 'x'"}
    assert changes("shell_command", ps) == [("notes.md", "written")]


def test_listings_and_code_in_here_documents_change_nothing() -> None:
    assert changes("Bash", {"command": "ls -la src/ && cat README.md"}) == []
    code = "python - <<'PY'\nif a > b.c:\n    print(1)\nPY"
    assert changes("Bash", {"command": code}) == []
    assert changes("Bash", {"command": "git log --format='%h -> %s' 2>&1"}) == []


def test_key_lines_prefer_definitions_over_imports_and_docstrings() -> None:
    text = '"""Docs."""\n\nimport os\nimport sys\n\n\ndef main() -> int:\n    """Run."""\n' + (
        "    x = 1\n" * 3
    ) + "    return 0\n\n\nclass App:\n    pass\n"  # fmt: skip
    lines = key_lines(text, 4)
    assert "def main() -> int:" in lines and "class App:" in lines
    assert "import os" not in lines
    assert key_lines("a\nb", 4) == ["a", "b"]


_LINES = st.lists(
    st.one_of(st.lists(_PIECES, max_size=6).map("".join), st.sampled_from(["\n", "\r\n", "\r"])),
    max_size=12,
).map("".join)


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(_LINES)
def test_property_one_pass_error_lines_equal_a_scan_of_every_line(text: str) -> None:
    """error_lines finds hinted lines with one regex pass; the result is what testing every
    line (case-insensitively) gives."""
    from compactor.facts import cut, lines_of
    from compactor.facts.outcomes import _error_rank

    every = [(pos, raw.strip()) for pos, raw in lines_of(text)]
    expected = [(pos, line) for pos, line in every if len(line) >= 6 and _error_rank(line)]
    assert list(error_lines(text)) == [(pos, cut(line)) for pos, line in expected]


# -- quick scans before the fact patterns ------------------------------------------------------

_FACT_PIECES = st.sampled_from(
    ["src/app.py", "/etc/hosts", "./x/y.ts", "C:\\x\\y.txt", "a\\b", "Makefile", "MAKEFILE",
     "makefıle", "Dockerfile", "notes.MD", "x.ſh", "https://x.dev/a/b.py", "file", " ", ".", ". ",
     "(", ")", "`", "parse_config(", "obj.method(", "HttpClient", "new FooBar", "FooBarBaz",
     "Foo.bar", "a.b.c", "os.path.join", "_x.y_z", "`run_it()`", "`a.b`", "Http2Client", "must",
     "Never", "don't", "do not", "always", "make sure", "\n", "! ", "? ", "we", "the tests",
     "ı", "ſ", "\u212a", "x", "1", "_", "$", "$x(", "@", "~/", "-", "+", "/", ":", ":\\", "\\",
     ".py", "a.b.c(", "x.y.z.W", "a.b.c.d(", "..", "../", "é", "a_b", "Py", "file.rs"]
)  # fmt: skip
_FACT_TEXTS = st.lists(_FACT_PIECES, max_size=14).map("".join)
_SCANNER_TEXTS = st.text(alphabet="ab_.$/\\:~@+-(`) \n!?\tPyſıK\u212aé1file", max_size=60)
"""Random text over the characters the path, call and module scanners and the sentence
splitter look at (separators, look-behind and look-ahead characters, case-folding letters)."""


def _paths_of_every_match(text: str) -> list[tuple[int, str]]:
    from compactor.facts.patterns import _PATH_RE, _is_member, blank_urls, clean_path

    blank = blank_urls(text)
    found = ((m.start(1), m.end(1), clean_path(m.group(1))) for m in _PATH_RE.finditer(blank))
    return [(pos, path) for pos, end, path in found if path and not _is_member(blank, path, end)]


def _identifiers_of_every_pattern(text: str) -> list[tuple[int, str]]:
    from compactor.facts import patterns as p

    def spans() -> Iterator[tuple[int, int, str]]:  # every pattern on the whole text
        for m in p._CALL_IDENT_RE.finditer(text):
            if not p._EXT_END_RE.search(m.group(1)):
                yield m.start(1), m.end(1), m.group(1)
        for m in p._CAMEL_CONTEXT_RE.finditer(text):
            g = next(g for g in (1, 2, 3) if m.group(g))
            yield m.start(g), m.end(g), m.group(g)
        for m in p._MODULE_RE.finditer(text):
            if p._is_module_path(m.group(1)):
                yield m.start(1), m.end(1), m.group(1)
        for m in p._BACKTICK_RE.finditer(text):
            word = m.group(1).strip()
            if not p._BACKTICK_IDENT_RE.fullmatch(word) or len(word) < 3:
                continue
            word = word.removesuffix("()")
            camel = p._INNER_CAP_RE.search(word) is not None
            if ("_" in word.strip("_") or "." in word or "::" in word or camel) and (
                not p._EXT_END_RE.search(word)
            ):
                yield m.start(1), m.start(1) + len(word), word

    return list(p._longest_first(spans()))


def _longest_first_one_by_one(spans: list[tuple[int, int, str]]) -> list[tuple[int, str]]:
    """The longest span first, each kept unless it overlaps one kept before (the reference)."""
    starts: list[int] = []
    ends: list[int] = []
    texts: list[str] = []
    for start, end, text in sorted(set(spans), key=lambda i: (i[0] - i[1], i[0], i[2])):
        at = bisect.bisect_left(starts, start)
        if (at > 0 and ends[at - 1] > start) or (at < len(starts) and starts[at] < end):
            continue
        starts.insert(at, start)
        ends.insert(at, end)
        texts.insert(at, text)
    return list(zip(starts, texts, strict=True))


_SPANS = st.lists(
    st.tuples(st.integers(0, 30), st.integers(0, 6), st.sampled_from("abc")).map(
        lambda t: (t[0], t[0] + t[1], t[2])
    ),
    max_size=8,
)


@settings(max_examples=examples(3000), deadline=None, database=None, derandomize=True)
@given(_SPANS)
def test_property_spans_that_overlap_nothing_are_kept_without_the_one_by_one_walk(
    spans: list[tuple[int, int, str]],
) -> None:
    """Issue 28 point 7: a text's facts that overlap nothing (most texts) are kept in order of
    position without walking them longest first; the same facts as the walk, empty and
    repeated spans included."""
    from compactor.facts import patterns as p

    assert list(p._longest_first(iter(spans))) == _longest_first_one_by_one(spans)


@settings(max_examples=examples(2000), deadline=None, database=None, derandomize=True)
@given(
    st.text(alphabet="ab .!?\n\t", max_size=40),
    st.lists(st.integers(0, 45), max_size=6).map(sorted),
)
def test_property_sentences_holding_a_position_are_those_of_sentence_spans(
    text: str, positions: list[int]
) -> None:
    """Issue 28 point 7: the decision scorer cuts out only the sentences a keyword stands in."""
    from compactor.facts import sentence_spans, sentences_holding

    expected = [s for p, s in sentence_spans(text) if any(p <= q < p + len(s) for q in positions)]
    assert list(sentences_holding(text, positions)) == expected


def _instructions_of_every_sentence(text: str) -> list[tuple[int, str]]:
    from compactor.facts import cut, sentence_spans
    from compactor.facts.patterns import _INSTRUCTION_RE, _WORD_RE

    return [
        (pos, cut(s))
        for pos, s in sentence_spans(text)
        if _INSTRUCTION_RE.search(s) and len(_WORD_RE.findall(s)) >= 3
    ]


# 1000 in make test too: at 300, a camel-case quick scan asking two lower-case letters passed
@settings(max_examples=1000, deadline=None, database=None, derandomize=True)
@given(_FACT_TEXTS)
def test_property_quick_scans_before_fact_patterns_change_nothing(text: str) -> None:
    """paths, identifiers and instructions skip a pattern when a quick scan shows the text
    lacks what every match needs; the facts are those of running the patterns."""
    from compactor.facts import identifiers, instructions, paths

    assert list(paths(text)) == _paths_of_every_match(text)
    assert list(instructions(text)) == _instructions_of_every_sentence(text)
    assert list(identifiers(text)) == _identifiers_of_every_pattern(text)


# 1000 in make test: at 300, path anchors that forgot `file` and call runs that forgot `$`
# passed
@settings(max_examples=examples(3000, 1000), deadline=None, database=None, derandomize=True)
@given(st.one_of(_SCANNER_TEXTS, _FACT_TEXTS))
def test_property_scanners_from_anchors_agree_with_the_patterns(text: str) -> None:
    """paths, calls and module paths are found from their anchors (a ``/``, a ``(``, a dot
    before a name) and the runs of characters around them, and sentences split where a
    ``.!?`` or a line break stands (issue 28 point 7: the patterns tried at every character
    took most of the embedded summarizer's time): the same facts, at the same positions, as the
    patterns run over the whole text."""
    import re

    from compactor.facts import patterns as p
    from compactor.facts import sentence_spans

    assert list(p.paths(text, 3)) == [(pos + 3, path) for pos, path in _paths_of_every_match(text)]
    calls = [(m.start(1), m.end(1), m.group(1)) for m in p._CALL_IDENT_RE.finditer(text)]
    assert list(p._call_spans(text)) == calls
    modules = [(m.start(1), m.end(1), m.group(1)) for m in p._MODULE_RE.finditer(text)]
    assert list(p._module_spans(text)) == modules
    pos, expected = 0, []
    for sep in re.finditer(r"(?<=[.!?])\s+|\n+", text):  # the splitter as it was
        expected.append((pos, text[pos : sep.start()]))
        pos = sep.end()
    expected.append((pos, text[pos:]))
    assert list(sentence_spans(text)) == expected


_EXIT_PIECES = st.sampled_from(
    ["Exit code 1", "EXIT STATUS: 2", "<exit_code>3", "exıt code 4", "Process exited with code 0",
     "Command exited with code 127", "exited with code -1", "\n", "  ", "x" * 250, "é", "ok"]
)  # fmt: skip


@settings(max_examples=examples(500), deadline=None, database=None, derandomize=True)
@given(st.lists(_EXIT_PIECES, max_size=12).map("".join))
def test_property_exit_code_quick_scan_changes_nothing(text: str) -> None:
    from compactor.facts.outcomes import _EXIT_RE

    match = _EXIT_RE.search(text[:600])
    if match is None and len(text) > 600:
        match = _EXIT_RE.search(text, len(text) - 300)
    assert exit_code(text) == (int(match.group(1)) if match else None)


# texts of up to 800 copies: 150 examples in make test
@settings(max_examples=examples(400, 150), deadline=None, database=None, derandomize=True)
@given(_LINES, st.integers(1, 4), st.integers(1, 800))
def test_property_last_error_lines_read_from_the_end_are_the_last_distinct_ones(
    text: str, count: int, copies: int
) -> None:
    """The latest ``count`` distinct error lines, found reading back a chunk at a time, are
    those of reading the whole text: a line that comes back counts where it was seen last."""
    from compactor.facts import last_error_lines

    text = "\n".join([text] * copies)  # up to hundreds of chunks
    latest: list[str] = []
    for _, line in reversed(list(error_lines(text))):
        if line not in latest and len(latest) < count:
            latest.append(line)
    assert last_error_lines(text, count) == latest[::-1]


def test_only_four_characters_case_fold_to_ascii_letters() -> None:
    """lowers_exactly() names every character that re.IGNORECASE matches to an ASCII letter or
    digit, or that lower() makes longer: the shortcuts that look for a pattern's ASCII words in
    a lower-cased text rely on it."""
    import re
    import sys

    from compactor.facts import lowers_exactly

    ascii_letter = re.compile("[a-z]", re.IGNORECASE).fullmatch
    special = {
        ch
        for ch in map(chr, range(128, sys.maxunicode + 1))
        if len(ch.lower()) != 1 or ascii_letter(ch)
    }
    assert special == {"\u0130", "\u0131", "\u017f", "\u212a"}
    assert all(not lowers_exactly("x" + ch) for ch in special)
    assert lowers_exactly("é→ü 😀 Straße")


# texts of up to 800 copies: 150 examples in make test
@settings(max_examples=examples(300, 150), deadline=None, database=None, derandomize=True)
@given(_LINES, st.integers(1, 800))
def test_property_ranked_lines_read_from_the_end_are_those_of_the_whole_text(
    text: str, copies: int
) -> None:
    """A failed call's error lines (highest rank first, the latest first within a rank) are
    read back from the end and stop once the latest lines of the top rank fill the list."""
    from compactor.facts import cut, scan_window
    from compactor.facts.outcomes import _MAX_OUTCOME_LINES, _hinted_lines, _ranked_lines

    text = "\\n".join([text] * copies)
    found = []
    for pos, raw in _hinted_lines(scan_window(text)):
        line = raw.strip()
        rank = outcomes_module._rank_patterns(line) if len(line) >= 6 else 0
        if rank:
            found.append((-rank, -pos, cut(line)))
    found.sort()
    expected = list(dict.fromkeys(line for _, _, line in found))[:_MAX_OUTCOME_LINES]
    assert _ranked_lines(text) == expected


_NUMBER_PIECES = st.sampled_from(
    ["v1.2.3", "1.2", "Python 3.11.7", "version 2.0", "django==4.2.1", "x>=1.0", "port 8080",
     "PORT: 5432", "pörT 80", "localhost:3000", "127.0.0.1:8000", "#123", "issue 42", "PR #7",
     "pull request 9", "bug 3", "ticket #55", "Exit code 2", "exited with status 3",
     "EXİT CODE 4", "returned non-zero exit status 1", "HTTP 404", "HTTP/1.1 500",
     "status code: 201", "https://x.dev/v1.2.3", " ", "\n", "x", "1", ".", ":", "#", "ſ", "ı"]
)  # fmt: skip
_RESULT_PIECES = st.sampled_from(
    ['File "/a/b.py", line 3', '  File "x.py"', "  at foo (src/a.js:3:4)", "at bar:1",
     "src/a.py:12: error", "lib/x.rs:1:2 warning", "a:1", ": ", ":2", "at ", "File", '"',
     "\n", "\r", "\r\n", "\x0b", "\x85", "\u2028", " ", "\t", "x", "/", "app.py", "3"]
)  # fmt: skip


@settings(max_examples=examples(1000), deadline=None, database=None, derandomize=True)
@given(st.lists(_NUMBER_PIECES, max_size=10).map("".join), st.booleans())
def test_property_number_quick_scans_change_nothing(text: str, from_result: bool) -> None:
    from compactor.facts import numbers, one_line
    from compactor.facts.patterns import _NUMBER_RES, _longest_first, blank_urls

    blanked = blank_urls(text)
    spans = (
        (m.start(), m.end(), one_line(m.group()))
        for pattern, in_results, _ in _NUMBER_RES
        if in_results or not from_result
        for m in pattern.finditer(blanked)
    )
    assert list(numbers(text, from_result=from_result)) == list(_longest_first(spans))


@settings(max_examples=examples(1000), deadline=None, database=None, derandomize=True)
@given(st.lists(_RESULT_PIECES, max_size=14).map("".join))
def test_property_result_paths_in_one_pass_are_those_of_each_line(text: str) -> None:
    """A tool output's paths (traceback frames, ``path:line:`` lines) found with one pass over
    the text are those of testing every line."""
    from compactor.facts import lines_of, paths
    from compactor.facts.patterns import _RESULT_PATH_LINE_RE, result_paths

    expected = [
        found
        for pos, line in lines_of(text)
        if _RESULT_PATH_LINE_RE.match(line)
        for found in paths(line, pos)
    ]
    assert list(result_paths(text)) == expected


_JOB_PIECES = st.sampled_from(
    ["running", "RUNNING", "Running in background with ID: ", "ſtarted", "started task ",
     "background", "task_id: ", "SESSION_ID=", "session ıd: ", "İD", "pid ", "Job queued",
     "in progress", "ın progress", "pendıng", "submitted", "abc123", "b7x9", "build", "\n",
     " ", ": ", "=", "`", "\"", "x" * 190, "done", "é"]
)  # fmt: skip


def _started_with_every_pattern(text: str) -> list[str]:
    """What jobs._started found before its quick scans (the patterns only)."""
    from compactor.facts import jobs as j

    head = text[: j._HEAD]
    last = j._LAST_ID_RE.search(text[-200:].rstrip())
    if last is not None and not j._foreground(text, "", j._label_of(last)):
        return [last.group(1)]
    if j._RUNNING_WORDS.search(head) is None:
        return []
    found = []
    for match in j._START_RE.finditer(head):
        key = match.group(1).strip(".")
        if key.lower() in j._ID_WORDS or len(key) < 2:
            continue
        if not any(ch.isdigit() for ch in key) and len(key) < 6:
            continue
        near = head[max(0, match.start() - j._NEAR) : match.end() + j._NEAR]
        if j._RUNNING_WORDS.search(near) is None:
            continue
        found.append(key)
    return list(dict.fromkeys(found))


@settings(max_examples=examples(1500), deadline=None, database=None, derandomize=True)
@given(st.lists(_JOB_PIECES, max_size=16).map("".join))
def test_property_job_start_quick_scans_change_nothing(text: str) -> None:
    """A result is searched for a job's start only when it holds a running word or ``id``
    (lower-cased, when that is what the patterns compare; issue 28 point 7): the ids found are
    those of the patterns alone."""
    from compactor.facts import jobs as j

    assert j._started(text) == _started_with_every_pattern(text)
