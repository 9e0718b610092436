"""Assistant records the agent CLI wrote, not the model (blind check 63 W3, cc_gh_unstash).

Claude Code writes an assistant record in the model's place when a model call failed for good:
``isApiErrorMessage: true``, model ``<synthetic>``, an ``error`` field
(``authentication_failed``, ``rate_limit``…) and a text such as ``Please run /login · API Error:
401 Invalid authentication credentials``: the ``API Error:`` is not at the start, so the text
alone passed for an answer. :func:`mark_cli_errors` marks the message read from such a record
(``extra[CLI_ERROR_KEY]``, internal: never written); :class:`compactor.facts.Entry` carries it as
``cli_error`` and no reader of where work stands takes it for an answer.

The CLI also writes ``No response requested.`` as a ``<synthetic>`` assistant record (when a
queued prompt is sent again, blind check 64 N1): no model's words, it is marked
``extra[CLI_NOOP_KEY]`` and read as an assistant message without text, never quoted as an
answer."""

from __future__ import annotations

from collections.abc import Sequence

from compactor._json import JsonObject
from compactor.schema import AgenticMessage

from . import _jsonl

__all__ = ["CLI_ERROR_KEY", "CLI_NOOP_KEY", "is_cli_error_record", "mark_cli_errors"]

CLI_ERROR_KEY = "_compactor_cli_error"
CLI_NOOP_KEY = "_compactor_cli_noop"
_NOOP_TEXTS = frozenset({"No response requested."})


def _noop_record(rec: JsonObject) -> bool:
    """A ``<synthetic>`` assistant record whose only text is the CLI's fixed no-op words."""
    body = rec.get("message")
    if rec.get("type") != "assistant" or not isinstance(body, dict):
        return False
    content = body.get("content")
    if body.get("model") != "<synthetic>" or not isinstance(content, list) or len(content) != 1:
        return False
    block = content[0]
    return isinstance(block, dict) and str(block.get("text", "")).strip() in _NOOP_TEXTS


def is_cli_error_record(rec: JsonObject) -> bool:
    """An assistant record the CLI wrote for a failed model call (its own markers)."""
    if rec.get("type") != "assistant":
        return False
    if rec.get("isApiErrorMessage") is True:
        return True
    body = rec.get("message")
    synthetic = isinstance(body, dict) and body.get("model") == "<synthetic>"
    return synthetic and isinstance(rec.get("error"), str | dict)


def mark_cli_errors(
    messages: Sequence[AgenticMessage],
    origin: Sequence[Sequence[int]],
    lines: Sequence[_jsonl.Line],
) -> None:
    """Mark (in place) the assistant messages read only from CLI-written error records."""
    for msg, where in zip(messages, origin, strict=False):
        if msg.role == "assistant" and where:
            if all(is_cli_error_record(lines[i].obj) for i in where):
                msg.extra[CLI_ERROR_KEY] = True
            elif all(_noop_record(lines[i].obj) for i in where):
                msg.extra[CLI_NOOP_KEY] = True
