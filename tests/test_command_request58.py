"""Blind check 57 (N2): the initial request is what the user typed (a slash command with its
arguments), never the prompt the command expanded into (an ``isMeta`` record): that prompt is
the command's text, durable context, not the user's words."""

from __future__ import annotations

from pathlib import Path

from compactor.facts import entry_of
from compactor.formats.registry import read_transcript
from compactor.pipeline.skill_focus import injected_skills
from compactor.schema import AgenticMessage, Message

from .cc_session import Session, cc_summary
from .test_models_local_session import section

_PROTOCOL = (
    "RUN AT ONCE, ask nothing first.\n\n## Parsing\n\nRead Goal:, Scope: and Metric: from the "
    "arguments. Then loop: change one thing, measure, keep or revert, log the row.\n"
)


def _session() -> Session:
    s = Session()
    s.user(
        "<command-message>tuneloop:tuneloop</command-message>\n"
        "<command-name>/tuneloop:tuneloop</command-name>\n"
        "<command-args>Goal: halve the page load time</command-args>"
    )
    s.user([{"type": "text", "text": _PROTOCOL}])
    s.records[-1]["isMeta"] = True
    s.call("Read", {"file_path": "/home/dev/board/src/page.ts"}, "1\texport const page = 1;")
    s.say("Measured the baseline: 2.4 s.")
    s.user("Stop the loop and add a dark-mode toggle to the header instead.")
    s.say("Stopped; the toggle is next.")
    return s


def test_the_initial_request_is_the_command_typed_not_its_expanded_prompt(
    tmp_path: Path,
) -> None:
    text = cc_summary(_session(), tmp_path)
    first = " ".join(section(text, 1).split())
    assert 'Initial request: "/tuneloop:tuneloop Goal: halve the page load time"' in first, first
    assert "RUN AT ONCE" not in first, first
    assert "not the user's words: /tuneloop:tuneloop (" in first, first
    assert "RUN AT ONCE" not in " ".join(section(text, 6).split())


def test_the_expanded_prompt_is_a_durable_skill(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(_session().lines()) + b"\n")
    messages: list[Message | AgenticMessage] = list(
        read_transcript(str(path), path.read_bytes()).messages
    )
    found = injected_skills([entry_of(i, m) for i, m in enumerate(messages)])
    assert [(name, body.startswith("RUN AT ONCE")) for name, body, _ in found] == [
        ("/tuneloop:tuneloop", True)
    ], found
