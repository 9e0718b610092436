"""``compactor.formats.claude_code`` against what Claude Code 2.1.197 writes itself (issue 17).

The ground truth is ``reference-compactions/claude-code-2.1.197-own-compact-of-raze.jsonl``:
Claude Code's own ``/compact`` of ``claude-code/raze-grant-session.jsonl``. Our ``--append``
output must have its shape: kept messages stay in place and are listed in ``preservedSegment``
/ ``preservedMessages`` (never copied: a copy reached the model twice), ``logicalParentUuid`` is
the last message, records carry ``entrypoint`` and ``slug``, and the same input gives the same
bytes. Reading: preserved messages follow the summary and have no usage; ``attachment`` records
are context for the summarizer; the ``Skill`` tool reads as ``skill`` and its body is found.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, cast

import orjson
import pytest

import compactor as c
from compactor.counting.tokens import TokenCounterInput, default_token_counter, estimate_message
from compactor.formats.base import CompactionInfo, Transcript
from compactor.formats.claude_code import attachment_text
from compactor.formats.registry import read_transcript, write_transcript
from compactor.pipeline.finalize import (
    PreserveSkillsConfig,
    is_user_candidate,
    new_finalizer,
)
from compactor.pipeline.planning import tail_start
from compactor.pipeline.skills import find_skills
from compactor.schema import (
    CONTENT_TYPE_KEY,
    SKILL_BODY_KEY,
    AgenticMessage,
    make_assistant,
    make_user,
)

from .conftest import shared_file

REFERENCE = "reference-compactions/claude-code-2.1.197-own-compact-of-raze.jsonl"
RAZE = "claude-code/raze-grant-session.jsonl"
TOKENFORGE = "claude-code/tokenforge-grant-session.jsonl"
BASTION = "claude-code/bastion-glm47-skill-lock.jsonl"
SUMMARY = "Summary: the user asked for a grant application; the skill ran."
INFO = CompactionInfo(tokens_before=40_000, tokens_after=900)


def _agentic(t: Transcript) -> list[AgenticMessage]:
    messages = list(t.messages)
    assert all(isinstance(m, AgenticMessage) for m in messages)
    return cast(list[AgenticMessage], messages)


def _records(data: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in data.splitlines() if line.strip()]


def _summary(text: str = SUMMARY) -> AgenticMessage:
    msg = make_user(AgenticMessage, text)
    msg.extra[CONTENT_TYPE_KEY] = "summary"
    return msg


def _append(
    relative: str, tail: int, info: CompactionInfo = INFO
) -> tuple[Transcript, bytes, list[Any]]:
    """(transcript, --append output, the new records) for a summary + the last ``tail``."""
    path = shared_file(relative)
    raw = path.read_bytes()
    t = read_transcript(str(path), raw)
    kept = list(_agentic(t)[_start(_agentic(t), tail) :]) if tail else []
    for m in kept:
        m.usage = None  # what the middleware hands over (the usage is stale)
    out = write_transcript(t, [_summary(), *kept], mode="append", info=info)
    assert out.startswith(raw)
    return t, out, _records(out[len(raw) :])


def _start(messages: list[Any], tail: int) -> int:
    """Where the middleware would start a tail of at most ``tail`` messages (never on a result)."""
    return tail_start(messages, keep_messages=tail)


def _boundary(records: list[dict[str, Any]]) -> dict[str, Any]:
    return next(r for r in records if r.get("subtype") == "compact_boundary")


# -- the reference file itself ------------------------------------------------------------------


def test_reader_follows_claude_codes_own_preserved_segment() -> None:
    path = shared_file(REFERENCE)
    t = read_transcript(str(path), path.read_bytes())
    assert t.format == "claude-code"
    summary, kept, *after = _agentic(t)
    assert summary.extra[CONTENT_TYPE_KEY] == "summary"
    # The two preserved lines are one API response (thinking + text), before the boundary in
    # the file but after the summary in the history, and their stale usage is gone.
    assert kept.role == "assistant"
    assert [b.type for b in kept.blocks] == ["reasoning", "assistant_gen_text"]
    assert kept.blocks[1].text is not None and kept.blocks[1].text.startswith("Good, telemetry")
    assert kept.usage is None
    # Then what Claude Code wrote after the boundary: caveat, /compact, its output, and one
    # attachment, all injected, none of them the user's own words.
    assert [m.extra.get("injected") for m in after] == [True, None, True, True]
    assert after[-1].extra["attachment"] == "agent_listing_delta"
    assert default_token_counter(TokenCounterInput(_agentic(t))) < 20_000  # not the 39,929


def test_a_preserved_list_naming_a_missing_record_preserves_nothing() -> None:
    path = shared_file(REFERENCE)
    broken = path.read_bytes().replace(b'"e2eda27d-1e23-44c6', b'"00000000-1e23-44c6', 1)
    t = read_transcript("broken", broken)
    # Like Claude Code: the segment is not relinked, the history starts at the boundary.
    assert _agentic(t)[0].extra[CONTENT_TYPE_KEY] == "summary"
    assert all(m.role == "user" for m in _agentic(t))


# -- point 1: kept messages are listed, not copied ----------------------------------------------


@pytest.mark.parametrize("relative", [RAZE, TOKENFORGE, BASTION])
def test_append_leaves_kept_messages_in_place_and_lists_them(relative: str) -> None:
    t, out, new = _append(relative, 4)
    # Only the boundary and the summary are added: no copy of any kept record.
    assert [r["type"] for r in new] == ["system", "user"]
    boundary, summary = new
    meta = boundary["compactMetadata"]
    start = _start(_agentic(t), 4)
    assert start < len(_agentic(t))
    kept_lines = [i for j in t.meta.origin[start:] for i in j]
    uuids = [t.meta.lines[i].obj["uuid"] for i in kept_lines]
    assert meta["preservedMessages"] == {
        "anchorUuid": summary["uuid"],
        "uuids": uuids,
        "allUuids": uuids,
    }
    assert meta["preservedSegment"] == {
        "headUuid": uuids[0],
        "anchorUuid": summary["uuid"],
        "tailUuid": uuids[-1],
    }
    by_uuid = {r.get("uuid"): r for r in _records(out)}
    assert all(by_uuid[u]["type"] in ("user", "assistant", "attachment") for u in uuids)
    # A re-read sees the summary, then the kept messages once each, without their usage.
    again = read_transcript("out", out)
    assert _agentic(again)[0].extra[CONTENT_TYPE_KEY] == "summary"
    assert [_plain(m) for m in _agentic(again)[1:]] == [_plain(m) for m in _agentic(t)[start:]]
    assert all(m.usage is None for m in _agentic(again)[1:])


def _plain(msg: Any) -> Any:
    return (msg.role, msg.blocks)


def test_append_shape_matches_the_reference_boundary() -> None:
    reference = _boundary(_records(shared_file(REFERENCE).read_bytes()))
    _, _, new = _append(RAZE, 3)
    ours = _boundary(new)
    assert set(ours) <= set(reference)
    assert set(ours["compactMetadata"]) <= set(reference["compactMetadata"]) - {"durationMs"}
    for key in ("preservedSegment", "preservedMessages"):
        assert set(ours["compactMetadata"][key]) == set(reference["compactMetadata"][key])
    summary = new[1]
    reference_summary = _records(shared_file(REFERENCE).read_bytes())[29]
    assert reference_summary["isCompactSummary"] is True
    assert set(summary) <= set(reference_summary)
    assert summary["parentUuid"] == ours["uuid"]


def test_records_after_the_kept_run_hang_off_the_summary() -> None:
    path = shared_file(RAZE)
    t = read_transcript(str(path), path.read_bytes())
    extra = make_user(AgenticMessage, "a message the finalizer added after the tail")
    out = write_transcript(t, [_summary(), *_agentic(t)[-2:], extra], mode="append", info=INFO)
    new = _records(out[len(path.read_bytes()) :])
    assert [r["type"] for r in new] == ["system", "user", "user"]
    # Claude Code moves the summary's other children after the kept run's tail.
    assert new[2]["parentUuid"] == new[1]["uuid"]


def test_a_copied_message_gets_fresh_message_ids() -> None:
    """An original outside the kept run must be copied; its lines must not merge with the
    original's (Claude Code merges assistant lines by ``message.id``)."""
    path = shared_file(RAZE)
    raw = path.read_bytes()
    t = read_transcript(str(path), raw)
    first_assistant = next(m for m in _agentic(t) if m.role == "assistant")
    out = write_transcript(t, [first_assistant, _summary()], mode="append", info=INFO)
    new = _records(out[len(raw) :])
    old_ids = {r["message"]["id"] for r in _records(raw) if r.get("type") == "assistant"}
    copies = [r for r in new if r.get("type") == "assistant"]
    assert copies
    assert not {r["message"]["id"] for r in copies} & old_ids
    assert len({r["message"]["id"] for r in copies}) == 1  # still one response


def test_shrink_lists_kept_records_so_the_client_drops_their_usage() -> None:
    path = shared_file(TOKENFORGE)
    t = read_transcript(str(path), path.read_bytes())
    out = write_transcript(t, [_summary(), *_agentic(t)[-3:]], info=INFO)
    records = _records(out)
    boundary = _boundary(records)
    tail = [r["uuid"] for r in records[records.index(boundary) + 2 :]]
    assert boundary["compactMetadata"]["preservedMessages"]["uuids"] == tail
    again = read_transcript("out", out)
    assert all(m.usage is None for m in _agentic(again)[1:])


# -- point 3: the count after compaction --------------------------------------------------------


def test_a_reread_counts_what_the_next_request_carries() -> None:
    path = shared_file(TOKENFORGE)
    t = read_transcript(str(path), path.read_bytes())
    stale = default_token_counter(TokenCounterInput(_agentic(t)))
    assert stale > 60_000  # the last usage (66,698 with the estimate of what follows)
    _, out, _ = _append(TOKENFORGE, 6)
    again = read_transcript("out", out)
    tokens = default_token_counter(TokenCounterInput(_agentic(again)))
    expected = sum(estimate_message(m) for m in _agentic(again))
    assert tokens == expected < stale // 4


# -- point 4: boundary shape and determinism ----------------------------------------------------


def test_logical_parent_is_the_last_message_not_a_progress_record() -> None:
    path = shared_file(RAZE)
    records = _records(path.read_bytes())
    assert records[-1]["type"] == "progress"
    last_message = [r for r in records if r.get("type") in ("user", "assistant")][-1]
    _, _, new = _append(RAZE, 0)
    assert _boundary(new)["logicalParentUuid"] == last_message["uuid"]


@pytest.mark.parametrize(("relative", "key"), [(RAZE, "entrypoint"), (BASTION, "slug")])
def test_added_records_carry_the_sessions_envelope(relative: str, key: str) -> None:
    source = [r for r in _records(shared_file(relative).read_bytes()) if "uuid" in r]
    _, _, new = _append(relative, 2)
    for rec in new:
        assert rec[key] == source[-1][key]
        assert rec["sessionId"] == source[-1]["sessionId"]


def test_same_input_same_bytes_and_the_time_comes_from_the_input() -> None:
    info = CompactionInfo(tokens_before=40_000, tokens_after=900)  # no timestamp given
    _, first, new = _append(RAZE, 2, info)
    _, second, _ = _append(RAZE, 2, info)
    assert first == second
    newest = max(
        r["timestamp"] for r in _records(shared_file(RAZE).read_bytes()) if "timestamp" in r
    )
    assert {r["timestamp"] for r in new} == {newest}
    assert "durationMs" not in _boundary(new)["compactMetadata"]


# -- point 5: skills ----------------------------------------------------------------------------


def test_skill_tool_reads_as_skill_and_its_body_is_marked() -> None:
    path = shared_file(RAZE)
    t = read_transcript(str(path), path.read_bytes())
    calls = [b for m in _agentic(t) for b in m.blocks if b.type == "function_tool_call"]
    assert calls[0].name == "skill"  # Claude Code's "Skill"
    body = next(m for m in _agentic(t) if SKILL_BODY_KEY in m.extra)
    assert body.extra[SKILL_BODY_KEY] == calls[0].call_id
    assert body.extra["injected"] is True
    skills = find_skills(_agentic(t), "skill")  # SPEC's default name
    assert [s.name for s in skills] == ["apply-grant"]
    assert skills[0].content.startswith("Base directory for this skill:")
    assert "Launching skill" not in skills[0].content


def test_preserve_skills_keeps_the_body_with_the_default_config() -> None:
    path = shared_file(RAZE)
    t = read_transcript(str(path), path.read_bytes())
    finalize = new_finalizer().preserve_skills(PreserveSkillsConfig()).build()
    reply = make_assistant(AgenticMessage, "the summary")
    out = asyncio.run(finalize(list(_agentic(t)), reply))
    text = "\n".join(b.text or "" for b in out[0].blocks if b.text)
    assert "### Skill: apply-grant\n\nBase directory for this skill:" in text


def test_a_rendered_skill_call_is_written_with_claude_codes_name() -> None:
    path = shared_file(RAZE)
    t = read_transcript(str(path), path.read_bytes())
    call = next(m for m in _agentic(t) if any(b.name == "skill" for b in m.blocks))
    edited = AgenticMessage(role="assistant", blocks=[b for b in call.blocks if b.name])
    out = write_transcript(t, [_summary(), edited], info=INFO)
    tool_uses = [
        b
        for r in _records(out)
        if r.get("type") == "assistant"
        for b in r["message"]["content"]
        if b.get("type") == "tool_use"
    ]
    assert [b["name"] for b in tool_uses] == ["Skill"]


# -- point 6: attachments -----------------------------------------------------------------------


def test_attachments_are_injected_context_messages() -> None:
    path = shared_file(TOKENFORGE)
    raw = path.read_bytes()
    t = read_transcript(str(path), raw)
    attachments = [m for m in _agentic(t) if m.extra.get("attachment")]
    assert [m.extra["attachment"] for m in attachments] == ["deferred_tools_delta"] * 2
    assert all(m.extra["injected"] and m.role == "user" for m in attachments)
    assert "AskUserQuestion" in attachments[0].blocks[0].text  # type: ignore[operator]
    # They are not the user's words, so never quoted back as such.
    assert is_user_candidate(attachments[0]) is False


def test_the_summarizer_sees_the_attachments() -> None:
    path = shared_file(TOKENFORGE)
    t = read_transcript(str(path), path.read_bytes())
    model = c.ScriptedModel.replying("<summary>done</summary>")
    config: c.Config[AgenticMessage] = c.Config(model=model)
    asyncio.run(c.new(config).summarize(c.AgentState(_agentic(t))))
    seen = json.dumps([[b.text for b in m.blocks] for m in model.sent(AgenticMessage)[0][1:-1]])
    assert "deferred_tools_delta" in seen and "TaskCreate" in seen


def _line(**rec: Any) -> bytes:
    base = {
        "sessionId": "s",
        "cwd": "/w",
        "version": "2.1.197",
        "timestamp": "2026-01-01T00:00:00Z",
    }
    return orjson.dumps({**base, **rec})


def test_an_attachment_between_a_call_and_its_result_follows_the_result() -> None:
    lines = [
        _line(type="user", uuid="u1", parentUuid=None, message={"role": "user", "content": "go"}),
        _line(
            type="assistant",
            uuid="a1",
            parentUuid="u1",
            message={
                "id": "msg_1",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}}],
            },
        ),
        _line(
            type="attachment",
            uuid="t1",
            parentUuid="a1",
            attachment={"type": "task_reminder", "content": [{"id": "1", "subject": "fetch"}]},
        ),
        _line(
            type="user",
            uuid="r1",
            parentUuid="t1",
            message={
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}],
            },
        ),
    ]
    t = read_transcript("t", b"\n".join(lines) + b"\n", "claude-code")
    kinds = [m.extra.get("attachment") or m.role for m in _agentic(t)]
    assert kinds == ["user", "assistant", "user", "task_reminder"]
    assert "fetch" in (_agentic(t)[-1].blocks[0].text or "")


def test_attachment_text_names_the_type_and_every_field() -> None:
    text = attachment_text({"type": "file", "filename": "a.py", "content": {"lines": 3}})
    assert text.startswith("<system-reminder>\nattachment file\n")
    assert "filename: a.py" in text and 'content: {"lines": 3}' in text


def test_attachment_records_stay_untouched_in_shrink_output() -> None:
    path = shared_file(TOKENFORGE)
    raw = path.read_bytes()
    t = read_transcript(str(path), raw)
    index = max(i for i, m in enumerate(_agentic(t)) if m.extra.get("attachment"))
    kept = _agentic(t)[index:]
    out = write_transcript(t, [_summary(), *kept], info=INFO)
    line = t.meta.lines[t.meta.origin[index][0]]
    written = [r for r in _records(out) if r.get("uuid") == line.obj["uuid"]]
    assert written and written[0]["attachment"] == line.obj["attachment"]


def test_the_readers_markers_are_never_written_into_a_record() -> None:
    path = shared_file(RAZE)
    raw = path.read_bytes()
    t = read_transcript(str(path), raw)
    rendered = [
        AgenticMessage(role=m.role, blocks=m.blocks, extra=dict(m.extra)) for m in _agentic(t)
    ]
    for m in rendered:
        m.blocks = [*m.blocks]  # equal content, but re-rendered: the copies are not originals
        m.extra["edited"] = True
    out = write_transcript(t, [_summary(), *rendered], info=INFO)
    for marker in (SKILL_BODY_KEY, "injected", "attachment", "edited"):
        assert f'"{marker}"'.encode() not in out


def _with_new_metadata(tmp_path: Path) -> tuple[Path, bytes, bytes]:
    """The sample Claude Code session with the ``agent-name`` and ``pr-link`` metadata records
    that Claude Code 2.1.158+ writes, each naming the session."""
    sample = (
        Path(__file__).resolve().parents[1] / "sample_transcripts" / "claude-code-session.jsonl"
    )
    lines = sample.read_bytes().splitlines(keepends=True)
    session = json.loads(lines[0])["sessionId"]
    agent = orjson.dumps({"type": "agent-name", "agentName": "notes", "sessionId": session}) + b"\n"
    future = orjson.dumps({"type": "pr-link", "url": "https://x.invalid/1", "sessionId": session})
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"".join([lines[0], agent, *lines[1:3], future + b"\n", *lines[3:]]))
    return src, agent, future


def test_a_session_with_the_newer_metadata_records_is_read_and_they_are_kept(
    tmp_path: Path,
) -> None:
    """Blind check 5: Claude Code 2.1.158 writes ``{"type": "agent-name", ...}`` records, and a
    reader that refused every type it did not know refused the whole session (exit 2)."""
    src, agent, future = _with_new_metadata(tmp_path)
    t = read_transcript(str(src), src.read_bytes())
    assert t.format == "claude-code"
    assert all(m.role in ("user", "assistant", "system", "tool") for m in t.messages)
    out = tmp_path / "out.jsonl"
    result = c.run_file(c.RunOptions(input=str(src), output=str(out), force=True, model="local"))
    assert result.exit_code == 0, result.error
    written = out.read_bytes()
    assert agent in written  # the session's name survives a compaction, as custom-title does
    appended = tmp_path / "appended.jsonl"
    result = c.run_file(
        c.RunOptions(input=str(src), output=str(appended), force=True, model="local", append=True)
    )
    assert result.exit_code == 0, result.error
    assert future in appended.read_bytes()  # --append keeps every record as it was
    assert future in written  # a shrunk session keeps its pull request link too
    assert src.read_bytes().count(b"pr-link") == 1  # the input is untouched


def test_a_record_of_a_type_no_claude_code_writes_is_still_refused(tmp_path: Path) -> None:
    """A type the reader does not know that holds a ``message`` is refused (RELIABILITY,
    Decisions: it may hold what the model saw); the error names the line and the field. (One
    without a message is metadata: tests/test_claude_code_unknown_records.py.)"""
    src, _, _ = _with_new_metadata(tmp_path)
    body = {"role": "user", "content": "x"}
    stray = orjson.dumps({"type": "future-thing", "message": body, "sessionId": "s"}) + b"\n"
    src.write_bytes(src.read_bytes() + stray)
    n = src.read_bytes().count(b"\n")
    with pytest.raises(c.TranscriptError, match=f"session.jsonl:{n}: field 'type'"):
        read_transcript(str(src), src.read_bytes())
