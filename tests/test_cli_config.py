"""``compact config show`` / ``validate`` (``compactor/cli/config_cmd.py``,
``compactor/runs/effective.py``) and the ``${VAR}`` an API key is read from (issue 23, points 8, 10
and 11: the variable named, effective defaults instead of ``null``, the archive path)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.configfile import load_config_file, parse_config_text
from compactor.configfile.settings import Retry

REPO = Path(__file__).resolve().parents[1]
CODING = REPO / "sample_transcripts" / "coding-session.jsonl"


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def _show(*args: str) -> dict[str, Any]:
    result = _invoke("config", "show", "--json", *args)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _nulls(data: Any, where: str = "") -> list[str]:
    if data is None:
        return [where]
    if isinstance(data, dict):
        return [n for k, v in data.items() for n in _nulls(v, f"{where}.{k}")]
    if isinstance(data, list):
        return [n for i, v in enumerate(data) for n in _nulls(v, f"{where}[{i}]")]
    return []


# -- ${VAR}: the variable is named ---------------------------------------------------------------

KEY_CONFIG = "model:\n  provider: openai\n  name: gpt-4o-mini\n  api_key: ${MY_KEY}\n"


@pytest.fixture
def no_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """No OPENAI_BASE_URL: a model without a key cannot be a key-less local server."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("MY_KEY", raising=False)


def test_validate_names_the_unset_variable(tmp_path: Path, no_server: None) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(KEY_CONFIG)
    result = _invoke("config", "validate", str(cfg))
    assert result.exit_code == 2
    assert result.stderr == (
        f"compact: config error: {cfg}:4: key 'model.api_key': no API key: ${{MY_KEY}} is not set\n"
    )


def test_validate_passes_once_the_variable_is_set(
    tmp_path: Path, no_server: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(KEY_CONFIG)
    monkeypatch.setenv("MY_KEY", "sk-test-0123456789")
    result = _invoke("config", "validate", str(cfg))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{cfg}: ok\n"
    assert "sk-test" not in result.output


def test_run_names_the_variable_and_writes_nothing(tmp_path: Path, no_server: None) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(KEY_CONFIG)
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    result = _invoke("run", str(src), "-c", str(cfg), "--force")
    assert result.exit_code == 2
    assert "no API key: ${MY_KEY} is not set" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml", "s.jsonl"]


def test_another_key_never_stands_in_for_the_named_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """$OPENAI_API_KEY set, ${MY_KEY} not: refused (the key for one server is not sent to
    another), even with a base_url."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-0123456789")
    monkeypatch.delenv("MY_KEY", raising=False)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(KEY_CONFIG + "  base_url: http://127.0.0.1:9/v1\n")
    result = _invoke("config", "validate", str(cfg))
    assert result.exit_code == 2
    assert "no API key: ${MY_KEY} is not set (compact does not send $OPENAI_API_KEY" in (
        result.stderr
    )


def test_a_keyless_local_server_needs_no_variable(tmp_path: Path, no_server: None) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(KEY_CONFIG + "  base_url: http://127.0.0.1:9/v1\n")
    result = _invoke("config", "validate", str(cfg))
    assert result.exit_code == 0, result.output


def test_failover_models_name_their_variable_too(tmp_path: Path, no_server: None) -> None:
    """Issue 32: a failover model's key is needed only when the chain reaches it, so validate
    passes and lists it as not set, naming the variable."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "model: {provider: local}\n"
        "failover:\n  models:\n    - {provider: openai, name: m, api_key: '${BACKUP_KEY}'}\n"
    )
    result = _invoke("config", "validate", str(cfg))
    assert result.exit_code == 0, result.output
    assert "failover.models[0].api_key: not set (no API key: ${BACKUP_KEY} is not set)" in (
        result.stdout
    )


def test_a_required_variable_elsewhere_is_named_at_load(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("model: {provider: openai, name: '${MODEL_NAME}'}\n")
    result = _invoke("config", "validate", str(cfg))
    assert result.exit_code == 2
    assert "environment variable 'MODEL_NAME' is not set" in result.stderr


def test_the_loader_records_which_variable_an_optional_key_missed(tmp_path: Path) -> None:
    cfg = parse_config_text(
        "model: {provider: openai, name: m, api_key: '${A_KEY}', base_url: '${A_URL}'}\n"
    )
    assert cfg.model is not None and cfg.model["api_key"] is None
    assert cfg.unset_env == {"model.api_key": "A_KEY", "model.base_url": "A_URL"}
    assert "unset_env" not in cfg.to_dict()


# -- config show: effective values, never null ----------------------------------------------------


def test_show_defaults_have_no_null(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    data = _show()
    assert _nulls(data) == []
    assert data["model"] == {"provider": "local"}
    assert data["trigger"] == {"context_tokens": 160_000, "context_messages": 0}
    assert data["retry"] == {"max_retries": 2, "initial_delay": 1.0, "max_delay": 10.0}
    assert data["failover"] == {"max_retries": 0}
    assert data["preserve_user_messages"] == {"enabled": True, "max_tokens": 53_333}
    assert data["loop_guard"] == {"max_ratio": 0.5, "max_growth": 2.0}
    assert data["cache"] is False and data["retention"] is False
    assert data["keep"] == "none" and data["fallback"] == "none"
    assert data["user_instruction"] == "built-in" and data["finalize"] == "built-in"
    assert data["reply_reserve_tokens"] == 4096
    assert data["archive_dir"] == str(tmp_path / "data" / "compact" / "archive")


def test_show_yaml_has_no_null_either() -> None:
    result = _invoke("config", "show")
    assert result.exit_code == 0
    assert "null" not in result.stdout
    assert yaml.safe_load(result.stdout)["token_counter"] == "estimate"


@pytest.mark.parametrize("name", ["openai", "failover", "robust", "ci-shrink", "default"])
def test_show_every_shipped_config_without_null(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
    data = _show("-c", str(REPO / "configs" / f"{name}.yaml"))
    assert _nulls(data) == []
    assert "sk-test" not in json.dumps(data)


def test_show_fills_the_openai_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    from compactor.models.openai import OpenAIModel

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
    monkeypatch.delenv("OPENAI_BASE_URL")
    model = _show("--model", "openai:gpt-4.1-mini")["model"]
    default = OpenAIModel("x", api_key="k")
    assert model == {
        "provider": "openai",
        "name": "gpt-4.1-mini",
        "base_url": "https://api.openai.com/v1",
        "api_key": "***",
        "timeout": default.timeout,
        "max_response_bytes": default.max_response_bytes,
        "options": {},
        "input": default.input_mode,
    }


def test_show_says_when_no_key_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _show("--model", "openai:m")["model"]["api_key"] == "not set"


def test_show_reflects_the_file_and_the_flags(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "retry: {max_retries: 2}\nkeep: {messages: 6}\narchive_dir: ~/arch\n"
        "trigger: {context_messages: 40}\n"
    )
    data = _show("-c", str(cfg), "--threshold", "9000", "--token-counter", "tiktoken:o200k_base")
    assert data["retry"] == {"max_retries": 2, "initial_delay": 1.0, "max_delay": 10.0}
    assert data["keep"] == {"messages": 6, "tokens": "none"}
    assert data["trigger"] == {"context_tokens": 9000, "context_messages": 40}
    assert data["token_counter"] == "tiktoken:o200k_base"
    assert data["archive_dir"] == str(Path("~/arch").expanduser())
    assert data["preserve_user_messages"]["max_tokens"] == 3000


def test_show_never_imports_the_configs_hooks(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("callback: no_such_module_here:f\ngen_model_input: nor_this_one:g\n")
    data = _show("-c", str(cfg))
    assert data["callback"] == "no_such_module_here:f"
    assert data["gen_model_input"] == "nor_this_one:g"


def test_every_file_key_is_shown(tmp_path: Path) -> None:
    """A key this module does not know yet still shows (as written), never null."""
    from compactor.configfile import FileConfig
    from compactor.runs.effective import effective_config

    keys = set(FileConfig().to_dict()) - {"path", "user_instruction_file"}
    assert keys <= set(effective_config(FileConfig()))


def test_loaded_file_round_trip_of_values(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("retry: {max_retries: 1, initial_delay: 0.5, max_delay: 3}\n")
    assert load_config_file(cfg).retry == Retry(max_retries=1, initial_delay=0.5, max_delay=3)
    assert _show("-c", str(cfg))["retry"] == {
        "max_retries": 1,
        "initial_delay": 0.5,
        "max_delay": 3,
    }
