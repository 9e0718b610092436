"""YAML config files: keys with lines, types, ${VAR}, references, build_config."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import compactor
from compactor._util import maybe_await
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
from compactor.configfile.settings import Trigger
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
    assert cfg.trigger == Trigger(context_tokens=1234, context_messages=7)
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
    assert cfg.value("transcript_file_path") == "auto"


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config_file(tmp_path / "nope.yaml")


def test_compact_config_env(tmp_path, monkeypatch):
    p = tmp_path / "c.yaml"
    p.write_text("trigger: {context_messages: 3}\n")
    monkeypatch.setenv("COMPACT_CONFIG", str(p))
    cfg = load_default_config(None)
    assert cfg.path == str(p)
    assert cfg.trigger == Trigger(context_messages=3)


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
    reply = compactor.Message("assistant", "<summary>x</summary>")
    out = asyncio.run(maybe_await(config.finalize(msgs, reply)))
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


# -- hostile config files (issue 16) --------------------------------------------------------------


def _alias_bomb(levels: int) -> str:
    """The classic "billion laughs" in model.options: 9**levels strings from ~500 bytes."""
    lines = ["model:", "  provider: local", "  options:", '    a0: &a0 ["lol","lol","lol"]']
    for i in range(1, levels):
        lines.append(f"    a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def _refused(tmp_path: Path, text: str) -> ConfigError:
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8")
    start = time.monotonic()
    with pytest.raises(ConfigError) as info:
        build_config(load_config_file(path), transcript_path_auto=None)
    # milliseconds here; expanding the aliases would not finish at all (loaded machine: slack)
    assert time.monotonic() - start < 10, "a hostile config must be refused fast"
    assert str(info.value).startswith(f"{path}:")  # file and line
    return info.value


@pytest.mark.parametrize("levels", [7, 10])
def test_alias_bomb_is_refused_fast_naming_line_and_key(tmp_path: Path, levels: int) -> None:
    assert len(_alias_bomb(levels)) < 600
    err = _refused(tmp_path, _alias_bomb(levels))
    assert "expands to more than 10,000 values" in str(err)
    assert err.key is not None and err.key.startswith("model.options.a")
    assert err.line is not None and 4 <= err.line <= 3 + levels


def test_a_few_aliases_are_fine() -> None:
    cfg = parse_config_text(
        "model: &m {provider: openai, name: a, base_url: 'http://127.0.0.1:9/v1'}\n"
        "failover:\n  models: [*m, *m]\n"
    )
    assert cfg.failover is not None and cfg.failover.models == [cfg.model, cfg.model]


@pytest.mark.parametrize(
    ("text", "line", "key", "says"),
    [
        (
            "model:\n  provider: local\n  options:\n    x: &x [1, *x]\n",
            4,
            "model.options.x[1]",
            "recursive alias *x",
        ),
        (
            "model:\n  provider: local\n  options:\n    x: &x {y: *x}\n",
            4,
            "model.options.x.y",
            "recursive alias *x",
        ),
        (
            "model:\n  options:\n    x: " + "[" * 5000 + "]" * 5000 + "\n",
            3,
            "model.options.x[0]",
            "nested more than 32 levels deep",
        ),
        (
            "model:\n  options:\n    x:\n" + "".join("    " + "  " * i + "-\n" for i in range(200)),
            33,
            "model.options.x[0]",
            "nested more than 32 levels deep",
        ),
        (
            "model:\n  options:\n    x: !!python/name:os.system\n",
            3,
            "model.options.x",
            "unsupported YAML tag '!!python/name:os.system'",
        ),
        (
            "model:\n  options:\n    x: !!python/object/apply:os.system ['echo pwned']\n",
            3,
            "model.options.x",
            "unsupported YAML tag '!!python/object/apply:os.system'",
        ),
        (
            "model:\n  provider: local\n  timeout: !custom 3\n",
            3,
            "model.timeout",
            "unsupported YAML tag '!custom'",
        ),
        ("retry: !!set {a, b}\n", 1, "retry", "unsupported YAML tag '!!set'"),
    ],
)
def test_recursive_deep_and_tagged_yaml_is_a_config_error(
    tmp_path: Path, text: str, line: int, key: str, says: str
) -> None:
    err = _refused(tmp_path, text)
    assert says in str(err)
    assert err.line == line
    assert err.key is not None and err.key.startswith(key)


def test_standard_tags_and_odd_scalars_still_load() -> None:
    cfg = parse_config_text(
        "model:\n  provider: !!str openai\n  name: 2024-13-45\n  timeout: !!float 3\n"
        "  base_url: 'http://127.0.0.1:9/v1'\n  options: {stop: =}\n"
    )
    assert cfg.model == {
        "provider": "openai",
        "name": "2024-13-45",  # looks like a date, is not one: kept as the text it is
        "timeout": 3.0,
        "base_url": "http://127.0.0.1:9/v1",
        "options": {"stop": "="},
    }


def test_a_config_that_never_ends_is_not_read_whole(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * (2 << 20) + "\n")
    with pytest.raises(ConfigError, match="larger than 1,048,576 bytes"):
        load_config_file(big)
    with pytest.raises(ConfigError, match="larger than"):
        load_config_file("/dev/zero")


def test_second_document_is_refused() -> None:
    with pytest.raises(ConfigError, match="one YAML document") as info:
        parse_config_text("model: {provider: local}\n---\nretry: {}\n", path="c.yaml")
    assert info.value.line == 2


@pytest.fixture
def modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Importable modules that misbehave at import (removed from sys.modules after)."""
    folder = tmp_path / "mods"
    folder.mkdir()
    (folder / "zz_boom_mod.py").write_text("raise RuntimeError('boom at import')\n")
    (folder / "zz_exit_mod.py").write_text("import sys\nsys.exit(0)\n")
    (folder / "zz_syntax_mod.py").write_text("def f(:\n")
    monkeypatch.syspath_prepend(str(folder))
    yield folder
    for name in ("zz_boom_mod", "zz_exit_mod", "zz_syntax_mod"):
        sys.modules.pop(name, None)


@pytest.mark.parametrize("key", ["token_counter", "callback", "gen_model_input", "finalize"])
@pytest.mark.parametrize(
    ("module", "says"),
    [
        ("zz_boom_mod", "importing module 'zz_boom_mod' failed: RuntimeError: boom at import"),
        ("zz_exit_mod", "module 'zz_exit_mod' called sys.exit(0) while being imported"),
        ("zz_syntax_mod", "importing module 'zz_syntax_mod' failed: SyntaxError"),
    ],
)
def test_a_module_failing_at_import_is_a_config_error_at_its_key(
    modules: Path, tmp_path: Path, key: str, module: str, says: str
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(f"model: {{provider: local}}\n{key}: {module}:func\n")
    with pytest.raises(ConfigError) as info:
        check_config(load_config_file(path))
    assert str(info.value).startswith(f"{path}:2: key {key!r}: ")
    assert says in str(info.value)


def test_config_show_masks_url_credentials_and_every_header_value() -> None:
    cfg = parse_config_text(
        "model:\n  provider: openai\n  name: x\n"
        "  base_url: http://bob:hunter2pass@127.0.0.1:9/v1\n  api_key: sk-abc-1234567890\n"
        "  options:\n"
        "    extra_headers: {api-key: azure-secret-123456, Authorization: Bearer tok-abcdef1234}\n"
        "    default_headers: {X-Title: compact}\n"
        "failover:\n  models:\n    - {provider: openai, name: b, base_url: 'https://TOKEN123456@h/v1'}\n"
    )
    shown = cfg.to_dict(mask=True)
    assert shown["model"]["base_url"] == "http://***@127.0.0.1:9/v1"
    assert shown["model"]["api_key"] == "***"
    assert shown["model"]["options"]["extra_headers"] == {"api-key": "***", "Authorization": "***"}
    assert shown["model"]["options"]["default_headers"] == {"X-Title": "***"}
    assert shown["failover"]["models"][0]["base_url"] == "https://***@h/v1"
    text = repr(cfg) + str(shown)
    for secret in (
        "hunter2pass",
        "sk-abc-1234567890",
        "azure-secret-123456",
        "tok-abcdef1234",
        "TOKEN123456",
        "compact",
    ):
        assert secret not in text
    assert cfg.to_dict(mask=False)["model"]["options"]["default_headers"] == {"X-Title": "compact"}


def test_secrets_from_the_config_are_redacted_from_later_errors() -> None:
    from compactor._util import redact

    parse_config_text(
        "model:\n  provider: openai\n  name: x\n  base_url: http://u:pw-0123456789@h/v1\n"
        "  options: {extra_headers: {api-key: azure-secret-987654321}}\n"
    )
    said = redact("server said: azure-secret-987654321 / pw-0123456789 / http://u:pw@other/")
    assert said == "server said: *** / *** / http://***@other/"


def test_openai_without_a_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    file_cfg = parse_config_text("model: {provider: openai, name: y}\n", path="c.yaml")
    for cfg, overrides in ((file_cfg, None), (FileConfig(), Overrides(model="openai:x"))):
        with pytest.raises(ConfigError, match="no API key for openai model") as info:
            check_config(cfg, overrides)
        assert info.value.key == "model"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # a local server: no key
    check_config(file_cfg)


# -- issue 18 ---------------------------------------------------------------------------------

OPENAI = "model:\n  provider: openai\n  name: m\n  base_url: http://127.0.0.1:9/v1\n"


def test_model_input_picks_the_form_and_a_bad_value_names_its_line() -> None:
    cfg = build_config(parse_config_text(OPENAI + "  input: transcript\n"))
    assert cfg.model.input_mode == "transcript"
    assert build_config(parse_config_text(OPENAI)).model.input_mode == "auto"
    text = OPENAI + "failover:\n  models:\n    - {provider: openai, name: b, input: text}\n"
    with pytest.raises(ConfigError) as info:
        check_config(parse_config_text(text, path="c.yaml"))
    assert str(info.value).startswith("c.yaml:7: key 'failover.models[0].input': must be one of")


def test_ensure_user_messages_is_on_in_config_files_and_can_be_turned_off() -> None:
    on = build_config(FileConfig()).preserve_user_messages
    assert on is not None and on.ensure_block
    text = "finalize: {ensure_user_messages: false, strip_analysis: true}\n"
    off = build_config(parse_config_text(text)).preserve_user_messages
    assert off is not None and not off.ensure_block
    # the library's own default stays SPEC's
    assert not compactor.PreserveUserMessages().ensure_block


def test_summary_check_is_off_by_default_and_checked_at_its_line() -> None:
    assert build_config(FileConfig()).summary_check is None
    text = "summary_check: {min_tokens: 40, require_sections: true}\n"
    check = build_config(parse_config_text(text)).summary_check
    assert check == compactor.SummaryCheck(min_tokens=40, require_sections=True)
    with pytest.raises(ConfigError) as info:
        build_config(parse_config_text("summary_check:\n  min_tokens: -1\n", path="c.yaml"))
    assert str(info.value).startswith("c.yaml:2: key 'summary_check.min_tokens'")
    with pytest.raises(ConfigError, match="unknown key 'min_token'"):
        parse_config_text("summary_check: {min_token: 3}\n")


def test_the_reply_reserve_is_the_replys_own_cap_when_smaller() -> None:
    options = OPENAI + "  context_tokens: 2048\n  options: {max_tokens: 256}\n"
    assert build_config(parse_config_text(options)).reply_reserve_tokens == 256
    window = OPENAI + "  context_tokens: 2048\n"
    assert build_config(parse_config_text(window)).reply_reserve_tokens == 512
    assert build_config(parse_config_text(OPENAI)).reply_reserve_tokens == 4_096


@pytest.mark.parametrize(
    ("text", "key", "message"),
    [
        ("trigger:\n  context_tokens: -1\n", "trigger.context_tokens", "must be non-negative"),
        ("trigger:\n  context_fraction: 2\n", "trigger.context_fraction", "between 0 and 1"),
        (
            "trigger:\n  context_fraction: 0.5\n",
            "trigger.context_fraction",
            "needs trigger.window_tokens or trigger.agent_model",
        ),
        ("trigger:\n  context_messages: 0\n", "trigger", "at least one of context_tokens"),
        ("keep:\n  messages: -1\n", "keep.messages", "keep.messages must be non-negative"),
        ("retention:\n  max_facts: -1\n", "retention.max_facts", "must be non-negative"),
        ("failover:\n  max_delay: -1\n", "failover.max_delay", "non-negative number of seconds"),
    ],
)
def test_a_check_shared_with_config_is_located_at_its_key(
    text: str, key: str, message: str
) -> None:
    """The file's sections are checked by compactor.counting.config's own checks (one rule, one
    place); the error's ``key`` locates it in the file, nobody parses the message."""
    with pytest.raises(ConfigError) as info:
        build_config(parse_config_text("model:\n  provider: local\n" + text, path="c.yaml"))
    assert info.value.key == key
    assert info.value.line == (3 if key == "trigger" else 4)  # the section, else the key
    assert message in info.value.message
    assert str(info.value).startswith(f"c.yaml:{info.value.line}: key {key!r}: ")


@pytest.mark.parametrize("with_key", [True, False])
def test_the_default_model_rule_is_the_same_everywhere(
    with_key: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No model in the file: openai:gpt-4o-mini when $OPENAI_API_KEY is set, else the embedded
    summarizer, in what a run builds, what ``config show`` and ``check --explain`` say."""
    from compactor.models.local import LocalSummarizer
    from compactor.models.registry import default_provider, with_model_defaults
    from compactor.runs.effective import effective_config
    from compactor.runs.explain import model_label

    if with_key:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
    else:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    expected = "openai:gpt-4o-mini" if with_key else "local"
    assert default_provider({}) == expected.split(":")[0]
    assert default_provider({"api_key": "sk-own"}) == "openai"
    assert with_model_defaults({"provider": "openai"})["name"] == "gpt-4o-mini"
    assert model_label({}) == expected
    shown = effective_config(FileConfig())["model"]
    assert ":".join(filter(None, [shown["provider"], shown.get("name")])) == expected
    model = build_config(FileConfig()).model
    assert (model.name if with_key else "local") == expected
    assert isinstance(model, LocalSummarizer) is (not with_key)
