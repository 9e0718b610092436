"""A result truncated first and then cleared is counted in both lists, and the reports say how
many such results there are, so "1 truncated, 3 cleared" is not read as four placeholders
(blind check 54 N8)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from compactor import reduction
from compactor.events import AfterReduce
from compactor.reduction import FileOffload, ReductionConfig
from compactor.schema import AgentState

from .test_reduction import chat_rounds


def test_a_result_truncated_then_cleared_is_named_in_the_event_and_the_report(
    tmp_path: Path,
) -> None:
    events: list[object] = []
    cfg = ReductionConfig(backend=FileOffload(tmp_path / "o"), force=True, on_event=events.append)
    out = asyncio.run(
        reduction.new(cfg).reduce(AgentState(messages=chat_rounds(4, size=400, big=60_000)))
    )
    assert out.truncated == ["call_0"] and "call_0" in out.cleared
    assert out.truncated_then_cleared == 1
    assert out.to_dict()["truncated_then_cleared"] == 1
    placeholders = {*out.truncated, *out.cleared}
    assert len(placeholders) == len(out.cleared)  # one placeholder per result, not two
    after = next(e for e in events if isinstance(e, AfterReduce))
    assert (after.truncated, after.cleared, after.truncated_then_cleared) == (1, 3, 1)


def test_the_live_line_says_how_many_were_truncated_first() -> None:
    from io import StringIO

    from rich.console import Console

    from compactor.cli.live import LiveView

    buf = StringIO()
    view = LiveView(Console(file=buf, width=200, force_terminal=False), verbose=False)
    event = AfterReduce(truncated=1, cleared=6, tokens_before=100, tokens_after=10,
                        truncated_then_cleared=1)  # fmt: skip
    view(event)
    text = buf.getvalue()
    assert "1 result truncated, 6 results cleared (1 of them truncated first)" in text, text
