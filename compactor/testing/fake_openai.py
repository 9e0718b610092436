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

A script is a JSON list of steps: ``{"reply": "text"}``, ``{"status": 500}``,
``{"status": 429, "headers": {"retry-after": "1"}}``, ``{"hang": true}``, ``{"delay": 0.5}``
(optionally with ``"then": {...}``), ``{"raw": "{not json"}``, ``{"drop": true}``,
``{"empty_choices": true}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

__all__ = [
    "DEFAULT_SUMMARY",
    "FakeOpenAI",
    "RecordedRequest",
    "Step",
    "delay",
    "drop",
    "empty_choices",
    "hang",
    "main",
    "raw",
    "reply",
    "status",
    "step_from_dict",
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
    text: str = ""
    usage: dict[str, int] | None = None
    finish_reason: str = "stop"
    role: str = "assistant"
    code: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    seconds: float = 0.0
    then: Step | None = None


def reply(
    text: str,
    usage: dict[str, int] | None = None,
    finish_reason: str = "stop",
    role: str = "assistant",
) -> Step:
    """A 200 chat completion with one choice whose message content is ``text``."""
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


def empty_choices() -> Step:
    """A 200 chat completion with ``choices: []``."""
    return Step("empty_choices")


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
    if d.get("empty_choices"):
        return empty_choices()
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


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    # Keep-alive: a client reuses its connections (and this server its threads) across requests,
    # so the fake is not what limits a benchmark. Every response has a content-length.
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle's algorithm on, the body would wait for
    # the client's delayed ACK (40 ms) on a kept-alive connection.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        self._send_json(404, {"error": {"message": f"no route {self.path!r}", "type": "fake"}})

    def do_POST(self) -> None:
        fake = self.server.fake
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
        if self.path.split("?", 1)[0] not in _PATHS:
            self._send_json(404, {"error": {"message": f"no route {self.path!r}", "type": "fake"}})
            return
        step, release = fake._next_step()
        if fake.latency > 0 and release.wait(fake.latency):
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
        elif step.kind == "raw":
            self._send_bytes(200, step.body or b"", {})
        elif step.kind == "status":
            self._send_bytes(step.code, step.body or b"", step.headers)
        elif step.kind == "empty_choices":
            self._send_json(200, _completion(body, [], None))
        else:
            prompt = len(json.dumps(body)) // 4 if body is not None else 0
            usage = step.usage or {
                "prompt_tokens": prompt,
                "completion_tokens": len(step.text) // 4,
                "total_tokens": prompt + len(step.text) // 4,
            }
            choice = {
                "index": 0,
                "message": {"role": step.role, "content": step.text},
                "finish_reason": step.finish_reason,
            }
            self._send_json(200, _completion(body, [choice], usage))

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
    ) -> None:
        self.default = default or reply(DEFAULT_SUMMARY)
        self.latency = latency
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._steps: deque[Step] = deque()
        self._requests: list[RecordedRequest] = []
        self._release = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

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
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--script", help="JSON file: a list of steps used in order")
    parser.add_argument("--default", help="reply text used when the script is exhausted")
    args = parser.parse_args(argv)
    default = reply(args.default) if args.default is not None else None
    fake = FakeOpenAI(default=default, latency=args.latency, host=args.host, port=args.port)
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
