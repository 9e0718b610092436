"""A newcomer's first hour (issue 32, points 1-4, 7, 8, 13, 14): set-up and config.

Each test runs what a new user types, in-process (typer's CliRunner) or as the console script,
with ``$HOME`` and ``$XDG_CONFIG_HOME`` in temp folders (``conftest.py``), and checks the exit
code and the words on screen.
"""

from __future__ import annotations

import json
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
    result = _invoke("run", str(src), "-c", str(cfg), "--force", "-o", str(out), "--report", str(rep))
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
