"""Issue 29 point 2: one typed config tree (:mod:`compactor.configfile.settings`).

Every key is declared once (YAML types, default, range); the file schema, ``config show`` and
the :class:`compactor.Config` a run uses all read that one declaration; layers (the file, the
flags) are resolved by one overlay; a real ``compact run`` constructs its Config once and runs
the SPEC checks once (counted by :data:`compactor.counting.config.CONFIG_COUNTS`).
"""

from __future__ import annotations

import ast
import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compactor.configfile import (
    FileConfig,
    Overrides,
    build_config,
    flag_layer,
    parse_config_text,
)
from compactor.configfile.fileconfig import SCHEMA
from compactor.configfile.schema import Switch
from compactor.configfile.settings import Cache, Retry, Trigger, declared, overlay
from compactor.counting.config import (
    CONFIG_COUNTS,
    DEFAULT_MAX_RETRIES,
    RetentionConfig,
    SummaryCheck,
)
from compactor.errors import ConfigError
from compactor.models.scripted import ScriptedModel
from compactor.runs.effective import effective_config
from compactor.sizes import InputLimits
from compactor.testing.fake_openai import FakeOpenAI, status

from .fake_server_cli import invoke

REPO = Path(__file__).resolve().parents[1]
CODING = REPO / "sample_transcripts" / "coding-session.jsonl"
PACKAGE = REPO / "compactor"


# -- built once, validated once ------------------------------------------------------------------


def _run(tmp: Path, fake: FakeOpenAI, *extra: str, files: int = 1) -> tuple[int, int, int]:
    """(exit code, Configs constructed, SPEC check runs) of one real ``compact run`` over
    ``files`` copies of a transcript, with retry, failover and the local fallback configured
    (the fake answers 500, so every rung of the ladder runs)."""
    model = f"{{provider: openai, base_url: '{fake.base_url}', timeout: 5, name: "
    (tmp / "c.yaml").write_text(
        f"model: {model}primary}}\n"
        "retry: {max_retries: 1, initial_delay: 0, max_delay: 0}\n"
        f"failover: {{max_retries: 1, models: [{model}backup}}]}}\n"
        "fallback: local\n"
    )
    inputs = []
    for i in range(files):
        shutil.copy(CODING, tmp / f"s{i}.jsonl")
        inputs.append(str(tmp / f"s{i}.jsonl"))
    out = ["-o", str(tmp / "out.jsonl")] if files == 1 else ["--output-dir", str(tmp / "out")]
    before = CONFIG_COUNTS.copy()
    proc = invoke(
        ["run", "-c", str(tmp / "c.yaml"), *inputs, *out, "--force", *extra],
        env={"OPENAI_API_KEY": "sk-test", "XDG_CACHE_HOME": str(tmp / "xdg")},
    )
    assert proc.returncode == 0, proc.stderr
    built = CONFIG_COUNTS["built"] - before["built"]
    validated = CONFIG_COUNTS["validated"] - before["validated"]
    return proc.returncode, built, validated


def test_a_run_builds_its_config_once_and_validates_it_once(
    tmp_path: Path, fake: FakeOpenAI
) -> None:
    """The plan checks the resolved tree before reading the transcript (the one validation);
    the runner constructs the Config once, with its event sink, from that checked tree; the
    middleware does not check it again. (Before: two builds, four validations.)"""
    fake.default = status(500)
    code, built, validated = _run(tmp_path, fake)
    assert len(fake.requests) == 3  # retry, failover, then the local fallback answered
    assert (code, built, validated) == (0, 1, 1)


def test_a_batch_validates_once_and_builds_once_per_file(tmp_path: Path, fake: FakeOpenAI) -> None:
    fake.default = status(500)
    _, built, validated = _run(tmp_path, fake, files=2)
    assert (built, validated) == (2, 1)


def test_the_counter_counts_what_it_says() -> None:
    """The counter the tests above read can fail: a second construction and a check of a
    Config not yet validated are both counted; a validated Config is not checked again."""
    from compactor import new
    from compactor.counting.config import Config, validate_config

    before = CONFIG_COUNTS.copy()
    cfg: Config[Any] = Config(model=ScriptedModel([]))
    validate_config(cfg)
    new(cfg)  # new() and Middleware() on a validated config: no second check
    other = dataclasses.replace(cfg, loop_guard=0.5)
    new(other)
    assert CONFIG_COUNTS["built"] - before["built"] == 2
    assert CONFIG_COUNTS["validated"] - before["validated"] == 2


# -- every default and range declared once -------------------------------------------------------


def _show(text: str = "") -> dict[str, Any]:
    return effective_config(parse_config_text(text))


def _config(text: str = "") -> Any:
    return build_config(parse_config_text(text), model=ScriptedModel([]))


# dotted key → (file that makes the key's default visible, what config show prints for it,
#               what the Config a run uses holds for it; None: the key is not a Config field)
Getter = Callable[[Any], Any]
SHOWN: dict[str, tuple[str, Getter, Getter | None]] = {
    "token_counter": ("", lambda s: s["token_counter"], None),
    "transcript_file_path": ("", lambda s: s["transcript_file_path"], None),
    "format": ("", lambda s: s["format"], None),
    "fallback": ("", lambda s: s["fallback"], lambda c: "none" if c.fallback_model is None else 0),
    "trigger.context_tokens": (
        "trigger: {context_messages: 9}",
        lambda s: s["trigger"]["context_tokens"],
        lambda c: c.trigger.context_tokens,
    ),
    "trigger.context_messages": (
        "trigger: {context_tokens: 9}",
        lambda s: s["trigger"]["context_messages"],
        lambda c: c.trigger.context_messages,
    ),
    "trigger.context_fraction": (
        "trigger: {context_tokens: 9}",
        lambda s: s["trigger"].get("context_fraction", 0.0),
        lambda c: c.trigger.context_fraction,
    ),
    "trigger.window_tokens": (
        "trigger: {context_tokens: 9}",
        lambda s: s["trigger"].get("window_tokens", 0),
        lambda c: c.trigger.window_tokens,
    ),
    "preserve_user_messages.enabled": (
        "",
        lambda s: s["preserve_user_messages"]["enabled"],
        lambda c: c.preserve_user_messages.enabled,
    ),
    "retry.max_retries": ("", lambda s: s["retry"]["max_retries"], lambda c: c.retry.max_retries),
    "retry.initial_delay": ("", lambda s: s["retry"]["initial_delay"], None),
    "retry.max_delay": ("", lambda s: s["retry"]["max_delay"], lambda c: c.retry.max_delay),
    "failover.max_retries": (
        "failover: {}",
        lambda s: s["failover"]["max_retries"],
        lambda c: c.failover.max_retries,
    ),
    "failover.models": ("failover: {}", lambda s: tuple(s["failover"]["models"]), None),
    "loop_guard.max_ratio": ("", lambda s: s["loop_guard"]["max_ratio"], lambda c: c.loop_guard),
    "loop_guard.max_growth": ("", lambda s: s["loop_guard"]["max_growth"], lambda c: c.max_growth),
    "mask_secrets.enabled": (
        "model: {provider: local}",
        lambda s: "auto" if s["mask_secrets"]["enabled"] is False else None,  # local: auto → off
        lambda c: "auto" if c.mask_secrets is False else None,
    ),
    "mask_secrets.patterns": (
        "",
        lambda s: tuple(s["mask_secrets"]["patterns"]),
        lambda c: c.secret_patterns,
    ),
    "cache.enabled": (
        "cache: {}",
        lambda s: s["cache"] is not False,
        lambda c: c.cache is not None,
    ),
    "retention.enabled": (
        "retention: {}",
        lambda s: s["retention"] is not False,
        lambda c: c.retention is not None,
    ),
    "retention.max_anchors": (
        "retention: {}",
        lambda s: s["retention"]["max_anchors"],
        lambda c: c.retention.max_anchors,
    ),
    "retention.max_facts": (
        "retention: {}",
        lambda s: s["retention"]["max_facts"],
        lambda c: c.retention.max_facts,
    ),
    "input.max_line_bytes": ("", lambda s: s["input"]["max_line_bytes"], None),
    "input.max_bytes": ("", lambda s: s["input"]["max_bytes"], None),
    "summary_check.min_tokens": (
        "summary_check: {require_sections: false}",
        lambda s: s["summary_check"]["min_tokens"],
        lambda c: c.summary_check.min_tokens,
    ),
    "summary_check.require_sections": (
        "summary_check: {min_tokens: 0}",
        lambda s: s["summary_check"]["require_sections"],
        lambda c: c.summary_check.require_sections,
    ),
    "reduction.offload": ("", lambda s: s["reduction"]["offload"], None),
}


def test_every_default_is_declared_once_and_read_from_there() -> None:
    """Each declared default (nothing changed, all read from the declarations) is what
    ``config show`` prints and what the Config a run uses holds; a key given a default must be
    listed above, so a new one is checked too."""
    defaults = {k: key.default for k, key in declared(FileConfig) if key.default is not None}
    assert set(defaults) == set(SHOWN)
    for dotted, default in defaults.items():
        text, shown, built = SHOWN[dotted]
        expected = tuple(default) if isinstance(default, tuple | list) else default
        assert shown(_show(text)) == expected, dotted
        if built is not None:
            assert built(_config(text)) == expected, dotted


def test_defaults_a_library_dataclass_declares_are_read_from_it() -> None:
    """``failover.max_retries`` is SPEC's 3, the retention, summary-check and input defaults
    are their dataclasses': the tree names where they are declared, it does not repeat them."""
    keys = dict(declared(FileConfig))
    assert keys["failover.max_retries"].default == DEFAULT_MAX_RETRIES
    assert keys["failover.max_retries"].given_default is None
    assert keys["retention.max_anchors"].default == RetentionConfig().max_anchors
    assert keys["summary_check.min_tokens"].default == SummaryCheck().min_tokens
    assert keys["input.max_bytes"].default == InputLimits().max_bytes
    inherited = [k for k, key in keys.items() if key.inherit]
    assert all(keys[k].given_default is None for k in inherited)


def test_the_file_schema_is_generated_from_the_declarations() -> None:
    for dotted, key in declared(FileConfig):
        section, _, name = dotted.partition(".")
        spec = SCHEMA[section]
        if name:
            table = spec.mapping if isinstance(spec, Switch) else spec
            assert isinstance(table, dict), dotted
            spec = table[name]
        assert spec == key.types, dotted


def _declared_leaf_names() -> set[str]:
    return {dotted.rpartition(".")[2] for dotted, _ in declared(FileConfig)}


def test_no_read_site_writes_a_default_of_its_own() -> None:
    """No ``section.get("key", LITERAL)`` in the config layer, ``config show`` or
    ``check --explain``: a default written where a key is read is a second declaration."""
    names = _declared_leaf_names()
    paths = [*sorted((PACKAGE / "configfile").glob("*.py"))]
    paths += [
        PACKAGE / "runs" / "effective.py",
        PACKAGE / "runs" / "explain.py",
        PACKAGE / "runs" / "run_plan.py",
    ]
    bad = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and len(node.args) == 2
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value in names
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value is not None
                and path.name != "strategy.py"  # reduction: ReductionConfig's defaults
            ):
                bad.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert not bad, "\n".join(bad)


# -- one overlay ---------------------------------------------------------------------------------


def test_later_non_none_values_win_key_by_key() -> None:
    low = FileConfig(retry=Retry(max_retries=5, max_delay=3.0), format="codex")
    high = FileConfig(retry=Retry(max_retries=1), fallback="local")
    out = overlay(low, high)
    assert out.retry == Retry(max_retries=1, max_delay=3.0)
    assert (out.format, out.fallback) == ("codex", "local")
    assert out.value("retry.initial_delay") == 1.0  # nobody set it: the declaration's default


def test_a_flag_replaces_the_files_key_and_forgets_its_line() -> None:
    cfg = parse_config_text(
        "trigger: {context_tokens: 500, context_messages: 4}\nfallback: lokal\n", path="c.yaml"
    )
    flagged = cfg.with_flags(Overrides(fallback="local", cache=False), threshold=90)
    assert flagged.trigger == Trigger(
        context_tokens=90, context_messages=4, context_fraction=0.0, window_tokens=0, agent_model=""
    )
    assert flagged.cache == Cache(enabled=False)
    assert "trigger.context_tokens" not in flagged.lines
    assert flagged.lines["trigger.context_messages"] == 1
    assert "fallback" not in flagged.lines
    with pytest.raises(ConfigError) as bad:
        build_config(cfg, model=ScriptedModel([]))
    assert (
        str(bad.value)
        == "c.yaml:2: key 'fallback': fallback must be 'local' or 'none', got 'lokal'"
    )
    with pytest.raises(ConfigError) as flag:
        build_config(cfg.with_flags(Overrides(fallback="lokal")), model=ScriptedModel([]))
    assert (
        str(flag.value)
        == "c.yaml: key '--fallback': fallback must be 'local' or 'none', got 'lokal'"
    )


def test_a_flag_layer_is_checked_when_it_is_made() -> None:
    with pytest.raises(ConfigError, match=r"^--threshold must be a positive number of tokens"):
        flag_layer(FileConfig(), threshold=0)
    with pytest.raises(ConfigError, match=r"^--token-counter: unknown token counter 'nope'"):
        flag_layer(FileConfig(), token_counter="nope")


def test_a_retry_section_without_a_count_retries_as_no_section_does() -> None:
    """Decision (issue 29): ``retry: {max_delay: 5}`` keeps the declared 2 retries (it was 3,
    a second default for the same key)."""
    assert _config("retry: {max_delay: 5}").retry.max_retries == 2
    assert _config("").retry.max_retries == 2
    assert _show("retry: {max_delay: 5}")["retry"] == {
        "max_retries": 2,
        "initial_delay": 1.0,
        "max_delay": 5,
    }


BAD: dict[str, tuple[object, str]] = {
    "retry.initial_delay": (-1, "retry.initial_delay must be a non-negative number, got -1"),
    "loop_guard.max_ratio": (2, "loop_guard.max_ratio must be in (0, 1]"),
    "loop_guard.max_growth": (-1, "loop_guard.max_growth must be a positive number"),
    "mask_secrets.enabled": ("yes", "mask_secrets.enabled must be true, false or auto, got 'yes'"),
    "limits.max_requests": (-1, "limits.max_requests must be non-negative"),
    "limits.max_input_tokens": (-1, "limits.max_input_tokens must be non-negative"),
    "input.max_line_bytes": (0, "input.max_line_bytes must be a positive number of bytes, got 0"),
    "input.max_bytes": (0, "input.max_bytes must be a positive number of bytes, got 0"),
}


def test_every_declared_range_is_checked_at_its_key() -> None:
    """Each range a key declares refuses a value outside it with the message it always had,
    located at the key's line; a key given a range must be listed here."""
    ranged = {k for k, key in declared(FileConfig) if key.check is not None}
    assert ranged == set(BAD)
    for dotted, (value, message) in BAD.items():
        section, _, name = dotted.partition(".")
        text = f"model: {{provider: local}}\n{section}:\n  {name}: {value!r}\n"
        with pytest.raises(ConfigError) as err:
            build_config(parse_config_text(text, path="c.yaml"), model=ScriptedModel([]))
        assert (err.value.key, err.value.line, err.value.message) == (dotted, 3, message)
