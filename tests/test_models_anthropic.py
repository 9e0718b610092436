"""AnthropicModel against the real-socket fake Messages API: wire format, stops, error kinds,
the response cap, redirects, the deadline and secrets.

The modules that import the anthropic SDK (~1.1 s of CPU) are imported by the tests, not at
collection: every test worker collects this module, one runs it (``tests/conftest.py``
``ONE_WORKER``)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from compactor.errors import ConfigError, ModelError
from compactor.models.anthropic_wire import to_request
from compactor.models.registry import create_model, model_from_config
from compactor.schema import AgenticMessage, Block, Message, ToolCall
from compactor.testing.fake_anthropic import FakeAnthropic, context_length_error, overloaded
from compactor.testing.fake_steps import (
    drip,
    echo_headers,
    empty_choices,
    gzip_bomb,
    gzip_bomb_body,
    raw,
    redirect,
    reply,
    retry_after,
    status,
    truncated,
)

if TYPE_CHECKING:
    from compactor.models.anthropic import AnthropicModel

pytestmark = pytest.mark.anyio

KEY = "sk-ant-test-SECRETKEY1234567890abcdef"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def server() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as fake:
        yield fake


@pytest.fixture
def fake(server: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropic]:
    server.reset()
    for var in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "HTTP_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    yield server
    server.reset()


def model(
    fake: FakeAnthropic, timeout: float = 10.0, max_response_bytes: int = 1 << 24
) -> AnthropicModel:
    from compactor.models.anthropic import AnthropicModel

    return AnthropicModel(
        "claude-test",
        base_url=fake.base_url,
        api_key=KEY,
        timeout=timeout,
        max_response_bytes=max_response_bytes,
    )


def chat() -> list[Message]:
    return [
        Message(role="system", content="You summarize."),
        Message(role="user", content="hello"),
        Message(
            role="assistant",
            content="let me look",
            tool_calls=[ToolCall("c1", "read_file", '{"path": "a.py"}')],
        ),
        Message(role="tool", content="print(1)", tool_call_id="c1", tool_name="read_file"),
        Message(role="user", content="Summarize the conversation."),
    ]


async def expect_error(m: AnthropicModel) -> ModelError:
    with pytest.raises(ModelError) as info:
        await m.generate(chat())
    return info.value


async def test_reply_and_the_request_on_the_wire(fake: FakeAnthropic) -> None:
    from compactor.models.anthropic import DEFAULT_MAX_TOKENS

    fake.enqueue(reply("<summary>done</summary>"))
    out = await model(fake).generate(chat(), temperature=0.2, stop="END")
    assert isinstance(out, Message)
    assert (out.role, out.content, out.finish_reason) == (
        "assistant",
        "<summary>done</summary>",
        "stop",
    )
    assert out.usage is not None and out.usage.completion_tokens > 0
    (req,) = fake.requests
    assert req.path == "/v1/messages"
    body = req.json
    assert body["model"] == "claude-test"
    assert body["system"] == "You summarize."
    assert body["max_tokens"] == DEFAULT_MAX_TOKENS  # required by the API: always sent
    assert body["temperature"] == 0.2 and body["stop_sequences"] == ["END"]
    # tool calls and results as text; the tool result and the next user turn are merged
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assistant = body["messages"][1]["content"][0]["text"]
    assert 'read_file({"path": "a.py"})' in assistant
    texts = [b["text"] for b in body["messages"][2]["content"]]
    assert texts == ["[read_file result]\nprint(1)", "Summarize the conversation."]
    assert "anthropic-version" in req.headers
    assert "x-api-key" not in req.headers and "authorization" not in req.headers


async def test_agentic_messages_and_max_completion_tokens(fake: FakeAnthropic) -> None:
    fake.enqueue(reply("<summary>ok</summary>"))
    history = [
        AgenticMessage(role="assistant", blocks=[Block("assistant_gen_text", "first")]),
        AgenticMessage(role="user", blocks=[Block("user_input_text", "go on")]),
    ]
    out = await model(fake).generate(history, max_completion_tokens=321)
    assert isinstance(out, AgenticMessage)
    assert out.blocks[-1].text == "<summary>ok</summary>"
    body = fake.requests[0].json
    assert body["max_tokens"] == 321
    # a conversation must open with a user turn
    assert body["messages"][0]["role"] == "user"
    assert "system" not in body


def test_to_request_drops_empty_text_and_merges_roles() -> None:
    system, wire = to_request(
        [
            Message(role="user", content="a"),
            Message(role="user", content=""),
            Message(role="user", content="b"),
            Message(role="developer", content="rules"),
        ]
    )
    assert system == "rules"
    assert wire == [
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    ]


async def test_stop_reason_max_tokens_is_a_cut_reply_with_its_partial(fake: FakeAnthropic) -> None:
    fake.enqueue(reply("<summary>half of it", finish_reason="length"))
    err = await expect_error(model(fake))
    assert (err.kind, err.transient) == ("length", False)
    assert "stop_reason 'max_tokens'" in str(err)
    assert isinstance(err.partial_response, Message)
    assert err.partial_response.content == "<summary>half of it"
    assert err.partial_response.finish_reason == "length"


async def test_the_request_max_tokens_cuts_the_reply(fake: FakeAnthropic) -> None:
    """The fake cuts at the request's ``max_tokens`` as the API does: a ``length`` error."""
    fake.enqueue(reply("x" * 400))
    with pytest.raises(ModelError) as info:
        await model(fake).generate(chat(), max_tokens=10)
    assert info.value.kind == "length"
    assert isinstance(info.value.partial_response, Message)
    assert info.value.partial_response.content == "x" * 40


@pytest.mark.parametrize(
    ("step", "kind", "transient", "persistent", "code"),
    [
        (status(500), "server", True, False, 500),
        (overloaded(), "server", True, False, 529),
        (status(401), "auth", False, True, 401),
        (status(403), "auth", False, True, 403),
        (status(404), "not_found", False, True, 404),
        (status(400), "bad_request", False, False, 400),
        (status(408), "timeout", True, False, 408),
        (status(409), "conflict", True, False, 409),
        (raw("{not json"), "malformed", True, False, None),
        (truncated(), "connection", True, False, None),
        (empty_choices(), "empty", True, False, None),
    ],
)
async def test_error_kinds(
    fake: FakeAnthropic,
    step: object,
    kind: str,
    transient: bool,
    persistent: bool,
    code: int | None,
) -> None:
    fake.enqueue(step)  # type: ignore[arg-type]
    err = await expect_error(model(fake))
    assert (err.kind, err.transient, err.persistent, err.status) == (
        kind,
        transient,
        persistent,
        code,
    )
    assert err.model == "anthropic:claude-test"
    assert str(err).startswith("failed to call anthropic model 'claude-test': ")
    assert len(fake.requests) == 1  # the SDK's own retries are off


async def test_retry_after_on_429_and_529(fake: FakeAnthropic) -> None:
    fake.enqueue(retry_after("7"), overloaded({"retry-after": "3"}))
    first = await expect_error(model(fake))
    second = await expect_error(model(fake))
    assert (first.kind, first.retry_after, first.status) == ("rate_limit", 7.0, 429)
    assert (second.kind, second.retry_after, second.status) == ("server", 3.0, 529)


async def test_prompt_too_long_carries_window_and_prompt_tokens(fake: FakeAnthropic) -> None:
    fake.enqueue(context_length_error(limit=200_000, tokens=210_345))
    err = await expect_error(model(fake))
    assert (err.kind, err.transient, err.status) == ("context_length", False, 400)
    assert (err.window, err.prompt_tokens) == (200_000, 210_345)


async def test_fake_window_refuses_before_using_a_step(fake: FakeAnthropic) -> None:
    fake.max_context_tokens = 5
    try:
        fake.enqueue(reply("never"))
        err = await expect_error(model(fake))
    finally:
        fake.max_context_tokens = None
    assert err.kind == "context_length" and err.window == 5
    assert err.prompt_tokens is not None and err.prompt_tokens > 5
    assert len(fake.pending) == 1


def test_context_numbers_of_both_wordings() -> None:
    from compactor.models.anthropic_errors import context_numbers

    assert context_numbers("prompt is too long: 1,234 tokens > 1000 maximum") == (1234, 1000)
    text = "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000, decrease"
    assert context_numbers(text) == (198000, 200000)
    assert context_numbers("something else") is None


async def test_redirect_is_not_followed(fake: FakeAnthropic) -> None:
    with FakeAnthropic() as elsewhere:
        fake.enqueue(redirect(elsewhere.base_url + "/v1/messages", 307))
        err = await expect_error(model(fake))
        assert elsewhere.requests == []
    assert (err.kind, err.transient, err.persistent, err.status) == ("redirect", False, True, 307)
    assert "not followed" in str(err)


async def test_gzip_bomb_is_refused_at_the_cap(fake: FakeAnthropic) -> None:
    gzip_bomb_body(1 << 26)
    fake.enqueue(gzip_bomb(1 << 26))
    err = await expect_error(model(fake, max_response_bytes=1 << 20))
    assert (err.kind, err.transient) == ("too_large", True)
    assert "response larger than 1 MiB" in str(err)


async def test_timeout_is_a_deadline_for_the_whole_request(fake: FakeAnthropic) -> None:
    fake.enqueue(drip(0.1, "body"))
    start = time.monotonic()
    err = await expect_error(model(fake, timeout=0.6))
    assert (err.kind, err.transient) == ("timeout", True)
    assert 0.5 < time.monotonic() - start < 10


async def test_secrets_never_in_errors_or_replies(fake: FakeAnthropic) -> None:
    fake.enqueue(echo_headers(), status(500, body={"error": {"message": f"bad key {KEY}"}}))
    out = await model(fake).generate(chat(), extra_headers={"x-custom-token": "tok-1234567890"})
    assert KEY not in out.content and "tok-1234567890" not in out.content
    err = await expect_error(model(fake))
    assert KEY not in str(err)


async def test_no_key_is_an_auth_error_before_any_request(
    fake: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    from compactor.models.anthropic import AnthropicModel

    m = AnthropicModel("claude-test")
    with pytest.raises(ModelError, match="ANTHROPIC_API_KEY") as info:
        await m.generate(chat())
    assert info.value.kind == "auth"
    assert fake.requests == []
    # the environment's key and base URL are used when the mapping gives none
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
    fake.enqueue(reply("<summary>env</summary>"))
    assert (await m.generate(chat())).content == "<summary>env</summary>"
    assert m.endpoint == fake.base_url


def test_registry_builds_and_validates_anthropic(monkeypatch: pytest.MonkeyPatch) -> None:
    from compactor.models.anthropic import AnthropicModel

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    m = create_model("anthropic:claude-x", api_key=KEY, timeout=3)
    assert isinstance(m, AnthropicModel) and m.name == "anthropic:claude-x" and m.timeout == 3
    with pytest.raises(ConfigError, match="no API key for anthropic model 'c'"):
        model_from_config({"provider": "anthropic", "name": "c"})
    with pytest.raises(ConfigError, match="positive number"):
        model_from_config({"provider": "anthropic", "name": "c", "api_key": KEY, "timeout": 0})


def test_checking_a_config_does_not_import_the_sdk() -> None:
    import subprocess

    code = (
        "import sys\n"
        "from compactor.models.registry import check_model_config\n"
        "check_model_config({'provider': 'anthropic', 'name': 'c', 'api_key': 'k'})\n"
        "assert 'anthropic' not in sys.modules, 'imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
