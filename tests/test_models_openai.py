"""OpenAIModel against the real-socket fake server: wire format, usage and error classes."""

from __future__ import annotations

import base64
import gzip
import json
import time
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from compactor.errors import ModelError
from compactor.models.openai import OpenAIModel
from compactor.models.openai_wire import to_wire
from compactor.schema import AgenticMessage, Block, Message, Part, ToolCall
from compactor.testing.fake_openai import (
    FakeOpenAI,
    content_filter,
    context_length_error,
    delay,
    drip,
    drop,
    echo_headers,
    empty_choices,
    estimate_tokens,
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
    truncated,
)

pytestmark = pytest.mark.anyio

KEY = "sk-test-SECRETKEY1234567890abcdef"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def fake(server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    server.reset()
    for var in (
        "OPENAI_API_KEY",
        "OPENAI_ORG_ID",
        "OPENAI_PROJECT_ID",
        "HTTP_PROXY",
        "HTTPS_PROXY",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    yield server
    server.reset()


def model(fake: FakeOpenAI, timeout: float = 10.0) -> OpenAIModel:
    return OpenAIModel("gpt-4o-mini", base_url=fake.base_url, api_key=KEY, timeout=timeout)


def chat() -> list[Message]:
    return [
        Message(role="system", content="You summarize."),
        Message(role="user", content="fix the bug", parts=[]),
        Message(
            role="assistant",
            content="",
            tool_calls=[ToolCall("call_1", "bash", '{"command": "pytest"}')],
        ),
        Message(role="tool", content="1 failed", tool_call_id="call_1", tool_name="bash"),
        Message(
            role="user",
            parts=[Part("text", "look at this"), Part("image_url", url="http://x/img.png")],
        ),
        Message(role="user", content="Summarize now."),
    ]


async def expect_error(
    m: OpenAIModel, messages: list[Message] | None = None, **options: object
) -> ModelError:
    with pytest.raises(ModelError) as info:
        await m.generate(messages or chat(), **options)
    err = info.value
    assert KEY not in str(err)
    assert KEY not in repr(err)
    assert str(err).startswith(f"failed to call openai model {m.model!r}: ")
    return err


async def test_success_with_usage_and_wire_format(fake: FakeOpenAI) -> None:
    usage = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    fake.enqueue(reply("<summary>ok</summary>", usage=usage))
    out = await model(fake).generate(chat(), temperature=0.0, unknown_option=1)
    assert isinstance(out, Message)
    assert out.role == "assistant"
    assert out.content == "<summary>ok</summary>"
    assert out.finish_reason == "stop"
    assert out.usage is not None
    assert (out.usage.prompt_tokens, out.usage.completion_tokens, out.usage.total_tokens) == (
        11,
        7,
        18,
    )
    [req] = fake.requests
    assert req.path == "/v1/chat/completions"
    assert req.json["model"] == "gpt-4o-mini"
    assert req.json["temperature"] == 0.0
    assert "unknown_option" not in req.json
    wire = req.json["messages"]
    assert [w["role"] for w in wire] == ["system", "user", "assistant", "tool", "user", "user"]
    assert wire[2]["tool_calls"][0]["function"] == {
        "name": "bash",
        "arguments": '{"command": "pytest"}',
    }
    assert wire[3] == {"role": "tool", "tool_call_id": "call_1", "content": "1 failed"}
    assert wire[4]["content"] == "look at this\n[image]"
    fake.assert_complete()


async def test_request_recorded_without_authorization(fake: FakeOpenAI) -> None:
    await model(fake).generate(chat())
    [req] = fake.requests
    assert "authorization" not in req.headers
    assert KEY not in json.dumps(req.headers)
    assert req.method == "POST"
    assert req.auth_scheme == "Bearer"  # the key was sent, as a bearer token


async def test_request_is_what_create_sends(fake: FakeOpenAI) -> None:
    """generate() sends the body, headers and auth chat.completions.create() sends."""
    from openai import AsyncOpenAI

    options = {
        "temperature": 0.5,
        "max_tokens": 99,
        "stop": ["</summary>"],
        "extra_body": {"top_k": 3},
        "extra_headers": {"x-trace": "t1"},
    }
    await model(fake).generate(chat(), **options)
    async with AsyncOpenAI(api_key=KEY, base_url=fake.base_url, max_retries=0) as client:
        await client.chat.completions.create(
            model="gpt-4o-mini",
            messages=to_wire(chat()),  # type: ignore[arg-type]
            temperature=0.5,
            max_tokens=99,
            stop=["</summary>"],
            extra_body={"top_k": 3},
            extra_headers={"x-trace": "t1"},
        )
    ours, sdk = fake.requests
    assert ours.json == sdk.json
    assert ours.json["top_k"] == 3
    assert ours.auth_scheme == sdk.auth_scheme == "Bearer"
    volatile = {"x-stainless-retry-count", "x-stainless-read-timeout", "content-length"}
    assert {k: v for k, v in ours.headers.items() if k not in volatile} == {
        k: v for k, v in sdk.headers.items() if k not in volatile
    }
    assert ours.headers["x-trace"] == "t1"


async def test_agentic_round_trip(fake: FakeOpenAI) -> None:
    fake.enqueue(reply("agentic summary"))
    messages = [
        AgenticMessage("system", [Block("user_input_text", "sys")]),
        AgenticMessage("user", [Block("user_input_text", "do it"), Block("user_input_image")]),
        AgenticMessage(
            "assistant",
            [
                Block("reasoning", "hmm"),
                Block("assistant_gen_text", "running"),
                Block("function_tool_call", call_id="c1", name="bash", arguments='{"cmd":"ls"}'),
            ],
        ),
        AgenticMessage(
            "user",
            [
                Block(
                    "function_tool_result",
                    call_id="c1",
                    name="bash",
                    content=[Block("user_input_text", "a.py")],
                )
            ],
        ),
        AgenticMessage("user", [Block("user_input_text", "Summarize.")]),
    ]
    out = await model(fake).generate(messages)
    assert isinstance(out, AgenticMessage)
    assert out.role == "assistant"
    assert [b.type for b in out.blocks] == ["assistant_gen_text"]
    assert out.blocks[0].text == "agentic summary"
    assert out.usage is not None and out.usage.total_tokens > 0
    wire = fake.requests[0].json["messages"]
    assert wire == to_wire(messages)
    assert wire[1] == {"role": "user", "content": "do it\n[image]"}
    assert wire[2]["content"] == "running"
    assert wire[2]["tool_calls"][0]["id"] == "c1"
    assert wire[3] == {"role": "tool", "tool_call_id": "c1", "content": "a.py"}


async def test_server_error_is_transient(fake: FakeOpenAI) -> None:
    fake.enqueue(status(500))
    err = await expect_error(model(fake))
    assert (err.kind, err.transient, err.status) == ("server", True, 500)
    assert "HTTP 500" in str(err)
    assert err.model == "openai:gpt-4o-mini"


async def test_rate_limit_retry_after(fake: FakeOpenAI) -> None:
    fake.enqueue(status(429, headers={"retry-after": "1"}))
    err = await expect_error(model(fake))
    assert (err.kind, err.transient, err.status) == ("rate_limit", True, 429)
    assert err.retry_after == 1.0


async def test_hang_times_out(fake: FakeOpenAI) -> None:
    fake.enqueue(hang())
    err = await expect_error(model(fake, timeout=0.5))
    assert (err.kind, err.transient) == ("timeout", True)


async def test_slow_reply_within_timeout(fake: FakeOpenAI) -> None:
    fake.enqueue(delay(0.1, reply("late but fine")))
    out = await model(fake, timeout=5).generate(chat())
    assert out.content == "late but fine"


async def test_drop_is_connection_error(fake: FakeOpenAI) -> None:
    fake.enqueue(drop())
    err = await expect_error(model(fake))
    assert (err.kind, err.transient) == ("connection", True)


async def test_reset_is_connection_error(fake: FakeOpenAI) -> None:
    fake.enqueue(reset_connection())
    err = await expect_error(model(fake))
    assert (err.kind, err.transient) == ("connection", True)
    assert "connection reset by peer" in str(err)


async def test_truncated_body_is_connection_error(fake: FakeOpenAI) -> None:
    fake.enqueue(truncated())
    err = await expect_error(model(fake))
    assert (err.kind, err.transient) == ("connection", True)
    assert "without sending complete message body" in str(err)


async def test_connection_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI() as dead:
        url = dead.base_url
    m = OpenAIModel("gpt-4o-mini", base_url=url, api_key=KEY, timeout=2)
    err = await expect_error(m)
    assert (err.kind, err.transient) == ("connection", True)


@pytest.mark.parametrize("body", [b"{not json", b'{"choices": [{"mess'])
async def test_malformed_body(fake: FakeOpenAI, body: bytes) -> None:
    fake.enqueue(raw(body))
    err = await expect_error(model(fake))
    assert (err.kind, err.transient) == ("malformed", True)


async def test_empty_choices(fake: FakeOpenAI) -> None:
    fake.enqueue(empty_choices())
    err = await expect_error(model(fake))
    assert (err.kind, err.transient) == ("empty", True)


async def test_empty_content(fake: FakeOpenAI) -> None:
    fake.enqueue(reply("   "))
    err = await expect_error(model(fake))
    assert (err.kind, err.transient) == ("empty", True)


@pytest.mark.parametrize("text", ["", "partial"])
async def test_content_filter(fake: FakeOpenAI, text: str) -> None:
    fake.enqueue(content_filter(text))
    err = await expect_error(model(fake))
    assert (err.kind, err.transient) == ("content_filter", False)
    assert "content filter" in str(err)
    # issue 22: the text that did come travels with the error (none: no partial response)
    partial = err.partial_response
    if not text:
        assert partial is None
    else:
        assert isinstance(partial, Message) and partial.role == "assistant"
        assert (partial.content, partial.finish_reason) == (text, "content_filter")


async def test_a_filtered_reply_reaches_the_failover_context(fake: FakeOpenAI) -> None:
    """Issue 22 through the real client: what the server sent with finish_reason
    content_filter is the failover callback's last_model_response."""
    import compactor as c

    fake.enqueue(content_filter("<summary>half a summary"))
    contexts: list[Any] = []
    backup = c.ScriptedModel(["<summary>\nfrom the backup\n</summary>"])

    def pick(ctx: Any) -> Any:
        contexts.append(ctx)
        return backup, None

    config = c.Config(
        model=model(fake), failover=c.FailoverConfig(max_retries=1, get_failover_model=pick)
    )
    state = c.AgentState([Message("user", "fix the bug " * 30), Message("assistant", "done")])
    out = await c.new(config).summarize(state)
    assert "from the backup" in out[-1].content
    [ctx] = contexts
    assert ctx.last_model_response.content == "<summary>half a summary"
    assert isinstance(ctx.last_error, ModelError) and ctx.last_error.kind == "content_filter"


async def test_a_reply_cut_at_the_token_limit_carries_its_text(fake: FakeOpenAI) -> None:
    fake.enqueue(reply("<summary>half of it", finish_reason="length"))
    err = await expect_error(model(fake))
    assert err.kind == "length"
    assert isinstance(err.partial_response, Message)
    assert err.partial_response.content == "<summary>half of it"


@pytest.mark.parametrize("role", ["user", "tool", "system"])
async def test_wrong_role_is_not_transient(fake: FakeOpenAI, role: str) -> None:
    fake.enqueue(reply("<summary>looks fine</summary>", role=role))
    err = await expect_error(model(fake))
    assert (err.kind, err.transient) == ("wrong_role", False)
    assert f"role {role!r}" in str(err)


async def test_context_length_error_body(fake: FakeOpenAI) -> None:
    fake.enqueue(context_length_error(limit=8192, tokens=9000))
    err = await expect_error(model(fake))
    assert (err.kind, err.transient, err.status) == ("context_length", False, 400)
    assert "maximum context length is 8192 tokens" in str(err)
    assert "resulted in 9000 tokens" in str(err)


async def test_max_context_tokens_refuses_long_requests() -> None:
    with FakeOpenAI(max_context_tokens=50) as fake:
        m = model(fake)
        short = [Message(role="user", content="x" * 200)]  # 200 bytes // 4 = 50: fits
        assert (await m.generate(short)).role == "assistant"
        long = [Message(role="system", content="é" * 60), Message(role="user", content="y" * 84)]
        err = await expect_error(m, long)  # (120 + 84) // 4 = 51 > 50
        assert (err.kind, err.transient, err.status) == ("context_length", False, 400)
        assert "maximum context length is 50 tokens" in str(err)
        assert "resulted in 51 tokens" in str(err)
        assert [estimate_tokens(r.json) for r in fake.requests] == [50, 51]
        fake.assert_complete()  # the refusal used up no scripted step


def test_estimate_tokens_counts_contents_only() -> None:
    body = {
        "model": "m" * 400,
        "messages": [
            {"role": "user", "content": "abcd" * 3},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "x" * 40}]},
            {"role": "user", "content": [{"type": "text", "text": "abcd"}, {"type": "image_url"}]},
        ],
    }
    assert estimate_tokens(body) == 4
    assert estimate_tokens(None) == 0
    assert estimate_tokens({"messages": "nope"}) == 0


async def test_length(fake: FakeOpenAI) -> None:
    fake.enqueue(reply("partial", finish_reason="length"))
    err = await expect_error(model(fake))
    assert (err.kind, err.transient) == ("length", False)


@pytest.mark.parametrize(
    ("code", "body", "kind"),
    [
        (401, {"error": {"message": f"Incorrect API key provided: {KEY}"}}, "auth"),
        (403, None, "auth"),
        (404, None, "not_found"),
        (
            400,
            {"error": {"message": "This model's maximum context length is 8192 tokens"}},
            "context_length",
        ),
        (400, {"error": {"message": "invalid 'messages'"}}, "bad_request"),
    ],
)
async def test_permanent_status(fake: FakeOpenAI, code: int, body: object, kind: str) -> None:
    fake.enqueue(status(code, body=body))
    err = await expect_error(model(fake))
    assert (err.kind, err.transient, err.status) == (kind, False, code)


async def test_key_from_env_never_leaks(fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    fake.enqueue(status(401, body={"error": {"message": f"bad key {KEY}"}}))
    m = OpenAIModel("gpt-4o-mini")
    assert KEY not in repr(m)
    err = await expect_error(m)
    assert err.kind == "auth"


async def test_placeholder_key_for_local_server(fake: FakeOpenAI) -> None:
    out = await OpenAIModel("local-llm", base_url=fake.base_url).generate(chat())
    assert "<summary>" in out.content
    assert fake.requests[0].json["model"] == "local-llm"


async def test_no_key_without_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelError) as info:
        await OpenAIModel("gpt-4o-mini").generate(chat())
    assert info.value.kind == "auth"
    assert not info.value.transient
    assert str(info.value) == "no API key: set OPENAI_API_KEY or model.api_key"


def test_registry_does_not_import_openai() -> None:
    import subprocess
    import sys

    code = (
        "import sys, compactor.models.registry as r; "
        "assert 'openai' not in sys.modules, 'openai imported'; "
        "m = r.create_model('local'); assert m.name == 'local'; "
        "assert 'openai' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_registry() -> None:
    from compactor.errors import ConfigError
    from compactor.models.local import LocalSummarizer
    from compactor.models.registry import create_model, model_from_config

    m = create_model("openai:gpt-4o-mini", api_key=KEY, timeout=3)
    assert isinstance(m, OpenAIModel)
    assert m.name == "openai:gpt-4o-mini"
    assert m.timeout == 3
    assert isinstance(create_model("local"), LocalSummarizer)
    with pytest.raises(ConfigError, match="known prefixes are 'anthropic', 'local', 'openai'"):
        create_model("gemini:pro")
    m2 = model_from_config({"provider": "openai", "name": "x", "base_url": "http://h/v1"})
    assert isinstance(m2, OpenAIModel)
    assert m2.base_url == "http://h/v1"
    assert isinstance(model_from_config({"provider": "local"}), LocalSummarizer)
    with pytest.raises(ConfigError, match="a scripted model is created in Python"):
        model_from_config({"provider": "scripted"})
    with pytest.raises(ConfigError, match="unknown model provider"):
        model_from_config({"provider": "nope"})
    with pytest.raises(ConfigError, match="positive number"):
        model_from_config({"provider": "openai", "name": "x", "timeout": True})


async def test_shared_clients_one_client_per_setting(fake: FakeOpenAI) -> None:
    """Inside shared_clients(): equal settings share one client (and its connections), other
    settings get their own; every client is closed when the block ends. Errors stay per call."""
    import asyncio

    from compactor.models.pool import shared_clients

    a, b = model(fake), model(fake)
    other = model(fake, timeout=5.0)
    fake.enqueue(reply("<summary>1</summary>"), status(401))
    async with shared_clients() as pool:
        first = await a.generate(chat())
        assert first.content == "<summary>1</summary>"
        err = await expect_error(b)
        assert err.kind == "auth"
        await asyncio.gather(*(m.generate(chat()) for m in (a, b, other, a)))
        clients = list(pool.values())
        assert len(clients) == 2
        assert not any(c.is_closed() for c in clients)
    assert all(c.is_closed() for c in clients)
    assert len(pool) == 0
    assert len(fake.requests) == 6
    assert len({r.peer for r in fake.requests}) <= 5  # kept-alive: at most one per call in flight


async def test_without_shared_clients_each_call_has_its_own(fake: FakeOpenAI) -> None:
    from compactor.models.pool import pooled_client

    assert pooled_client("k", lambda: pytest.fail("no pool, no client")) is None
    m = model(fake)
    await m.generate(chat())
    await m.generate(chat())
    peers = [r.peer for r in fake.requests]
    assert len(peers) == 2 and peers[0] != peers[1]  # a new client, a new connection


# -- hostile servers (issue 16) -------------------------------------------------------------------


@pytest.mark.parametrize("where", ["headers", "body"])
async def test_timeout_is_a_deadline_for_the_whole_request(fake: FakeOpenAI, where: str) -> None:
    """A byte every 0.1 s never trips a per-read timeout; the 0.6 s deadline stops it."""
    fake.enqueue(drip(0.1, where))
    start = time.monotonic()
    err = await expect_error(model(fake, timeout=0.6))
    elapsed = time.monotonic() - start
    assert (err.kind, err.transient) == ("timeout", True)
    assert "timed out after 0.6s" in str(err) and "whole request" in str(err)
    # the whole drip would take tens of seconds; the bound leaves room for a busy machine
    assert 0.5 < elapsed < 10, elapsed


@pytest.mark.parametrize("code", [200, 500])
async def test_gzip_bomb_is_refused_at_the_cap(fake: FakeOpenAI, code: int) -> None:
    """A ~1 MB body that inflates to 1 GiB (as a reply and as an error body, which the SDK
    reads whole before raising) stops at 16 MiB of decoded bytes: fast, in little memory."""
    import resource

    gzip_bomb_body(1 << 30)  # built before the clock starts (0.25 s, once)
    fake.enqueue(gzip_bomb(1 << 30, code=code))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.monotonic()
    err = await expect_error(model(fake))
    elapsed = time.monotonic() - start
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert (err.kind, err.transient) == ("too_large", True)
    assert "response larger than 16 MiB" in str(err)
    assert elapsed < 10, elapsed  # under a second here; the memory bound is the sharp check
    assert grown_mb < 100, grown_mb  # inflating all of it would take more than 1 GiB


async def test_response_cap_is_configurable_and_counts_decoded_bytes(fake: FakeOpenAI) -> None:
    completion = json.dumps(
        {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "z" * 5000},
                    "finish_reason": "stop",
                }
            ],
        }
    ).encode()
    packed = gzip.compress(completion)
    assert len(packed) < 1000 < len(completion)
    small = OpenAIModel("m", base_url=fake.base_url, api_key=KEY, max_response_bytes=4000)
    fake.enqueue(status(200, headers={"content-encoding": "gzip"}, body=packed))
    err = await expect_error(small)
    assert err.kind == "too_large" and "larger than 4,000 bytes" in str(err)
    # the same body under a larger cap decodes: gzip, zlib-wrapped and raw deflate alike
    raw_deflate = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    bodies = [
        ("gzip", packed),
        ("deflate", zlib.compress(completion)),
        ("deflate", raw_deflate.compress(completion) + raw_deflate.flush()),
    ]
    for encoding, body in bodies:
        fake.enqueue(status(200, headers={"content-encoding": encoding}, body=body))
        out = await model(fake).generate(chat())
        assert out.content == "z" * 5000, encoding


async def test_announced_length_over_the_cap_is_refused_before_reading(fake: FakeOpenAI) -> None:
    small = OpenAIModel("m", base_url=fake.base_url, api_key=KEY, max_response_bytes=100)
    fake.enqueue(reply("x" * 500))
    err = await expect_error(small)
    assert err.kind == "too_large" and "announced" in str(err)


@pytest.mark.parametrize(
    ("encoding", "body"), [("br", b"\x00\x01"), ("gzip", b"not gzip at all"), ("gzip, gzip", b"")]
)
async def test_bad_or_unknown_content_encoding_is_malformed(
    fake: FakeOpenAI, encoding: str, body: bytes
) -> None:
    fake.enqueue(status(200, headers={"content-encoding": encoding}, body=body))
    err = await expect_error(model(fake))
    assert err.kind == "malformed"


async def test_content_as_a_list_of_text_parts(fake: FakeOpenAI) -> None:
    parts = [{"type": "text", "text": "<summary>one "}, {"type": "text", "text": "two</summary>"}]
    fake.enqueue(reply_content(parts))
    out = await model(fake).generate(chat())
    assert out.content == "<summary>one two</summary>"


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ([{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {}}], "part 1 is type"),
        (["plain string part"], "part 0 is a str"),
        ({"text": "a dict"}, "content is a dict"),
        (42, "content is a int"),
    ],
)
async def test_other_content_shapes_are_refused_clearly(
    fake: FakeOpenAI, content: object, says: str
) -> None:
    fake.enqueue(reply_content(content))
    err = await expect_error(model(fake))
    assert (err.kind, err.transient) == ("malformed", False)
    assert says in str(err) and "unsupported reply" in str(err)


async def test_a_server_echoing_headers_gets_no_secret_into_the_reply(fake: FakeOpenAI) -> None:
    header_value = "azure-key-0123456789abcdef"
    url = fake.base_url.replace("http://", "http://bob:hunter2-pw@")
    m = OpenAIModel("m", base_url=url, api_key=KEY, timeout=5)
    fake.enqueue(echo_headers(), echo_headers())
    out = await model(fake).generate(chat(), extra_headers={"api-key": header_value})
    assert '"api-key": "***"' in out.content and '"authorization": "Bearer ***"' in out.content
    # credentials in the URL: the client sends them as Basic auth, which is removed too
    out = await m.generate(chat(), extra_headers={"api-key": header_value})
    assert '"api-key": "***"' in out.content and '"authorization": "Basic ***"' in out.content
    for secret in (KEY, header_value, "hunter2-pw", base64.b64encode(b"bob:hunter2-pw").decode()):
        assert secret not in out.content
    fake.enqueue(status(500, body={"error": {"message": f"no: {header_value} {KEY} {url}"}}))
    err = await expect_error(m, extra_headers={"api-key": header_value})
    for secret in (KEY, header_value, "hunter2-pw"):
        assert secret not in str(err)
    assert "hunter2-pw" not in repr(m)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("1000000000", 1e9),
        ("inf", None),
        ("nan", None),
        ("-5", 0.0),
        ("soon", None),
        ("Fri, 31 Dec 9999 23:59:59 GMT", "huge"),
    ],
)
async def test_absurd_retry_after_is_reported_as_said(
    fake: FakeOpenAI, value: str, seconds: object
) -> None:
    """The model reports what the server said (or nothing); the retry engine caps the wait."""
    fake.enqueue(retry_after(value))
    err = await expect_error(model(fake))
    assert err.kind == "rate_limit"
    if seconds == "huge":
        assert err.retry_after is not None and err.retry_after > 1e11
    else:
        assert err.retry_after == seconds


# -- issue 18: what a server says about the request, and what will recur ------------------------

LLAMA_500 = {
    "error": {
        "message": "7 validation errors:\n  {'type': 'string_type', 'loc': ('body', 'messages', 2, "
        "'ChatCompletionRequestAssistantMessage', 'content'), 'msg': 'Input should be a valid "
        "string', 'input': None}\n",
        "type": "internal_server_error",
        "param": None,
        "code": None,
    }
}


@pytest.mark.parametrize(
    ("code", "body"),
    [
        (500, LLAMA_500),  # llama-cpp-python: a 500, not transient for that
        (
            422,  # FastAPI's own validation answer
            {"detail": [{"type": "literal_error", "loc": ["body", "messages", 3, "role"]}]},
        ),
        (
            400,  # OpenAI
            {
                "error": {
                    "message": "Invalid type for 'messages[2].content': expected one of a string "
                    "or array of objects, but got null instead.",
                    "type": "invalid_request_error",
                }
            },
        ),
        (400, {"error": {"message": "Conversation roles must alternate user/assistant"}}),
        (400, {"error": {"message": "unexpected role 'tool'"}}),
    ],
)
async def test_a_schema_refusal_is_a_validation_error_never_transient(
    fake: FakeOpenAI, code: int, body: object
) -> None:
    fake.enqueue(status(code, body=body))
    err = await expect_error(model(fake))
    assert (err.kind, err.transient, err.status, err.persistent) == (
        "validation",
        False,
        code,
        False,
    )


async def test_the_llama_cpp_fake_refusal_is_classified_as_validation() -> None:
    with FakeOpenAI(flavor="llama-cpp") as llama:
        err = await expect_error(model(llama))  # chat() has an assistant turn of tool calls only
    assert err.kind == "validation"
    assert "Input should be" in str(err)


async def test_a_plain_500_is_still_a_transient_server_error(fake: FakeOpenAI) -> None:
    fake.enqueue(status(500), status(500, body={"error": {"message": "context switch failed"}}))
    for _ in range(2):
        err = await expect_error(model(fake))
        assert (err.kind, err.transient) == ("server", True)


async def test_context_errors_carry_the_window_and_the_count(fake: FakeOpenAI) -> None:
    llama = {
        "error": {
            "message": "This model's maximum context length is 2048 tokens. However, you "
            "requested 4009 tokens (3753 in the messages, 256 in the completion). Please reduce "
            "the length of the messages or completion.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }
    server = {  # llama.cpp's own llama-server: the numbers are fields, not words
        "error": {
            "code": 400,
            "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 5000,
            "n_ctx": 4096,
        }
    }
    fake.enqueue(status(400, body=llama), status(400, body=server))
    from compactor.pipeline.replies import reported_limit, reported_prompt_tokens

    first = await expect_error(model(fake))
    assert first.kind == "context_length"
    assert (reported_limit(first), reported_prompt_tokens(first)) == (2048, 3753)
    second = await expect_error(model(fake))
    assert (second.kind, second.window, second.prompt_tokens) == ("context_length", 4096, 5000)
    assert (reported_limit(second), reported_prompt_tokens(second)) == (4096, 5000)


@pytest.mark.parametrize(
    ("code", "body", "kind"),
    [
        (401, None, "auth"),
        (403, None, "auth"),
        (404, None, "not_found"),
        (
            400,  # llama-cpp-python names an unknown model this way
            {"error": {"message": "The model `x` does not exist", "code": "model_not_found"}},
            "not_found",
        ),
        (429, {"error": {"message": "quota", "code": "insufficient_quota"}}, "rate_limit"),
    ],
)
async def test_errors_that_recur_whatever_is_sent_are_persistent(
    fake: FakeOpenAI, code: int, body: object, kind: str
) -> None:
    fake.enqueue(status(code, body=body))
    err = await expect_error(model(fake))
    assert (err.kind, err.persistent) == (kind, True)


async def test_a_refused_connection_is_persistent_a_dropped_one_is_not(fake: FakeOpenAI) -> None:
    with FakeOpenAI() as dead:
        url = dead.base_url
    refused = await expect_error(OpenAIModel("m", base_url=url, api_key=KEY, timeout=2))
    assert (refused.kind, refused.persistent) == ("connection", True)
    for step in (drop(), reset_connection(), truncated()):
        fake.enqueue(step)
        err = await expect_error(model(fake))
        assert (err.kind, err.persistent) == ("connection", False)


def test_input_mode_is_checked_and_shown() -> None:
    assert OpenAIModel("m", api_key=KEY).input_mode == "auto"
    m = OpenAIModel("m", api_key=KEY, input_mode="transcript")
    assert "input_mode='transcript'" in repr(m)
    with pytest.raises(ValueError, match="input_mode"):
        OpenAIModel("m", api_key=KEY, input_mode="text")


# -- issue 27 point 17: redirects are never followed ----------------------------------------------

HEADER_SECRET = "azure-redirect-secret-0123456789"


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("where", ["another origin", "the same origin"])
async def test_a_redirect_is_never_followed_and_names_its_target(
    fake: FakeOpenAI, code: int, where: str
) -> None:
    """A 3xx to another loopback server (or another path of the same one): nothing reaches
    the target (not the transcript, not the ``api-key`` header httpx would have kept), and the
    call fails at once as a persistent ``redirect`` error naming the ``Location``."""
    with FakeOpenAI() as elsewhere:
        target = (
            f"{elsewhere.base_url}/chat/completions"
            if where == "another origin"
            else f"{fake.base_url}/moved/chat/completions"
        )
        fake.enqueue(redirect(target, code))
        err = await expect_error(
            model(fake), extra_headers={"api-key": HEADER_SECRET, "X-Title": "compact"}
        )
        assert elsewhere.requests == []
    assert len(fake.requests) == 1  # the first request only: the redirect was not followed
    assert fake.requests[0].headers["api-key"] == HEADER_SECRET  # it had something to leak
    assert (err.kind, err.status, err.transient, err.persistent) == ("redirect", code, False, True)
    assert f"HTTP {code} redirect to {target!r} not followed" in str(err)
    assert HEADER_SECRET not in str(err)


async def test_a_redirect_target_with_credentials_is_named_masked(fake: FakeOpenAI) -> None:
    fake.enqueue(redirect("http://bob:pw-redirect-0123@127.0.0.1:9/v1?api-key=redirected-key-1"))
    err = await expect_error(model(fake))
    assert "redirect to 'http://***@127.0.0.1:9/v1?api-key=***' not followed" in str(err)
