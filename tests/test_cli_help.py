"""``compactor/cli/helptext.py`` and the help pages: how ``compact --help`` reads (issue 23,
points 1 and 2: plain metavars, whole summaries, examples everywhere, one suggestion for a
mistyped option, ``-V``, shell completion)."""

from __future__ import annotations

import inspect
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.core import TyperGroup
from typer.testing import CliRunner

from compactor import __version__
from compactor.cli import archive_cmd, cache_cmd, check, config_cmd, run, show
from compactor.cli.app import app
from compactor.cli.exitcodes import EXIT_CODES_HELP

ENV = {"NO_COLOR": "1", "TERM": "dumb"}


def _commands() -> Iterator[tuple[list[str], Any]]:
    """Every command and group of ``compact``, as (path of names, click command)."""
    root = typer.main.get_command(app)

    def walk(path: list[str], command: Any) -> Iterator[tuple[list[str], Any]]:
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk([*path, name], sub)

    yield from walk([], root)


ALL = list(_commands())
LEAVES = [(p, c) for p, c in ALL if not hasattr(c, "commands")]
GROUPS = [(p, c) for p, c in ALL if hasattr(c, "commands")]


def _help(path: list[str], width: int = 80) -> str:
    result = CliRunner(env=ENV).invoke(app, [*path, "--help"], terminal_width=width)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_command_tree_is_what_the_readme_documents() -> None:
    assert sorted(" ".join(p) for p, _ in LEAVES) == [
        "archive list",
        "archive prune",
        "archive restore",
        "cache clear",
        "cache info",
        "check",
        "config init",
        "config show",
        "config validate",
        "eval",
        "run",
        "show",
    ]


def _ids(items: list[tuple[list[str], Any]]) -> list[str]:
    return [" ".join(path) or "compact" for path, _ in items]


@pytest.mark.parametrize(("path", "command"), ALL, ids=_ids(ALL))
def test_help_shows_metavars_never_python_types(path: list[str], command: Any) -> None:
    text = _help(path)
    for python_ism in ("<list[", "<str>", "<int>", "<bool>", "{", "}...", "[x>=", "<float>"):
        assert python_ism not in text.replace("${VAR}", "").replace("$COMPACT_CONFIG", ""), (
            python_ism,
            text,
        )
    usage = text.splitlines()[0]
    assert usage.startswith("Usage: compact")


def test_usage_lines_read_like_a_man_page() -> None:
    assert _help(["run"]).splitlines()[0] == "Usage: compact run [OPTIONS] TRANSCRIPT..."
    assert _help(["check"]).splitlines()[0] == "Usage: compact check [OPTIONS] TRANSCRIPT..."
    assert _help(["show"]).splitlines()[0] == "Usage: compact show [OPTIONS] TRANSCRIPT"
    assert _help(["config", "validate"]).splitlines()[0] == (
        "Usage: compact config validate [OPTIONS] FILE"
    )
    run_help = _help(["run"])
    assert "\n  TRANSCRIPT...  A transcript file, - for stdin" in run_help
    assert "  -c, --config FILE " in run_help
    assert "  -j, --jobs N " in run_help


@pytest.mark.parametrize("width", [60, 80, 120])
@pytest.mark.parametrize(("path", "group"), GROUPS, ids=_ids(GROUPS))
def test_command_lists_show_whole_summaries(path: list[str], group: Any, width: int) -> None:
    """Each command's one-line summary appears whole (wrapped when narrow, never cut)."""
    text = _help(path, width)
    listing = text.split("\nCommands:\n", 1)[1].split("\n\n", 1)[0]
    flat = " ".join(listing.split())
    for name, sub in group.commands.items():
        summary = inspect.cleandoc(sub.help or "").split("\n\n")[0].replace("\n", " ")
        assert summary.endswith(".") and len(summary) <= 70, summary
        assert f"{name} {summary}" in flat, (summary, listing)
    assert "..." not in listing


@pytest.mark.parametrize(("path", "command"), ALL, ids=_ids(ALL))
def test_every_help_has_examples_that_parse(path: list[str], command: Any) -> None:
    text = _help(path)
    examples = text.split("\nExamples:\n", 1)[1].split("\nExit codes:\n", 1)[0]
    commands = []
    for line in examples.splitlines():
        for part in line.split("|"):  # a pipeline: its compact part
            part = part.split(" > ")[0].strip()
            if part.startswith("compact "):
                commands.append(part)
    assert commands, text
    for line in commands:
        args = shlex.split(line)[1:]
        command, name = typer.main.get_command(app), "compact"
        while hasattr(command, "commands"):
            name = args.pop(0)
            command = command.commands[name]
        command.make_context(name, args)  # a UsageError for an unknown option or value


def test_exit_codes_where_they_belong() -> None:
    full = EXIT_CODES_HELP
    for path in ([], ["run"], ["check"]):
        assert full in _help(path), path
    for path in (["config"], ["archive"]):
        assert "Exit codes" not in _help(path), path  # a group lists commands, not outcomes
    for path in (["show"], ["config", "show"], ["config", "validate"], ["archive", "list"]):
        text = _help(path)
        assert "Exit codes:" in text and full not in text, path
        assert "  1    check" not in text


def test_modules_define_the_epilogs_the_app_uses() -> None:
    root = typer.main.get_command(app)
    assert isinstance(root, TyperGroup)
    config, archive = root.commands["config"], root.commands["archive"]
    assert isinstance(config, TyperGroup) and isinstance(archive, TyperGroup)
    assert root.commands["run"].epilog == run.EPILOG
    assert root.commands["check"].epilog == check.EPILOG
    assert root.commands["show"].epilog == show.EPILOG
    assert config.commands["show"].epilog == config_cmd.SHOW_EPILOG
    assert archive.commands["prune"].epilog == archive_cmd.PRUNE_EPILOG
    assert archive.commands["restore"].epilog == archive_cmd.RESTORE_EPILOG


@pytest.mark.parametrize(
    ("args", "suggestion"),
    [
        (["run", "x.jsonl", "--forse"], "Did you mean --force?"),
        (["check", "x.jsonl", "--jsno"], "Did you mean --json?"),
        (["run", "x.jsonl", "--ouput-dir", "d"], "Did you mean --output-dir?"),
        (["--verison"], "Did you mean --version?"),
    ],
)
def test_a_mistyped_option_gets_the_closest_one(args: list[str], suggestion: str) -> None:
    result = CliRunner(env=ENV).invoke(app, args)
    assert result.exit_code == 2
    assert suggestion in result.stderr
    assert "Possible options" not in result.stderr


def test_a_hopeless_option_gets_no_suggestion() -> None:
    result = CliRunner(env=ENV).invoke(app, ["run", "x.jsonl", "--zzzzzz"])
    assert result.exit_code == 2
    assert "compact: no such option: --zzzzzz" in result.stderr
    assert "Did you mean" not in result.stderr


def test_a_mistyped_command_gets_the_closest_one() -> None:
    result = CliRunner(env=ENV).invoke(app, ["chek", "x.jsonl"])
    assert result.exit_code == 2
    assert "Did you mean 'check'" in result.stderr  # the closest first (then 'cache')


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version(flag: str) -> None:
    result = CliRunner().invoke(app, [flag])
    assert result.exit_code == 0
    assert result.stdout == f"compact {__version__}\n"


def test_h_is_help_too() -> None:
    assert CliRunner(env=ENV).invoke(app, ["run", "-h"]).stdout == _help(["run"])


def test_root_help_documents_shell_completion() -> None:
    text = _help([])
    assert "--install-completion" in text
    assert "--show-completion" in text


def test_shell_completion_end_to_end(tmp_path: Path) -> None:
    """The script for bash, and the completions the console script answers with (one
    subprocess per mode: the script, a command name, an option)."""
    exe = str(Path(sys.executable).with_name("compact"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("_COMPACT")}
    # The shell is named, not detected: typer detects it among the parent processes, and a
    # suite started without a shell above it (a CI runner, a daemon, setsid) has none there.
    # With detection off (typer's switch), --show-completion takes the shell as its value.
    env["_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION"] = "1"
    script = subprocess.run(
        [exe, "--show-completion", "bash"], capture_output=True, text=True, env=env, timeout=60
    )
    assert script.returncode == 0, script.stderr
    assert "_COMPACT_COMPLETE=complete_bash" in script.stdout
    assert "complete -o default -F _compact_completion compact" in script.stdout

    def complete(words: str) -> list[str]:
        proc = subprocess.run(
            [exe],
            capture_output=True,
            text=True,
            timeout=60,
            env={
                **env,
                "_COMPACT_COMPLETE": "complete_bash",
                "COMP_WORDS": words,
                "COMP_CWORD": str(len(words.split()) - 1),
            },
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.split()

    assert complete("compact ar") == ["archive"]
    assert complete("compact run --out") == ["--output", "--output-dir"]


def test_command_signatures_are_evaluated_once() -> None:
    """typer reads every command's signature at each start; string annotations (``from
    __future__ import annotations``) would be eval'ed twice per command every time (~10 ms of
    ``compact check``'s start-up, bench/bench_startup.py)."""
    for _, command in LEAVES:
        hints = inspect.signature(command.callback).parameters.values()
        assert not [p.name for p in hints if isinstance(p.annotation, str)], command.name
    for module in (run, check, show, config_cmd, archive_cmd, cache_cmd):
        assert not re.search(
            r"^from __future__ import annotations", inspect.getsource(module), re.M
        )
