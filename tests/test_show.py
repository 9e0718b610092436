"""``compactor/runs/show.py`` and ``compact show``: the summary of a compacted transcript, for
reading, in every format, with transcript text never driving the terminal (issue 23, point 9)."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.markdown import Markdown
from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.runs.show import KEEP_INDENT, find_summary, summary_markdown

from .conftest import needs_shared, shared_file

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_transcripts"
FIXTURES = REPO / "tests" / "fixtures" / "formats"

CODEX_ROLLOUT = [
    {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta",
     "payload": {"id": "s-1", "cwd": "/w", "cli_version": "0.171.0"}},
    {"timestamp": "2026-01-01T00:00:01Z", "type": "response_item",
     "payload": {"type": "message", "role": "user",
                 "content": [{"type": "input_text", "text": "Fix the flaky test in tests/a.py."}]}},
    {"timestamp": "2026-01-01T00:00:02Z", "type": "response_item",
     "payload": {"type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": "Fixed: the race in put()."}]}},
]  # fmt: skip


def _compact(src: Path, tmp_path: Path) -> Path:
    out = tmp_path / f"{src.stem}.compact.jsonl"
    # Some samples are a few hundred tokens: a forced compaction grows them past
    # loop_guard.max_growth, which is not what these tests are about.
    cfg = tmp_path / "no-guard.yaml"
    cfg.write_text("model: {provider: local}\nloop_guard: false\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["run", str(src), "--force", "-c", str(cfg), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _sources(tmp_path: Path) -> dict[str, Path]:
    codex = tmp_path / "rollout.jsonl"
    codex.write_text("".join(json.dumps(r) + "\n" for r in CODEX_ROLLOUT))
    return {
        "openai": SAMPLES / "coding-session.jsonl",
        "anthropic": SAMPLES / "agentic-session.jsonl",
        "claude-code": SAMPLES / "claude-code-session.jsonl",
        "eino": FIXTURES / "eino.jsonl",
        "codex": codex,
    }


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "claude-code", "eino", "codex"])
def test_show_renders_the_summary_of_every_format(fmt: str, tmp_path: Path) -> None:
    out = _compact(_sources(tmp_path)[fmt], tmp_path)
    # A compacted anthropic file of plain-text turns reads as openai too: say which it is.
    found = find_summary(str(out), fmt)
    assert found.format == fmt
    if fmt != "anthropic":
        assert find_summary(str(out)).format == fmt
    result = CliRunner(env={"NO_COLOR": "1", "COLUMNS": "100"}).invoke(
        app, ["show", str(out), "--format", fmt]
    )
    assert result.exit_code == 0, result.output
    text = result.stdout
    header = text.splitlines()[0]
    assert header == f"{out} · {fmt} · summary in message {found.position} of {found.messages}"
    assert "1. Primary Request and Intent" in text and "\nSummary\n" in text
    for raw in ("<summary>", "</summary>", "<analysis>", '{"role"', KEEP_INDENT):
        assert raw not in text, raw
    assert "\x1b" not in text  # not a terminal: no colour
    assert all(line == line.rstrip() for line in text.splitlines())
    raw_text = CliRunner().invoke(app, ["show", "--raw", "--format", fmt, str(out)]).stdout
    assert raw_text == found.text + "\n"
    assert "<summary>" in raw_text


def test_show_on_a_terminal_has_colour_and_no_hyperlinks(tmp_path: Path) -> None:
    out = _compact(SAMPLES / "coding-session.jsonl", tmp_path)
    result = CliRunner(env={"FORCE_COLOR": "1", "COLUMNS": "100"}).invoke(app, ["show", str(out)])
    assert result.exit_code == 0, result.output
    assert "\x1b[" in result.stdout
    assert "\x1b]8;" not in result.stdout


def test_show_refuses_a_transcript_that_was_not_compacted() -> None:
    result = CliRunner().invoke(app, ["show", str(SAMPLES / "small-chat.jsonl")])
    assert result.exit_code == 2
    assert result.stderr == (
        f"compact: {SAMPLES / 'small-chat.jsonl'}: no summary in this openai "
        "transcript (5 messages): it has not been compacted\n"
    )


def test_show_reads_stdin(tmp_path: Path) -> None:
    out = _compact(SAMPLES / "coding-session.jsonl", tmp_path)
    result = CliRunner().invoke(app, ["show", "-", "--raw"], input=out.read_bytes())
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("This session continues an earlier conversation")


HOSTILE = (
    "This session continues an earlier conversation that ran out of context; "
    "the summary below covers that earlier part.\n\n<summary>\n"
    "1. Primary Request and Intent:\n"
    "   clipboard \x1b]52;c;cm0gLXJmIH4=\x07 title \x1b]0;pwned\x07 clear \x1b[2J csi \x9b2J "
    "bidi \u202etxt.exe\n"
    "   markup [bold red]not bold[/bold red] [link=https://evil.example]x[/link]\n"
    "   a link [click me](https://evil.example/) and <script>alert(1)</script>\n"
    "</summary>"
)


def test_transcript_text_never_drives_the_terminal(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text(
        json.dumps({"role": "system", "content": "s"})
        + "\n"
        + json.dumps({"role": "user", "content": HOSTILE})
        + "\n"
    )
    for env in ({"NO_COLOR": "1"}, {"FORCE_COLOR": "1"}):
        result = CliRunner(env={**env, "COLUMNS": "200"}).invoke(app, ["show", str(path)])
        assert result.exit_code == 0, result.output
        out = result.stdout
        for control in ("\x1b]", "\x07", "\x1b[2J", "\x9b", "\u202e"):
            assert control not in out, (env, control)
        assert "\\x1b]52;c;cm0gLXJmIH4=\\x07" in out and "\\x9b2J" in out and "\\u202e" in out
        assert "[bold red]not bold[/bold red]" in out  # not rich markup
        assert "[link=https://evil.example]x[/link]" in out
        assert "[click me](https://evil.example/)" in out  # a link stays text
        assert "<script>alert(1)</script>" in out  # not swallowed as HTML either


@needs_shared
def test_the_summary_of_claude_codes_own_compaction_is_found() -> None:
    path = shared_file("reference-compactions/claude-code-2.1.197-own-compact-of-raze.jsonl")
    found = find_summary(str(path))
    assert found.format == "claude-code"
    assert found.text.startswith("This session is being continued from a previous conversation")


@needs_shared
def test_the_summary_of_codexs_own_compaction_is_found() -> None:
    local = shared_file("reference-compactions/codex-0.171.0-own-local-compact-small.jsonl")
    found = find_summary(str(local))
    assert found.format == "codex"
    assert found.text.startswith("Another language model started to solve this problem")
    # A remote compaction keeps only an encrypted item: there is no summary to read.
    remote = shared_file("reference-compactions/codex-0.171.0-own-compact-of-soul.jsonl")
    result = CliRunner().invoke(app, ["show", str(remote)])
    assert result.exit_code == 2
    assert "no summary in this codex transcript" in result.stderr


def test_make_run_shows_the_summary() -> None:
    makefile = (REPO / "Makefile").read_text()
    target = makefile.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert "$(BIN)/compact show $(OUT)/sample.compact.jsonl" in target
    assert "cat " not in target


# -- summary_markdown -----------------------------------------------------------------------------


def _render(markdown: str, width: int = 10_000) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, highlight=False, emoji=False)
    console.print(Markdown(markdown, hyperlinks=False))
    return buffer.getvalue().replace(KEEP_INDENT, "")


def test_text_reads_as_written() -> None:
    text = (
        "<summary>\n"
        "3. Files and Code Sections:\n"
        "   - src/pkg/__init__.py (edited)\n"
        "     - latest change:\n"
        "       + fh = open(tmp, 'wb')\n"
        "       - fh = open(path, 'wb')\n"
        "   - fn parse<T>(x: Vec<u8>) -> T & more **not bold** ~~not struck~~ a|b\n"
        "1. not a list\n"
        "---\n"
        "</summary>"
    )
    lines = [line.rstrip() for line in _render(summary_markdown(text)).splitlines()]
    assert "3. Files and Code Sections" in lines
    body = [line.replace("\u00a0", " ") for line in lines]
    assert "   - src/pkg/__init__.py (edited)" in body
    assert "       + fh = open(tmp, 'wb')" in body
    assert "       - fh = open(path, 'wb')" in body
    assert "   - fn parse<T>(x: Vec<u8>) -> T & more **not bold** ~~not struck~~ a|b" in body
    assert "1. not a list" in body and "---" in body


def test_code_spans_and_fences_keep_their_meaning() -> None:
    text = "use `__init__.py` here\n```\n  indented *code*\n```\nafter"
    markdown = summary_markdown(text)
    assert "`__init__.py`" in markdown
    assert "```\n  indented *code*\n```" in markdown
    rendered = _render(markdown)
    assert "__init__.py" in rendered and "  indented *code*" in rendered


def test_a_tag_heading_is_not_repeated_after_its_section() -> None:
    text = (
        "<summary>\n6. All user messages:\n<all_user_messages>\n    - hi\n"
        "</all_user_messages>\n</summary>"
    )
    rendered = _render(summary_markdown(text))
    assert rendered.count("All user messages") == 1


_LINE = st.text(
    alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FF, exclude_categories=("Cc", "Cs")),
    max_size=40,
).filter(lambda s: not s.lstrip().startswith(("#", "<", "```", "~~~")))


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LINE, max_size=6))
def test_every_character_of_the_text_is_rendered(lines: list[str]) -> None:
    """Whatever the text, Markdown never eats a character of it (backticks of code spans
    aside): no emphasis, list marker, HTML, entity, link, table or rule swallows one."""
    text = "\n".join(lines)
    rendered = _render(summary_markdown(text))
    want = "".join(text.replace("`", "").split())
    got = "".join(rendered.replace("`", "").split())
    assert got == want


def test_line_breaks_and_indentation_survive_rendering() -> None:
    text = "first\n  second\n    third"
    rendered = [
        line.rstrip().replace("\u00a0", " ")
        for line in _render(summary_markdown(text)).splitlines()
    ]
    assert rendered[:3] == ["first", "  second", "    third"]


def test_summary_markdown_of_a_real_summary_has_headings(tmp_path: Path) -> None:
    out = _compact(SAMPLES / "coding-session-long.jsonl", tmp_path)
    markdown = summary_markdown(find_summary(str(out)).text)
    headings = re.findall(r"^#+ .*$", markdown, re.M)
    assert headings[:3] == ["## Analysis", "## Summary", "### 1. Primary Request and Intent"]
    assert "### 9. Optional Next Step" in headings


def test_shared_copy_is_not_needed(tmp_path: Path) -> None:
    """The suite builds its own compacted files: a clone without ../shared runs these."""
    copy = tmp_path / "s.jsonl"
    shutil.copy(SAMPLES / "skills-session.jsonl", copy)
    assert find_summary(str(_compact(copy, tmp_path))).format == "openai"
