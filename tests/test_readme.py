"""The README's Usage section matches the behaviour word for word (issue 23): every command
line in it parses, every option of every command is documented, and the outputs it shows are
what the commands print."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.core import TyperGroup
from typer.testing import CliRunner

from compactor.cli.app import app

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
USAGE = README.split("\n## Usage\n", 1)[1].split("\n### Exit codes\n", 1)[0]


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", USAGE, re.S)


def _parse(line: str) -> None:
    """Parse ``compact ...`` as the CLI would (a UsageError for an unknown option)."""
    args = shlex.split(line.split(" #", 1)[0])[1:]
    command: Any = typer.main.get_command(app)
    name = "compact"
    while hasattr(command, "commands") and args and not args[0].startswith("-"):
        name = args.pop(0)
        command = command.commands[name]
    if args == ["-V"]:  # answers while parsing: exit 0
        with pytest.raises(typer.Exit) as done:
            command.make_context(name, args)
        assert done.value.exit_code == 0
        return
    command.make_context(name, args)


def _command_lines() -> list[str]:
    lines = []
    for block in _blocks("sh"):
        for line in block.splitlines():
            for part in line.split("|"):
                part = part.split(" > ")[0].strip()
                if part.startswith("compact "):
                    lines.append(part)
    return lines


@pytest.mark.parametrize("line", _command_lines())
def test_every_command_line_of_the_usage_section_parses(line: str) -> None:
    _parse(line)


def _leaves() -> list[tuple[str, Any]]:
    root = typer.main.get_command(app)
    assert isinstance(root, TyperGroup)
    out: list[tuple[str, Any]] = []
    for name, command in root.commands.items():
        subs = getattr(command, "commands", None)
        if subs:
            out.extend((f"{name} {sub}", c) for sub, c in subs.items())
        else:
            out.append((name, command))
    return out


@pytest.mark.parametrize(("name", "command"), _leaves(), ids=[n for n, _ in _leaves()])
def test_every_command_and_option_is_documented(name: str, command: Any) -> None:
    assert f"compact {name}" in USAGE, name
    for param in command.params:
        for opt in param.opts + param.secondary_opts:
            if opt.startswith("--") and opt not in ("--help", "--debug"):
                assert f"`{opt}" in README or f" {opt}" in USAGE, (name, opt)


def test_the_root_options_are_documented() -> None:
    for opt in ("--install-completion", "--show-completion", "-V"):
        assert opt in USAGE


def _console(command: str) -> str:
    for block in _blocks("console"):
        if block.startswith(f"$ {command}\n"):
            return block.split("\n", 1)[1]
    raise AssertionError(f"no console block for {command!r}")


def test_the_check_output_shown_is_what_check_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    command = (
        "compact check sample_transcripts/coding-session-long.jsonl "
        "sample_transcripts/small-chat.jsonl"
    )
    result = CliRunner().invoke(app, shlex.split(command)[1:])
    assert result.exit_code == 1
    assert result.stdout == _console(command)


def test_the_batch_output_shown_is_what_run_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(REPO / "sample_transcripts", tmp_path / "sample_transcripts")
    (tmp_path / "small").mkdir()
    monkeypatch.chdir(tmp_path)
    command = "compact run sample_transcripts/ --model local --output-dir small/"
    result = CliRunner().invoke(app, shlex.split(command)[1:])
    assert result.exit_code == 0, result.output
    shown = _console(command)

    def normal(text: str) -> str:
        # The time, and the size after compaction: the summary's note names the input's
        # absolute path, so it varies with the folder the command runs in.
        text = re.sub(r"; \d+\.\ds\n", "; <T>s\n", text)
        return re.sub(r"→ [\d,]+ tokens", "→ <N> tokens", text)

    assert normal(result.stderr) == normal(shown)
    assert re.search(r"→ 1,[67]\d\d tokens → small/coding-session-long.jsonl", shown)


# -- the tests the documents name --------------------------------------------------------------

DOCS = ["README.md", "RELIABILITY.md", "BENCHMARKS.md", "ARCHITECTURE.md"]
_REF = re.compile(r"(tests/[\w/]+\.py)|(?<![\w/])::(\w+)|`(test_\w+)")


def _test_names(path: Path) -> set[str]:
    return set(re.findall(r"^\s*(?:async )?def (test_\w+)", path.read_text("utf-8"), re.M))


@pytest.mark.parametrize("doc", DOCS)
def test_every_test_a_document_names_exists(doc: str) -> None:
    """Each ``tests/x.py`` path, each ``::test_name`` after a test module (on the same line), each
    backticked ``test_name`` in the document is a real file or test, so renaming or removing
    a test breaks this rather than leaving the document pointing at nothing."""
    path = REPO / doc
    if not path.exists():
        pytest.skip(f"{doc} does not exist")
    every = set().union(*(_test_names(p) for p in (REPO / "tests").glob("test_*.py")))
    missing: list[str] = []
    for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        current: Path | None = None
        for file, member, bare in _REF.findall(line):
            if file:
                if not (REPO / file).is_file():
                    missing.append(f"{doc}:{number}: {file}")
                if Path(file).name.startswith("test_"):  # a ::name after it is one of its tests
                    current = REPO / file
            elif member and current is not None and current.is_file():
                if member.startswith("test_") and member not in _test_names(current):
                    missing.append(f"{doc}:{number}: {current.name}::{member}")
            elif bare and bare not in every and not (REPO / "tests" / f"{bare}.py").exists():
                missing.append(f"{doc}:{number}: {bare}")
    assert not missing, "\n".join(missing)
