"""compactor.counting.config: validate_config's errors carry the field at fault in
``ConfigError.key``."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import compactor as c
from compactor.counting.config import KeepTail, RetentionConfig, SummaryCheck


def _config(**changes: Any) -> c.Config[Any]:
    return dataclasses.replace(c.Config(model=c.ScriptedModel([])), **changes)


@pytest.mark.parametrize(
    ("changes", "key", "message"),
    [
        ({"model": None}, "model", "model is required"),
        (
            {"trigger": c.TriggerCondition(context_tokens=-1)},
            "trigger.context_tokens",
            "trigger.context_tokens must be non-negative",
        ),
        (
            {"trigger": c.TriggerCondition(context_tokens=0)},
            None,
            "at least one of context_tokens or context_messages must be positive",
        ),
        (
            {"trigger": c.TriggerCondition(context_tokens=True)},
            "trigger.context_tokens",
            "trigger.context_tokens must be an integer, got True",
        ),
        (
            {"retry": c.RetryConfig(max_retries=-1)},
            "retry.max_retries",
            "retry.max_retries must be non-negative",
        ),
        (
            {"failover": c.FailoverConfig(max_retries=-1)},
            "failover.max_retries",
            "failover.max_retries must be non-negative",
        ),
        (
            {"preserve_user_messages": c.PreserveUserMessages(max_tokens=-1)},
            "preserve_user_messages.max_tokens",
            "preserve_user_messages.max_tokens must be non-negative",
        ),
        (
            {"emit_internal_events": True},
            "on_event",
            "on_event is required when emit_internal_events is set",
        ),
        ({"keep": KeepTail(tokens=-2)}, "keep.tokens", "keep.tokens must be non-negative"),
        (
            {"retention": RetentionConfig(max_anchors=-1)},
            "retention.max_anchors",
            "retention.max_anchors must be non-negative",
        ),
        (
            {"summary_check": SummaryCheck(min_tokens=-1)},
            "summary_check.min_tokens",
            "summary_check.min_tokens must be non-negative",
        ),
        ({"loop_guard": 2.0}, "loop_guard", "loop_guard must be a fraction in (0, 1], got 2.0"),
    ],
)
def test_validate_config_names_the_key_and_keeps_the_spec_wording(
    changes: dict[str, Any], key: str | None, message: str
) -> None:
    with pytest.raises(c.ConfigError) as info:
        c.validate_config(_config(**changes))
    assert info.value.key == key
    assert info.value.message == message
    assert str(info.value) == message  # the key is not repeated before a message that names it


def test_config_is_required_has_no_key() -> None:
    with pytest.raises(c.ConfigError) as info:
        c.validate_config(None)
    assert (info.value.key, str(info.value)) == (None, "config is required")


def test_a_message_that_does_not_name_its_key_is_prefixed_with_it() -> None:
    err = c.ConfigError("must be a positive number, got 0", key="timeout")
    assert str(err) == "key 'timeout': must be a positive number, got 0"
    located = c.ConfigError(
        "retry.max_retries must be non-negative", path="c.yaml", line=2, key="retry.max_retries"
    )
    assert (
        str(located) == "c.yaml:2: key 'retry.max_retries': retry.max_retries must be non-negative"
    )
