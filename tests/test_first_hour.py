"""A newcomer's first hour (issue 32, points 1-4, 7, 8, 13, 14): set-up and config.

Each test runs what a new user types, in-process (typer's CliRunner) or as the console script,
with ``$HOME`` and ``$XDG_CONFIG_HOME`` in temp folders (``conftest.py``), and checks the exit
code and the words on screen.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.testing.fake_openai import FakeOpenAI, reply

REPO = Path(__file__).resolve().parents[1]
CODING = REPO / "sample_transcripts" / "coding-session.jsonl"
SUMMARY = "<summary>\nThe fake summary of the coding session.\n</summary>"


def _invoke(*args: str, input: str | None = None) -> Any:
    return CliRunner().invoke(app, list(args), input=input)


def _line(error: str | None) -> str:
    """An error line's words: without ``compact: `` and the error's kind (``ConfigError: ``),
    whose wording is another point of the issue."""
    assert error is not None
    text = error.strip().removeprefix("compact: ")
    return re.sub(r"^[A-Z]\w*Error: ", "", text)


# -- point 3: an API key is needed only when a request is made ----------------------------------


@pytest.fixture
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh shell: neither $OPENAI_API_KEY nor $OPENAI_BASE_URL."""
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "MY_KEY"):
        monkeypatch.delenv(var, raising=False)


def test_config_show_of_the_openai_example_says_not_set(no_key: None) -> None:
    result = _invoke("config", "show", "-c", str(REPO / "configs" / "openai.yaml"))
    assert result.exit_code == 0, result.output
    assert "  api_key: not set\n" in result.stdout
    result = _invoke("config", "show", "--model", "openai:x")
    assert result.exit_code == 0, result.output
    assert "  api_key: not set\n" in result.stdout


def test_config_validate_of_a_failover_chain_lists_the_keys_not_set(no_key: None) -> None:
    path = str(REPO / "configs" / "failover.yaml")
    result = _invoke("config", "validate", path)
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        f"{path}: ok\n"
        "  model.api_key: not set (no API key: ${OPENAI_API_KEY} is not set); "
        "a run fails over past this model\n"
        "  failover.models[0].api_key: not set (no API key: ${OPENAI_API_KEY} is not set); "
        "a run fails over past this model\n"
        "  failover.models[1].api_key: not set (no API key: ${ANTHROPIC_API_KEY} is not set); "
        "a run fails over past this model\n"
    )


def test_a_lone_model_without_its_key_still_fails_fast(no_key: None, tmp_path: Path) -> None:
    """Nothing after it: a run would stop at once, so validate and run say so (exit 2)."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text("model: {provider: openai, name: m, api_key: '${MY_KEY}'}\n")
    result = _invoke("config", "validate", str(cfg))
    assert result.exit_code == 2
    assert result.stderr.endswith("key 'model.api_key': no API key: ${MY_KEY} is not set\n")
    # the same file with a fallback goes on
    cfg.write_text("model: {provider: openai, name: m, api_key: '${MY_KEY}'}\nfallback: local\n")
    result = _invoke("config", "validate", str(cfg))
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("stand_in", [False, True], ids=["no-key", "openai-key-set"])
def test_a_chain_without_the_primary_key_fails_over(
    no_key: None,
    tmp_path: Path,
    fake: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
    stand_in: bool,
) -> None:
    """The keyless primary is a model error (no request made, its breaker opens) and the
    failover model writes the summary. With $OPENAI_API_KEY set, that key is never sent in
    place of the ${MY_KEY} the file names: the fake server sees no request for the primary."""
    if stand_in:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-NOT-FOR-THIS-0123")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "model: {provider: openai, name: primary-model, api_key: '${MY_KEY}'"
        + (f", base_url: '{fake.base_url}'" if stand_in else "")
        + "}\n"
        "retry: {max_retries: 2, initial_delay: 0}\n"
        "failover:\n  max_retries: 1\n  models:\n"
        f"    - {{provider: openai, name: backup-model, base_url: '{fake.base_url}', "
        "api_key: sk-test-backup-0123456}\n"
    )
    fake.enqueue(reply(SUMMARY))
    src, out, rep = tmp_path / "s.jsonl", tmp_path / "o.jsonl", tmp_path / "r.json"
    shutil.copy(CODING, src)
    result = _invoke(
        "run", str(src), "-c", str(cfg), "--force", "-o", str(out), "--report", str(rep)
    )
    assert result.exit_code == 0, result.output
    assert [(r.json or {}).get("model") for r in fake.requests] == ["backup-model"]
    report = json.loads(rep.read_text())
    attempts = [(a["phase"], a["model"], a["ok"]) for a in report["attempts"]]
    assert attempts == [
        ("primary", "openai:primary-model", False),
        ("failover", "openai:backup-model", True),
    ]
    assert "no API key: ${MY_KEY} is not set" in result.stderr
    assert "The fake summary of the coding session." in out.read_text()


# -- point 7: config discovery -----------------------------------------------------------------

LOW = "trigger: {context_tokens: 50}\n"
SMALL = str(REPO / "sample_transcripts" / "small-chat.jsonl")


def test_the_users_own_config_is_read_when_nothing_else_names_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """$XDG_CONFIG_HOME/compact/config.yaml, else ~/.config/compact/config.yaml; config show
    names the file and what found it; -c and $COMPACT_CONFIG come first."""
    own = tmp_path / "xdg" / "compact" / "config.yaml"
    own.parent.mkdir(parents=True)
    own.write_text(LOW)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    result = _invoke("check", SMALL)
    assert result.exit_code == 1, result.output  # 62 tokens > 50: the user's file was read
    assert "threshold 50 tokens" in result.stdout
    shown = _invoke("config", "show")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.startswith(
        f"# effective config: built-in defaults + {own} (from $XDG_CONFIG_HOME) + environment"
    )
    # without $XDG_CONFIG_HOME: ~/.config
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    home_cfg = tmp_path / "home" / ".config" / "compact" / "config.yaml"
    home_cfg.parent.mkdir(parents=True)
    home_cfg.write_text("trigger: {context_tokens: 60}\n")
    shown = _invoke("config", "show")
    assert f"+ {home_cfg} (from ~/.config) +" in shown.stdout
    assert "context_tokens: 60\n" in shown.stdout
    # $COMPACT_CONFIG and -c win over it
    other = tmp_path / "other.yaml"
    other.write_text("trigger: {context_tokens: 70}\n")
    monkeypatch.setenv("COMPACT_CONFIG", str(other))
    shown = _invoke("config", "show")
    assert f"+ {other} (from $COMPACT_CONFIG) +" in shown.stdout
    assert "context_tokens: 70\n" in shown.stdout
    shown = _invoke("config", "show", "-c", str(REPO / "configs" / "default.yaml"))
    assert "(from -c)" in shown.stdout and "context_tokens: 70\n" not in shown.stdout
    data = json.loads(_invoke("config", "show", "--json").stdout)
    assert data["config_file"] == {"path": str(other), "from": "$COMPACT_CONFIG"}


def test_no_config_file_anywhere_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    shown = _invoke("config", "show")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines()[:2] == [
        "# effective config: built-in defaults + environment + flags",
        f"# no config file: no -c, no $COMPACT_CONFIG, no {tmp_path}/compact/config.yaml",
    ]
    data = json.loads(_invoke("config", "show", "--json").stdout)
    assert data["config_file"] == {"path": "none", "from": "built-in defaults"}


def test_a_missing_file_names_what_named_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = str(tmp_path / "nope.yaml")
    result = _invoke("check", SMALL, "-c", missing)
    assert result.exit_code == 2
    assert _line(result.stderr) == f"config error: {missing}: config file not found"
    monkeypatch.setenv("COMPACT_CONFIG", missing)
    result = _invoke("check", SMALL)
    assert result.exit_code == 2
    assert _line(result.stderr) == (
        f"config error: {missing}: config file not found (named by $COMPACT_CONFIG)"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["check", SMALL],
        ["config", "show"],
        ["config", "validate"],
        ["run", SMALL, "-o", "-"],
    ],
    ids=["check", "config-show", "config-validate", "run"],
)
def test_c_before_the_subcommand(tmp_path: Path, args: list[str]) -> None:
    cfg = tmp_path / "low.yaml"
    cfg.write_text(LOW + "fallback: nonsense\n" if args[-1] == "validate" else LOW)
    result = _invoke("-c", str(cfg), *args)
    if args[-1] == "validate":  # FILE comes from the -c before it
        assert result.exit_code == 2
        assert f"{cfg}:2: key 'fallback'" in result.stderr
    elif args[0] == "check":
        assert result.exit_code == 1, result.output
        assert "threshold 50 tokens" in result.stdout
    elif args[0] == "run":  # 62 tokens > 50: it compacts, and the loop guard refuses it
        assert result.exit_code == 4, result.output
        assert "loop guard" in result.stderr
    else:
        assert f"+ {cfg} (from -c) +" in result.stdout
    if args[-1] == "validate":
        return
    # a -c after the subcommand wins
    later = _invoke("-c", str(tmp_path / "nope.yaml"), *args[:2], "-c", str(cfg), *args[2:])
    assert "nope.yaml" not in later.output


# -- point 8: stdin is archived only when asked ------------------------------------------------


def test_stdin_is_not_archived_by_default_and_the_note_says_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    result = _invoke("run", "-", "--force", "--model", "local", input=CODING.read_text())
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.splitlines()[-1])["content"]
    assert "was read from stdin; no copy was kept." in summary
    assert "read the full transcript at" not in summary
    assert not data.exists()  # nothing under $XDG_DATA_HOME (the archive's home)
    assert "archived" not in result.stderr


def test_stdin_is_archived_when_the_note_should_point_at_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    args = ["run", "-", "--force", "--model", "local", "--transcript-path", "archive"]
    result = _invoke(*args, input=CODING.read_text())
    assert result.exit_code == 0, result.output
    [archived] = (data / "compact" / "archive").glob("[!.]*.jsonl")  # not the index
    assert archived.read_bytes() == CODING.read_bytes()
    summary = json.loads(result.stdout.splitlines()[-1])["content"]
    assert f"read the full transcript at: {archived}" in summary
    assert f"(original archived at {archived})" in result.stderr
    cfg = tmp_path / "c.yaml"
    cfg.write_text("transcript_file_path: archive\n")
    shown = _invoke("config", "show", "-c", str(cfg))
    assert "\ntranscript_file_path: archive\n" in shown.stdout


# -- point 4: a pip/pipx install carries the configs, the LICENSE and the URLs ------------------


def test_config_init_writes_a_commented_starter_config_where_compact_looks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    result = _invoke("config", "init")
    target = tmp_path / "xdg" / "compact" / "config.yaml"
    assert result.exit_code == 0, result.output
    assert result.stdout == f"wrote {target}; check it with: compact config validate {target}\n"
    text = target.read_text()
    assert text.startswith("# compact's config file, written by `compact config init`.\n")
    assert "#   api_key: ${OPENAI_API_KEY}\n" in text  # the OpenAI switch, commented out
    assert oct(target.stat().st_mode & 0o777) == "0o600"
    assert _invoke("config", "validate", str(target)).exit_code == 0
    shown = _invoke("config", "show")
    assert f"+ {target} (from $XDG_CONFIG_HOME) +" in shown.stdout  # the next run reads it
    again = _invoke("config", "init")  # never replaced silently
    assert again.exit_code == 2
    assert _line(again.stderr) == (
        f"{target} exists; --force replaces it (or -o FILE writes elsewhere)"
    )
    assert _invoke("config", "init", "--force").exit_code == 0


def test_config_init_lists_and_writes_the_shipped_examples(tmp_path: Path) -> None:
    listed = _invoke("config", "init", "--example")
    assert listed.exit_code == 0, listed.output
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert names == sorted(p.stem for p in (REPO / "configs").glob("*.yaml"))
    out = tmp_path / "f.yaml"
    result = _invoke("config", "init", "--example", "failover", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == (REPO / "configs" / "failover.yaml").read_bytes()
    wrong = _invoke("config", "init", "--example", "failovr", "-o", str(tmp_path / "g.yaml"))
    assert wrong.exit_code == 2
    assert "no example config 'failovr'; did you mean 'failover'?" in wrong.stderr
    assert not (tmp_path / "g.yaml").exists()


def test_the_packaged_configs_are_the_repos_configs() -> None:
    """One source of truth: compactor/configs is a link to configs/, not a second copy."""
    packaged = REPO / "compactor" / "configs"
    assert packaged.is_symlink() and packaged.resolve() == (REPO / "configs").resolve()


@pytest.mark.timeout(300)
def test_a_wheel_installs_the_configs_license_and_urls(tmp_path: Path) -> None:
    """Build the wheel (`pip wheel --no-deps`), install it into a throwaway venv that borrows
    the dependencies of this one, and run `compact config init --example` from it."""
    import os
    import subprocess
    import sys
    import sysconfig
    import zipfile

    src = tmp_path / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "compactor", src / "compactor", symlinks=True, ignore=ignore)
    shutil.copytree(REPO / "configs", src / "configs")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, src / name)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    wheels = tmp_path / "wheels"
    built = subprocess.run(
        [*pip, "wheel", "--no-deps", "-w", str(wheels), str(src)],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    [wheel] = wheels.glob("compact_transcripts-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        [meta] = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = zf.read(meta).decode()
    assert "Name: compact-transcripts\n" in metadata
    assert "License-Expression: MIT\n" in metadata
    assert "Project-URL: Homepage, https://" in metadata
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    shipped = sorted(n for n in names if n.startswith("compactor/configs/"))
    assert shipped == sorted(
        f"compactor/configs/{p.name}" for p in (REPO / "configs").glob("*.yaml")
    )

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    [site] = venv.glob("lib/python*/site-packages")
    # the dependencies from this environment (a path, not its .pth files: no editable install)
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    python = venv / "bin" / "python"
    installed = subprocess.run(  # pip of this environment, installing into the throwaway venv
        [*pip, "--python", str(python), "install", "--no-deps", str(wheel)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    exe = venv / "bin" / "compact"  # the console script pip wrote from the wheel's entry point
    assert exe.read_text().startswith(f"#!{python}")
    where = subprocess.run(
        [str(python), "-c", "import compactor; print(compactor.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=True,
    )
    assert where.stdout.startswith(str(site)), where.stdout  # the wheel's, not this checkout
    listed = subprocess.run(
        [str(exe), "config", "init", "--example"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()] == [
        "agent-resume",
        "ci-shrink",
        "default",
        "failover",
        "openai",
        "robust",
    ]
    out = tmp_path / "ci.yaml"
    written = subprocess.run(
        [str(exe), "config", "init", "--example", "ci-shrink", "-o", str(out)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert written.returncode == 0, written.stderr
    assert out.read_bytes() == (REPO / "configs" / "ci-shrink.yaml").read_bytes()


# -- point 14: the library says what it does ---------------------------------------------------


def test_dir_of_compactor_is_its_public_api() -> None:
    import compactor

    assert dir(compactor) == sorted(compactor.__all__)
    for private in ("Any", "TYPE_CHECKING", "annotations", "importlib"):
        assert private not in dir(compactor)


def test_run_file_errors_name_run_options_fields(tmp_path: Path) -> None:
    import compactor as c

    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    result = c.run_file(c.RunOptions(input=str(src), in_place=True, output=str(tmp_path / "o")))
    assert result.exit_code == 2
    assert _line(result.error) == "use either RunOptions.in_place or RunOptions.output, not both"
    result = c.run_file(c.RunOptions(input=str(src), report=str(src)))
    assert result.exit_code == 2
    assert _line(result.error) == f"RunOptions.report {str(src)!r} is the input file {str(src)!r}"
    result = c.run_file(c.RunOptions(input=str(src), output_dir=str(src / "x")))
    assert _line(result.error).startswith(f"RunOptions.output_dir {str(src / 'x')!r}: ")
    assert list(tmp_path.iterdir()) == [src]
    # the command line still names its flags
    cli = _invoke("run", str(src), "--in-place", "-o", str(tmp_path / "o"))
    assert cli.stderr.startswith("compact: ")
    assert _line(cli.stderr) == "use either --in-place or -o/--output, not both"


def test_plan_raises_its_refusal_as_the_readme_says(tmp_path: Path) -> None:
    """README: `plan()` raises (a CompactorError), `RunResult.refused` makes it the result
    run_file returns; `run_file` itself never raises for it."""
    import compactor as c
    from compactor.runner import RunResult, plan  # the name the README documents

    options = c.RunOptions(input=str(tmp_path / "missing.jsonl"))
    with pytest.raises(c.CompactorError) as refused:
        plan(options)
    assert str(refused.value) == f"{tmp_path / 'missing.jsonl'}: file not found"
    assert RunResult.refused(options, refused.value).exit_code == 2
    result = c.run_file(options)
    assert result.exit_code == 2
    assert result.error == str(refused.value)
    readme = (REPO / "README.md").read_text()
    assert "`plan()` *raises*\nits refusal" in readme


@pytest.mark.anyio
async def test_on_event_alone_delivers_nothing_as_the_readme_says() -> None:
    import compactor as c

    seen: list[Any] = []
    state = c.AgentState([c.Message("system", "s"), c.Message("user", "hi")])
    for emit in (False, True):
        mw = c.new(
            c.Config(
                model=c.ScriptedModel.replying("<summary>x</summary>"),
                on_event=seen.append,
                emit_internal_events=emit,
            )
        )
        await mw.summarize(state)
        assert bool(seen) is emit
    readme = (REPO / "README.md").read_text()
    for block in readme.split("```python")[1:]:
        code = block.split("```")[0]
        if "on_event" in code:
            assert "on_event alone receives none" in code
    assert "`on_event` alone receives nothing" in readme


# -- point 1: after `make run`, the way to `compact` is on screen ---------------------------------


def test_the_readme_says_how_compact_gets_on_path_right_after_the_two_commands() -> None:
    readme = (REPO / "README.md").read_text()
    setup = readme.split("## Two commands do all set-up", 1)[1].split("\n## ", 1)[0]
    blocks = setup.split("```sh\n")
    assert blocks[1].startswith("make run ") and "make test " in blocks[1]
    path_block = blocks[2].split("```")[0]
    for line in ("source .venv/bin/activate", ".venv/bin/compact", "pipx install ."):
        assert line in path_block, line


@pytest.mark.timeout(120)
def test_make_run_ends_with_where_the_tool_and_the_output_are(tmp_path: Path) -> None:
    """`make run` with this environment standing in for .venv (its install already done):
    the last line names the tool, how to put it on PATH, the output, and what to try next."""
    import os
    import subprocess
    import sys
    import time

    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    venv = Path(sys.executable).parent.parent
    stamp = tmp_path / "installed"
    time.sleep(0.01)
    stamp.touch()  # newer than pyproject.toml: make skips the install
    out = tmp_path / "out"
    proc = subprocess.run(
        ["make", "--no-print-directory", "run", f"VENV={venv}", f"STAMP={stamp}", f"OUT={out}"],
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
        cwd=REPO,
        env=dict(os.environ),
    )
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.rstrip("\n").splitlines()[-1]
    assert last == (
        f"==> compact is {venv}/bin/compact (put it on PATH: source {venv}/bin/activate), the "
        f"compacted sample is {out}/sample.compact.jsonl; next, try: compact check --explain "
        "sample_transcripts/coding-session-long.jsonl"
    )
    assert (out / "sample.compact.jsonl").is_file()


def test_config_show_never_shows_a_stand_in_key_as_set(
    no_key: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """$OPENAI_API_KEY is set, the file names ${MY_KEY} (unset): that model's key is not set."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-NOT-FOR-THIS-0123")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "model: {provider: openai, name: m, api_key: '${MY_KEY}'}\n"
        "failover:\n  models:\n    - {provider: openai, name: b}\n"
    )
    data = json.loads(_invoke("config", "show", "--json", "-c", str(cfg)).stdout)
    assert data["model"]["api_key"] == "not set"
    assert data["failover"]["models"][0]["api_key"] == "***"  # reads $OPENAI_API_KEY itself
