"""Issue 28 after blind check 20 (fix20a): no command shape crashes the embedded summarizer,
a crash of the embedded summarizer is not retried, pip's resolver report is no failure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import compactor as c
from compactor._json import JsonValue
from compactor.errors import SummarizationError
from compactor.models.local import LocalSummarizer, summarize_transcript

from .fake_server_cli import CODING, invoke
from .planted_session import SessionBuilder
from .test_models_local_session import section


def test_a_failed_chain_with_an_echo_of_dashes_does_not_crash() -> None:
    """phish-cc (C1): a failed Bash chain with ``echo "--- logs ---"`` (after echo is dropped,
    a word that starts with "-") gave an empty step and ``words[0]`` raised IndexError: the
    whole run exited 3 with "tuple index out of range"."""
    s = SessionBuilder()
    s.user("Start the test container and check its logs")
    command = (
        "docker rm -f web-test >/dev/null 2>&1\ndocker run -d --name web-test img:1\nsleep 3\n"
        'echo "--- logs ---"\ndocker logs web-test 2>&1 | tail -30\n'
        'echo "--- curl ---"\ncurl -sk https://localhost:8443/ | head -5'
    )
    s.call("Bash", {"command": command}, "Exit code 7\n--- logs ---\nstarting", error=True)
    s.call("Bash", {"command": "docker logs web-test 2>&1 | tail -30"}, "listening on :8443")
    s.say("The container runs; curl failed because the port was not ready yet.")
    text = summarize_transcript(s.messages)
    assert "docker run -d --name web-test" in section(text, 4), text


class _Crashing:
    """An embedded summarizer with a bug: every call raises the same IndexError."""

    name = "local"
    embedded = True

    def __init__(self) -> None:
        self.calls = 0

    async def generate(self, messages: list[Any], **options: JsonValue) -> Any:
        self.calls += 1
        return ().__getitem__(0)


class _Clock:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def _history() -> c.AgentState[c.Message]:
    return c.AgentState([c.Message("user", "fix the bug " * 50), c.Message("assistant", "done")])


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_a_crash_of_the_embedded_summarizer_is_not_retried() -> None:
    """phish-cc (C1): the deterministic embedded summarizer raised IndexError and was called 3
    times with backoff (1 s, 2 s) before "exceeds max retries: tuple index out of range"."""
    crashing, clock = _Crashing(), _Clock()
    cfg = c.Config(model=crashing, retry=c.RetryConfig(max_retries=3), sleep=clock)
    with pytest.raises(SummarizationError) as caught:
        await c.new(cfg).summarize_detailed(_history())
    message = str(caught.value)
    assert crashing.calls == 1 and clock.waits == []
    assert "exceeds max retries" not in message, message
    assert "embedded summarizer 'local' crashed (IndexError: tuple index out of range)" in message
    assert "bug in compact" in message and "Traceback" not in message


@pytest.mark.anyio
async def test_a_crash_of_the_embedded_summarizer_fails_over_to_the_fallback_at_once() -> None:
    crashing, clock = _Crashing(), _Clock()
    fallback = c.ScriptedModel(["<summary>\nshort\n</summary>"], name="backup")
    cfg = c.Config(
        model=crashing, retry=c.RetryConfig(max_retries=3), fallback_model=fallback, sleep=clock
    )
    outcome = await c.new(cfg).summarize_detailed(_history())
    assert crashing.calls == 1 and len(fallback.calls) == 1 and clock.waits == []
    assert outcome.degraded
    assert [a.phase for a in outcome.attempts] == ["primary", "fallback"]
    assert "IndexError" in (outcome.attempts[0].error or "")


def test_the_cli_reports_the_embedded_summarizer_s_crash_with_exit_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole run: one line naming the crash, exit 3, nothing written, no traceback."""

    async def crash(self: LocalSummarizer, messages: list[Any], **options: JsonValue) -> Any:
        raise IndexError("tuple index out of range")

    monkeypatch.setattr(LocalSummarizer, "generate", crash)
    out = tmp_path / "out.jsonl"
    done = invoke(["run", "--model", "local", "--force", "--no-cache", str(CODING), "-o", str(out)])
    err = done.stderr.decode()
    assert done.returncode == 3, err
    assert "embedded summarizer 'local' crashed (IndexError: tuple index out of range)" in err
    assert "exceeds max retries" not in err and "Traceback" not in err, err
    assert not out.exists()


_PIP = (
    "Requirement already satisfied: widgetlib in /opt/lib/python3.12/site-packages (4.12.0)\n"
    "Requirement already satisfied: numpy<2 in /opt/lib/python3.12/site-packages (from "
    "widgetlib) (1.26.4)\n"
    "Installing collected packages: importlib-metadata\n"
    "Successfully installed importlib-metadata-7.1.0\n"
    "ERROR: pip's dependency resolver does not currently take into account all the packages "
    "that are installed. This behaviour is the source of the following dependency conflicts.\n"
    "kernelpkg 1.23.1 requires pydantic<2.11,>=2.0, but you have pydantic 2.11.5 which is "
    "incompatible.\n"
    "otherpkg 1.75.5 requires openai>=1.99.5, but you have openai 1.66.2 which is incompatible.\n"
)


def _installed(output: str, error: bool) -> str:
    s = SessionBuilder()
    s.user("Install widgetlib and open the trace viewer")
    s.call("Bash", {"command": "pip install widgetlib"}, output, error=error)
    s.say("widgetlib is installed. Let me run the viewer:")
    s.call(
        "Bash",
        {"command": "python open_trace.py"},
        "Exit code 1\nModuleNotFoundError: No module named 'widgetlib'",
        error=True,
    )
    return summarize_transcript(s.messages)


def test_pip_s_resolver_report_after_an_install_is_no_failure() -> None:
    """taxi-cc (W1): a ``pip install`` result not flagged as an error ("Requirement already
    satisfied … (4.12.0)", "Successfully installed …") ended with pip's dependency-conflict
    report ("ERROR: pip's dependency resolver does not currently take into account…"): the
    summary said the install failed and dropped "already satisfied (4.12.0)"."""
    text = _installed(_PIP, error=False)
    assert "pip install widgetlib` failed" not in text, text
    assert "Unresolved failure: `Bash: pip install widgetlib`" not in section(text, 7), text
    assert "widgetlib (4.12.0)" in text or "already satisfied: widgetlib" in text, text
    assert "pip reported dependency conflicts: kernelpkg 1.23.1 requires pydantic" in text, text
    assert "open_trace.py` failed (exit code 1)" in section(text, 4), text  # still a failure


def test_an_install_flagged_as_an_error_still_failed() -> None:
    """The other shape: the same report in a result flagged as an error (pip exited 1), or
    with no sign that anything was installed, is a failure."""
    flagged = _installed("Exit code 1\n" + _PIP, error=True)
    assert "pip install widgetlib` failed" in section(flagged, 4), flagged
    bare = "\n".join(line for line in _PIP.splitlines() if "ERROR" in line or "requires" in line)
    unflagged = _installed(bare + "\nERROR: Could not install packages due to an OSError", False)
    assert "pip install widgetlib` failed" in section(unflagged, 4), unflagged
