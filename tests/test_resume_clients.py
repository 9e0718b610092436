"""The real Claude Code and Codex CLIs resume our ``--append`` output (``make test-resume``).

``scripts/resume_clients.sh`` installs the pinned clients from the npm registry into a cache
folder and runs this file with ``RESUME_CLAUDE`` / ``RESUME_CODEX`` naming their executables
(inside a network namespace with only a loopback device when it can make one); without them
every test here is skipped. ``RESUME_COMPACT`` runs another ``compact`` (an older build, to see
what these tests catch).

Each case compacts a shared transcript with ``compact run --append`` (the embedded summarizer,
with and without a kept tail), puts the result where the client looks for sessions, resumes it
with ``"continue"`` against a loopback fake of the client's API and checks the one request the
client then makes:

* our summary is in it;
* no tool-call id from before the boundary is, except those of the kept messages;
* each kept message is in it exactly once;
* it is the only model request: no compaction first, although the client's auto-compact limit
  sits between the size after our compaction and the stale size before it.

With ``--strategy reduce`` and ``hybrid`` (issue 30 point 4) the reduced history is the
compaction's replacement, and the request must also hold each cleared result as its placeholder,
naming an offload file that holds exactly the original, which is sent nowhere; a second turn
(``claude -p --continue`` / ``codex exec resume --last``) sends the same reduced history.

Nothing leaves 127.0.0.1: proxies point at a dead local port, telemetry and update checks are
off, HOME and CODEX_HOME are fresh temporary folders.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from compactor.formats._claude_apierror import API_ERROR_KEY
from compactor.formats.registry import read_transcript
from compactor.schema import AgenticMessage, Message, content_type

from .cc_session import inflight_session, old_compaction_session
from .client_fakes import REPLY, FakeAnthropic, FakeResponses, Recorded
from .conftest import TRANSCRIPTS
from .fake_server_cli import compact_exe
from .test_claude_code_failed_compaction import REQUEST as FAILED_REQUEST
from .test_claude_code_failed_compaction import failed_session

CLAUDE = os.environ.get("RESUME_CLAUDE")
CODEX = os.environ.get("RESUME_CODEX")

pytestmark = [
    pytest.mark.resume_clients,
    # each test starts Claude Code and Codex, several times (each call may take TIMEOUT = 240 s)
    pytest.mark.timeout(1200),
    pytest.mark.skipif(
        not (CLAUDE and CODEX), reason="RESUME_CLAUDE / RESUME_CODEX not set (make test-resume)"
    ),
]

CLAUDE_FILES = [
    "claude-code/raze-grant-session.jsonl",
    "claude-code/tokenforge-grant-session.jsonl",
    "claude-code/bastion-glm47-skill-lock.jsonl",
    "claude-code/fasthooks-sample-main-compacted.jsonl",
]
CODEX_FILES = ["codex/soul-grant-rollout.jsonl", "codex/empire-of-bits-desktop-rollout.jsonl"]
KEEP = {"none": None, "tail": 6}
"""Config ``keep.messages``: no tail, or the issue's six kept messages."""

DEAD_PROXY = "http://127.0.0.1:9"
TIMEOUT = 240


# -- what a file and a request hold -------------------------------------------------------------


def _jsonl(path: Path) -> list[str]:
    """The non-blank lines of a JSONL file, split at ``\n`` only: ``str.splitlines()`` also
    breaks at U+0085, U+2028, U+2029 and other separators that JSON leaves unescaped inside a
    string (blind check 11: a U+0085 in a Codex tool result made every case of that rollout
    fail with ``JSONDecodeError: Unterminated string`` before the client ran)."""
    return [line for line in path.read_text("utf-8").split("\n") if line.strip()]


@dataclass
class Ids:
    """Tool-call ids seen as calls and as results, and texts."""

    calls: Counter[str] = field(default_factory=Counter)
    results: Counter[str] = field(default_factory=Counter)
    texts: list[str] = field(default_factory=list)
    result_texts: dict[str, str] = field(default_factory=dict)
    """Call id → the text of its (last) result in the request."""
    order: list[tuple[str, str]] = field(default_factory=list)
    """("call" | "result", id) in request order."""

    def all(self) -> set[str]:
        return set(self.calls) | set(self.results)


def _claude_file_ids(path: Path) -> set[str]:
    ids: set[str] = set()
    for line in _jsonl(path):
        rec = json.loads(line)
        content = (rec.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use":
                ids.add(block["id"])
            elif block.get("type") == "tool_result":
                ids.add(block["tool_use_id"])
    return ids


def _codex_file_ids(path: Path) -> set[str]:
    ids: set[str] = set()
    for line in _jsonl(path):
        rec = json.loads(line)
        payload = rec.get("payload") or {}
        if rec.get("type") == "response_item" and "call_id" in payload:
            ids.add(payload["call_id"])
    return ids


def _claude_request(body: dict[str, Any]) -> Ids:
    seen = Ids()
    for msg in body.get("messages", []):
        content = msg.get("content")
        if isinstance(content, str):
            seen.texts.append(content)
            continue
        for block in content or []:
            kind = block.get("type")
            if kind == "tool_use":
                seen.calls[block["id"]] += 1
                seen.order.append(("call", block["id"]))
            elif kind == "tool_result":
                seen.results[block["tool_use_id"]] += 1
                seen.order.append(("result", block["tool_use_id"]))
                inner = block.get("content")
                parts = (
                    [inner]
                    if isinstance(inner, str)
                    else [str(b.get("text") or "") for b in inner or []]
                )
                seen.texts.extend(parts)
                seen.result_texts[block["tool_use_id"]] = "\n".join(parts)
            elif kind == "text":
                seen.texts.append(block.get("text") or "")
    return seen


def _codex_request(body: dict[str, Any]) -> Ids:
    seen = Ids()
    for item in body.get("input", []):
        kind = item.get("type")
        if kind in ("function_call", "custom_tool_call"):
            seen.calls[item["call_id"]] += 1
            seen.order.append(("call", item["call_id"]))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            seen.results[item["call_id"]] += 1
            seen.order.append(("result", item["call_id"]))
            output = item.get("output")
            if isinstance(output, list):  # content items
                output = "\n".join(str(c.get("text") or "") for c in output)
            seen.result_texts[item["call_id"]] = str(output)
        elif kind == "message":
            seen.texts.extend(str(c.get("text") or "") for c in item.get("content") or [])
    return seen


def _kept(out: Path, fmt: str) -> tuple[str, list[Message | AgenticMessage]]:
    """(our summary text, the messages kept after it) as a re-read of our output sees them;
    without a summary ("", the whole history after the boundary)."""
    parsed = read_transcript(str(out), out.read_bytes(), fmt)
    messages: list[Any] = list(parsed.messages)
    summaries = [i for i, m in enumerate(messages) if content_type(m) == "summary"]
    if not summaries:  # reduce: the whole reduced history follows the boundary
        return "", messages
    where = summaries[-1]
    summary = messages[where]
    if isinstance(summary, Message):
        text = summary.content
    else:
        text = "\n".join(b.text or "" for b in summary.blocks if b.text)
    return text, messages[where + 1 :]


def _client_only(out: Path) -> set[str]:
    """The texts of Claude Code's own error notices in ``out`` ("You've hit your limit …",
    ``API Error: …``): assistant records with ``isApiErrorMessage`` and model ``<synthetic>``,
    which the client writes for its user and skips when it builds a request (its
    normalizeMessagesForAPI: ``type == "assistant" && isApiErrorMessage && model ==
    "<synthetic>"``), so a kept one never reaches the model."""
    texts: set[str] = set()
    for line in _jsonl(out):
        rec = json.loads(line)
        body = rec.get("message") if isinstance(rec, dict) else None
        if not isinstance(body, dict) or rec.get("type") != "assistant":
            continue
        if rec.get("isApiErrorMessage") is True and body.get("model") == "<synthetic>":
            content = body.get("content")
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            texts.update(str(b.get("text") or "") for b in blocks if isinstance(b, dict))
    # the notice the reader makes of trailing ``api_error`` system records (_claude_apierror)
    parsed = read_transcript(str(out), out.read_bytes(), "claude-code")
    for m in parsed.messages:
        if isinstance(m, AgenticMessage) and m.extra.get(API_ERROR_KEY):
            texts.update(b.text or "" for b in m.blocks)
    return texts


def _kept_ids(kept: list[Message | AgenticMessage]) -> tuple[set[str], set[str]]:
    calls: set[str] = set()
    results: set[str] = set()
    for m in kept:
        if isinstance(m, Message):
            calls.update(c.id for c in m.tool_calls)
            if m.role == "tool" and m.tool_call_id:
                results.add(m.tool_call_id)
        else:
            for b in m.blocks:
                if b.type == "function_tool_call" and b.call_id:
                    calls.add(b.call_id)
                elif b.type == "function_tool_result" and b.call_id:
                    results.add(b.call_id)
    return calls, results


def _kept_order(kept: list[Message | AgenticMessage]) -> list[tuple[str, str]]:
    """("call" | "result", id) in the order of the kept messages."""
    order: list[tuple[str, str]] = []
    for m in kept:
        if isinstance(m, Message):
            order.extend(("call", c.id) for c in m.tool_calls)
            if m.role == "tool" and m.tool_call_id:
                order.append(("result", m.tool_call_id))
            continue
        for b in m.blocks:
            if b.type in ("function_tool_call", "function_tool_result") and b.call_id:
                order.append(("call" if b.type == "function_tool_call" else "result", b.call_id))
    return order


def _kept_texts(kept: list[Message | AgenticMessage]) -> list[str]:
    """Assistant texts of kept messages: the client sends them as they are."""
    texts: list[str] = []
    for m in kept:
        if m.role != "assistant":
            continue
        if isinstance(m, Message):
            texts.append(m.content)
        else:
            texts.extend(b.text or "" for b in m.blocks if b.type == "assistant_gen_text")
    return [t for t in texts if len(t.strip()) >= 20]


# -- running compact and the clients ------------------------------------------------------------


STRATEGY_ARGS = {
    "summarize": [],
    "reduce": ["--strategy", "reduce"],
    "hybrid": ["--strategy", "hybrid"],
}


def _compact(src: Path, out: Path, keep: int | None, tmp: Path, args: list[str]) -> dict[str, Any]:
    config = tmp / "compact.yaml"
    config.write_text(
        "model: {provider: local}\n" + (f"keep: {{messages: {keep}}}\n" if keep else ""),
        encoding="utf-8",
    )
    report = tmp / "report.json"
    proc = subprocess.run(
        [
            os.environ.get("RESUME_COMPACT") or compact_exe(),
            "run",
            str(src),
            *args,
            "--force",
            "--append",
            "-c",
            str(config),
            "-o",
            str(out),
            "--report",
            str(report),
        ],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes().startswith(src.read_bytes()), "--append must keep the input as is"
    data: dict[str, Any] = json.loads(report.read_text("utf-8"))
    return data


def _base_env(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TERM": "dumb",
        "LANG": "C.UTF-8",
        "HTTP_PROXY": DEAD_PROXY,
        "HTTPS_PROXY": DEAD_PROXY,
        "ALL_PROXY": DEAD_PROXY,
        "http_proxy": DEAD_PROXY,
        "https_proxy": DEAD_PROXY,
        "all_proxy": DEAD_PROXY,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


@dataclass
class Case:
    fmt: str
    src: Path
    keep: int | None
    tmp: Path
    strategy: str = "summarize"
    threshold: int | None = None
    """``--threshold`` (a hybrid case: the reduced history is over it, a summary with the kept
    reduced rounds under it)."""
    report: dict[str, Any] = field(default_factory=dict)
    summary: str = ""
    kept: list[Message | AgenticMessage] = field(default_factory=list)
    client_only: set[str] = field(default_factory=set)
    """Texts of records the client wrote and never sends to a model (:func:`_client_only`)."""
    next_turn: tuple[str, ...] = ("--continue",)
    """How the second turn of a reduced session picks it (``--resume ID`` when the client's
    ``--continue`` skips the session: it does for a 1.0.x file with inline sidechain records,
    compacted or not; :func:`_next_turn` picks it for any such file)."""


def _next_turn(case: Case) -> tuple[str, ...]:
    """``case.next_turn``, or ``--resume ID`` when the input holds inline sidechain records
    (``isSidechain`` true: 1.0.x sub-agents, 2.0.x's "Warmup" exchange at the file's head).
    Claude Code 2.1.197's ``--continue`` skips such a session and starts a new one, with the
    original file as with ours (blind check 13, gc-inflight: its raw file, and the raw file
    without its unanswered last call, fail the same way; ``--resume ID`` sends the whole
    history with "continue", "again")."""
    if case.next_turn != ("--continue",) or case.fmt != "claude-code":
        return case.next_turn
    records = (json.loads(line) for line in _jsonl(case.src) if line.strip())
    if any(isinstance(r, dict) and r.get("isSidechain") is True for r in records):
        return ("--resume", "ID")
    return case.next_turn


def _case(
    fmt: str, relative: str, keep: str | int | None, tmp_path: Path, strategy: str = "summarize"
) -> Case:
    src = TRANSCRIPTS / relative
    if not src.is_file():
        pytest.skip(f"{src} is not beside the checkout")
    return Case(fmt, src, KEEP[keep] if isinstance(keep, str) else keep, tmp_path, strategy)


def _compact_case(case: Case, out: Path) -> bytes:
    """Compact ``case`` into ``out`` (where the client looks for it); the bytes written."""
    args = STRATEGY_ARGS[case.strategy]
    if case.threshold is not None:
        args = [*args, "--threshold", str(case.threshold)]
    case.report = _compact(case.src, out, case.keep, case.tmp, args)
    case.summary, case.kept = _kept(out, case.fmt)
    case.client_only = _client_only(out) if case.fmt == "claude-code" else set()
    if case.strategy != "reduce":
        assert case.summary, "no summary in the output"
    if case.keep or case.strategy == "reduce":
        assert case.kept, "the kept tail is empty"
    return out.read_bytes()


def _stale_claude_tokens(src: Path) -> int:
    """Context size by the last assistant usage of the input (what a stale baseline reports)."""
    parsed = read_transcript(str(src), src.read_bytes(), "claude-code")
    usages = [m.usage.prompt_tokens for m in parsed.messages if m.usage is not None]
    return usages[-1] if usages else 0


def _stale_codex_tokens(src: Path) -> int:
    """The input's last ``token_count`` (what a stale baseline reports); 0 without one."""
    last = 0
    for line in _jsonl(src):
        rec = json.loads(line)
        payload = rec.get("payload") or {}
        info = payload.get("info") if payload.get("type") == "token_count" else None
        if isinstance(info, dict) and isinstance(info.get("last_token_usage"), dict):
            last = int(info["last_token_usage"].get("total_tokens") or 0)
    return last


def _check_request(case: Case, seen: Ids, file_ids: set[str], unanswered: set[str]) -> None:
    assert any(case.summary in t for t in seen.texts), "our summary is not in the request"
    kept_calls, kept_results = _kept_ids(case.kept)
    leaked = seen.all() - kept_calls - kept_results
    assert not (leaked & file_ids), f"pre-boundary tool ids reached the model: {sorted(leaked)}"
    for call in kept_calls:
        if call in unanswered:
            assert seen.calls[call] <= 1, call  # a client may drop a call nobody answered
        else:
            assert seen.calls[call] == 1, (call, seen.calls[call])
    for result in kept_results:
        assert seen.results[result] == 1, (result, seen.results[result])
    # in our order: a kept segment the client chained elsewhere would put a result before
    # its call, which a real API refuses
    # (results a client made up for calls nobody answered aside)
    ours = _kept_order(case.kept)
    sent = [step for step in seen.order if step in set(ours)]
    assert sent == [step for step in ours if step in set(sent)], "kept messages reordered"
    users = [m.content for m in case.kept if isinstance(m, Message) and m.role == "user"]
    for text in _kept_texts(case.kept):
        hits = sum(text in t for t in seen.texts if not case.summary or case.summary not in t)
        # once, and once more for each kept user message quoting it (a Codex /review result,
        # ``<user_action>``, quotes the findings its assistant summary then repeats)
        copies = 1 + sum(text in u for u in users)
        # a client's own error notice is kept as it wrote it, and it never sends it
        assert hits == (0 if text in case.client_only else copies), (text[:80], hits)
    if case.strategy != "summarize":
        _check_reduced(case, seen)


# -- what a reduction must leave in the request -------------------------------------------------

_SAVED_TO = re.compile(r"(?:Tool result|Full output) saved to: (\S+)")


def _original_results(case: Case) -> dict[str, str]:
    """Call id → the text of its result in the input, as an offload file must hold it."""
    found: dict[str, str] = {}
    for line in _jsonl(case.src):
        rec = json.loads(line)
        payload = rec.get("payload") or {}
        if case.fmt == "codex" and str(payload.get("type", "")).endswith("_call_output"):
            output = payload.get("output")
            if isinstance(output, str):
                found[payload["call_id"]] = output
        content = (rec.get("message") or {}).get("content") if case.fmt != "codex" else None
        for block in content if isinstance(content, list) else []:
            if block.get("type") != "tool_result":
                continue
            inner = block.get("content")
            if isinstance(inner, list) and len(inner) == 1 and inner[0].get("type") == "text":
                inner = inner[0].get("text")
            if isinstance(inner, str):
                found[block["tool_use_id"]] = inner
    return found


def _placeholders(kept: list[Message | AgenticMessage]) -> dict[str, str]:
    """Call id → the placeholder text of each reduced result in our re-read output."""
    texts: dict[str, str] = {}
    for m in kept:
        if isinstance(m, Message):
            if m.role == "tool" and m.tool_call_id and _SAVED_TO.search(m.content):
                texts[m.tool_call_id] = m.content
            continue
        for b in m.blocks:
            if b.type == "function_tool_result" and b.call_id:
                text = "\n".join(c.text or "" for c in b.content)
                if _SAVED_TO.search(text):
                    texts[b.call_id] = text
    return texts


def _check_reduced(case: Case, seen: Ids) -> None:
    """The reduced history is what the client sends: each cleared result is its placeholder,
    naming an offload file that holds exactly the original, which is in the request nowhere.

    Precise about what it checked: a case that should hold reduced results fails when none is
    after the boundary, when no placeholder's file could be compared with its original, or
    when no original could be looked for in the request; a hybrid case must really have
    summarized (its fallback keeping only the retained round would leave nothing to check).
    An original may still be sent as often as our output keeps it verbatim elsewhere (a later
    read of the same file kept in the retained rounds): only more copies than that fail."""
    reduction = case.report["reduction"]
    assert reduction["strategy"] == case.strategy
    assert reduction["cleared"] > 0, reduction
    if case.strategy == "hybrid":
        assert reduction.get("summarized") is True, ("hybrid did not summarize", reduction)
    folder = Path(reduction["offload_dir"])
    placeholders = _placeholders(case.kept)
    assert placeholders, "no reduced result in the history after the boundary"
    originals = _original_results(case)
    verbatim = _verbatim_texts(case.kept, set(placeholders))
    sent_texts = [*seen.texts, *seen.result_texts.values()]
    compared = looked_for = 0
    for call_id, placeholder in placeholders.items():
        match = _SAVED_TO.search(placeholder)
        assert match is not None
        file = Path(match.group(1))
        assert file.is_absolute() and file.parent.parent == folder, file
        sent = seen.result_texts.get(call_id)
        assert sent is not None, f"the reduced result {call_id} is not in the request"
        assert str(file) in sent, (call_id, sent[:200])
        original = originals.get(call_id)
        if original is None:
            continue  # a result of several parts: its file holds them as JSON
        assert file.read_bytes().decode("utf-8") == original, call_id  # \r\n kept
        compared += 1
        if len(original) > 2 * len(placeholder):
            middle = original[len(original) // 2 - 60 : len(original) // 2 + 60]
            allowed = sum(t.count(middle) for t in verbatim)
            found = sum(t.count(middle) for t in sent_texts)
            assert found <= allowed, f"{call_id}: the original was sent ({found} > {allowed})"
            looked_for += 1
    assert compared, "no offload file could be compared with its original"
    assert looked_for, "no cleared original was long enough to look for in the request"


def _verbatim_texts(kept: list[Message | AgenticMessage], reduced: set[str]) -> list[str]:
    """Every text our output keeps verbatim after the boundary (all but the placeholders):
    what the client may legitimately send."""
    texts: list[str] = []
    for m in kept:
        if isinstance(m, Message):
            if not (m.role == "tool" and m.tool_call_id in reduced):
                texts.append(m.content)
            continue
        for b in m.blocks:
            if b.type == "function_tool_result" and b.call_id in reduced:
                continue
            texts.append(b.text or "")
            texts.extend(c.text or "" for c in b.content or [])
    return texts


# -- Claude Code --------------------------------------------------------------------------------


@pytest.fixture
def anthropic() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as fake:
        yield fake


def _claude_resumes(case: Case, anthropic: FakeAnthropic) -> None:
    """Compact ``case`` into a Claude Code session folder, resume it with ``continue`` and
    check the one request Claude Code sends."""
    home, work = case.tmp / "home", case.tmp / "work" / "project"
    work.mkdir(parents=True)
    records = [json.loads(line) for line in _jsonl(case.src)]
    session = next(r["sessionId"] for r in records if r.get("sessionId"))
    # Claude Code's project folder: the real cwd with every non-alphanumeric character as "-".
    folder = home / ".claude" / "projects" / re.sub(r"[^a-zA-Z0-9]", "-", str(work.resolve()))
    folder.mkdir(parents=True)
    out = folder / f"{session}.jsonl"
    before = _compact_case(case, out)

    # Auto-compaction between the size after our compaction and the stale size before it: a
    # stale usage baseline on a kept message would make Claude Code compact first.
    stale = _stale_claude_tokens(case.src)
    after = int(case.report["tokens_after"])
    percent = max(1, (after + stale) // 2 // 2_000)  # of a 200k window
    env = _base_env(home) | {
        "ANTHROPIC_BASE_URL": anthropic.base_url,
        "ANTHROPIC_API_KEY": "sk-ant-fake-for-loopback",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": str(percent),
    }
    assert CLAUDE is not None
    proc = _run([CLAUDE, "-p", "--resume", session, "continue"], work, env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert REPLY in proc.stdout

    requests = anthropic.model_requests()
    assert len(requests) == 1, [_user_texts(r)[-1:] for r in requests]  # no compaction first
    body = requests[0].body
    assert isinstance(body, dict)
    (case.tmp / "request.json").write_bytes(requests[0].raw)  # to look at when a check fails
    assert _user_texts(requests[0])[-1] == "continue"
    file_ids = _claude_file_ids(case.src)
    answered = {i for m in case.kept for i in _kept_ids([m])[1]}
    unanswered = _kept_ids(case.kept)[0] - answered
    _check_request(case, _claude_request(body), file_ids, unanswered)
    # Claude Code appended its own turn after ours; our records are untouched.
    assert out.read_bytes().startswith(before)
    if case.strategy == "summarize":
        return
    # A reduced session goes on: the next turn (--continue: the newest session of this
    # folder) sends the same reduced history, with the first turn after it.
    next_turn = [session if x == "ID" else x for x in _next_turn(case)]
    proc = _run([CLAUDE, "-p", *next_turn, "again"], work, env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    requests = anthropic.model_requests()
    assert len(requests) == 2, [_user_texts(r)[-1:] for r in requests]
    assert _user_texts(requests[1])[-2:] == ["continue", "again"]
    assert isinstance(requests[1].body, dict)
    _check_request(case, _claude_request(requests[1].body), file_ids, unanswered)


@pytest.mark.parametrize("keep", list(KEEP))
@pytest.mark.parametrize("relative", CLAUDE_FILES, ids=[Path(f).stem for f in CLAUDE_FILES])
def test_claude_code_resumes_append_output(
    relative: str, keep: str, tmp_path: Path, anthropic: FakeAnthropic
) -> None:
    _claude_resumes(_case("claude-code", relative, keep, tmp_path), anthropic)


REDUCED: dict[str, int | None] = {"reduce": None, "hybrid": 20}
"""Strategy → ``keep.messages``: reduce keeps every message; hybrid keeps 20 (whole rounds)
after its summary, so cleared rounds, not only the retained one, are among them."""
HYBRID_THRESHOLD = {"claude-code/tokenforge-grant-session.jsonl": 12_000}
"""A trigger the reduced session is over (13,596 tokens) and its summary with the kept reduced
rounds under (9,233): the oldest part is summarized (hybrid keeps a summary only when it is
smaller than the reduced history and under the trigger)."""
# raze-grant-session is not among them: both its results are shorter than a placeholder, so a
# reduction keeps them and clears nothing (RELIABILITY row 185). Neither shared Codex rollout is
# a hybrid case as it is: reduction leaves so little of their old part (soul-grant 8,927
# reduced, 10,037 summarized; empire-of-bits' old part ~2k tokens against a ~3k summary) that
# no summary is smaller than the reduced history, or only one keeping the retained round
# alone, with no reduced result after the boundary; the Codex hybrid case is a longer
# session made of empire-of-bits (test_codex_resumes_hybrid_summary_with_reduced_rounds).
REDUCED_CLAUDE = [
    ("claude-code/tokenforge-grant-session.jsonl", strategy) for strategy in REDUCED
] + [("claude-code/bastion-glm47-skill-lock.jsonl", "reduce")]  # GLM-4.7 inside Claude Code
REDUCED_CODEX = [
    (relative, strategy) for relative in CODEX_FILES for strategy in REDUCED if strategy != "hybrid"
]


def _reduced_id(case: tuple[str, str]) -> str:
    return f"{Path(case[0]).stem}-{case[1]}"


@pytest.mark.parametrize(
    ("relative", "strategy"), REDUCED_CLAUDE, ids=map(_reduced_id, REDUCED_CLAUDE)
)
def test_claude_code_resumes_reduced_append_output(
    relative: str, strategy: str, tmp_path: Path, anthropic: FakeAnthropic
) -> None:
    """``--strategy reduce|hybrid --append``: Claude Code sends the reduced history (the
    placeholders naming the offload files), not the cleared originals before the boundary."""
    case = _case("claude-code", relative, REDUCED[strategy], tmp_path, strategy)
    if strategy == "hybrid":
        case.threshold = HYBRID_THRESHOLD[relative]
    _claude_resumes(case, anthropic)


@pytest.mark.parametrize("strategy", ["reduce", "summarize"])
def test_claude_code_resumes_append_after_its_own_1_0_compaction(
    strategy: str, tmp_path: Path, anthropic: FakeAnthropic
) -> None:
    """A session holding Claude Code 1.0.x's own compaction (``isCompactSummary`` without
    parent, no boundary; synthetic, ``cc_session.old_compaction_session``): after our
    ``--append`` the client sends only what followed that summary (blind check 9, sw-dns: it
    resent 168 messages from the session's first one), and no inline sub-agent record."""
    src = tmp_path / "old-compaction.jsonl"
    src.write_bytes(b"\n".join(old_compaction_session().lines()) + b"\n")
    case = Case("claude-code", src, None, tmp_path, strategy, next_turn=("--resume", "ID"))
    _claude_resumes(case, anthropic)
    sent = (tmp_path / "request.json").read_text("utf-8")
    assert "load claude.md" not in sent and "run_old_0" not in sent
    assert "PATCHER deployment in six waves" not in sent  # the inline sub-agent's own reply
    if strategy == "reduce":
        assert "machinectl shell" in sent and "I'll continue with the DNS fix" in sent


@pytest.mark.parametrize("keep", [None, 6], ids=["summary", "tail"])
def test_claude_code_resumes_append_after_its_own_failed_compaction(
    keep: int | None, tmp_path: Path, anthropic: FakeAnthropic
) -> None:
    """A session whose last own compaction failed (its summary only "You've hit your limit";
    synthetic, ``test_claude_code_failed_compaction.failed_session``): after our ``--append``
    the client, which loads from the newest boundary, sends our summary with the request from
    before the failed boundary, and each kept message once (those before it are copies)."""
    src = tmp_path / "failed-compaction.jsonl"
    src.write_bytes(b"\n".join(failed_session().lines()) + b"\n")
    case = Case("claude-code", src, keep, tmp_path)
    _claude_resumes(case, anthropic)
    sent = (tmp_path / "request.json").read_text("utf-8")
    assert FAILED_REQUEST[:60] in sent


@pytest.mark.parametrize(("strategy", "threshold"), [("reduce", None), ("hybrid", 4_000)])
def test_claude_code_resumes_reduced_append_of_a_session_with_a_call_in_flight(
    strategy: str, threshold: int | None, tmp_path: Path, anthropic: FakeAnthropic
) -> None:
    """A 2.0.x session that ends with a call that has no result and starts with the inline
    "Warmup" sidechain (synthetic, ``cc_session.inflight_session``): Claude Code resumes our
    reduced (and hybrid: summary, then the kept reduced rounds) ``--append`` output, and the
    next turn sends the same history with "continue", "again" (blind check 13, gc-inflight:
    the harness's ``--continue`` picked no session, as with the raw file; :func:`_next_turn`)."""
    src = tmp_path / "inflight.jsonl"
    src.write_bytes(b"\n".join(inflight_session().lines()) + b"\n")
    case = Case("claude-code", src, REDUCED[strategy], tmp_path, strategy)
    case.threshold = threshold
    assert _next_turn(case) == ("--resume", "ID")
    _claude_resumes(case, anthropic)
    sent = (tmp_path / "request.json").read_text("utf-8")
    assert "okay try again option 1" in sent
    # Our output keeps the call in flight; the client itself leaves an unanswered call out of
    # what it sends (it does so with the raw file too).
    (out,) = (tmp_path / "home" / ".claude" / "projects").glob("*/5f0c6f1e-*.jsonl")
    assert "git add .gitignore prompts/" in out.read_text("utf-8")


def _user_texts(rec: Recorded) -> list[str]:
    """The texts of the user messages of a Messages API request, in order."""
    body = rec.body if isinstance(rec.body, dict) else {}
    texts: list[str] = []
    for msg in body.get("messages") or []:
        if msg.get("role") != "user":
            continue
        content = msg.get("content")
        if isinstance(content, str):
            texts.append(content)
        else:
            texts.extend(str(b.get("text")) for b in content or [] if b.get("type") == "text")
    return texts


# -- Codex --------------------------------------------------------------------------------------


@pytest.fixture
def responses() -> Iterator[FakeResponses]:
    with FakeResponses() as fake:
        yield fake


def _is_compaction(rec: Recorded) -> bool:
    if "/responses/compact" in rec.path:
        return True
    meta = rec.headers.get("x-codex-turn-metadata") or "{}"
    try:
        kind = json.loads(meta).get("request_kind")
    except ValueError:
        kind = None
    body = rec.body if isinstance(rec.body, dict) else {}
    items = body.get("input") or []
    # (a ``compaction`` item is history: the server's summary a remote compaction returned, kept
    # and sent on as Codex does; a ``compaction_trigger`` item asks for one)
    return kind == "compaction" or any(
        isinstance(i, dict)
        and str(i.get("type", "")).startswith("compaction")
        and i.get("type") != "compaction"
        for i in items
    )


def _codex_resumes(case: Case, responses: FakeResponses) -> None:
    """Compact ``case`` into a Codex sessions folder, resume it with ``continue`` and check
    the one request Codex sends."""
    home = case.tmp / "home"
    codex_home = home / ".codex"
    work = case.tmp / "work" / "project"
    work.mkdir(parents=True)
    first = json.loads(_jsonl(case.src)[0])
    meta = first["payload"]
    session, stamp = meta["id"], meta["timestamp"]
    day = codex_home / "sessions" / stamp[:4] / stamp[5:7] / stamp[8:10]
    day.mkdir(parents=True)
    out = day / f"rollout-{stamp[:19].replace(':', '-')}-{session}.jsonl"
    before = _compact_case(case, out)

    after = int(case.report["tokens_after"])
    room = 4_000
    # Codex adds its instructions and environment context to the next request (a few
    # thousand tokens); the limit must leave `room` for them, or Codex rightly compacts.
    stale = _stale_codex_tokens(case.src)
    limit = (after + stale) // 2
    if not stale:
        # No token_count in the input (a legacy rollout wrapped as modern; blind check 11): no
        # stale count can mislead the client, which then estimates the history it loads. Its
        # count of the unreduced history is compact's estimate of it plus the same room; the
        # limit sits halfway between that and the reduced history with the room, so that
        # loading the pre-compaction history would still make Codex compact first.
        stale = int(case.report["tokens_before"]) + room
        limit = (after + room + stale) // 2
    assert after + room < limit < stale, (after, limit, stale)
    (codex_home / "config.toml").write_text(
        f'model = "gpt-5.5"\n'
        f'model_provider = "openai"\n'
        f'openai_base_url = "{responses.base_url}"\n'
        f"model_auto_compact_token_limit = {limit}\n"
        f'approval_policy = "never"\n'
        f'sandbox_mode = "read-only"\n'
        f"check_for_update_on_startup = false\n"
        f"[analytics]\nenabled = false\n"
        f"[feedback]\nenabled = false\n"
        f'[otel]\nexporter = "none"\n',
        encoding="utf-8",
    )
    env = _base_env(home) | {
        "CODEX_HOME": str(codex_home),
        "OPENAI_API_KEY": "sk-fake-for-loopback",
        "CODEX_API_KEY": "sk-fake-for-loopback",
        "RUST_LOG": "error",
    }
    assert CODEX is not None
    argv = [CODEX, "exec", "--skip-git-repo-check", "resume", session, "continue"]
    proc = _run(argv, work, env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert REPLY in proc.stdout

    assert not [r.path for r in responses.requests if _is_compaction(r)], "Codex compacted again"
    requests = responses.model_requests()
    assert len(requests) == 1, len(requests)
    body = requests[0].body
    assert isinstance(body, dict)
    (case.tmp / "request.json").write_bytes(requests[0].raw)  # to look at when a check fails
    texts = _codex_request(body).texts
    assert texts and texts[-1] == "continue"
    _check_request(case, _codex_request(body), _codex_file_ids(case.src), set())
    assert out.read_bytes().startswith(before)
    if case.strategy == "summarize":
        return
    # A reduced session goes on: the next turn (--last: the newest session) sends the same
    # reduced history, with the first turn after it.
    argv = [CODEX, "exec", "--skip-git-repo-check", "resume", "--last", "again"]
    proc = _run(argv, work, env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not [r.path for r in responses.requests if _is_compaction(r)], "Codex compacted"
    requests = responses.model_requests()
    assert len(requests) == 2, len(requests)
    assert isinstance(requests[1].body, dict)
    seen = _codex_request(requests[1].body)
    assert seen.texts[-1] == "again" and "continue" in seen.texts
    _check_request(case, seen, _codex_file_ids(case.src), set())


@pytest.mark.parametrize("keep", list(KEEP))
@pytest.mark.parametrize("relative", CODEX_FILES, ids=[Path(f).stem for f in CODEX_FILES])
def test_codex_resumes_append_output(
    relative: str, keep: str, tmp_path: Path, responses: FakeResponses
) -> None:
    _codex_resumes(_case("codex", relative, keep, tmp_path), responses)


@pytest.mark.parametrize(
    ("relative", "strategy"), REDUCED_CODEX, ids=map(_reduced_id, REDUCED_CODEX)
)
def test_codex_resumes_reduced_append_output(
    relative: str, strategy: str, tmp_path: Path, responses: FakeResponses
) -> None:
    """``--strategy reduce|hybrid --append``: Codex sends the ``replacement_history`` with the
    placeholders naming the offload files, not the cleared originals before it."""
    case = _case("codex", relative, REDUCED[strategy], tmp_path, strategy)
    _codex_resumes(case, responses)


def _uncounted_with_separators(src: Path, dest: Path) -> None:
    """``src`` without its ``token_count`` records and with U+0085 and U+2028 written raw (as
    Codex writes them: JSON does not escape them) into every tool output: blind check 11 found
    both (a legacy rollout wrapped as modern has no count; laf-codex-compact has a U+0085 in a
    tool result), and each stopped the harness before the client ran."""
    out: list[str] = []
    for line in _jsonl(src):
        rec = json.loads(line)
        payload = rec.get("payload") or {}
        if rec.get("type") == "event_msg" and payload.get("type") == "token_count":
            continue
        if isinstance(payload.get("output"), str):
            rec["payload"] = payload | {"output": f"{payload['output']}\u0085next\u2028line"}
        out.append(json.dumps(rec, ensure_ascii=False))
    dest.write_text("\n".join(out) + "\n", encoding="utf-8")


def test_codex_resumes_reduced_rollout_without_counts_and_with_separators(
    tmp_path: Path, responses: FakeResponses
) -> None:
    """``--strategy reduce --append`` on a rollout that has no ``token_count`` and raw U+0085 /
    U+2028 in its tool outputs: the offload files hold the outputs exactly, the separators
    included, and Codex resumes the reduced history without compacting, twice."""
    case = _case("codex", CODEX_FILES[0], None, tmp_path, "reduce")
    _uncounted_with_separators(case.src, tmp_path / "rollout.jsonl")
    case.src = tmp_path / "rollout.jsonl"
    assert _stale_codex_tokens(case.src) == 0 and "\u0085" in case.src.read_text("utf-8")
    _codex_resumes(case, responses)


AGAIN = "Go over the repository again and double-check each point before drafting."


def _longer_rollout(src: Path, dest: Path, turns: int) -> None:
    """``src`` (empire-of-bits: one user turn, then four calls in flight) as a session that went
    on for ``turns`` turns: the first turn whole, then ``turns - 1`` times a user message asking
    to check again and the same work once more (each copy's call and item ids suffixed
    ``_N``, so none repeats), the last copy ending with the original's calls in flight. The
    records are the real client's; only their number grows, so that hybrid has an old part
    whose summary is smaller than its reduction (see ``HYBRID_THRESHOLD``)."""
    lines = _jsonl(src)
    records = [json.loads(line) for line in lines]
    ask = next(i for i, r in enumerate(records) if _is_user_request(r))
    in_flight = (
        max(i for i, r in enumerate(records) if (r.get("payload") or {}).get("type") == "message")
        + 1
    )  # the last assistant message; the calls after it are not answered
    stamp = records[in_flight - 1]["timestamp"]
    out = lines[:in_flight]
    for n in range(2, turns + 1):
        message = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": AGAIN}],
        }
        event = {"type": "user_message", "message": AGAIN, "images": []}
        out += [
            json.dumps({"timestamp": stamp, "type": "response_item", "payload": message}),
            json.dumps({"timestamp": stamp, "type": "event_msg", "payload": event}),
        ]
        body = records[ask + 1 :] if n == turns else records[ask + 1 : in_flight]
        for rec in body:
            payload = dict(rec.get("payload") or {})
            if payload.get("type") == "user_message":
                continue  # the first turn's request, asked again above
            for key in ("call_id", "id"):
                if isinstance(payload.get(key), str):
                    payload[key] = f"{payload[key]}_{n}"
            out.append(json.dumps({**rec, "payload": payload}))
    dest.write_text("\n".join(out) + "\n", encoding="utf-8")


def _is_user_request(rec: dict[str, Any]) -> bool:
    """A user message of the rollout that is not the injected environment context."""
    payload = rec.get("payload") or {}
    if rec.get("type") != "response_item" or payload.get("role") != "user":
        return False
    text = "".join(str(c.get("text") or "") for c in payload.get("content") or [])
    return not text.startswith("<environment_context>")


def test_codex_resumes_hybrid_summary_with_reduced_rounds(
    tmp_path: Path, responses: FakeResponses
) -> None:
    """``--strategy hybrid --append`` on a Codex session long enough for hybrid to summarize:
    the ``replacement_history`` holds our summary of the oldest turns and, after it, 30 kept
    messages in which earlier cleared results are placeholders naming their offload files (the
    summarized turns' files removed); Codex resumes it without compacting, twice."""
    case = _case("codex", "codex/empire-of-bits-desktop-rollout.jsonl", 30, tmp_path, "hybrid")
    _longer_rollout(case.src, tmp_path / "rollout.jsonl", turns=4)
    # reduced to 41,361 tokens (over), summarized keeping 30 messages to 27,710 (under); both
    # count its 52 encrypted reasoning items as Codex does (RELIABILITY row 582: before, 28,715
    # and 25,727 under a trigger of 27,000)
    case.src, case.threshold = tmp_path / "rollout.jsonl", 30_000
    _codex_resumes(case, responses)
    assert case.report["reduction"]["offload_removed"] > 0


def test_cached_clients_are_the_pinned_versions(tmp_path: Path) -> None:
    """The executables under test report the versions the README names."""
    env = _base_env(tmp_path)
    assert CLAUDE is not None and CODEX is not None
    claude = _run([CLAUDE, "--version"], tmp_path, env)
    codex = _run([CODEX, "--version"], tmp_path, env | {"CODEX_HOME": str(tmp_path / "c")})
    want_claude = os.environ.get("RESUME_CLAUDE_VERSION", "2.1.197")
    want_codex = os.environ.get("RESUME_CODEX_VERSION", "0.171.0")
    assert claude.stdout.split()[0] == want_claude, claude.stdout
    assert codex.stdout.split()[-1] == want_codex, codex.stdout
    assert shutil.which(CLAUDE) and shutil.which(CODEX)


LIMIT_NOTICE = "You've hit your limit · resets 1am (Europe/Paris)"


def _with_limit_notice(src: Path, dest: Path) -> None:
    """``src`` with Claude Code's own usage-limit notice appended as it writes one (blind
    check 4, rain: an assistant record, ``isApiErrorMessage``, model ``<synthetic>``)."""
    records = [json.loads(line) for line in _jsonl(src)]
    last = next(r for r in reversed(records) if r.get("uuid") and r.get("sessionId"))
    notice = {
        key: last[key] for key in ("isSidechain", "userType", "cwd", "sessionId", "version")
        if key in last
    } | {
        "parentUuid": last["uuid"],
        "type": "assistant",
        "uuid": "5e1f0a2b-7c3d-4e5f-8a9b-0c1d2e3f4a5b",
        "timestamp": "2026-12-06T01:00:00.000Z",
        "message": {
            "id": "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a", "model": "<synthetic>",
            "role": "assistant", "stop_reason": "stop_sequence", "stop_sequence": "",
            "type": "message", "usage": {"input_tokens": 0, "output_tokens": 0},
            "content": [{"type": "text", "text": LIMIT_NOTICE}],
        },
        "error": "rate_limit",
        "isApiErrorMessage": True,
    }  # fmt: skip
    dest.write_text(src.read_text("utf-8").rstrip("\n") + "\n" + json.dumps(notice) + "\n")


@pytest.mark.parametrize(("keep", "strategy"), [(6, "summarize"), (None, "reduce")])
def test_claude_code_never_sends_its_own_error_notice_kept_in_the_tail(
    keep: int | None, strategy: str, tmp_path: Path, anthropic: FakeAnthropic
) -> None:
    """The kept tail holds Claude Code's own usage-limit notice: our output keeps the record as
    the client wrote it, and the client, as for any such record, never sends it to the model;
    every other kept text reaches it once."""
    case = _case("claude-code", "claude-code/tokenforge-grant-session.jsonl", keep, tmp_path)
    _with_limit_notice(case.src, tmp_path / "session.jsonl")
    case.src, case.strategy = tmp_path / "session.jsonl", strategy
    _claude_resumes(case, anthropic)
    assert LIMIT_NOTICE in case.client_only
    assert any(LIMIT_NOTICE in text for text in _kept_texts(case.kept))


def _with_api_errors(src: Path, dest: Path) -> None:
    """``src`` ending as a Claude Code 2.1.x session whose model endpoint went away (blind
    check 37, cc-obstruct): three ``system/api_error`` records (``ConnectionRefused``, one per
    retry), chained after the last record, and nothing after them."""
    records = [json.loads(line) for line in _jsonl(src)]
    last = next(r for r in reversed(records) if r.get("uuid") and r.get("sessionId"))
    envelope = {k: last[k] for k in ("isSidechain", "userType", "cwd", "sessionId", "version")}
    parent: str = last["uuid"]
    lines: list[str] = []
    for n in (1, 2, 3):
        rec = envelope | {
            "parentUuid": parent, "type": "system", "subtype": "api_error", "level": "error",
            "cause": {"code": "ConnectionRefused", "path": "http://10.9.8.7:4000/v1/messages",
                      "errno": 0},
            "error": {"message": "Connection error."}, "retryInMs": 600 * n,
            "retryAttempt": n, "maxRetries": 3, "timestamp": f"2026-12-06T01:00:0{n}.000Z",
            "uuid": f"a9e0a9e0-0000-4000-8000-00000000003{n}",
        }  # fmt: skip
        parent = rec["uuid"]
        lines.append(json.dumps(rec))
    dest.write_text(src.read_text("utf-8").rstrip("\n") + "\n" + "\n".join(lines) + "\n")


@pytest.mark.parametrize(("keep", "strategy"), [(6, "summarize"), (None, "reduce"), (20, "hybrid")])
def test_claude_code_resumes_a_session_that_ended_on_api_errors(
    keep: int | None, strategy: str, tmp_path: Path, anthropic: FakeAnthropic
) -> None:
    """The session ends with ``api_error`` records (the model API refused the connection three
    times): the reader makes them one ``API Error: …`` message, whose records our ``--append``
    output keeps (in place in the kept tail, or copied after the boundary); the client
    resumes, sends every kept message once and never that notice (system records)."""
    case = _case("claude-code", "claude-code/tokenforge-grant-session.jsonl", keep, tmp_path)
    _with_api_errors(case.src, tmp_path / "session.jsonl")
    case.src, case.strategy = tmp_path / "session.jsonl", strategy
    if strategy == "hybrid":
        case.threshold = HYBRID_THRESHOLD["claude-code/tokenforge-grant-session.jsonl"]
    _claude_resumes(case, anthropic)
    notices = [t for t in case.client_only if t.startswith("API Error: ConnectionRefused")]
    assert notices and any(notices[0] in text for text in _kept_texts(case.kept))
    sent = (tmp_path / "request.json").read_text("utf-8")
    assert "ConnectionRefused" not in sent


ORPHAN_ERROR = "Tool permission request failed: Error: Tool permission stream closed"


def _with_late_orphan(src: Path, dest: Path) -> str:
    """``src`` (tokenforge) compacted by Claude Code itself after its first turn (a boundary
    and its summary before the second prompt), ending with a late permission-failure result
    for a call of the first turn, from before that boundary (blind check 10, a33-hooks: the
    result's parent is the assistant record that made the call). Returns that call's id."""
    records = [json.loads(line) for line in _jsonl(src)]
    prompts = [i for i, r in enumerate(records) if r.get("type") == "user" and isinstance(
        r["message"]["content"], str)]  # fmt: skip
    second = prompts[1]
    before = next(r for r in reversed(records[:second]) if r.get("uuid"))
    caller = next(
        r for r in records[:second]
        if r.get("type") == "assistant" and r["message"]["content"][0]["type"] == "tool_use"
    )  # fmt: skip
    call_id = str(caller["message"]["content"][0]["id"])
    envelope = {k: before[k] for k in ("isSidechain", "userType", "cwd", "sessionId", "version")}
    boundary = envelope | {
        "type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
        "parentUuid": None, "logicalParentUuid": before["uuid"], "level": "info",
        "uuid": "b0b0b0b0-0000-4000-8000-000000000001", "timestamp": before["timestamp"],
        "compactMetadata": {"trigger": "manual", "preTokens": 20_000},
    }  # fmt: skip
    summary = envelope | {
        "type": "user", "parentUuid": boundary["uuid"], "isCompactSummary": True,
        "isVisibleInTranscriptOnly": True, "uuid": "b0b0b0b0-0000-4000-8000-000000000002",
        "timestamp": before["timestamp"],
        "message": {"role": "user", "content": "This session is being continued from a previous "
                    "conversation that ran out of context. The user asked for a token report."},
    }  # fmt: skip
    records[second]["parentUuid"] = summary["uuid"]
    late = envelope | {
        "type": "user", "parentUuid": caller["uuid"], "sourceToolAssistantUUID": caller["uuid"],
        "uuid": "b0b0b0b0-0000-4000-8000-000000000003", "timestamp": records[-1].get(
            "timestamp", before["timestamp"]),
        "toolUseResult": "Error: " + ORPHAN_ERROR,
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id,
                    "content": ORPHAN_ERROR, "is_error": True}]},
    }  # fmt: skip
    records[second:second] = [boundary, summary]
    records.append(late)
    dest.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return call_id


@pytest.mark.parametrize(("keep", "strategy"), [(6, "summarize"), (None, "reduce")])
def test_a_late_result_of_a_call_before_the_clients_own_boundary_is_no_part_of_the_history(
    keep: int | None, strategy: str, tmp_path: Path, anthropic: FakeAnthropic
) -> None:
    """The session ends with a result whose call lies before Claude Code's own compaction
    boundary: the client never sends it (its tool-result pairing drops a result whose call is
    not in the assistant message before it). Our output keeps its record as the input has it,
    but not as a kept message of the live history (nor a re-emitted copy): the request holds
    every kept call and result once, in order, and not that result."""
    case = _case("claude-code", "claude-code/tokenforge-grant-session.jsonl", keep, tmp_path)
    dest = tmp_path / "session.jsonl"
    call_id = _with_late_orphan(case.src, dest)
    case.src, case.strategy = dest, strategy
    _claude_resumes(case, anthropic)
    assert call_id not in _kept_ids(case.kept)[1]
    sent = (tmp_path / "request.json").read_text("utf-8")
    assert call_id not in sent and ORPHAN_ERROR not in sent


def _without_message_ids(src: Path, dest: Path) -> None:
    """``src`` as an extractor publishes it (blind check 10, hive-mind): assistant lines without
    ``message.id`` and ``requestId``; one response (parallel calls) is still several lines."""
    records = [json.loads(line) for line in _jsonl(src)]
    for rec in records:
        if rec.get("type") == "assistant":
            rec.pop("requestId", None)
            rec["message"].pop("id", None)
    dest.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")


def test_claude_code_resumes_reduced_output_of_a_session_without_message_ids(
    tmp_path: Path, anthropic: FakeAnthropic
) -> None:
    """The client merges every assistant line of the same ``message.id`` (undefined included)
    into one message, so our re-emitted copies carry ids of their own, one per run of
    consecutive assistant lines (one response): the request keeps every call and result once,
    in our order, parallel calls included (blind check 10: hive-compact itself, resumed as it is,
    reached the model as one assistant message holding every call, then one of all results)."""
    case = _case("claude-code", "claude-code/tokenforge-grant-session.jsonl", None, tmp_path)
    _without_message_ids(case.src, tmp_path / "session.jsonl")
    case.src, case.strategy = tmp_path / "session.jsonl", "reduce"
    _claude_resumes(case, anthropic)


# -- a rollout Codex compacted remotely: its encrypted compaction item (blind check 15) ----------

_COMPACTION = {"type": "compaction", "encrypted_content": "gAAAAABpZ" + "x7Q-" * 300}


def _with_remote_compaction(
    src: Path, dest: Path, item: dict[str, Any] = _COMPACTION, extra: tuple[Any, ...] = ()
) -> None:
    """``src`` as Codex 0.77 leaves a rollout after a remote compaction: right after its
    ``session_meta``, a ``compacted`` record whose ``replacement_history`` holds an earlier
    request and the encrypted ``compaction`` item (kn-commit's shape; Codex 0.64 names it
    ``compaction_summary`` and adds ghost snapshots, ``extra``)."""
    lines = _jsonl(src)
    stamp = json.loads(lines[0])["payload"]["timestamp"]
    earlier: dict[str, Any] = {"type": "message", "role": "user"}
    earlier["content"] = [{"type": "input_text", "text": "Earlier: outline the grant plan."}]
    payload = {"message": "", "replacement_history": [earlier, item, *extra]}
    compacted = json.dumps({"timestamp": stamp, "type": "compacted", "payload": payload})
    dest.write_text("\n".join([lines[0], compacted, *lines[1:]]) + "\n", encoding="utf-8")


def test_codex_resumes_a_reduced_rollout_with_its_compaction_item(
    tmp_path: Path, responses: FakeResponses
) -> None:
    """``--strategy reduce --append`` keeps the encrypted ``compaction`` item of the
    ``replacement_history`` (Codex keeps it and sends it: the server's summary of everything
    before it), and Codex 0.171 resumes the output and sends the item once, unchanged."""
    case = _case("codex", CODEX_FILES[0], None, tmp_path, "reduce")
    _with_remote_compaction(case.src, tmp_path / "rollout.jsonl")
    case.src = tmp_path / "rollout.jsonl"
    _codex_resumes(case, responses)
    for request in responses.model_requests():
        assert isinstance(request.body, dict)
        sent = [i for i in request.body["input"] if i.get("type") == "compaction"]
        assert sent == [_COMPACTION], sent


@pytest.mark.parametrize(("strategy", "keep"), [("reduce", None), ("summarize", 6)])
def test_codex_resumes_its_own_0_64_compaction_summary_after_ours(
    tmp_path: Path, responses: FakeResponses, strategy: str, keep: int | None
) -> None:
    """Blind check 24 R1 (cx-brainbuddy, Codex 0.64): the ``compaction_summary`` item (Codex
    reads it as ``ResponseItem::Compaction``) survives reduce and summarize with a kept tail
    under ``--append``, and the real client sends it once, unchanged, to the model."""
    item = {"type": "compaction_summary", "encrypted_content": "gAAAAABq" + "Zr9-" * 300}
    ghost = {"type": "ghost_snapshot", "ghost_commit": {"id": "a" * 40, "parent": "b" * 40}}
    case = _case("codex", CODEX_FILES[0], None, tmp_path, strategy)
    _with_remote_compaction(case.src, tmp_path / "rollout.jsonl", item, (ghost,))
    case.src, case.keep = tmp_path / "rollout.jsonl", keep
    _codex_resumes(case, responses)
    assert responses.model_requests()
    for request in responses.model_requests():
        assert isinstance(request.body, dict)
        sent = [i for i in request.body["input"] if str(i.get("type")).startswith("compaction")]
        assert [i["encrypted_content"] for i in sent] == [item["encrypted_content"]], sent


def test_codex_resumes_a_reduced_rollout_with_the_current_requests_skill(
    tmp_path: Path, responses: FakeResponses
) -> None:
    """Blind check 23 G1: Codex does not inject a skill's body again on resume; the reduced
    ``replacement_history`` keeps the ``<skill>`` message of the current request, and the real
    client sends it to the model. Since blind check 29 (row 1295, a Decision) a history nothing
    summarized keeps every user-role record the harness injected, the older skill's body too:
    the client sends both, in order."""
    from .test_codex_skills_kept import CURRENT, OLD, rollout

    src = tmp_path / "skills.jsonl"
    lines = [json.loads(line) for line in rollout().splitlines()]
    lines[0]["payload"] |= {"originator": "codex_exec", "cli_version": "0.171.0", "source": "exec"}
    for rec in lines:  # the context the client last measured: far over the reduced history
        if rec["payload"].get("type") == "token_count":
            rec["payload"]["info"]["last_token_usage"]["total_tokens"] = 30_000
    src.write_text("".join(json.dumps(rec) + "\n" for rec in lines), encoding="utf-8")
    case = Case("codex", src, REDUCED["reduce"], tmp_path / "case", "reduce")
    case.tmp.mkdir()
    _codex_resumes(case, responses)
    sent = (case.tmp / "request.json").read_text("utf-8")
    assert json.dumps(CURRENT)[1:-1] in sent
    assert json.dumps(OLD)[1:-1] in sent
    assert sent.index(json.dumps(OLD)[1:-1]) < sent.index(json.dumps(CURRENT)[1:-1])


@pytest.mark.parametrize(("strategy", "keep"), [("reduce", None), ("summarize", 6)])
def test_codex_resumes_a_replacement_history_written_as_it_was(
    tmp_path: Path, responses: FakeResponses, strategy: str, keep: int | None
) -> None:
    """Blind check 43 (a Codex 0.114 rollout after a remote compaction): the items of its
    ``replacement_history`` come back as Codex wrote them (an answer's ``phase`` and ``id``, a
    two-part user context message) and the real client resumes the reduced and the summarized
    output; the reduced one's request holds the answer's text."""
    answer: dict[str, Any] = {"id": "msg_0a43", "type": "message", "role": "assistant"}
    answer["phase"] = "final_answer"
    answer["content"] = [{"type": "output_text", "text": "Earlier: the grant outline is drafted."}]
    context = {"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "# AGENTS.md instructions for /work/p\n\n<INSTRUCTIONS>\n"
         "Cite sources.\n</INSTRUCTIONS>"},
        {"type": "input_text", "text": "<environment_context>\n  <cwd>/work/p</cwd>\n"
         "</environment_context>"},
    ]}  # fmt: skip
    case = _case("codex", CODEX_FILES[0], None, tmp_path, strategy)
    _with_remote_compaction(case.src, tmp_path / "rollout.jsonl", _COMPACTION, (context, answer))
    case.src, case.keep = tmp_path / "rollout.jsonl", keep
    _codex_resumes(case, responses)
    out = next((case.tmp / "home" / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    history = [
        json.loads(line)["payload"]
        for line in _jsonl(out)
        if json.loads(line)["type"] == "compacted"
    ][-1]["replacement_history"]
    if strategy == "reduce":
        assert answer in history and context in history
        sent = (case.tmp / "request.json").read_text("utf-8")
        assert "Earlier: the grant outline is drafted." in sent
