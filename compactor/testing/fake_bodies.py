"""What the fake server answers with: its token estimate, and the JSON bodies of its replies
and refusals.

* :func:`estimate_tokens`: UTF-8 bytes of all message contents // 4 (times a scale), the count
  behind ``max_context_tokens`` and ``usage.prompt_tokens``.
* :func:`completion_body`: a ``chat.completion`` object; :func:`context_length_body`: the HTTP 400
  OpenAI sends when the messages do not fit (``code: context_length_exceeded``);
  :func:`no_tools_body`: what a server without tools answers to tool messages.
* llama-cpp-python 0.3.36's server (``python -m llama_cpp.server``), read from its sources:

  * Its request schema (a pydantic union of system / user / assistant / tool / function
    messages) refuses ``content: null`` on an assistant message, ``content`` that is not a
    string, a role outside the union (``developer``), a ``tool`` message without
    ``tool_call_id``: HTTP **500**, ``{"error": {"message": "7 validation errors:\n  {'type':
    'literal_error', 'loc': ('body', 'messages', 2, 'ChatCompletionRequestSystemMessage',
    'role'), ...}\n ...", "type": "internal_server_error", "param": null, "code": null}}``, one
    entry per union member that failed, for every bad message
    (:func:`llama_cpp_validation_errors`, :func:`llama_validation_body`). Without tools, the
    ``tool``/``function`` roles and ``tool_calls`` are refused the same way.
  * A prompt of the window's size or more: HTTP 400 "This model's maximum context length is N
    tokens. However, you requested M tokens (P in the messages, C in the completion)…",
    ``code: context_length_exceeded`` (:func:`llama_context_body`).
  * A reply longer than the room left (the window minus the prompt, or the request's
    ``max_tokens`` when smaller) is cut there with ``finish_reason: "length"``
    (:func:`llama_cut`).
"""

from __future__ import annotations

import math

from compactor._json import JsonObject, JsonValue

__all__ = [
    "completion_body",
    "context_length_body",
    "estimate_tokens",
    "has_tools",
    "llama_context_body",
    "llama_cpp_validation_errors",
    "llama_cut",
    "llama_validation_body",
    "no_tools_body",
]


def context_length_body(limit: int, tokens: int) -> JsonObject:
    """The body of OpenAI's HTTP 400 for messages of ``tokens`` tokens in a window of ``limit``."""
    return {
        "error": {
            "message": (
                f"This model's maximum context length is {limit} tokens. However, your messages "
                f"resulted in {tokens} tokens. Please reduce the length of the messages."
            ),
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }


def estimate_tokens(body: JsonValue, scale: float = 1.0) -> int:
    """The fake's token estimate of a request: UTF-8 bytes of all message contents // 4, times
    ``scale`` (rounded up).

    A string content counts as is; a list of parts counts the ``text`` of its parts; other
    fields (roles, tool calls) are not counted.
    """
    messages = body.get("messages") if isinstance(body, dict) else None
    size = 0
    for msg in messages if isinstance(messages, list) else []:
        content = msg.get("content") if isinstance(msg, dict) else None
        if isinstance(content, str):
            size += len(content.encode("utf-8"))
        elif isinstance(content, list):
            for part in content:
                text = part.get("text") if isinstance(part, dict) else None
                if isinstance(text, str):
                    size += len(text.encode("utf-8"))
    return size // 4 if scale == 1.0 else math.ceil(size // 4 * scale)


# -- llama-cpp-python's server -----------------------------------------------------------------

_LLAMA_MEMBERS: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (
    # (pydantic model, role literal, ((field, rule), ...)) in llama_types' declaration order;
    # rules: "opt" = required key, str or null; "parts" = required, str, list or null;
    # "str?" = optional key, str when present; "list?" = optional key, a list; "str" = required.
    ("ChatCompletionRequestSystemMessage", "system", (("content", "opt"),)),
    ("ChatCompletionRequestUserMessage", "user", (("content", "parts"),)),
    (
        "ChatCompletionRequestAssistantMessage",
        "assistant",
        (("content", "str?"), ("tool_calls", "list?")),
    ),
    ("ChatCompletionRequestToolMessage", "tool", (("content", "opt"), ("tool_call_id", "str"))),
    ("ChatCompletionRequestFunctionMessage", "function", (("content", "opt"), ("name", "str"))),
)
_PARTS = (
    "list[union[ChatCompletionRequestMessageContentPartText,"
    "ChatCompletionRequestMessageContentPartImage]]"
)
_LLAMA_TRACE = (
    '\n  File "/usr/lib/python3/site-packages/llama_cpp/server/app.py", line 376, in '
    "create_chat_completion\n    POST /v1/chat/completions"
)


def _member_errors(
    i: int, msg: JsonObject, member: tuple[str, str, tuple[tuple[str, str], ...]], tools: bool
) -> list[JsonObject]:
    model, role, fields = member
    loc = ("body", "messages", i, model)
    errors: list[JsonObject] = []
    if "role" not in msg:
        errors.append({"type": "missing", "loc": (*loc, "role"), "msg": "Field required"})
        errors[-1]["input"] = msg
    elif msg["role"] != role:
        errors.append(
            {
                "type": "literal_error",
                "loc": (*loc, "role"),
                "msg": f"Input should be '{role}'",
                "input": msg["role"],
                "ctx": {"expected": f"'{role}'"},
            }
        )
    for name, rule in fields:
        if name == "tool_calls" and not tools:
            if name in msg:
                errors.append(
                    {
                        "type": "extra_forbidden",
                        "loc": (*loc, name),
                        "msg": "Extra inputs are not permitted",
                        "input": msg[name],
                    }
                )
            continue
        if name not in msg:
            if rule in ("opt", "parts", "str"):
                errors.append(
                    {"type": "missing", "loc": (*loc, name), "msg": "Field required", "input": msg}
                )
            continue
        value = msg[name]
        if rule == "list?" and isinstance(value, list):
            errors.extend(_tool_call_errors((*loc, name), value))
            continue
        ok = {
            "opt": value is None or isinstance(value, str),
            "parts": value is None or isinstance(value, str | list),
            "str?": isinstance(value, str),
            "str": isinstance(value, str),
            "list?": isinstance(value, list),
        }[rule]
        if ok:
            continue
        if rule == "parts":  # Optional[Union[str, List[part]]]: one error per union branch
            for branch, kind, what in (
                ("str", "string_type", "a valid string"),
                (_PARTS, "list_type", "a valid list"),
            ):
                errors.append(
                    {
                        "type": kind,
                        "loc": (*loc, name, branch),
                        "msg": f"Input should be {what}",
                        "input": value,
                    }
                )
            continue
        kind = "list_type" if rule == "list?" else "string_type"
        what = "a valid list" if rule == "list?" else "a valid string"
        errors.append(
            {"type": kind, "loc": (*loc, name), "msg": f"Input should be {what}", "input": value}
        )
    return errors


def _field_errors(
    loc: tuple[JsonValue, ...], obj: JsonObject, name: str, literal: str | None = None
) -> list[JsonObject]:
    """A required string field (or one ``literal`` value) of ``obj``, as pydantic reports it."""
    if name not in obj:
        return [{"type": "missing", "loc": (*loc, name), "msg": "Field required", "input": obj}]
    value = obj[name]
    if literal is not None and value != literal:
        return [
            {
                "type": "literal_error",
                "loc": (*loc, name),
                "msg": f"Input should be '{literal}'",
                "input": value,
                "ctx": {"expected": f"'{literal}'"},
            }
        ]
    if literal is None and not isinstance(value, str):
        return [
            {
                "type": "string_type",
                "loc": (*loc, name),
                "msg": "Input should be a valid string",
                "input": value,
            }
        ]
    return []


def _dict_error(loc: tuple[JsonValue, ...], value: JsonValue) -> JsonObject:
    return {
        "type": "dict_type",
        "loc": loc,
        "msg": "Input should be a valid dictionary",
        "input": value,
    }


def _tool_call_errors(loc: tuple[JsonValue, ...], calls: list[JsonValue]) -> list[JsonObject]:
    """``tool_calls`` items: ``{id: str, type: "function", function: {name, arguments}}``."""
    errors: list[JsonObject] = []
    for j, call in enumerate(calls):
        at = (*loc, j)
        if not isinstance(call, dict):
            errors.append(_dict_error(at, call))
            continue
        errors.extend(_field_errors(at, call, "id"))
        errors.extend(_field_errors(at, call, "type", literal="function"))
        if "function" not in call:
            errors.extend(_field_errors(at, call, "function"))
        elif not isinstance(call["function"], dict):
            errors.append(_dict_error((*at, "function"), call["function"]))
        else:
            for name in ("name", "arguments"):
                errors.extend(_field_errors((*at, "function"), call["function"], name))
    return errors


def llama_cpp_validation_errors(body: JsonValue, tools: bool = True) -> list[JsonObject]:
    """The errors llama-cpp-python 0.3.36's request schema finds in ``body["messages"]``: for
    each message no union member accepts, one list of errors per member (pydantic's format)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    members = _LLAMA_MEMBERS if tools else _LLAMA_MEMBERS[:3]
    found: list[JsonObject] = []
    for i, msg in enumerate(messages if isinstance(messages, list) else []):
        if not isinstance(msg, dict):
            found.append(
                {
                    "type": "model_type",
                    "loc": ("body", "messages", i),
                    "msg": "Input should be a valid dictionary",
                    "input": msg,
                }
            )
            continue
        per_member = [_member_errors(i, msg, m, tools) for m in members]
        if all(per_member):
            for errors in per_member:
                found.extend(errors)
    return found


def llama_validation_body(errors: list[JsonObject]) -> JsonObject:
    """llama-cpp-python's HTTP 500 body for the schema's ``errors`` (a count, then one per line)."""
    n = len(errors)
    lines = "".join(f"  {e!r}\n" for e in errors)
    message = f"{n} validation error{'s' if n != 1 else ''}:\n{lines}{_LLAMA_TRACE}"
    return {
        "error": {"message": message, "type": "internal_server_error", "param": None, "code": None}
    }


def llama_context_body(limit: int, prompt: int, completion: int | None) -> JsonObject:
    """llama-cpp-python's HTTP 400 body for a prompt of ``prompt`` tokens (plus ``completion``
    asked for) in a window of ``limit``."""
    return {
        "error": {
            "message": (
                f"This model's maximum context length is {limit} tokens. However, you requested "
                f"{(completion or 0) + prompt} tokens ({prompt} in the messages, {completion} in "
                "the completion). Please reduce the length of the messages or completion."
            ),
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }


def llama_cut(
    window: int | None, scale: float, body: JsonValue, prompt: int, text: str, finish: str
) -> tuple[str, str]:
    """``text`` cut to the room llama.cpp leaves (the window minus the prompt, or the request's
    ``max_tokens`` when smaller), with ``finish_reason: "length"`` when it was cut."""
    room: int | None = None
    if window is not None:
        room = window - prompt
    wanted = body.get("max_tokens") if isinstance(body, dict) else None
    if isinstance(wanted, int) and wanted > 0:
        room = wanted if room is None else min(room, wanted)
    if room is None:
        return text, finish
    data = text.encode("utf-8")
    keep = max(int(room * 4 / scale), 0)
    if len(data) <= keep:
        return text, finish
    return data[:keep].decode("utf-8", "ignore"), "length"


def has_tools(body: JsonValue) -> bool:
    """Whether a request's messages use tools (a ``tool``/``function`` role or ``tool_calls``)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    return any(
        isinstance(m, dict) and (m.get("role") in ("tool", "function") or "tool_calls" in m)
        for m in (messages if isinstance(messages, list) else [])
    )


def no_tools_body() -> JsonObject:
    """What an OpenAI-style server without tool support answers (vLLM-like 400)."""
    return {
        "error": {
            "message": "Invalid value for 'messages': unsupported role 'tool' or 'tool_calls' "
            "(this model does not support tools)",
            "type": "invalid_request_error",
            "param": "messages",
            "code": None,
        }
    }


def completion_body(
    body: JsonValue, choices: list[JsonValue], usage: dict[str, int] | None
) -> JsonObject:
    """A ``chat.completion`` object answering ``body`` (its ``model`` echoed) with ``choices``."""
    model = body.get("model", "fake") if isinstance(body, dict) else "fake"
    out: JsonObject = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": choices,
    }
    if usage is not None:
        out["usage"] = usage
    return out
