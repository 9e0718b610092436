"""The fakes' standalone entry points (``python -m compactor.testing.fake_openai`` /
``fake_anthropic``), run in-process in a thread so coverage sees them: the first stdout line is
the base URL, the script's steps are played in order, a bad script is a usage error."""

from __future__ import annotations

import contextlib
import io
import json
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from compactor.testing import fake_anthropic, fake_openai


@contextlib.contextmanager
def serving(main: Callable[..., int], argv: list[str]) -> Iterator[str]:
    """Run ``main(argv)`` in a thread until the block ends; yields the base URL it printed."""
    out = io.StringIO()
    until = threading.Event()
    codes: list[int] = []

    def run() -> None:
        with contextlib.redirect_stdout(out):
            codes.append(main(argv, until=until))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while "\n" not in out.getvalue():
        assert time.monotonic() < deadline, "the fake printed no base URL"
        time.sleep(0.01)
    try:
        yield out.getvalue().splitlines()[0]
    finally:
        until.set()
        thread.join(10)
    assert codes == [0]


def _post(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json", **headers}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_the_openai_fake_standalone_plays_its_script_then_its_default(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"status": 503}]))
    argv = ["--port", "0", "--script", str(script), "--default", "from the default"]
    with serving(fake_openai.main, argv) as base_url:
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        url = base_url + "/chat/completions"
        first, _ = _post(url, body, {"authorization": "Bearer k"})
        second, reply = _post(url, body, {"authorization": "Bearer k"})
    assert first == 503
    assert second == 200 and reply["choices"][0]["message"]["content"] == "from the default"


def test_the_anthropic_fake_standalone_answers_the_messages_api(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"reply": "scripted summary"}]))
    with serving(fake_anthropic.main, ["--port", "0", "--script", str(script)]) as base_url:
        assert base_url.startswith("http://127.0.0.1:")
        status, reply = _post(
            base_url + "/v1/messages",
            {
                "model": "claude-x",
                "max_tokens": 100,
                "messages": [{"role": "user", "content": "a"}],
            },
            {"x-api-key": "k", "anthropic-version": "2023-06-01"},
        )
    assert status == 200
    assert reply["content"] == [{"type": "text", "text": "scripted summary"}]
    assert reply["stop_reason"] == "end_turn" and reply["role"] == "assistant"


@pytest.mark.parametrize("main", [fake_openai.main, fake_anthropic.main])
def test_a_script_that_is_not_a_list_is_a_usage_error(
    tmp_path: Path, main: Callable[..., int], capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "s.json"
    script.write_text('{"text": "not a list"}')
    with pytest.raises(SystemExit) as exc:
        main(["--port", "0", "--script", str(script)])
    assert exc.value.code == 2
    assert "--script must hold a JSON list of steps" in capsys.readouterr().err
