"""The model API failures a Claude Code session ends with (blind check 37, cc-obstruct).

Claude Code 2.1.x writes a ``system`` record of subtype ``api_error`` for each failed model
call it retries (``cause.code`` ``ConnectionRefused`` and the endpoint's ``path``, or an
``error`` holding the HTTP ``status`` and the API's message; ``retryAttempt``, ``maxRetries``).
When its retries ran out it writes an assistant record (``isApiErrorMessage``, ``API Error: …``),
which the reader reads as any message; a session that stopped while it retried (the process
ended, the endpoint never came back) ends with the ``api_error`` records alone, and nothing
else says that the turn died because the model API failed.

So the trailing run of ``api_error`` records after the last message record of the main chain
is read as ONE assistant message whose text starts with ``API Error:`` (as the client's own
notice does; :func:`compactor.models.local_harness.is_harness_error` reads it as an error the
API wrote, not an answer), naming the cause and the retries, with those records as its origin:
the writers copy their lines back as they were, as for any message read from its own records
(the Codex reader does the same with a usage-limit ``error`` event, ``_codex_events``). An
``api_error`` between two messages (a retried call that then succeeded) adds nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from compactor._json import JsonObject, JsonValue
from compactor.schema import AgenticMessage, Block

from . import _jsonl
from ._claude_recap import add_recap
from ._claude_texts import one_line

__all__ = ["API_ERROR_KEY", "add_api_error", "api_error_text"]

API_ERROR_KEY = "claude_api_error"
"""``AgenticMessage.extra`` key of the message read from trailing ``api_error`` records (the
number of records): the client never sends it to the model (a ``system`` record)."""

_MESSAGE_CHARS = 200


def _is_api_error(rec: JsonObject) -> bool:
    return rec.get("type") == "system" and rec.get("subtype") == "api_error"


def add_api_error(
    lines: Sequence[_jsonl.Line],
    order: Sequence[int],
    steps: Sequence[int],
    messages: list[AgenticMessage],
    origin: list[list[int]],
) -> None:
    """Append the trailing messages read from ``system`` records: the API failures (below),
    then Claude Code's own latest recap when no work follows it (:mod:`._claude_recap`)."""
    _add_api_error(lines, order, steps, messages, origin)
    if messages:
        add_recap(lines, order, messages, origin)


def _add_api_error(
    lines: Sequence[_jsonl.Line],
    order: Sequence[int],
    steps: Sequence[int],
    messages: list[AgenticMessage],
    origin: list[list[int]],
) -> None:
    """Append the message of the ``api_error`` records that follow the last of ``steps`` (the
    main chain's message records, in history ``order``) to ``messages``/``origin``."""
    if not steps or not messages:
        return
    last = steps[-1]
    sidechain = bool(lines[last].obj.get("isSidechain"))
    try:
        after = order.index(last) + 1
    except ValueError:
        return
    found = [
        i
        for i in order[after:]
        if _is_api_error(lines[i].obj) and bool(lines[i].obj.get("isSidechain")) == sidechain
    ]
    if not found:
        return
    msg = AgenticMessage("assistant", [Block("assistant_gen_text", api_error_text(lines, found))])
    msg.extra[API_ERROR_KEY] = len(found)
    messages.append(msg)
    origin.append(found)


def api_error_text(lines: Sequence[_jsonl.Line], found: Sequence[int]) -> str:
    """``API Error: ConnectionRefused (127.0.0.1:8080) after 3 retries; …``: the cause of the
    last record, the retries the run made."""
    rec = lines[found[-1]].obj
    attempts = [a for i in found if isinstance(a := lines[i].obj.get("retryAttempt"), int)]
    retries = max(attempts) if attempts else len(found)
    limit = rec.get("maxRetries")
    of = f" of {limit}" if isinstance(limit, int) and limit >= retries else ""
    plural = "retry" if retries == 1 and not of else "retries"
    return (
        f"API Error: {_cause(rec)} after {retries}{of} {plural}; the model API gave no reply "
        "and the turn ended there."
    )


def _cause(rec: JsonObject) -> str:
    """``ConnectionRefused (host:port)`` from ``cause``, else ``503 Loading model`` from
    ``error`` (its status and the API's own message, nested as the SDK wraps it)."""
    cause = rec.get("cause")
    error = rec.get("error")
    parts: list[str] = []
    if isinstance(cause, dict):
        code = cause.get("code") or cause.get("name")
        if isinstance(code, str) and code:
            parts.append(code)
        host = _host(cause.get("path") or cause.get("url"))
        if host:
            parts.append(f"({host})")
    if isinstance(error, dict):
        status = error.get("status")
        if isinstance(status, int) and not parts:
            parts.append(str(status))
        said = _message(error)
        if said and (not parts or parts[0] == str(status)):
            parts.append(said)
    return " ".join(parts) or "the model API failed"


def _host(path: JsonValue) -> str:
    """The endpoint's host and port, never its user, query or path (no secret there)."""
    if not isinstance(path, str) or not path:
        return ""
    try:
        split = urlsplit(path)
        host, port = split.hostname or "", split.port
    except ValueError:
        return ""
    return f"{host}:{port}" if host and port else host


def _message(error: JsonObject, depth: int = 0) -> str:
    """The innermost ``message`` of an API error (``error.error.error.message``), one line,
    cut at :data:`_MESSAGE_CHARS`."""
    inner = error.get("error")
    if isinstance(inner, dict) and depth < 4 and (found := _message(inner, depth + 1)):
        return found
    text = error.get("message")
    if not isinstance(text, str) or not text.strip():
        return ""
    return one_line(text, _MESSAGE_CHARS)
