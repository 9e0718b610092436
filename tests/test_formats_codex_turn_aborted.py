"""A Codex ``turn_aborted`` event survives reduce, hybrid and summarize (blind check 19,
neuro-codex, Codex 0.42: the rollout ends with ``event_msg/turn_aborted`` "interrupted", its only
trace of the interruption; every rewritten rollout dropped it, and the report listed it under
``dropped_records``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compactor.formats._codex_events import ABORT_NOTICE
from compactor.formats.registry import read_transcript

from .test_reduction_cli import _codex_session, compact, report

ABORTED = (
    '{"timestamp":"2026-03-02T10:05:00.000Z","type":"event_msg",'
    '"payload":{"type":"turn_aborted","reason":"interrupted"}}'
)


def _aborted_session(path: Path) -> bytes:
    """The Codex rollout of test_reduction_cli, its last turn interrupted by the user."""
    _codex_session(path)
    tail = (
        '{"timestamp":"2026-03-02T10:04:59.000Z","type":"event_msg",'
        '"payload":{"type":"token_count","info":null}}\n'
    )
    path.write_bytes(path.read_bytes() + tail.encode() + ABORTED.encode() + b"\n")
    return path.read_bytes()


@pytest.mark.parametrize(
    "args",
    [
        ("--strategy", "reduce", "--force"),
        ("--strategy", "hybrid", "--force"),
        ("--force",),  # summarize (the embedded summarizer)
    ],
)
def test_turn_aborted_at_the_end_is_kept_as_it_was(tmp_path: Path, args: tuple[str, ...]) -> None:
    before = _aborted_session(tmp_path / "s.jsonl")
    proc = compact(
        tmp_path, "run", "s.jsonl", *args, "-o", "out.jsonl", "--report", "report.json",
        "--model", "local",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "s.jsonl").read_bytes() == before
    raw = (tmp_path / "out.jsonl").read_bytes()
    lines = raw.decode().splitlines()
    assert lines[-1] == ABORTED  # byte for byte, and still the rollout's last word
    assert lines.count(ABORTED) == 1
    assert any(json.loads(x).get("type") == "compacted" for x in lines)
    assert "event_msg/turn_aborted" not in report(tmp_path).get("dropped_records", {})
    # the file reads back, with the same history as without the event
    out = read_transcript("out.jsonl", raw)
    assert out.format == "codex"
    proc = compact(tmp_path, "check", "out.jsonl")
    assert proc.returncode == 0, proc.stderr


def test_append_keeps_turn_aborted_where_it_was_and_adds_no_copy(tmp_path: Path) -> None:
    before = _aborted_session(tmp_path / "s.jsonl")
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--force", "--append", "-o",
        "out.jsonl",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    raw = (tmp_path / "out.jsonl").read_bytes()
    assert raw.startswith(before)  # the file as it was, the abort in it
    assert raw.decode().splitlines().count(ABORTED) == 1


def test_turn_aborted_between_two_turns_is_not_moved_after_the_history(tmp_path: Path) -> None:
    """An abort the user's next message took up again: not written after the history."""
    src = tmp_path / "s.jsonl"
    _codex_session(src)
    lines = src.read_text().splitlines()
    user = {"timestamp": "2026-03-02T10:06:00.000Z", "type": "response_item",
            "payload": {"type": "message", "role": "user",
                        "content": [{"type": "input_text", "text": "go on"}]}}  # fmt: skip
    lines[-1:-1] = [ABORTED, json.dumps(user)]  # before the final answer
    src.write_text("\n".join(lines) + "\n")
    proc = compact(tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--force", "-o", "out.jsonl")
    assert proc.returncode == 0, proc.stderr
    assert ABORTED not in (tmp_path / "out.jsonl").read_text()


def _history_texts(raw: str) -> list[str]:
    """The message texts of a rewritten rollout in order: its replacement_history, then the
    response items after it."""
    items: list[dict[str, object]] = []
    for line in raw.splitlines():
        rec = json.loads(line)
        if rec.get("type") == "compacted":
            items.extend(rec["payload"]["replacement_history"])
        elif rec.get("type") == "response_item":
            items.append(rec["payload"])
    texts = []
    for item in items:
        if item.get("type") == "message":
            content = item.get("content")
            assert isinstance(content, list)
            texts.append(f"{item['role']}: " + "".join(c.get("text", "") for c in content))
    return texts


NEWER_NOTICE = (
    "<turn_aborted>\nThe user interrupted the previous turn on purpose. Any running unified exec "
    "processes were terminated. If any tools/commands were aborted, they may have partially "
    "executed; verify current state before retrying.\n</turn_aborted>"
)
"""The wording of a later Codex version than :data:`ABORT_NOTICE`'s (invented by shape)."""


def _aborted_mid_history(path: Path, notice: bool, own_later: str | None = None) -> None:
    """The rollout of test_reduction_cli, its first turn interrupted after two calls (the event
    alone as Codex 0.58 wrote it, or with Codex's own ``<turn_aborted>`` item), then a second
    request."""
    _codex_session(path)
    lines = path.read_text().splitlines()
    second = lines.index(next(x for x in lines if '"call_id": "c2"' in x))

    def said(text: str) -> dict[str, object]:
        content = [{"type": "input_text", "text": text}]
        payload = {"type": "message", "role": "user", "content": content}
        return {
            "timestamp": "2026-03-02T10:06:00.000Z",
            "type": "response_item",
            "payload": payload,
        }

    user, own = said("try the parser instead"), said(ABORT_NOTICE)
    lines[second:second] = [ABORTED, *([json.dumps(own)] if notice else []), json.dumps(user)]
    if own_later is not None:  # a later interruption Codex wrote its own notice for
        lines.append(json.dumps(said(own_later)))
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("strategy", ["reduce", "hybrid"])
def test_turn_aborted_between_two_requests_stays_visible_in_the_rollouts_own_words(
    tmp_path: Path, strategy: str
) -> None:
    """Blind check 59: an interruption written only as an event, which reduce and hybrid drop,
    left two requests in a row. Codex's ``<turn_aborted>`` user message now stands between them,
    in the wording this rollout's Codex wrote for another interruption (blind check 66: never
    another version's); the texts around it are unchanged."""
    _aborted_mid_history(tmp_path / "s.jsonl", notice=False, own_later=NEWER_NOTICE)
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", strategy, "--force", "-o", "out.jsonl",
        "--model", "local",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    texts = _history_texts((tmp_path / "out.jsonl").read_text())
    at = texts.index("user: try the parser instead")
    assert texts[at - 1] == f"user: {NEWER_NOTICE}", texts
    assert texts.count(f"user: {NEWER_NOTICE}") == 2  # the added one and Codex's own
    assert f"user: {ABORT_NOTICE}" not in texts
    assert "user: fix the failing test" in texts and texts[-2] == "assistant: done"
    back = read_transcript("out.jsonl", (tmp_path / "out.jsonl").read_bytes())
    assert back.format == "codex"


@pytest.mark.parametrize("strategy", ["reduce", "hybrid"])
def test_no_notice_is_added_to_a_rollout_whose_codex_wrote_none(
    tmp_path: Path, strategy: str
) -> None:
    """Blind check 66 (a Codex 0.46 rollout, interruptions written only as events): reduce added
    ``<turn_aborted>`` messages in a later version's words ("unified exec processes", a tool
    that version did not have). A rollout with no such message of its own gets none."""
    _aborted_mid_history(tmp_path / "s.jsonl", notice=False)
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", strategy, "--force", "-o", "out.jsonl",
        "--model", "local",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    texts = _history_texts((tmp_path / "out.jsonl").read_text())
    assert not [t for t in texts if "<turn_aborted>" in t], texts
    at = texts.index("user: try the parser instead")
    assert "user: fix the failing test" in texts[:at] and texts[-1] == "assistant: done"


def test_codex_own_turn_aborted_item_is_not_doubled(tmp_path: Path) -> None:
    _aborted_mid_history(tmp_path / "s.jsonl", notice=True)
    proc = compact(tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--force", "-o", "out.jsonl")
    assert proc.returncode == 0, proc.stderr
    texts = _history_texts((tmp_path / "out.jsonl").read_text())
    assert texts.count(f"user: {ABORT_NOTICE}") == 1, texts
