"""Start-up: what ``compact check`` imports, and the typer hook that keeps pydantic out of it.

Timing itself is measured by bench/bench_startup.py, never asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from compactor._util import FrozenRecord
from compactor.cli import _typer_fast
from compactor.cli.app import app

REPO = Path(__file__).resolve().parent.parent
SMALL = REPO / "sample_transcripts" / "small-chat.jsonl"
ANTHROPIC = REPO / "sample_transcripts" / "agentic-session.jsonl"  # not streamed: a full read

# Each costs start-up time and `check` needs none of them.
HEAVY = (
    "asyncio",
    "tenacity",
    "openai",
    "anthropic",
    "httpx",
    "httpx2",
    "tiktoken",
    "toktok",
    "pydantic",
    "yaml",
    "rich",
    "compactor.pipeline.middleware",
    "compactor.pipeline.summarize",
    "compactor.io",
    # object stores and the cluster (issue 33): only for a URL or --dask
    "fsspec",
    "s3fs",
    "dask",
    "distributed",
    "compactor.distributed",
)

# main() ends the process itself (os._exit after atexit handlers): report from an atexit handler.
RUNNER = """\
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules))))
if sys.argv[2] == "no-hook":
    from compactor.cli import _typer_fast
    _typer_fast.install = lambda: False
from compactor.cli.app import main
sys.argv = ["compact", *json.loads(sys.argv[1])]
main()
"""


def _modules_after(args: list[str], *, hook: bool = True) -> tuple[int, set[str]]:
    """Run ``compact ARGS`` in a fresh interpreter; (exit code, modules it imported)."""
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, json.dumps(args), "hook" if hook else "no-hook"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, set(json.loads(proc.stdout.strip().splitlines()[-1]))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in HEAVY if m in modules or any(x.startswith(m + ".") for x in modules))


def test_check_imports_nothing_heavy() -> None:
    code, modules = _modules_after(["check", str(SMALL)])
    assert code == 0
    assert "compactor.formats.streaming" in modules  # the runner really ran check
    assert _heavy(modules) == []
    # Not heavy, but not needed either: check builds no middleware Config and emits no events.
    assert "compactor.counting.config" not in modules
    assert "compactor.events" not in modules


def test_check_imports_none_of_what_was_made_lazy() -> None:
    """Imports ``compact check`` used to make for nothing (issues 29, 31): ``shlex`` (only a
    JSON-document error message quotes a path with it), the other commands' modules, and any
    model backend or SDK."""
    code, modules = _modules_after(["check", str(SMALL)])
    assert code == 0
    assert "compactor.formats.json_document" in modules  # the module is there, its shlex is not
    lazy: tuple[str, ...] = (
        "shlex",
        "compactor.models.openai",
        "compactor.models.anthropic",
        "compactor.models.local",
    )
    # nor the modules of the other commands: main builds check alone (app.app_for)
    others = ("run", "show", "eval_cmd", "config_cmd", "archive_cmd", "cache_cmd", "batch")
    lazy += tuple(f"compactor.cli.{name}" for name in others)
    assert sorted(m for m in lazy if m in modules) == []
    assert "compactor.cli.check" in modules


# What `compact check` defines on every start-up as plain classes (compactor._util.Record), not
# dataclasses: ~0.4-1 ms each to define as a dataclass, ~0.01 ms as a Record (issues 29, 31).
PLAIN = (
    "compactor.models.providers:Provider",
    "compactor.models.providers:ModelKey",
    "compactor.counting.trigger:TriggerDecision",
    "compactor.runs.dryrun:CheckResult",
    "compactor.runs.dryrun:Explained",
    "compactor.runs.inputs:Inputs",
    "compactor.configfile.settings:Key",
    "compactor.configfile.schema:Switch",
    "compactor.sizes:InputLimits",
    "compactor.formats.base:Streaming",
    "compactor.formats.base:TypedRecords",
    "compactor.formats.streaming:StreamResult",
    "compactor.formats.json_document:DocumentStyle",
    "compactor.formats.base:FormatSpec",
)

# Reports, at exit, how many credential-pattern sets were compiled and which dataclasses exist.
LAZY_RUNNER = """\
import atexit, dataclasses, json, sys
def report():
    from compactor import _util
    made = sorted(
        f"{c.__module__}:{c.__qualname__}"
        for n, m in list(sys.modules.items()) if n.startswith("compactor")
        for c in list(vars(m).values()) if isinstance(c, type) and dataclasses.is_dataclass(c)
    )
    print(json.dumps({"compiled": len(_util._compiled), "dataclasses": made}))
atexit.register(report)
from compactor.cli.app import main
sys.argv = ["compact", *json.loads(sys.argv[1])]
main()
"""


def _lazy_report(args: list[str]) -> tuple[int, dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-c", LAZY_RUNNER, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.stdout.strip(), proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return proc.returncode, report


def test_check_compiles_no_credential_pattern_and_defines_the_plain_classes_plainly() -> None:
    """``compact check`` on a good file masks nothing: the credential patterns of
    ``compactor._util`` are compiled on first use (~2 ms of every start-up before), and the
    value classes on its path are plain classes, not dataclasses (issues 29, 31)."""
    code, report = _lazy_report(["check", str(SMALL)])
    assert code == 0
    assert report["compiled"] == 0
    made = set(report["dataclasses"])
    assert "compactor.configfile.fileconfig:FileConfig" in made  # the report does see them
    assert sorted(made & set(PLAIN)) == []


def test_the_credential_patterns_are_compiled_when_a_secret_is_masked() -> None:
    """The lazy patterns still mask: a URL's credentials in ``compact check``'s error line."""
    from compactor._util import mask_url_credentials, redact

    assert mask_url_credentials("https://bob:pw@host/v1?api-key=abc") == (
        "https://***@host/v1?api-key=***"
    )
    assert redact("key sk-abcdefghijkl here") == "key *** here"


@pytest.mark.parametrize("name", PLAIN)
def test_a_plain_class_behaves_as_the_dataclass_it_replaces(name: str) -> None:
    """Equality, repr, hashing and (frozen ones) assignment as its dataclass had them, field
    order kept: a dataclass made from the same fields agrees."""
    import dataclasses
    import importlib

    module, _, qualname = name.partition(":")
    cls = getattr(importlib.import_module(module), qualname)
    fields = cls.__slots__
    frozen = issubclass(cls, FrozenRecord)
    twin = dataclasses.make_dataclass(qualname, fields, frozen=frozen, slots=True)
    twin.__qualname__ = cls.__qualname__
    values = {f: f"v{i}" for i, f in enumerate(fields)}
    first = fields[0]  # positional, as every caller gives it; the others by keyword

    def make(given: dict[str, str]) -> Any:
        return cls(given[first], **{k: v for k, v in given.items() if k != first})

    mine = make(values)
    theirs = twin(**values)
    assert repr(mine) == repr(theirs)
    assert mine == make(values)
    assert mine != make({**values, fields[-1]: "other"})
    assert mine != theirs  # another class, as with two dataclasses
    if frozen:
        assert hash(mine) == hash(theirs)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(mine, first, "x")
    else:
        assert cls.__hash__ is None
        setattr(mine, first, "x")
        assert getattr(mine, first) == "x"


@pytest.mark.parametrize(
    "args",
    [
        ["config", "show", "-c", str(REPO / "configs" / "failover.yaml")],
        ["config", "validate", str(REPO / "configs" / "failover.yaml")],
        ["config", "validate", str(REPO / "configs" / "robust.yaml")],
    ],
)
def test_config_show_and_validate_import_no_model_sdk(args: list[str]) -> None:
    """``config show`` / ``validate`` check the models from the provider table's declarations;
    building a client imported openai and anthropic (~1.8 s a process; validate did)."""
    code, modules = _modules_after(args)
    assert code == 0
    assert "yaml" in modules  # the file really was read
    sdks = ("openai", "anthropic", "httpx", "pydantic", "compactor.models.openai")
    assert sorted(m for m in sdks if m in modules) == []


def test_check_json_and_full_read_paths_stay_light() -> None:
    """--json, and a format that is read in full (anthropic), need no heavy module either."""
    code, modules = _modules_after(["check", "--json", str(SMALL), str(ANTHROPIC)])
    assert code == 0
    assert "compactor.runs.dryrun" in modules  # the library builds the --json records (issue 31)
    assert "compactor.formats.anthropic" in modules  # the full read did happen
    assert _heavy(modules) == ["compactor.io"]  # the full read reads the file through io


def test_the_runner_sees_heavy_imports() -> None:
    """The check above can fail: a config file brings yaml, a run brings asyncio."""
    _, modules = _modules_after(["check", "-c", str(REPO / "configs" / "default.yaml"), str(SMALL)])
    assert "yaml" in _heavy(modules)


def test_typer_hook_is_installed() -> None:
    """If a typer upgrade moves the internals, this fails (the CLI would only get slower)."""
    assert _typer_fast.install() is True
    assert _typer_fast.install() is True  # idempotent


def _typer_parameters() -> Iterator[tuple[Any, Any]]:
    """(parameter, a context for it) for every option and argument of every ``compact``
    command, built by the installed typer from the real app."""
    import typer.main
    from typer import core

    root = typer.main.get_command(app)
    context = type(root.make_context("compact", ["--help"], resilient_parsing=True))

    def walk(command: Any, ctx: Any) -> Iterator[tuple[Any, Any]]:
        for name in command.list_commands(ctx) if hasattr(command, "list_commands") else []:
            sub = command.get_command(ctx, name)
            yield from walk(sub, context(sub, parent=ctx, info_name=name))
        for param in command.params:
            if isinstance(param, core._TyperParameter):
                yield param, ctx

    yield from walk(root, context(root, info_name="compact"))


# Values as the command line hands them over: strings, flags, repeated options; the integers
# include ones typer refuses (bounds, signs, underscores, too long) and ones it reads.
VALUES: dict[str, list[Any]] = {
    "str": [None, "x", "", "a b ü.jsonl", "-", "0"],
    "bool": [None, True, False],
    "int": [None, "0", "1", "8", "64", "-1", "x", " 8", "08", "1_000", "1.5", "9" * 30],
    "list[str]": [None, ["a", "b"], ("a",), []],
    "float": [None, "0.5", "1", "x", "-0.1"],
}


def _outcome(runtime: Any, value: Any, param: Any, ctx: Any) -> tuple[str, Any]:
    try:
        result = runtime._coerce_value(value, param=param, ctx=ctx)
    except Exception as err:  # noqa: BLE001 - whatever typer raises is compared, not judged
        return type(err).__name__, str(err)
    return type(result).__name__, result


def test_the_typer_hook_agrees_with_the_installed_typer_on_every_parameter() -> None:
    """Pinned to the installed typer's behaviour, not to a version string: for every option of
    every command, the hook's fast path gives exactly what typer's own coercion gives (value and
    type, or the same error and message). A typer whose coercion changes fails here, and so does
    one whose internals the hook can no longer reach (``install()`` false, or no fast path)."""
    from typer._coercion import build_runtime_param

    assert _typer_fast.install() is True
    compared: dict[str, int] = {}
    for param, ctx in _typer_parameters():
        fast = param.get_runtime_param()
        kind = type(fast).__name__
        assert kind == "PlainValues", f"{param.name}: typer's own {kind}, the hook is not in use"
        own = build_runtime_param(param.type_descriptor)
        annotation = param.type_descriptor.annotation
        name = annotation.__name__ if isinstance(annotation, type) else str(annotation)
        for value in VALUES[name]:
            assert _outcome(fast, value, param, ctx) == _outcome(own, value, param, ctx), (
                f"{param.name}={value!r}"
            )
            compared[name] = compared.get(name, 0) + 1
    assert set(compared) == set(VALUES)  # every kind of parameter the CLI has was compared


def test_the_typer_hook_is_what_keeps_pydantic_out_of_check() -> None:
    """Without the hook, the installed typer imports pydantic for ``compact check`` (so the hook
    still pays, BENCHMARKS.md); with it, it does not. A typer that no longer needs pydantic
    fails here: the hook can then be retired."""
    _, hooked = _modules_after(["check", str(SMALL)])
    _, plain = _modules_after(["check", str(SMALL)], hook=False)
    assert "pydantic" not in hooked
    assert "pydantic" in plain


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["run", "x.jsonl", "y.jsonl", "--jobs", "0"],
            "Input should be greater than or equal to 1",
        ),
        (["run", "x.jsonl", "y.jsonl", "--jobs", "x"], "Input should be a valid integer"),
        (["check", "--format"], "option '--format' requires an argument"),
    ],
)
def test_values_the_hook_does_not_cover_get_typers_errors(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_plain_values_reach_the_command_unchanged(tmp_path: Path) -> None:
    copy = tmp_path / "a b ü.jsonl"
    copy.write_bytes(SMALL.read_bytes())
    result = CliRunner().invoke(
        app, ["check", "--json", "--format", "openai", str(copy), str(copy)]
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["path"] for r in records] == [str(copy), str(copy)]
    assert {r["format"] for r in records} == {"openai"}


def test_main_exits_without_teardown_but_like_sys_exit(tmp_path: Path) -> None:
    """main() ends with os._exit (no interpreter teardown): exit codes, flushed output, atexit
    handlers and non-daemon threads behave as with a normal exit."""
    long = REPO / "sample_transcripts" / "coding-session-long.jsonl"
    marker, late = tmp_path / "atexit.txt", tmp_path / "thread.txt"
    code = (
        "import atexit, pathlib, sys, threading, time\n"
        "from compactor.cli.app import main\n"
        f"atexit.register(lambda: pathlib.Path({str(marker)!r}).write_text('ran'))\n"
        "def late():\n"
        "    time.sleep(0.2)\n"
        f"    pathlib.Path({str(late)!r}).write_text('joined')\n"
        "threading.Thread(target=late).start()\n"
        "sys.stdout.write('x' * 100000)\n"  # buffered output must still come out
        "sys.argv = ['compact', *sys.argv[1:]]\n"
        "main()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "check", "--json", str(SMALL), str(long)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1, proc.stderr  # one transcript would be compacted
    assert proc.stdout.startswith("x" * 100000)
    assert [json.loads(line)["triggered"] for line in proc.stdout[100000:].splitlines()] == [
        False,
        True,
    ]
    assert marker.read_text() == "ran"
    assert late.read_text() == "joined"
    missing = subprocess.run(
        [sys.executable, "-m", "compactor", "check", str(tmp_path / "nope.jsonl")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode == 2
    assert "file not found" in missing.stderr


def _command_paths() -> list[list[str]]:
    """``[name]`` of every command and ``[group, sub]`` of every group's command."""
    paths = [[c.name] for c in app.registered_commands if c.name]
    for group in app.registered_groups:
        assert group.name and group.typer_instance
        paths += [[group.name, c.name] for c in group.typer_instance.registered_commands if c.name]
    return paths


def test_main_builds_only_the_command_it_runs() -> None:
    """``compact check ...`` builds the click command of check alone (typer builds every
    registered command first: most of the cost of a small check, BENCHMARKS.md)."""
    import typer.main

    from compactor.cli.app import app_for

    built = typer.main.get_command(app_for(["check", str(SMALL)]))
    assert set(getattr(built, "commands", {})) == {"check"}
    group = typer.main.get_command(app_for(["config", "show"]))
    assert set(getattr(group, "commands", {})) == {"config"}
    # the whole app for everything else: root help, a root option first, a typo, completion
    for args in ([], ["--help"], ["-c", "x.yaml", "check"], ["chek"], ["x.jsonl"]):
        assert app_for(args) is app, args
    assert set(getattr(typer.main.get_command(app), "commands", {})) >= {"check", "run", "config"}


@pytest.mark.parametrize("path", _command_paths(), ids=" ".join)
def test_the_one_command_app_answers_as_the_whole_app(path: list[str]) -> None:
    """Help, a mistyped option and a missing value read the same through either app."""
    from compactor.cli.app import app_for

    for extra in (["--help"], ["--forse"], ["--debug", "--nope=1"]):
        args = [*path, *extra]
        whole = CliRunner().invoke(app, args, prog_name="compact")
        one = CliRunner().invoke(app_for(args), args, prog_name="compact")
        assert app_for(args) is not app
        assert (one.exit_code, one.stdout, one.stderr) == (
            whole.exit_code,
            whole.stdout,
            whole.stderr,
        ), args
        assert whole.exit_code in (0, 2) and (whole.stdout or whole.stderr)
