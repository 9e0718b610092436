"""The fake OpenAI-compatible server itself: steps, recording, reset and standalone mode."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from compactor.testing.fake_openai import (
    DEFAULT_SUMMARY,
    ESCAPES,
    FakeOpenAI,
    content_filter,
    delay,
    drip,
    drop,
    echo_headers,
    escape_error,
    gzip_bomb,
    gzip_bomb_body,
    hang,
    raw,
    reply,
    reply_content,
    reset_connection,
    retry_after,
    status,
    step_from_dict,
    truncated,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def post(
    fake_url: str, path: str = "/v1/chat/completions", body: Any = None, timeout: float = 5
) -> tuple[int, dict[str, str], bytes]:
    host, port = fake_url.removeprefix("http://").split("/", 1)[0].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        payload = json.dumps(body or {"model": "m", "messages": []})
        headers = {
            "Authorization": "Bearer sk-secret-abcdefghijkl",
            "Content-Type": "application/json",
        }
        conn.request("POST", path, payload, headers)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def test_default_reply_and_recording() -> None:
    with FakeOpenAI() as fake:
        assert fake.base_url.startswith("http://127.0.0.1:")
        assert fake.base_url.endswith("/v1")
        code, _, data = post(fake.base_url, body={"model": "m1", "messages": [{"role": "user"}]})
        assert code == 200
        body = json.loads(data)
        text = body["choices"][0]["message"]["content"]
        assert text == DEFAULT_SUMMARY
        for n in range(1, 10):
            assert f"\n{n}. " in text
        assert "<all_user_messages>" in text
        assert body["usage"]["total_tokens"] > 0
        assert body["model"] == "m1"
        [req] = fake.requests
        assert req.method == "POST"
        assert req.path == "/v1/chat/completions"
        assert req.json == {"model": "m1", "messages": [{"role": "user"}]}
        assert "authorization" not in req.headers
        assert "sk-secret" not in json.dumps(req.headers)


def test_steps_in_order_then_default() -> None:
    with FakeOpenAI(default=reply("DEFAULT")) as fake:
        fake.enqueue(
            status(503, headers={"retry-after": "2"}),
            reply("one", usage={"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}),
            raw(b"{not json"),
        )
        code, headers, _ = post(fake.base_url)
        assert (code, headers["retry-after"]) == (503, "2")
        code, _, data = post(fake.base_url, path="/chat/completions")
        assert json.loads(data)["usage"]["total_tokens"] == 3
        assert post(fake.base_url)[2] == b"{not json"
        fake.assert_complete()
        assert json.loads(post(fake.base_url)[2])["choices"][0]["message"]["content"] == "DEFAULT"
        assert post(fake.base_url, path="/v1/other")[0] == 404


def test_assert_complete_fails_on_leftovers() -> None:
    with FakeOpenAI() as fake:
        fake.enqueue(reply("unused"))
        with pytest.raises(AssertionError, match="1 fake step"):
            fake.assert_complete()
        fake.reset()
        fake.assert_complete()
        assert fake.requests == []


def test_drop_closes_without_response() -> None:
    with FakeOpenAI() as fake:
        fake.enqueue(drop())
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            post(fake.base_url)


def _raw_exchange(base_url: str) -> bytes:
    """POST over a bare socket and read until the server closes (raises on a reset)."""
    host, port = base_url.removeprefix("http://").split("/", 1)[0].split(":")
    body = b'{"model": "m", "messages": []}'
    request = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        return data


def test_reset_sends_rst_not_fin() -> None:
    with FakeOpenAI() as fake:
        fake.enqueue(reset_connection())
        with pytest.raises(ConnectionResetError):
            _raw_exchange(fake.base_url)
        # a clean close (drop) ends the stream normally instead: nothing sent, no error
        fake.enqueue(drop())
        assert _raw_exchange(fake.base_url) == b""
        fake.assert_complete()


def test_truncated_announces_more_than_it_sends() -> None:
    with FakeOpenAI() as fake:
        fake.enqueue(truncated(b'{"choices": ['))
        data = _raw_exchange(fake.base_url)
        head, _, body = data.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.0 200") or head.startswith(b"HTTP/1.1 200")
        assert b"content-length: 113" in head.lower()
        assert body == b'{"choices": ['


def test_content_filter_and_wrong_role_replies() -> None:
    with FakeOpenAI() as fake:
        fake.enqueue(content_filter(), content_filter("half"), reply("x", role="user"))
        choices = [json.loads(post(fake.base_url)[2])["choices"][0] for _ in range(3)]
        assert [c["finish_reason"] for c in choices] == ["content_filter", "content_filter", "stop"]
        assert [c["message"]["content"] for c in choices] == [None, "half", "x"]
        assert [c["message"]["role"] for c in choices] == ["assistant", "assistant", "user"]


def test_max_context_tokens_answers_like_openai() -> None:
    with FakeOpenAI(max_context_tokens=10) as fake:
        fake.enqueue(status(500))
        long = {"model": "m", "messages": [{"role": "user", "content": "x" * 44}]}
        code, _, data = post(fake.base_url, body=long)
        assert code == 400
        assert json.loads(data) == {
            "error": {
                "message": "This model's maximum context length is 10 tokens. However, your "
                "messages resulted in 11 tokens. Please reduce the length of the messages.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        }
        assert fake.pending == [status(500)]  # a refusal uses no scripted step
        short = {"model": "m", "messages": [{"role": "user", "content": "x" * 40}]}
        assert post(fake.base_url, body=short)[0] == 500
        assert len(fake.requests) == 2


def test_hang_is_released_by_reset() -> None:
    with FakeOpenAI() as fake:
        fake.enqueue(hang())
        errors: list[BaseException] = []

        def call() -> None:
            try:
                post(fake.base_url, timeout=10)
            except (http.client.HTTPException, OSError) as err:
                errors.append(err)

        worker = threading.Thread(target=call)
        start = time.monotonic()
        worker.start()
        time.sleep(0.2)
        fake.reset()
        worker.join(5)
        assert not worker.is_alive()
        assert time.monotonic() - start < 5
        assert errors  # the connection was closed without an answer


def test_delay_then_step() -> None:
    with FakeOpenAI() as fake:
        fake.enqueue(delay(0.2, status(500)))
        start = time.monotonic()
        assert post(fake.base_url)[0] == 500
        assert time.monotonic() - start >= 0.2


def test_step_from_dict() -> None:
    assert step_from_dict({"status": 500}).code == 500
    assert step_from_dict({"reply": "x"}).text == "x"
    assert step_from_dict({"hang": True}).kind == "hang"
    assert step_from_dict({"delay": 0.5}).seconds == 0.5
    assert step_from_dict({"delay": 0.5, "then": {"drop": True}}).then == drop()
    assert step_from_dict({"raw": "{x"}).body == b"{x"
    assert step_from_dict({"empty_choices": True}).kind == "empty_choices"
    assert step_from_dict({"reset": True}) == reset_connection()
    moved = step_from_dict({"redirect": "http://127.0.0.1:9/x", "code": 308})
    assert (moved.code, moved.headers) == (308, {"location": "http://127.0.0.1:9/x"})
    assert step_from_dict({"truncated": "{x"}) == truncated("{x")
    assert step_from_dict({"truncated": True}) == truncated()
    assert step_from_dict({"content_filter": ""}) == content_filter()
    assert step_from_dict({"content_filter": "half"}).text == "half"
    assert step_from_dict({"reply": "x", "role": "tool"}).role == "tool"
    ctx = step_from_dict({"context_length": True})
    assert ctx.code == 400
    assert b"context_length_exceeded" in (ctx.body or b"")
    assert step_from_dict({"retry_after": "inf"}) == retry_after("inf")
    assert step_from_dict({"drip": 0.5, "where": "body"}) == drip(0.5, "body")
    assert step_from_dict({"drip": 0.5, "then": {"status": 500}}) == drip(
        0.5, "headers", status(500)
    )
    assert step_from_dict({"gzip_bomb": 1000, "code": 500}) == gzip_bomb(1000, 500)
    parts = [{"type": "text", "text": "a"}]
    assert step_from_dict({"content": parts}) == reply_content(parts)
    assert step_from_dict({"escapes": 502}) == escape_error(502)
    assert step_from_dict({"echo_headers": True}) == echo_headers()
    with pytest.raises(ValueError, match="unknown fake step"):
        step_from_dict({"what": 1})
    with pytest.raises(ValueError, match="drip where"):
        drip(0.1, "trailers")


def test_gzip_bomb_body_is_valid_gzip_of_zeros() -> None:
    import zlib

    size = 3 * (1 << 20) + 5
    body = gzip_bomb_body(size)
    assert zlib.decompress(body, 16 + zlib.MAX_WBITS) == bytes(size)  # CRC and length checked
    big = gzip_bomb_body(1 << 30)
    assert len(big) < 1_100_000  # about 1 MB that inflates to 1 GiB


def test_gzip_bomb_step_sends_the_gzip_body() -> None:
    with FakeOpenAI() as fake:
        fake.enqueue(gzip_bomb(4096, code=503))
        code, headers, body = post(fake.base_url)  # http.client does not decode: raw bytes
        assert (code, headers["content-encoding"]) == (503, "gzip")
        assert body == gzip_bomb_body(4096)


@pytest.mark.parametrize("where", ["headers", "body"])
def test_drip_sends_the_whole_answer_slowly(where: str) -> None:
    with FakeOpenAI() as fake:
        fake.enqueue(drip(0.001, where, reply("drip")))
        start = time.monotonic()
        code, headers, body = post(fake.base_url)
        elapsed = time.monotonic() - start
        assert code == 200
        assert json.loads(body)["choices"][0]["message"]["content"] == "drip"
        assert (headers.get("transfer-encoding") == "chunked") == (where == "body")
        # one byte per wait: a few hundred bytes of body (and headers) take that many waits
        assert elapsed > 0.001 * 200


def test_drip_stops_when_the_server_is_reset() -> None:
    with FakeOpenAI() as fake:
        fake.enqueue(drip(10, "body"))
        done = threading.Event()

        def client() -> None:
            try:
                post(fake.base_url, timeout=10)
            except (OSError, http.client.HTTPException):
                pass
            done.set()

        threading.Thread(target=client, daemon=True).start()
        time.sleep(0.2)
        fake.reset()
        assert done.wait(5)


def test_echo_repeats_every_request_header_and_content_may_be_any_json() -> None:
    with FakeOpenAI() as fake:
        fake.enqueue(echo_headers(), reply_content([{"type": "text", "text": "a"}]))
        _, _, body = post(fake.base_url)
        text = json.loads(body)["choices"][0]["message"]["content"]
        assert "Bearer sk-secret-abcdefghijkl" in text  # echoed, Authorization included
        assert "authorization" not in fake.requests[0].headers  # but never recorded
        _, _, body = post(fake.base_url)
        assert json.loads(body)["choices"][0]["message"]["content"] == [
            {"type": "text", "text": "a"}
        ]


def test_escape_error_and_retry_after() -> None:
    with FakeOpenAI() as fake:
        fake.enqueue(escape_error(500), retry_after("Fri, 31 Dec 9999 23:59:59 GMT"))
        code, _, body = post(fake.base_url)
        assert code == 500 and json.loads(body)["error"]["message"].count(ESCAPES) == 1
        code, headers, _ = post(fake.base_url)
        assert (code, headers["retry-after"]) == (429, "Fri, 31 Dec 9999 23:59:59 GMT")


async def exercise_context_limit(base_url: str) -> None:
    from compactor.errors import ModelError
    from compactor.models.openai import OpenAIModel
    from compactor.schema import Message

    model = OpenAIModel("m", base_url=base_url, api_key="sk-test-key-123456", timeout=5)
    with pytest.raises(ModelError) as info:
        await model.generate([Message(role="user", content="word " * 20)])  # 100 bytes: 25
    assert info.value.kind == "context_length"
    assert "maximum context length is 20 tokens" in str(info.value)
    out = await model.generate([Message(role="user", content="hi")])
    assert "<summary>" in out.content


def test_standalone_max_context_tokens() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "compactor.testing.fake_openai", "--max-context-tokens", "20"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        anyio.run(exercise_context_limit, base_url)
    finally:
        proc.terminate()
        proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()


async def exercise(base_url: str) -> None:
    from compactor.errors import ModelError
    from compactor.models.openai import OpenAIModel
    from compactor.schema import Message

    model = OpenAIModel("m", base_url=base_url, api_key="sk-test-key-123456", timeout=5)
    messages = [Message(role="user", content="hi")]
    with pytest.raises(ModelError) as info:
        await model.generate(messages)
    assert info.value.kind == "server"
    out = await model.generate(messages)
    assert out.content == "scripted"
    out = await model.generate(messages)
    assert "<summary>" in out.content


def test_standalone_with_script(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"status": 500}, {"reply": "scripted"}]))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "compactor.testing.fake_openai",
            "--port",
            "0",
            "--latency",
            "0.05",
            "--script",
            str(script),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:")
        assert base_url.endswith("/v1")

        anyio.run(exercise, base_url)
    finally:
        proc.terminate()
        proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()


def test_connections_are_kept_alive() -> None:
    """HTTP/1.1: one connection serves several requests (a batch reuses its connections)."""
    with FakeOpenAI() as fake:
        host, port = fake.base_url.removeprefix("http://").split("/", 1)[0].split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=5)
        try:
            for _ in range(3):
                conn.request("POST", "/v1/chat/completions", json.dumps({"model": "m"}))
                resp = conn.getresponse()
                assert resp.status == 200
                assert resp.version == 11
                json.loads(resp.read())
        finally:
            conn.close()
        peers = {r.peer for r in fake.requests}
        assert len(fake.requests) == 3 and len(peers) == 1, peers


def test_latency_and_peak_in_flight() -> None:
    """Each answer comes ``latency`` after its request arrived (not later under load), and
    ``peak_in_flight`` counts the requests answered at once."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    with FakeOpenAI(latency=0.2) as fake:
        assert fake.peak_in_flight == 0

        def timed(_index: int) -> float:
            start = time.monotonic()
            code, _, _ = post(fake.base_url)
            assert code == 200
            return time.monotonic() - start

        with ThreadPoolExecutor(4) as pool:
            times = list(pool.map(timed, range(4)))
        # latency counts from each request's arrival: all four were answered at once (in flight
        # together), none before its 0.2 s; the wall time itself is left to the machine's noise
        assert all(t >= 0.2 for t in times), times
        assert fake.peak_in_flight == 4
        # Each handler leaves just after its client got the answer: wait for that (a deadline,
        # not a sleep), or reset() would count a handler still finishing as in flight.
        assert _eventually(lambda: fake.in_flight == 0)
        fake.reset()
        assert fake.peak_in_flight == 0
        timed(0)
        assert fake.peak_in_flight == 1


def _eventually(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Whether ``condition`` holds within ``seconds`` (polled; a deadline, not a wait)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_in_flight_counts_a_request_until_its_handler_is_done() -> None:
    """A hanging request is in flight until reset releases it; the peak after a reset starts
    from the requests still in flight at that moment."""
    with FakeOpenAI() as fake:
        assert fake.in_flight == 0
        fake.enqueue(hang())

        errors: list[BaseException] = []

        def call() -> None:
            try:
                post(fake.base_url, timeout=10)
            except (http.client.HTTPException, OSError) as err:
                errors.append(err)

        worker = threading.Thread(target=call)
        worker.start()
        # in flight from its arrival; hanging once it took its step (a reset before that would
        # clear the queued hang and the request would get the default answer)
        assert _eventually(lambda: fake.in_flight == 1 and fake.queued == 0)
        fake.reset()
        worker.join(10)
        assert not worker.is_alive()
        assert errors  # closed without an answer
        assert _eventually(lambda: fake.in_flight == 0)
        assert fake.peak_in_flight == 1


# -- llama-cpp-python's server (issue 18) ------------------------------------------------------

NULL_CONTENT = {
    "model": "m",
    "messages": [
        {"role": "system", "content": "s"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "r"},
    ],
}


def test_llama_cpp_flavor_refuses_null_content_with_its_500_validation_body() -> None:
    with FakeOpenAI(flavor="llama-cpp") as fake:
        fake.enqueue(reply("unused"))
        code, _, data = post(fake.base_url, body=NULL_CONTENT)
        assert code == 500
        error = json.loads(data)["error"]
        assert (error["type"], error["param"], error["code"]) == (
            "internal_server_error",
            None,
            None,
        )
        lines = error["message"].split("\n")
        # what llama-cpp-python 0.3.36 answered to the same body (tests/test_real_llm.py
        # compares the two byte for byte, the file path of the trace aside)
        assert lines[0] == "7 validation errors:"
        assert lines[1] == (
            "  {'type': 'literal_error', 'loc': ('body', 'messages', 1, "
            "'ChatCompletionRequestSystemMessage', 'role'), 'msg': \"Input should be 'system'\", "
            "'input': 'assistant', 'ctx': {'expected': \"'system'\"}}"
        )
        assert lines[3] == (
            "  {'type': 'string_type', 'loc': ('body', 'messages', 1, "
            "'ChatCompletionRequestAssistantMessage', 'content'), 'msg': 'Input should be a valid "
            "string', 'input': None}"
        )
        assert lines[-2:] == [
            '  File "/usr/lib/python3/site-packages/llama_cpp/server/app.py", line 376, in '
            "create_chat_completion",
            "    POST /v1/chat/completions",
        ]
        assert fake.pending == [reply("unused")]  # refused before any step is used
        # a string content (even empty) with tool_calls, and tool messages, are accepted
        fine = json.loads(json.dumps(NULL_CONTENT))
        fine["messages"][1]["content"] = ""
        assert post(fake.base_url, body=fine)[0] == 200


def test_llama_cpp_flavor_without_tools_refuses_tool_roles_and_calls() -> None:
    with FakeOpenAI(flavor="llama-cpp", tools=False) as fake:
        body = json.loads(json.dumps(NULL_CONTENT))
        body["messages"][1]["content"] = ""
        code, _, data = post(fake.base_url, body=body)
        assert code == 500
        message = json.loads(data)["error"]["message"]
        # the three members left (system, user, assistant) refuse each message
        assert message.startswith("6 validation errors:")
        assert "'extra_forbidden', 'loc': ('body', 'messages', 1, " in message
        assert "Input should be 'assistant'\", 'input': 'tool'" in message
        plain = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        assert post(fake.base_url, body=plain)[0] == 200


def test_llama_cpp_flavor_context_error_and_cut_reply() -> None:
    with FakeOpenAI(flavor="llama-cpp", max_context_tokens=100, token_scale=2.0) as fake:
        # 160 bytes = 40 estimated tokens, x2 = 80 tokens: 20 left for the reply
        fake.enqueue(reply("y" * 400), reply("z" * 20))
        body: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "x" * 160}]}
        code, _, data = post(fake.base_url, body=body)
        answer = json.loads(data)
        assert code == 200
        assert answer["choices"][0]["finish_reason"] == "length"
        assert answer["choices"][0]["message"]["content"] == "y" * 40  # 20 tokens x 4 / 2
        assert answer["usage"]["prompt_tokens"] == 80
        body["max_tokens"] = 5  # smaller than the room: the reply's own cap
        answer = json.loads(post(fake.base_url, body=body)[2])
        assert answer["choices"][0]["message"]["content"] == "z" * 10
        body["messages"][0]["content"] = "x" * 200  # 100 tokens: the whole window
        code, _, data = post(fake.base_url, body=body)
        assert code == 400
        assert json.loads(data)["error"] == {
            "message": "This model's maximum context length is 100 tokens. However, you "
            "requested 105 tokens (100 in the messages, 5 in the completion). Please reduce the "
            "length of the messages or completion.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }


def test_standalone_llama_cpp_flavor() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "compactor.testing.fake_openai", "--flavor", "llama-cpp"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert post(base_url, body=NULL_CONTENT)[0] == 500
    finally:
        proc.terminate()
        proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()
