"""The OpenAI request body built once (issue 34): serialised a message at a time, the same bytes
every read, what the server receives, and what the summary cache keys on."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

import compactor as c
from compactor.models.openai import OpenAIModel
from compactor.models.openai_wire import RequestBody, to_wire
from compactor.pipeline.cache import SummaryCache, request_key
from compactor.schema import Message, ToolCall
from compactor.testing.fake_openai import FakeOpenAI, reply, status

KEY = "sk-test-body-0123456789"


def _history(n: int = 400) -> list[Message]:
    out = [Message("system", "sys")]
    for i in range(n):
        out.append(Message("user", f"step {i}: héllo 🚀 " + "x" * (i % 700)))
        call = ToolCall(f"c{i}", "run", json.dumps({"cmd": f"ls {i}"}))
        out.append(Message("assistant", "", tool_calls=[call]))
        out.append(Message("tool", f"out {i}\n" * 30, tool_call_id=f"c{i}"))
    return out


def test_the_body_is_the_request_as_json_in_pieces() -> None:
    messages = _history()
    params = {"temperature": 0.2, "max_tokens": 50, "extra_body": {"top_k": 3, "model": "m2"}}
    body = RequestBody("m", messages, {**params, "extra_headers": {"x-a": "b"}})
    data = bytes(body)
    expected = {"model": "m2", "messages": to_wire(messages), "temperature": 0.2}
    assert json.loads(data) == {**expected, "max_tokens": 50, "top_k": 3}
    pieces = list(body.pieces())
    assert len(pieces) > 1 and all(len(p) < 2 * RequestBody.PIECE for p in pieces)
    assert b"".join(body.pieces()) == data  # the same bytes every time
    assert body.length == len(data)
    assert body.sha256 == hashlib.sha256(data).hexdigest()


def test_extra_body_may_replace_the_messages() -> None:
    body = RequestBody("m", _history(3), {"extra_body": {"messages": [{"role": "user"}]}})
    assert json.loads(bytes(body)) == {"model": "m", "messages": [{"role": "user"}]}


def test_a_lone_surrogate_is_written_as_an_escape() -> None:
    body = RequestBody("m", [Message("user", "bad \ud800 text")], {})
    assert json.loads(bytes(body))["messages"][0]["content"] == "bad \ud800 text"
    assert bytes(body).isascii()


def test_the_cache_key_hashes_the_bytes_sent(tmp_path: Path) -> None:
    model = OpenAIModel("gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key=KEY)
    messages = _history(20)
    key, body = request_key(model, model.name, {"temperature": 0.1}, messages)
    again, _ = request_key(model, model.name, {"temperature": 0.1}, list(messages))
    other, _ = request_key(model, model.name, {"temperature": 0.2}, messages)
    changed = [*messages[:-1], Message("tool", "another output", tool_call_id="c19")]
    edited, _ = request_key(model, model.name, {"temperature": 0.1}, changed)
    assert isinstance(body, RequestBody)
    assert key == again and len({key, other, edited}) == 3


def test_retries_send_the_body_built_once(fake: FakeOpenAI, monkeypatch: Any) -> None:
    """One body per input and model: its three attempts read the same one."""
    built: list[RequestBody] = []
    real = OpenAIModel.request_body

    def counting(self: OpenAIModel, messages: list[Any], **options: Any) -> RequestBody:
        body = real(self, messages, **options)
        built.append(body)
        return body

    monkeypatch.setattr(OpenAIModel, "request_body", counting)
    fake.enqueue(status(500), status(502), reply("<summary>ok</summary>"))
    model = OpenAIModel("gpt-4o-mini", base_url=fake.base_url, api_key=KEY)
    config = c.Config(
        model=model, retry=c.RetryConfig(max_retries=2, backoff=lambda *a: 0.0), cache=None
    )
    history = _history(30)
    asyncio.run(c.new(config).summarize(c.AgentState(history)))
    assert len(fake.requests) == 3 and len(built) == 1
    assert all(r.json == json.loads(bytes(built[0])) for r in fake.requests)


def test_a_cached_reply_is_found_by_the_body_key(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.enqueue(reply("<summary>first</summary>"))
    model = OpenAIModel("gpt-4o-mini", base_url=fake.base_url, api_key=KEY)
    config = c.Config(model=model, cache=SummaryCache(tmp_path / "cache"))
    history = _history(10)
    for _ in range(2):
        asyncio.run(c.new(config).summarize(c.AgentState(history)))
    assert len(fake.requests) == 1
