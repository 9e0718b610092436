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

This module owns :class:`FakeOpenAI` (its settings, the step queue, the recorded requests, the
in-flight count, starting and stopping) and the standalone :func:`main`, and re-exports what
scripts and tests build it with. The rest lives beside it:

* :mod:`compactor.testing.fake_steps`: the steps (:func:`reply`, :func:`status`, :func:`hang`,
  :func:`reset_connection`, :func:`drip`, :func:`gzip_bomb`, ...) and the ``--script`` JSON
  format (:func:`step_from_dict`).
* :mod:`compactor.testing.fake_server`: the HTTP server and the handler that plays the steps.
* :mod:`compactor.testing.fake_bodies`: the token estimate and the JSON bodies answered.

``max_context_tokens`` (``--max-context-tokens``) makes the fake behave like a model with a
context window: a request whose messages hold more than that many estimated tokens (UTF-8 bytes
of all message contents // 4, see :func:`estimate_tokens`) is refused with HTTP 400 and the
error body OpenAI sends (``code: context_length_exceeded``), before any scripted step is used.
``token_scale`` (``--token-scale``) multiplies that count, like a tokenizer that needs more
tokens than compact's estimate (SmolLM2's counts ~2.5x bytes/4 on some text); replies report it
as ``usage.prompt_tokens``.

``flavor="llama-cpp"`` (``--flavor llama-cpp``) answers the way llama-cpp-python 0.3.36's server
(``python -m llama_cpp.server``) does (see :mod:`compactor.testing.fake_bodies`): its request
schema refuses ``content: null``, non-string content, unknown roles and tool messages without
``tool_call_id`` with HTTP 500 and pydantic's list of validation errors; a prompt of
``max_context_tokens`` tokens or more gets its HTTP 400; a reply longer than the room left is cut
with ``finish_reason: "length"``. ``tools=False`` (``--no-tools``) models a chat server without
tools: ``tool``/``function`` roles and ``tool_calls`` are refused.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections import deque
from types import TracebackType
from typing import Self

from compactor.testing.fake_bodies import estimate_tokens, llama_cpp_validation_errors
from compactor.testing.fake_server import FakeHandler, FakeServer, RecordedRequest
from compactor.testing.fake_steps import (
    DEFAULT_SUMMARY,
    ESCAPES,
    Step,
    content_filter,
    context_length_error,
    delay,
    drip,
    drop,
    echo_headers,
    empty_choices,
    escape_error,
    gzip_bomb,
    gzip_bomb_body,
    hang,
    raw,
    redirect,
    reply,
    reply_content,
    reset_connection,
    retry_after,
    status,
    step_from_dict,
    truncated,
)

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
    "redirect",
    "reply",
    "reply_content",
    "reset_connection",
    "retry_after",
    "status",
    "step_from_dict",
    "truncated",
]


class FakeOpenAI:
    """A scriptable fake chat-completions server; see the module docstring."""

    handler: type[FakeHandler] = FakeHandler
    """The request handler (a fake of another API answers with its own)."""

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
        self._server: FakeServer | None = None
        self._thread: threading.Thread | None = None
        self._in_flight = 0
        self._peak = 0

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind and serve in a daemon thread; returns self."""
        if self._server is not None:
            return self
        server = FakeServer((self._host, self._port), self.handler)
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
        """Release hanging requests and forget queued steps and recorded requests;
        :attr:`peak_in_flight` starts again from the requests still in flight."""
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

    @property
    def queued(self) -> int:
        """Steps queued and not yet taken by a request."""
        with self._lock:
            return len(self._steps)

    @property
    def in_flight(self) -> int:
        """The POST requests being answered right now. A handler finishes its bookkeeping just
        after its client got the answer, so wait for this to reach 0 before :meth:`reset` when
        :attr:`peak_in_flight` must start from 0."""
        with self._lock:
            return self._in_flight

    # -- the handler's side (see compactor.testing.fake_server.Script) -------------------------

    def request_started(self) -> None:
        """A POST arrived: count it in flight."""
        with self._lock:
            self._in_flight += 1
            self._peak = max(self._peak, self._in_flight)

    def request_finished(self) -> None:
        """A POST was answered (or given up): no longer in flight."""
        with self._lock:
            self._in_flight -= 1

    def record(self, request: RecordedRequest) -> None:
        """Keep ``request`` for :attr:`requests`."""
        with self._lock:
            self._requests.append(request)

    def next_step(self) -> tuple[Step, threading.Event]:
        """The step to play (the next queued one, else ``default``) and the event that
        :meth:`reset` or :meth:`stop` sets to release it."""
        with self._lock:
            step = self._steps.popleft() if self._steps else self.default
            return step, self._release

    def serve_standalone(
        self,
        script: str | None,
        parser: argparse.ArgumentParser,
        until: threading.Event | None = None,
    ) -> int:
        """The standalone entry points' loop: queue ``script`` (a JSON file holding a list of
        steps), start, print ``base_url`` as the first stdout line, serve until killed (or
        until ``until`` is set); 0."""
        if script:
            with open(script, encoding="utf-8") as fh:
                steps = json.load(fh)
            if not isinstance(steps, list):
                parser.error("--script must hold a JSON list of steps")
            self.enqueue(*(step_from_dict(s) for s in steps))
        self.start()
        sys.stdout.write(self.base_url + "\n")
        sys.stdout.flush()
        try:
            (until if until is not None else threading.Event()).wait()
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()
        return 0


def main(argv: list[str] | None = None, *, until: threading.Event | None = None) -> int:
    """Run the fake standalone: print ``base_url`` then serve until killed (or, for a caller
    that runs it in a thread, until ``until`` is set)."""
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
    return fake.serve_standalone(args.script, parser, until)


if __name__ == "__main__":
    raise SystemExit(main())
