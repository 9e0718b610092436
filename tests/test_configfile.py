"""YAML config files: keys with lines, types, ${VAR}, references, build_config."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

import compactor
from compactor.configfile import (
    FileConfig,
    Overrides,
    UnbuiltModel,
    build_config,
    check_config,
    exponential_backoff,
    load_config_file,
    load_default_config,
    mask_secrets,
    parse_config_text,
)
from compactor.errors import ConfigError, ModelError

REPO = Path(__file__).resolve().parents[1]


def test_unknown_key_names_file_line_and_suggests():
    text = "model:\n  provider: local\ntriger:\n  context_tokens: 10\n"
    with pytest.raises(ConfigError) as info:
        parse_config_text(text, path="c.yaml")
    err = info.value
    assert err.path == "c.yaml"
    assert err.line == 3
    assert "did you mean 'trigger'?" in str(err)
    assert str(err).startswith("c.yaml:3: ")


def test_unknown_nested_key():
    with pytest.raises(ConfigError, match=r"c.yaml:3: .*'max_retries'"):
        parse_config_text("retry:\n  max_retries: 2\n  max_retrys: 3\n", path="c.yaml")


def test_wrong_type_names_key_and_line():
    with pytest.raises(ConfigError) as info:
        parse_config_text("trigger:\n  context_tokens: lots\n", path="c.yaml")
    assert info.value.line == 2
    assert info.value.key == "trigger.context_tokens"
    assert "expected an integer" in str(info.value)


def test_bool_is_not_an_int():
    with pytest.raises(ConfigError, match="context_tokens"):
        parse_config_text("trigger: {context_tokens: true}\n")


def test_invalid_yaml_has_line():
    with pytest.raises(ConfigError) as info:
        parse_config_text("model: [unclosed\n", path="bad.yaml")
    assert info.value.path == "bad.yaml"
    assert "invalid YAML" in str(info.value)


def test_env_expansion_and_defaults(monkeypatch):
    monkeypatch.setenv("TOKENS", "1234")
    monkeypatch.delenv("NOPE", raising=False)
    cfg = parse_config_text(
        "trigger:\n  context_tokens: ${TOKENS}\n  context_messages: ${NOPE:-7}\n"
        "model:\n  provider: openai\n  name: m-${NOPE:-x}\n  api_key: ${NOPE}\n"
    )
    assert cfg.trigger == {"context_tokens": 1234, "context_messages": 7}
    assert cfg.model == {"provider": "openai", "name": "m-x", "api_key": None}


def test_unset_env_without_default_is_an_error(monkeypatch):
    monkeypatch.delenv("MISSING_VAR", raising=False)
    with pytest.raises(ConfigError) as info:
        parse_config_text("model:\n  provider: openai\n  name: ${MISSING_VAR}\n", path="c.yaml")
    assert "MISSING_VAR" in str(info.value)
    assert info.value.line == 3


def test_mask_secrets():
    data = {"model": {"api_key": "sk-real"}, "failover": {"models": [{"api_key": "x"}]}}
    assert mask_secrets(data) == {
        "model": {"api_key": "***"},
        "failover": {"models": [{"api_key": "***"}]},
    }


def test_empty_file_is_defaults(tmp_path):
    p = tmp_path / "empty.yaml"
    p.write_text("")
    cfg = load_config_file(p)
    assert cfg.trigger_condition() is None
    assert cfg.transcript_file_path == "auto"


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config_file(tmp_path / "nope.yaml")


def test_compact_config_env(tmp_path, monkeypatch):
    p = tmp_path / "c.yaml"
    p.write_text("trigger: {context_messages: 3}\n")
    monkeypatch.setenv("COMPACT_CONFIG", str(p))
    cfg = load_default_config(None)
    assert cfg.path == str(p)
    assert cfg.trigger == {"context_messages": 3}


@pytest.mark.parametrize("name", ["default", "openai", "failover", "ci-shrink"])
def test_shipped_configs_load(name):
    cfg = load_config_file(REPO / "configs" / f"{name}.yaml")
    assert isinstance(cfg, FileConfig)


def test_backoff_exponential_capped_and_retry_after():
    b = exponential_backoff(1.0, 5.0)
    assert [b(a) for a in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 5.0]
    assert b(1, None, ModelError("slow down", retry_after=0.25)) == 0.25


def test_build_config_local_default_and_failover_chain():
    cfg = parse_config_text(
        "model: {provider: local}\nretry: {max_retries: 1, initial_delay: 0.5}\n"
        "failover:\n  max_retries: 3\n  models:\n    - {provider: local}\n"
        "    - {provider: openai, name: b, api_key: sk-test, base_url: 'http://127.0.0.1:9/v1'}\n"
    )
    config = build_config(cfg, transcript_path_auto="/tmp/x.jsonl")
    assert config.retry is not None and config.retry.max_retries == 1
    assert config.transcript_file_path == "/tmp/x.jsonl"
    assert config.failover is not None
    get = config.failover.get_failover_model
    assert get is not None

    def ctx(n: int) -> compactor.FailoverContext[compactor.Message]:
        return compactor.FailoverContext(
            attempt=n,
            system_instruction=compactor.Message("system", "s"),
            user_instruction=compactor.Message("user", "u"),
            original_messages=[],
            last_model_response=None,
            last_error=None,
        )

    m1, inp = get(ctx(1))
    m2, _ = get(ctx(2))
    m3, _ = get(ctx(3))
    assert inp is None
    assert m1 is m3 and m1 is not m2
    compactor.new(config)


def test_build_config_overrides_and_transcript_none():
    cfg = parse_config_text("transcript_file_path: none\n")
    config = build_config(cfg, Overrides(model="local"), transcript_path_auto="/a")
    assert config.transcript_file_path is None
    config = build_config(cfg, Overrides(transcript_file_path="/b"), transcript_path_auto="/a")
    assert config.transcript_file_path == "/b"


def test_bad_reference_names_key(tmp_path):
    cfg = parse_config_text("callback: no_such_mod_xyz:fn\nmodel: {provider: local}\n", path="c")
    with pytest.raises(ConfigError) as info:
        build_config(cfg)
    assert info.value.key == "callback"
    assert info.value.line == 1


def test_finalize_preserve_skills_keeps_default_postprocessing():
    cfg = parse_config_text(
        "model: {provider: local}\nfinalize: {preserve_skills: {max_skills: 2}}\n"
    )
    config = build_config(cfg)
    assert config.finalize is not None
    msgs = [compactor.Message("user", "hi")]
    out = asyncio.run(config.finalize(msgs, compactor.Message("assistant", "<summary>x</summary>")))
    assert len(out) == 1 and out[0].role == "user"


def test_user_instruction_file_relative_to_config(tmp_path):
    (tmp_path / "p.md").write_text("Summarize tersely.")
    c = tmp_path / "c.yaml"
    c.write_text("model: {provider: local}\nuser_instruction_file: p.md\n")
    assert build_config(load_config_file(c)).user_instruction == "Summarize tersely."


def test_secrets_never_in_repr_or_errors():
    cfg = parse_config_text("model: {provider: openai, name: m, api_key: sk-abcdefgh123}\n")
    assert "sk-abcdefgh123" not in repr(cfg)
    with pytest.raises(ConfigError) as info:
        parse_config_text("model: {provider: openai, api_key: 123456789}\n")
    assert "123456789" not in str(info.value)


# -- check_config: everything build_config checks, without building models --------------------


@pytest.mark.parametrize(
    ("text", "overrides", "where"),
    [
        ("callback: no_such_pkg_zz.mod:func\n", None, "c.yaml:1: key 'callback'"),
        ("gen_model_input: json:nope\n", None, "c.yaml:1: key 'gen_model_input'"),
        ("finalize: json:nope\n", None, "c.yaml:1: key 'finalize'"),
        ("model:\n  provider: martian\n", None, "c.yaml:2: key 'model.provider'"),
        ("model:\n  provider: openai\n  timeout: 0\n", None, "c.yaml:3: key 'model.timeout'"),
        (
            "failover:\n  models:\n    - provider: openai\n      timeout: -1\n",
            None,
            "c.yaml:4: key 'failover.models[0].timeout'",
        ),
        ("user_instruction_file: /no/such/file.md\n", None, "c.yaml:1: key 'user_instruction_f"),
        ("retry:\n  max_retries: -1\n", None, "c.yaml:2: key 'retry.max_retries'"),
        ("", Overrides(model="martian:x"), "unknown model 'martian:x'"),
    ],
)
def test_check_config_rejects_what_build_config_rejects(
    text: str, overrides: Overrides | None, where: str
) -> None:
    file_cfg = parse_config_text(text, path="c.yaml")
    with pytest.raises(ConfigError) as built:
        build_config(file_cfg, overrides, transcript_path_auto="/t.jsonl")
    with pytest.raises(ConfigError) as checked:
        check_config(file_cfg, overrides)
    assert str(checked.value) == str(built.value)
    assert where in str(checked.value)


def test_check_config_accepts_a_good_config_and_builds_no_model() -> None:
    text = (REPO / "configs" / "failover.yaml").read_text(encoding="utf-8")
    file_cfg = parse_config_text(text, path="failover.yaml")
    check_config(file_cfg)
    cfg = build_config(file_cfg, transcript_path_auto=None, build_models=False)
    assert isinstance(cfg.model, UnbuiltModel)
    with pytest.raises(RuntimeError, match="validates models"):
        asyncio.run(cfg.model.generate([]))


def test_check_config_and_an_untriggered_run_do_not_import_openai(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "model: {provider: openai, name: m, base_url: 'http://127.0.0.1:9/v1'}\n"
        "trigger: {context_tokens: 1000000}\n"
        "failover:\n  models:\n    - {provider: openai, name: b}\n",
        encoding="utf-8",
    )
    src = REPO / "sample_transcripts" / "small-chat.jsonl"
    code = (
        "import sys\n"
        "from compactor.cli.app import main\n"
        f"sys.argv = ['compact', 'run', '-c', {str(cfg)!r}, {str(src)!r}, '-o', "
        f"{str(tmp_path / 'out.jsonl')!r}]\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    assert exit.code == 0, exit.code\n"
        "assert 'openai' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, timeout=60)
    assert (tmp_path / "out.jsonl").read_bytes() == src.read_bytes()
