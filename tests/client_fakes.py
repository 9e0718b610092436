"""Loopback fakes of the two APIs the agent clients talk to, recording every request.

* :class:`FakeAnthropic` — the Messages API (``POST /v1/messages``, streaming SSE or JSON, and
  ``/v1/messages/count_tokens``), as Claude Code calls it with ``ANTHROPIC_BASE_URL``.
* :class:`FakeResponses` — the OpenAI Responses API (``POST /v1/responses``, streaming SSE) and
  its compaction endpoint (``POST /v1/responses/compact``), as Codex calls it with
  ``openai_base_url``.

Both answer every model request with the same short text and serve on 127.0.0.1 only; anything
else gets a 404 (and is recorded too, so a test sees what a client tried).
"""

from __future__ import annotations

import gzip
import json
import threading
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

__all__ = ["REPLY", "FakeAnthropic", "FakeResponses", "Recorded"]

REPLY = "FAKE-MODEL-REPLY ok."


@dataclass(slots=True)
class Recorded:
    """One request as the fake received it (without credentials)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    """The JSON body (None when there was none or it was not JSON)."""
    raw: bytes = field(repr=False, default=b"")


_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "cookie"})


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, owner: _Fake) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _body(self) -> bytes:
        length = int(self.headers.get("content-length") or 0)
        data = self.rfile.read(length) if length else b""
        encoding = (self.headers.get("content-encoding") or "").lower()
        if encoding == "gzip":
            data = gzip.decompress(data)
        elif encoding == "deflate":
            data = zlib.decompress(data)
        return data

    def _handle(self) -> None:
        raw = self._body()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {
            k.lower(): v for k, v in self.headers.items() if k.lower() not in _SECRET_HEADERS
        }
        rec = Recorded(self.command, self.path, headers, body, raw)
        owner = self.server.owner
        with owner.lock:
            owner.requests.append(rec)
        status, content_type, payload = owner.respond(rec)
        self.send_response(status)
        self.send_header("content-type", content_type)
        if content_type == "text/event-stream":
            self.send_header("cache-control", "no-cache")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _handle


class _Fake:
    """Threaded server lifecycle shared by both fakes."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.lock = threading.Lock()
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def reset(self) -> None:
        with self.lock:
            self.requests.clear()

    def respond(self, rec: Recorded) -> tuple[int, str, bytes]:
        raise NotImplementedError


def _sse(events: list[tuple[str, Any]]) -> bytes:
    return b"".join(
        f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events
    )


def _not_found(rec: Recorded) -> tuple[int, str, bytes]:
    body = {"error": {"type": "not_found_error", "message": f"no route {rec.path}"}}
    return 404, "application/json", json.dumps(body).encode()


class FakeAnthropic(_Fake):
    """The Anthropic Messages API, answering every request with :data:`REPLY`."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def model_requests(self) -> list[Recorded]:
        """The ``POST /v1/messages`` requests, in arrival order."""
        return [
            r
            for r in self.requests
            if r.method == "POST" and r.path.split("?")[0].rstrip("/") == "/v1/messages"
        ]

    def respond(self, rec: Recorded) -> tuple[int, str, bytes]:
        path = rec.path.split("?")[0].rstrip("/")
        body = rec.body if isinstance(rec.body, dict) else {}
        if rec.method == "POST" and path == "/v1/messages/count_tokens":
            size = len(json.dumps(body.get("messages", ""))) // 4
            return 200, "application/json", json.dumps({"input_tokens": size}).encode()
        if rec.method != "POST" or path != "/v1/messages":
            return _not_found(rec)
        with self.lock:
            n = len(self.model_requests())
        model = str(body.get("model") or "claude-fake")
        usage = {
            "input_tokens": 100,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 5,
        }
        message = {
            "id": f"msg_fake{n:04d}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": REPLY}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": usage,
        }
        if not body.get("stream"):
            return 200, "application/json", json.dumps(message).encode()
        start = {
            **message,
            "content": [],
            "stop_reason": None,
            "usage": {**usage, "output_tokens": 1},
        }
        events = [
            ("message_start", {"type": "message_start", "message": start}),
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": REPLY},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 5},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        return 200, "text/event-stream", _sse(events)


class FakeResponses(_Fake):
    """The OpenAI Responses API, answering every request with :data:`REPLY`."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def model_requests(self) -> list[Recorded]:
        """The ``POST /v1/responses`` requests, in arrival order."""
        return [
            r
            for r in self.requests
            if r.method == "POST" and r.path.split("?")[0].rstrip("/") == "/v1/responses"
        ]

    def compaction_requests(self) -> list[Recorded]:
        """Requests to the remote compaction endpoint."""
        return [r for r in self.requests if "/responses/compact" in r.path]

    def respond(self, rec: Recorded) -> tuple[int, str, bytes]:
        path = rec.path.split("?")[0].rstrip("/")
        if rec.method == "GET" and path == "/v1/models":
            models = {"object": "list", "data": [{"id": "gpt-5.5", "object": "model"}]}
            return 200, "application/json", json.dumps(models).encode()
        if rec.method == "POST" and path == "/v1/responses/compact":
            output = {
                "output": [
                    {"type": "compaction", "id": "cmp_fake", "encrypted_content": "FAKE-COMPACTION"}
                ]
            }
            return 200, "application/json", json.dumps(output).encode()
        if rec.method != "POST" or path != "/v1/responses":
            return _not_found(rec)
        with self.lock:
            n = len(self.model_requests())
        item = {
            "type": "message",
            "id": f"msg_fake{n:04d}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": REPLY, "annotations": []}],
        }
        usage = {
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 105,
        }
        response = {"id": f"resp_fake{n:04d}", "object": "response", "status": "in_progress"}
        done = {**response, "status": "completed", "output": [item], "usage": usage}
        events = [
            (
                "response.created",
                {"type": "response.created", "response": {**response, "output": []}},
            ),
            (
                "response.output_item.added",
                {
                    "type": "response.output_item.added",
                    "output_index": 0,
                    "item": {**item, "content": []},
                },
            ),
            (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "output_index": 0,
                    "content_index": 0,
                    "delta": REPLY,
                },
            ),
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            ),
            ("response.completed", {"type": "response.completed", "response": done}),
        ]
        return 200, "text/event-stream", _sse(events)
