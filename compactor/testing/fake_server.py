"""The fake's HTTP side: a threading server on real sockets and the handler that answers.

:class:`FakeHandler` answers ``POST /v1/chat/completions`` (and ``/chat/completions``): it
records the request (:class:`RecordedRequest`, without the ``Authorization`` credentials),
refuses what the server's flavor refuses (llama-cpp-python's schema, a server without tools, a
prompt over the context window) before using a scripted step, waits out the latency (counted
from the request's arrival), then plays the step: a reply, a status, a delay, a hang, a drop, a
TCP reset, a truncated body, a drip, a gzip bomb, ... JsonValue other path is a 404.

:class:`FakeServer` keeps connections alive (a client reuses them, as the openai client does),
accepts a burst of connections (backlog 128), hides the tracebacks of clients that hang up, and
closes a ``reset`` step's connection with RST instead of FIN.

What the handler reads and updates lives in the object it serves (:class:`Script`, which
:class:`~compactor.testing.fake_openai.FakeOpenAI` is): the flavor, the window, the latency, the
step queue, the recorded requests and the in-flight count.
"""

from __future__ import annotations

import io
import json
import math
import socket
import struct
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Protocol

from compactor._json import JsonValue
from compactor.testing.fake_bodies import (
    completion_body,
    context_length_body,
    estimate_tokens,
    has_tools,
    llama_context_body,
    llama_cpp_validation_errors,
    llama_cut,
    llama_validation_body,
    no_tools_body,
)
from compactor.testing.fake_steps import Step, gzip_bomb_body, reply

__all__ = ["FakeHandler", "FakeServer", "RecordedRequest", "Script"]

_PATHS = frozenset({"/v1/chat/completions", "/chat/completions"})
_CREDENTIALS = frozenset({"authorization", "x-api-key"})
"""Headers never recorded (their values are the client's credentials)."""


@dataclass(slots=True)
class RecordedRequest:
    """One request the fake received; ``headers`` never contain ``authorization`` or
    ``x-api-key``."""

    method: str
    path: str
    headers: dict[str, str]
    json: JsonValue
    peer: str = ""
    """The client's ``host:port``: equal peers = one kept-alive connection."""
    auth_scheme: str | None = None
    """The Authorization header's scheme (``Bearer``), never its credentials; None if absent."""


class Script(Protocol):
    """What the handler reads and updates in the fake it serves (``FakeServer.fake``)."""

    default: Step
    latency: float
    max_context_tokens: int | None
    flavor: str
    tools: bool
    token_scale: float

    def request_started(self) -> None:
        """A POST arrived: count it in flight."""

    def request_finished(self) -> None:
        """A POST was answered (or given up): no longer in flight."""

    def record(self, request: RecordedRequest) -> None:
        """Keep ``request`` for :attr:`FakeOpenAI.requests`."""

    def next_step(self) -> tuple[Step, threading.Event]:
        """The step to play (the next queued one, else ``default``) and the event that a reset
        or stop sets to release it."""
        ...


class FakeServer(ThreadingHTTPServer):
    """A ``ThreadingHTTPServer`` for :class:`FakeHandler`, serving ``fake``."""

    daemon_threads = True
    # socketserver's default backlog of 5 overflows when a batch opens 16+ connections at once:
    # the kernel drops the handshakes and clients see resets or wait a second to retry.
    request_queue_size = 128
    fake: Script

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self.resets: set[socket.socket] = set()
        """Connections a ``reset`` step aborts: closed without the FIN of a normal shutdown."""

    def handle_error(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: object
    ) -> None:
        """A client that hangs up (a deadline, a refused body) is normal here: no traceback."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def shutdown_request(self, request: socket.socket | tuple[bytes, socket.socket]) -> None:
        if request in self.resets:
            self.resets.discard(request)
            self.close_request(request)  # SO_LINGER 0: the close sends RST
            return
        super().shutdown_request(request)


class FakeHandler(BaseHTTPRequestHandler):
    """Answers one connection's requests from the script of ``server.fake``."""

    server: FakeServer
    paths: frozenset[str] = _PATHS
    """The paths answered (any other is a 404)."""
    # Keep-alive: a client reuses its connections (and this server its threads) across requests,
    # so the fake is not what limits a benchmark. Every response has a content-length.
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle's algorithm on, the body would wait for
    # the client's delayed ACK (40 ms) on a kept-alive connection.
    disable_nagle_algorithm = True
    _all_headers: dict[str, str]
    """Every header of the request being answered (for ``echo_headers``)."""

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_GET(self) -> None:
        self._send_json(404, {"error": {"message": f"no route {self.path!r}", "type": "fake"}})

    def do_POST(self) -> None:
        fake = self.server.fake
        arrived = time.monotonic()
        fake.request_started()
        try:
            self._post(fake, arrived)
        finally:
            fake.request_finished()

    def _post(self, fake: Script, arrived: float) -> None:
        length = int(self.headers.get("content-length") or 0)
        data = self.rfile.read(length) if length else b""
        try:
            body: JsonValue = json.loads(data) if data else None
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in self.headers.items() if k.lower() not in _CREDENTIALS}
        peer = "{}:{}".format(*self.client_address[:2])
        auth = self.headers.get("authorization")
        scheme = auth.split(" ", 1)[0] if auth else None
        fake.record(RecordedRequest("POST", self.path, headers, body, peer, scheme))
        self._all_headers = {k.lower(): v for k, v in self.headers.items()}
        if self.path.split("?", 1)[0] not in self.paths:
            self._send_json(404, {"error": {"message": f"no route {self.path!r}", "type": "fake"}})
            return
        if fake.flavor == "llama-cpp":
            errors = llama_cpp_validation_errors(body, fake.tools)
            if errors:  # FastAPI validates the body before the handler runs
                self._send_json(500, llama_validation_body(errors))
                return
        elif not fake.tools and has_tools(body):
            self._send_json(400, no_tools_body())
            return
        limit = fake.max_context_tokens
        tokens = self._tokens(body)
        if limit is not None and fake.flavor == "llama-cpp" and tokens >= limit:
            # llama.cpp: "Requested tokens (P) exceed context window of N", reworded.
            completion = body.get("max_tokens") if isinstance(body, dict) else None
            wanted = completion if isinstance(completion, int) else None
            self._send_json(400, llama_context_body(limit, tokens, wanted))
            return
        if limit is not None and tokens > limit:
            # A real server refuses before generating: no scripted step is used up.
            self._send_json(400, self._context_length_body(limit, tokens))
            return
        step, release = fake.next_step()
        # The latency counts from the request's arrival, so the fake's own parsing (and its
        # threads' turns at the GIL under load) is not added on top of it.
        wait = fake.latency - (time.monotonic() - arrived)
        if wait > 0 and release.wait(wait):
            self.close_connection = True
            return
        self._run(step, body, release)

    def _run(self, step: Step, body: JsonValue, release: threading.Event) -> None:
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
            self._send_json(200, self._empty_body(body))
        elif step.kind == "drip":
            self._drip(step, body, release)
        elif step.kind == "gzip_bomb":
            data = gzip_bomb_body(step.size)
            self._send_bytes(step.code, data, {"content-encoding": "gzip"})
        elif step.kind == "echo_headers":
            echo = "<summary>\nrequest headers: " + json.dumps(self._all_headers) + "\n</summary>"
            self._run(reply(echo), body, release)
        else:
            self._reply(step, body)

    # -- what a reply and a refusal look like (a fake of another API overrides these) ----------

    def _tokens(self, body: JsonValue) -> int:
        """The fake's token estimate of a request (see :func:`estimate_tokens`)."""
        return estimate_tokens(body, self.server.fake.token_scale)

    def _context_length_body(self, limit: int, tokens: int) -> JsonValue:
        """The HTTP 400 body of a request over the window."""
        return context_length_body(limit, tokens)

    def _empty_body(self, body: JsonValue) -> JsonValue:
        """A 200 body with no reply in it (``choices: []``)."""
        return completion_body(body, [], None)

    def _reply(self, step: Step, body: JsonValue) -> None:
        """Answer a ``reply`` step: a chat completion."""
        fake = self.server.fake
        prompt = self._tokens(body)
        text, finish = step.text, step.finish_reason
        if fake.flavor == "llama-cpp" and text:
            text, finish = llama_cut(
                fake.max_context_tokens, fake.token_scale, body, prompt, text, finish
            )
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
        self._send_json(200, completion_body(body, [choice], usage))

    def _response_bytes(self, step: Step, body: JsonValue) -> tuple[bytes, bytes]:
        """(status line + headers, body) of ``step`` as this handler would send them."""
        real_wfile = self.wfile
        buffer = io.BytesIO()
        self.wfile = buffer
        try:
            self._run(step, body, threading.Event())
        finally:
            self.wfile = real_wfile
        head, _, payload = buffer.getvalue().partition(b"\r\n\r\n")
        return head + b"\r\n\r\n", payload

    def _drip(self, step: Step, body: JsonValue, release: threading.Event) -> None:
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

    def _send_json(self, code: int, payload: JsonValue) -> None:
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
