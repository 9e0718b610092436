"""Issue 28 after blind check 20 (fix20a): no command shape crashes the embedded summarizer,
a crash of the embedded summarizer is not retried, pip's resolver report is no failure."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

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
