"""Every command in every README runs, and does what the README says (issue 32 point 13).

The command lines of the ``sh`` blocks and the ``$ `` lines of the ``console`` blocks of
README.md and sample_transcripts/README.md are listed in :data:`COMMANDS`, each with what it
must do: its exit code and a few words of its output, run with bash in a sandbox folder that
holds what the lines name (``session.jsonl``, ``logs/``, ``configs/``, ...), with ``$HOME`` and
the XDG folders inside it and no API key; or why it cannot run here (a real Claude Code
session, a network install), or which test runs it. A README line missing from the list, or a
listed line gone from the READMEs, fails :func:`test_every_readme_command_is_listed`: a new
command gets its line here.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from compactor.testing.fake_openai import FakeOpenAI

from .fake_server_cli import invoke

REPO = Path(__file__).resolve().parents[1]
READMES = ("README.md", "sample_transcripts/README.md", "tests/fixtures/unsupported/README.md")
SAMPLES = REPO / "sample_transcripts"
LONG = SAMPLES / "coding-session-long.jsonl"
VENV = Path(sys.executable).parent.parent


@dataclass(frozen=True)
class Runs:
    """Run the line in the sandbox: exit ``code``, each of ``says`` in stdout + stderr."""

    code: int = 0
    says: tuple[str, ...] = ()
    before: tuple[str, ...] = ()
    """Lines run first (what an earlier README line made)."""
    files: tuple[str, ...] = ()
    """Files (relative to the sandbox) the line must have written."""
    server: bool = False
    """An OpenAI-compatible server (the fake) and a key in the environment."""
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Elsewhere:
    """Not run here: ``why`` (and the test that covers it, if any)."""

    why: str


CHUNKED = "model: {provider: openai, name: gpt-4o-mini, context_tokens: 32000}\n"

COMMANDS: dict[str, Runs | Elsewhere] = {
    # -- README.md: set-up --------------------------------------------------------------------
    "make run": Elsewhere(
        "tests/test_first_hour.py::test_make_run_ends_with_where_the_tool_and_the_output_are"
    ),
    "make test": Elsewhere("the suite itself"),
    "source .venv/bin/activate": Runs(says=("compact is on PATH",)),
    ".venv/bin/compact -V": Runs(says=("compact 0.1.0",)),
    "pipx install .": Elsewhere(
        "installs for the user from the network; the wheel it builds is installed and run by "
        "tests/test_first_hour.py::test_a_wheel_installs_the_configs_license_and_urls"
    ),
    # -- README.md: Usage ---------------------------------------------------------------------
    "compact check session.jsonl": Runs(1, ("WOULD COMPACT",)),
    "compact check --json logs/": Runs(1, ('"triggered": true', '"triggered": false')),
    "compact check --explain session.jsonl": Runs(1, ("summarizer input",)),
    "compact run session.jsonl": Runs(0, ("compacted",), files=("session.compact.jsonl",)),
    "compact show session.compact.jsonl": Runs(
        0, ("Primary Request",), before=("compact run session.jsonl",)
    ),
    "compact run session.jsonl -o -": Runs(0, ('"role":"user"', "→ stdout")),
    "cat run.jsonl | compact run - > small.jsonl": Runs(0, ("→ stdout",), files=("small.jsonl",)),
    "compact run session.jsonl --in-place": Runs(0, ("original archived at",)),
    "compact run session.jsonl --force --model local": Runs(0, ("compacted",)),
    'compact run session.jsonl --force --instructions "the failing login test"': Runs(
        0, ("compacted",)
    ),
    "compact run session.jsonl --threshold 50000 --token-counter tiktoken:o200k_base": Runs(
        0, ("compacted",)
    ),
    "compact run session.jsonl -c configs/failover.yaml": Runs(
        0, ("no API key: ${OPENAI_API_KEY} is not set", "failover -> local", "DEGRADED")
    ),
    "compact run logs/ --output-dir small/ --report batch.json": Runs(
        0, ("2 files: 1 compacted, 1 unchanged, 0 failed",), files=("small/a.jsonl", "batch.json")
    ),
    "compact config show -c configs/openai.yaml": Runs(0, ("api_key: not set",)),
    "compact config validate configs/failover.yaml": Runs(0, ("configs/failover.yaml: ok",)),
    "compact config init": Runs(0, ("wrote ",), files=("xdg-config/compact/config.yaml",)),
    "compact config init --example": Runs(0, ("failover ",)),
    "compact archive list": Runs(0),
    "compact run session.jsonl --strategy reduce --offload-dir out.offload": Runs(
        0, ("reduced",), files=("session.compact.jsonl",)
    ),
    "compact run session.jsonl -c configs/agent-resume.yaml": Runs(0, ("session.compact.jsonl",)),
    "compact run s3://bucket/logs/ --output-dir s3://bucket/small/ --dask local:8 "
    "--report s3://bucket/batch.json": Elsewhere(
        "needs an S3 server and a cluster: tests/test_distributed.py runs the same command "
        "against moto's server on 127.0.0.1 and a 2-worker LocalCluster"
    ),
    "compact archive restore session.jsonl": Runs(
        0, ("restored",), before=("compact run session.jsonl --in-place --model local",)
    ),
    "compact run session.jsonl --in-place --model local": Runs(0, ("original archived at",)),
    "compact check -q session.jsonl": Runs(1),
    "compact eval session.jsonl session.compact.jsonl": Runs(
        0, ("score",), before=("compact run session.jsonl",)
    ),
    "compact run session.jsonl -v": Runs(0, ("config: ", "compacted")),
    "compact archive prune --older-than 30d": Runs(0),
    "compact cache info": Runs(0),
    "compact cache clear --older-than 30d": Runs(0),
    "compact -V": Runs(0, ("compact 0.1.0",)),
    "$ compact check sample_transcripts/coding-session-long.jsonl "
    "sample_transcripts/small-chat.jsonl": Elsewhere(
        "its output, word for word: "
        "tests/test_readme.py::test_the_check_output_shown_is_what_check_prints"
    ),
    "$ compact run sample_transcripts/ --model local --output-dir small/": Elsewhere(
        "its output, word for word: "
        "tests/test_readme.py::test_the_batch_output_shown_is_what_run_prints"
    ),
    # -- README.md: resuming Claude Code / Codex ----------------------------------------------
    "f=~/.claude/projects/-home-me-work-app/3f2b…e1.jsonl": Elsewhere(
        "a real Claude Code session: make test-resume (tests/test_resume_clients.py)"
    ),
    'compact run "$f" --append -o "$f.new" && mv "$f.new" "$f"': Elsewhere(
        "a real client session: make test-resume (tests/test_resume_clients.py)"
    ),
    "claude --resume 3f2b…e1": Elsewhere("the Claude Code client: make test-resume"),
    "f=~/.codex/sessions/2026/05/08/rollout-2026-05-08T00-37-01-019e04fb-….jsonl": Elsewhere(
        "a real Codex session: make test-resume (tests/test_resume_clients.py)"
    ),
    "codex resume 019e04fb-…": Elsewhere("the Codex client: make test-resume"),
    # -- README.md: Beyond every peer ---------------------------------------------------------
    "compact run big.jsonl -c chunked.yaml --report r.json && jq '.chunks[] | {start, end: "
    ".end, tokens, input_tokens}' r.json": Runs(0, ('"input_tokens"',), server=True),
    "compact run s.jsonl -c configs/failover.yaml --fallback local --report r.json": Runs(
        0, ("DEGRADED",), files=("r.json",)
    ),
    "jq '{degraded, summarizer_phase, loop_guard}' r.json": Runs(
        0,
        ('"degraded": true',),
        before=("compact run s.jsonl -c configs/failover.yaml --fallback local --report r.json",),
    ),
    "compact check --explain -c configs/robust.yaml session.jsonl": Runs(1, ("chunk",)),
    "compact check --explain --json -c configs/robust.yaml session.jsonl | jq "
    ".explain.plan.chunks": Runs(0, ('"tokens"',)),
    "compact cache clear": Runs(0),
    # -- README.md: Recipes -------------------------------------------------------------------
    "mkdir -p small && compact run logs/ -c configs/ci-shrink.yaml --output-dir small/ --quiet "
    "--report small/batch.json": Runs(0, files=("small/a.jsonl", "small/batch.json")),
    "cat run.jsonl | compact run - --model local > small.jsonl": Runs(
        0, ("compacted",), files=("small.jsonl",)
    ),
    "compact check --json logs/*.jsonl | jq 'select(.triggered)'": Runs(0, ("logs/a.jsonl",)),
    # -- sample_transcripts/README.md ---------------------------------------------------------
    "compact check sample_transcripts/*.jsonl": Runs(1, ("WOULD COMPACT",)),
    "compact run sample_transcripts/coding-session-long.jsonl -o -": Runs(0, ("compacted",)),
    "compact run sample_transcripts/claude-code-session.jsonl --force --model local -o -": Runs(
        0, ("compacted",)
    ),
    "compact run sample_transcripts/skills-session.jsonl --force -c "
    "sample_transcripts/skills-demo.yaml -o -": Runs(0, ("### Skill: release-notes",)),
}


def _command_lines(text: str) -> list[str]:
    """The commands of the ``sh`` blocks (a line without its trailing ``# comment``; comment
    and blank lines left out) and the ``$ `` lines of the ``console`` blocks."""
    lines = []
    for kind, block in re.findall(r"```(sh|console)\n(.*?)```", text, re.S):
        for line in block.splitlines():
            if kind == "console":
                if line.startswith("$ "):
                    lines.append(line)
                continue
            command = re.split(r"\s+#\s", line, maxsplit=1)[0].strip()
            if command and not command.startswith("#"):
                lines.append(command)
    return lines


def _readme_lines() -> list[str]:
    return [line for name in READMES for line in _command_lines((REPO / name).read_text("utf-8"))]


def test_every_readme_command_is_listed() -> None:
    lines = set(_readme_lines())
    unlisted = sorted(lines - set(COMMANDS))
    gone = sorted(set(COMMANDS) - lines)
    assert not unlisted, "README commands missing from COMMANDS (add each):\n" + "\n".join(unlisted)
    assert not gone, "COMMANDS lists lines no README has any more:\n" + "\n".join(gone)


def _sandbox(root: Path) -> dict[str, str]:
    """The folder the README's lines run in, and their environment (no API key)."""
    shutil.copytree(SAMPLES, root / "sample_transcripts")
    shutil.copytree(REPO / "configs", root / "configs")
    for name in ("session.jsonl", "run.jsonl", "s.jsonl", "big.jsonl"):
        shutil.copy(LONG, root / name)
    (root / "logs").mkdir()
    shutil.copy(LONG, root / "logs" / "a.jsonl")
    shutil.copy(SAMPLES / "small-chat.jsonl", root / "logs" / "b.jsonl")
    (root / "chunked.yaml").write_text(CHUNKED)
    env = {
        "PATH": f"{VENV / 'bin'}:/usr/bin:/bin",
        "HOME": str(root / "home"),
        "XDG_CONFIG_HOME": str(root / "xdg-config"),
        "XDG_DATA_HOME": str(root / "xdg-data"),
        "XDG_CACHE_HOME": str(root / "xdg-cache"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_PROXY": "*",
    }
    if "PYTHONPATH" in os.environ:  # the tree under test, as the console script imports it
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def _script(line: str) -> str:
    if line.startswith(".venv/") or line.startswith("source .venv/"):
        line = line.replace(".venv/", f"{VENV}/")
    if line.startswith("source "):  # what it is for: compact on PATH in this shell
        line += ' && [ "$(command -v compact)" = "$VIRTUAL_ENV/bin/compact" ]'
        line += " && echo compact is on PATH"
    return line


def _make_what_it_makes(line: str, sandbox: Path, env: dict[str, str]) -> None:
    """Run an earlier README line for the files it writes: a plain ``compact …`` line in this
    process (its own test runs it with bash and the console script; a process costs 0.3-1.7 s
    of CPU here, most of it importing the model SDKs), any other in bash."""
    words = shlex.split(line)
    if words[0] == "compact" and not set(line) & set("|&;<>$`*?"):
        done = invoke(words[1:], env=env, cwd=sandbox)
        assert done.returncode == 0, done.stderr.decode()
        return
    proc = subprocess.run(
        ["bash", "-c", _script(line)],
        cwd=sandbox,
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


RUNNABLE = [(line, spec) for line, spec in COMMANDS.items() if isinstance(spec, Runs)]


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("line", "spec"), RUNNABLE, ids=[line for line, _ in RUNNABLE])
def test_every_readme_command_runs(line: str, spec: Runs, tmp_path: Path, fake: FakeOpenAI) -> None:
    if "jq " in line and shutil.which("jq") is None:
        pytest.skip("jq is not installed")
    env = _sandbox(tmp_path) | spec.env
    if spec.server:
        env.update(OPENAI_BASE_URL=fake.base_url, OPENAI_API_KEY="sk-test-readme-0123456789")
    for earlier in spec.before:  # what an earlier line made (that line is a test of its own)
        _make_what_it_makes(earlier, tmp_path, env)
    proc = subprocess.run(
        ["bash", "-c", _script(line)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    said = proc.stdout + proc.stderr
    assert proc.returncode == spec.code, said[-3000:]
    for words in spec.says:
        assert words in said, (words, said[-3000:])
    for name in spec.files:
        assert (tmp_path / name).is_file(), name
    assert "Traceback" not in said
