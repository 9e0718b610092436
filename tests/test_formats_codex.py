"""``compactor.formats.codex`` against what Codex 0.171.0 writes itself (issue 17).

Ground truth: ``reference-compactions/codex-0.171.0-own-compact-of-soul.jsonl`` (remote
compaction) and ``codex-0.171.0-own-local-compact-small.jsonl`` (local). After its ``compacted``
record Codex writes a ``token_count`` whose ``last_token_usage`` is the size after compaction
and an ``event_msg/context_compacted``; without that count a resumed session sees the last
pre-compaction one and compacts again at once. Its ``replacement_history`` carries no stale
developer message: Codex writes its instructions anew after a compaction.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import orjson
import pytest
from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.counting.tokens import TokenCounterInput, default_token_counter, estimate_message
from compactor.formats.base import CompactionInfo, Transcript
from compactor.formats.registry import read_transcript, write_transcript
from compactor.pipeline.planning import tail_start
from compactor.schema import CONTENT_TYPE_KEY, Message, content_type, make_user

from .conftest import shared_file

SOUL = "codex/soul-grant-rollout.jsonl"
EMPIRE = "codex/empire-of-bits-desktop-rollout.jsonl"
REMOTE = "reference-compactions/codex-0.171.0-own-compact-of-soul.jsonl"
LOCAL = "reference-compactions/codex-0.171.0-own-local-compact-small.jsonl"
SUMMARY = "Summary: the user asked for a grant application."
INFO = CompactionInfo(tokens_before=22_648, tokens_after=6_000)


def _chat(t: Transcript) -> list[Message]:
    messages = list(t.messages)
    assert all(isinstance(m, Message) for m in messages)
    return cast(list[Message], messages)


def _records(data: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in data.splitlines() if line.strip()]


def _summary() -> Message:
    msg = make_user(Message, SUMMARY)
    msg.extra[CONTENT_TYPE_KEY] = "summary"
    return msg


def _lead(messages: list[Any]) -> list[Any]:
    lead = []
    for m in messages:
        if m.role != "system":
            break
        lead.append(m)
    return lead


def _append(relative: str, tail: int = 0, info: CompactionInfo = INFO) -> tuple[Transcript, bytes]:
    path = shared_file(relative)
    raw = path.read_bytes()
    t = read_transcript(str(path), raw)
    start = tail_start(_chat(t), keep_messages=tail) if tail else len(_chat(t))
    # What the default finalizer returns: the leading system (developer) messages, the summary.
    new = [*_lead(_chat(t)), _summary(), *_chat(t)[start:]]
    out = write_transcript(t, new, mode="append", info=info)
    assert out.startswith(raw)
    return t, out[len(raw) :]


def _last_info(data: bytes) -> dict[str, Any]:
    infos = [
        r["payload"]["info"]
        for r in _records(data)
        if r["type"] == "event_msg"
        and r["payload"].get("type") == "token_count"
        and r["payload"].get("info")
    ]
    info: dict[str, Any] = infos[-1]
    return info


# -- point 2: the count after compaction --------------------------------------------------------


@pytest.mark.parametrize("relative", [SOUL, EMPIRE])
def test_append_writes_the_count_after_compaction_like_codex(relative: str) -> None:
    t, added = _append(relative)
    records = _records(added)
    assert [(r["type"], r["payload"].get("type")) for r in records] == [
        ("compacted", None),
        ("event_msg", "token_count"),
        ("event_msg", "context_compacted"),
    ]
    before = _last_info(t.raw)
    info = records[1]["payload"]["info"]
    assert info["last_token_usage"]["total_tokens"] == 6_000
    assert {
        k: v for k, v in info["last_token_usage"].items() if k != "total_tokens"
    } == dict.fromkeys(before["last_token_usage"].keys() - {"total_tokens"}, 0)
    assert info["total_token_usage"] == before["total_token_usage"]  # session totals stay
    assert info["model_context_window"] == before["model_context_window"]
    # A resumed Codex reads the newest count: ours, not the stale one before it.
    assert _last_info(t.raw + added)["last_token_usage"]["total_tokens"] == 6_000


def test_token_count_shape_matches_the_reference() -> None:
    reference = _records(shared_file(REMOTE).read_bytes())
    where = next(i for i, r in enumerate(reference) if r["type"] == "compacted")
    ref_count = next(
        r["payload"]
        for r in reference[where:]
        if r["type"] == "event_msg" and r["payload"].get("type") == "token_count"
    )
    ref_order = [
        r["payload"].get("type")
        for r in reference[where:]
        if r["type"] == "event_msg"
        and r["payload"].get("type") in ("token_count", "context_compacted")
    ][:2]
    _, added = _append(SOUL)
    ours = _records(added)
    assert [r["payload"].get("type") for r in ours[1:]] == ref_order
    count = ours[1]["payload"]
    assert set(count) == set(ref_count)
    assert set(count["info"]) <= set(ref_count["info"])
    assert set(count["info"]["last_token_usage"]) <= set(ref_count["info"]["last_token_usage"])
    assert ref_count["info"]["last_token_usage"]["input_tokens"] == 0  # Codex's own: size in total


def test_no_count_is_invented_without_a_size() -> None:
    _, added = _append(SOUL, info=CompactionInfo(tokens_before=22_648))
    assert [r["payload"].get("type") for r in _records(added)] == [None, "context_compacted"]


# -- point 4: replacement history and determinism -----------------------------------------------


@pytest.mark.parametrize("relative", [SOUL, EMPIRE])
def test_replacement_history_leaves_instructions_to_codex(relative: str) -> None:
    t, added = _append(relative, tail=6)
    assert _lead(_chat(t)), "the rollout starts with developer instructions"
    history = _records(added)[0]["payload"]["replacement_history"]
    assert history == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": SUMMARY}]}
    ]
    assert max(len(orjson.dumps(item)) for item in history) < 1_000  # no 30,203-char developer


def test_kept_tail_follows_the_markers_and_rereads_without_usage() -> None:
    t, added = _append(SOUL, tail=6)
    kinds = [r["type"] for r in _records(added)]
    assert kinds[:3] == ["compacted", "event_msg", "event_msg"]
    assert set(kinds[3:]) == {"response_item"}
    again = read_transcript("out", t.raw + added)
    where = max(i for i, m in enumerate(_chat(again)) if m.extra.get(CONTENT_TYPE_KEY))
    kept = _chat(again)[where + 1 :]
    assert kept and [m.content for m in kept] == [
        m.content for m in _chat(t)[tail_start(_chat(t), keep_messages=6) :]
    ]
    # no stale usage: only the newest assistant carries the count the compaction wrote
    # (INFO's tokens_after, less the estimate of what follows it)
    counted = [i for i, m in enumerate(kept) if m.usage is not None]
    newest = max(i for i, m in enumerate(kept) if m.role == "assistant")
    assert counted == [newest]
    rest = sum(estimate_message(m) for m in kept[newest + 1 :])
    usage = kept[newest].usage
    assert usage is not None and INFO.tokens_after is not None
    assert usage.total_tokens == INFO.tokens_after - rest


def test_same_input_same_bytes_and_the_time_comes_from_the_input() -> None:
    info = CompactionInfo(tokens_before=22_648, tokens_after=6_000)
    t, first = _append(SOUL, tail=6, info=info)
    _, second = _append(SOUL, tail=6, info=info)
    assert first == second
    newest = max(r["timestamp"] for r in _records(t.raw))
    stamps = {r["timestamp"] for r in _records(first)[:3]}
    assert stamps == {newest}


# -- reading Codex's own compactions ------------------------------------------------------------


def test_reader_reads_codexs_local_compaction() -> None:
    path = shared_file(LOCAL)
    t = read_transcript(str(path), path.read_bytes())
    summaries = [m for m in _chat(t) if m.extra.get(CONTENT_TYPE_KEY) == "summary"]
    assert len(summaries) == 1
    assert "FAKE-CODEX-SUMMARY" in summaries[0].content
    env = [m for m in _chat(t) if m.content.startswith("<environment_context>")]
    assert env and all(m.extra.get("injected") for m in env)
    assert [m.content for m in _chat(t)[-2:]] == ["third question", "FAKE-MODEL-REPLY ok."]


def test_reader_reads_codexs_remote_compaction() -> None:
    path = shared_file(REMOTE)
    t = read_transcript(str(path), path.read_bytes())
    # The replacement history (developer, environment, user) then the turn after it.
    assert [m.role for m in _chat(t)] == ["system", "user", "user", "user", "assistant"]
    assert _chat(t)[-2].content == "continue"


# -- issue 30: `check` counts a summary-only compaction as the run reported it -----------------


@pytest.mark.parametrize("relative", [SOUL, EMPIRE])
def test_check_counts_a_summary_only_compaction_as_the_run_reported(
    relative: str, tmp_path: Path
) -> None:
    """``compact run --force --model local`` keeps nothing after the summary; the output's
    history is the summary alone (the developer instructions are Codex's to write anew), and the
    ``token_count`` after ``compacted`` says what the run counted, instructions included, which
    is what Codex takes on resume. ``check`` counted the summary alone (2,216 against the run's
    11,451): that count had no assistant message to sit on."""
    path = shared_file(relative)
    out, report = tmp_path / "out.jsonl", tmp_path / "report.json"
    runner = CliRunner()
    args = ["run", str(path), "--force", "--model", "local", "-q"]
    ran = runner.invoke(app, [*args, "-o", str(out), "--report", str(report)])
    assert ran.exit_code == 0, ran.output
    after = json.loads(report.read_text("utf-8"))["tokens_after"]
    again = _chat(read_transcript(str(out), out.read_bytes()))
    assert [content_type(m) for m in again] == ["summary"]  # nothing kept after it
    assert _last_info(out.read_bytes())["last_token_usage"]["total_tokens"] == after
    checked = runner.invoke(app, ["check", "--json", str(out)])
    assert checked.exit_code == 0, checked.output
    assert json.loads(checked.stdout)["tokens"] == after
    assert after > estimate_message(again[0]) + 1_000  # more than the summary alone


def test_codexs_own_count_after_its_compaction_is_the_baseline_without_a_reply(
    tmp_path: Path,
) -> None:
    """Codex writes its count a few records after ``compacted`` (``world_state``,
    ``turn_context`` in between); a session that stops there has no assistant message after
    the compaction, and its count is still the history's size."""
    lines = shared_file(LOCAL).read_bytes().splitlines(keepends=True)
    records = [orjson.loads(line) for line in lines]
    compacted = next(i for i, r in enumerate(records) if r["type"] == "compacted")
    count = next(
        i
        for i, r in enumerate(records)
        if i > compacted and r["type"] == "event_msg" and r["payload"]["type"] == "token_count"
    )
    assert records[compacted + 1]["type"] != "event_msg"  # not right after it
    total = records[count]["payload"]["info"]["last_token_usage"]["total_tokens"]
    cut = b"".join(lines[: count + 1])
    t = read_transcript("cut.jsonl", cut)
    assert not any(m.role == "assistant" for m in _chat(t))
    assert default_token_counter(TokenCounterInput(t.messages, t.tools)) == total == 6_886
