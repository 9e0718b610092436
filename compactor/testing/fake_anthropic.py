"""A fake of Anthropic's Messages API (``POST /v1/messages``) on 127.0.0.1, scripted step by step.

The same machinery and the same steps as :class:`~compactor.testing.fake_openai.FakeOpenAI`
(errors, ``Retry-After``, hangs, resets, drips, gzip bombs, bad JSON, redirects, echoed
headers: :mod:`compactor.testing.fake_steps`); only what a reply and a refusal look like differ:

* a ``reply`` step answers a Messages API ``message``: ``content: [{"type": "text", ...}]``,
  ``stop_reason`` from the step's ``finish_reason`` (``stop`` → ``end_turn``, ``length`` →
  ``max_tokens``, ``content_filter`` → ``refusal``), ``usage: {input_tokens, output_tokens}``;
  ``empty_choices`` answers ``content: []``;
* ``max_context_tokens``: a request estimated above it (its messages' text and its ``system``,
  bytes // 4) gets Anthropic's HTTP 400 ``prompt is too long: N tokens > M maximum``
  (:func:`context_length_error` scripts one), before any step is used;
* :func:`overloaded` is the 529 ``overloaded_error`` Anthropic answers under load.

Its :attr:`~FakeAnthropic.base_url` has no ``/v1`` (the SDK adds it), for ``ANTHROPIC_BASE_URL``.
``python -m compactor.testing.fake_anthropic --port 0 --script script.json`` runs it standalone.
"""

from __future__ import annotations

import argparse
import math
import threading
from typing import TypedDict, Unpack

from compactor._json import JsonObject, JsonValue
from compactor.testing.fake_bodies import estimate_tokens
from compactor.testing.fake_openai import FakeOpenAI
from compactor.testing.fake_server import FakeHandler
from compactor.testing.fake_steps import Step, status

__all__ = [
    "FakeAnthropic",
    "context_length_body",
    "context_length_error",
    "error_body",
    "main",
    "overloaded",
]

STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "content_filter": "refusal"}
"""A step's ``finish_reason`` → the ``stop_reason`` answered."""


def error_body(etype: str, message: str) -> JsonObject:
    """Anthropic's error body: ``{"type": "error", "error": {"type": ..., "message": ...}}``."""
    return {"type": "error", "error": {"type": etype, "message": message}}


def context_length_body(limit: int, tokens: int) -> JsonObject:
    """The body of Anthropic's HTTP 400 for a prompt of ``tokens`` tokens in a window of
    ``limit``."""
    return error_body(
        "invalid_request_error", f"prompt is too long: {tokens} tokens > {limit} maximum"
    )


def context_length_error(limit: int = 200_000, tokens: int = 210_000) -> Step:
    """The HTTP 400 Anthropic answers when the prompt does not fit the model's window."""
    return status(400, body=context_length_body(limit, tokens))


def overloaded(headers: dict[str, str] | None = None) -> Step:
    """The HTTP 529 ``overloaded_error`` Anthropic answers when it is overloaded."""
    return status(529, headers, error_body("overloaded_error", "Overloaded"))


class AnthropicHandler(FakeHandler):
    """Answers ``POST /v1/messages`` from the script, as the Messages API would."""

    paths = frozenset({"/v1/messages"})

    def _tokens(self, body: JsonValue) -> int:
        tokens = estimate_tokens(body, self.server.fake.token_scale)
        system = body.get("system") if isinstance(body, dict) else None
        if isinstance(system, str):
            tokens += math.ceil(len(system.encode("utf-8")) // 4 * self.server.fake.token_scale)
        return tokens

    def _context_length_body(self, limit: int, tokens: int) -> JsonValue:
        return context_length_body(limit, tokens)

    def _message(
        self, body: JsonValue, content: JsonValue, stop: str, usage: dict[str, int]
    ) -> JsonValue:
        model = body.get("model", "fake") if isinstance(body, dict) else "fake"
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }

    def _empty_body(self, body: JsonValue) -> JsonValue:
        return self._message(body, [], "end_turn", {"input_tokens": 0, "output_tokens": 0})

    def _reply(self, step: Step, body: JsonValue) -> None:
        fake = self.server.fake
        prompt = self._tokens(body)
        text = step.text or ""
        stop = STOP_REASONS.get(step.finish_reason, step.finish_reason)
        wanted = body.get("max_tokens") if isinstance(body, dict) else None
        if isinstance(wanted, int) and wanted > 0 and len(text.encode("utf-8")) > wanted * 4:
            # the reply runs into the request's max_tokens: cut there, as the API does
            text = text.encode("utf-8")[: wanted * 4].decode("utf-8", "ignore")
            stop = "max_tokens"
        written = math.ceil(len(text.encode("utf-8")) // 4 * fake.token_scale)
        usage = step.usage or {"input_tokens": prompt, "output_tokens": written}
        if step.content is not None:
            content = step.content
        else:
            content = [{"type": "text", "text": text}] if step.text is not None else []
        message = self._message(body, content, stop, usage)
        if step.role != "assistant":
            message["role"] = step.role
        self._send_json(200, message)


class FakeOptions(TypedDict, total=False):
    """:class:`FakeOpenAI`'s keyword arguments but ``flavor`` (this fake's is ``anthropic``)."""

    default: Step | None
    latency: float
    host: str
    port: int
    max_context_tokens: int | None
    tools: bool
    token_scale: float


class FakeAnthropic(FakeOpenAI):
    """A scriptable fake of the Messages API; see the module docstring."""

    handler = AnthropicHandler

    def __init__(self, **kwargs: Unpack[FakeOptions]) -> None:
        super().__init__(**kwargs)
        self.flavor = "anthropic"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` (the SDK adds ``/v1/messages``)."""
        return f"http://{self._host}:{self.port}"


def main(argv: list[str] | None = None, *, until: threading.Event | None = None) -> int:
    """Run the fake standalone: print ``base_url`` then serve until killed (or, for a caller
    that runs it in a thread, until ``until`` is set)."""
    parser = argparse.ArgumentParser(prog="python -m compactor.testing.fake_anthropic")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--script", help="JSON file: a list of steps used in order")
    parser.add_argument("--max-context-tokens", type=int, default=None, metavar="N")
    args = parser.parse_args(argv)
    fake = FakeAnthropic(
        port=args.port, latency=args.latency, max_context_tokens=args.max_context_tokens
    )
    return fake.serve_standalone(args.script, parser, until)


if __name__ == "__main__":
    raise SystemExit(main())
