"""A small synthetic Claude Code session (2.1.x record shapes) for the tests of the reader."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import orjson

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

SESSION = "5f0c6f1e-6a2b-4c44-9a37-0d1c2b3a4e5f"
ENVELOPE = {
    "isSidechain": False,
    "userType": "external",
    "entrypoint": "cli",
    "cwd": "/home/dev/board",
    "sessionId": SESSION,
    "version": "2.1.220",
    "gitBranch": "main",
}


class Session:
    """Records appended in order, chained by ``parentUuid``."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.n = 0

    def _add(self, rec: dict[str, Any]) -> dict[str, Any]:
        self.n += 1
        uid = str(uuid.UUID(int=self.n))
        full = {"parentUuid": self.parent, **rec, "uuid": uid}
        full["timestamp"] = f"2026-08-09T12:{self.n // 60:02d}:{self.n % 60:02d}.000Z"
        full.update(ENVELOPE)
        self.records.append(full)
        self.parent = uid
        return full

    def user(self, content: Any) -> None:
        self._add({"type": "user", "message": {"role": "user", "content": content}})

    def assistant(self, content: list[dict[str, Any]]) -> None:
        body = {
            "id": f"msg_{self.n:04d}",
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-5",
            "content": content,
            "usage": {"input_tokens": 900 + 40 * self.n, "output_tokens": 50},
        }
        self._add({"type": "assistant", "message": body})

    def attachment(self, attachment: dict[str, Any]) -> None:
        self._add({"type": "attachment", "attachment": attachment})

    def bash(self, command: str, output: str) -> None:
        call = f"toolu_{self.n:04d}"
        self.assistant(
            [{"type": "tool_use", "id": call, "name": "Bash", "input": {"command": command}}]
        )
        self.user([{"type": "tool_result", "tool_use_id": call, "content": output}])

    def lines(self) -> list[bytes]:
        return [orjson.dumps(r) for r in self.records]

    def call(self, name: str, args: dict[str, Any], out: str, error: bool = False) -> None:
        """A tool call of ``name`` and its result ``out`` (``error``: flagged as failed)."""
        key = f"toolu_{self.n:04d}"
        self.assistant([{"type": "tool_use", "id": key, "name": name, "input": args}])
        self.user([{"type": "tool_result", "tool_use_id": key, "content": out, "is_error": error}])

    def say(self, text: str) -> None:
        self.assistant([{"type": "text", "text": text}])

    def compacted(self, summary: str) -> None:
        """Claude Code's own compaction: its boundary, then ``summary`` as the next user record."""
        self._add(
            {
                "type": "system",
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "compactMetadata": {"trigger": "auto", "preTokens": 150000},
            }
        )
        self.user(summary)
        self.records[-1]["isCompactSummary"] = True

    def summary(self) -> str:
        """The local summary of these records, read as ``s.jsonl``."""
        raw = b"\n".join(self.lines()) + b"\n"
        return summarize_transcript(read_transcript("s.jsonl", raw).messages)


def queue_record(
    operation: str, content: str | None = None, stamp: str = "2026-08-09T12:30:00.000Z"
) -> dict[str, Any]:
    """A Claude Code ``queue-operation`` record (``enqueue``/``dequeue``/``remove``) of this
    session, with the queued text when given."""
    rec: dict[str, Any] = {
        "type": "queue-operation",
        "operation": operation,
        "timestamp": stamp,
        "sessionId": SESSION,
    }
    if content is not None:
        rec["content"] = content
    return rec


def section(summary: str, n: int) -> str:
    """Section ``n`` of a summary, from its ``\nN.`` heading to the next (after ``<summary>``)."""
    summary = summary[summary.index("<summary>") :]
    start = summary.index(f"\n{n}.")
    end = summary.find(f"\n{n + 1}.", start)
    return summary[start : end if end > 0 else None]


def tool_round(s: Session, cid: str, name: str, args: dict[str, Any], content: str) -> None:
    """One call of tool ``name`` (id ``cid``) and its result ``content``."""
    s.assistant([{"type": "tool_use", "id": cid, "name": name, "input": args}])
    s.user([{"type": "tool_result", "tool_use_id": cid, "content": content}])


def tool_results(path: Path) -> dict[str, Any]:
    """The tool results of a Claude Code file by call id (what a reduction left of each)."""
    found: dict[str, Any] = {}
    for line in path.read_bytes().splitlines():
        content = (orjson.loads(line).get("message") or {}).get("content")
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_result":
                found[block["tool_use_id"]] = block["content"]
    return found


def cc_summary(s: Session, tmp_path: Path) -> str:
    """The local summary of ``s``'s records written to ``tmp_path/session.jsonl``."""
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


def delta(i: int) -> dict[str, Any]:
    """A ``file-history-delta`` record as Claude Code 2.1.220 writes it (no ``message``, no
    ``sessionId``): a type no reader knows, kept as metadata."""
    return {
        "type": "file-history-delta",
        "messageId": str(uuid.UUID(int=10_000 + i)),
        "snapshotMessageId": str(uuid.UUID(int=20_000)),
        "trackingPath": f"src/file_{i}.ts",
        "backup": {"backupFileName": None, "version": 1, "backupTime": "2026-08-09T12:34:48.064Z"},
        "timestamp": "2026-08-09T12:34:48.067Z",
    }


def work_session() -> Session:
    """A user's request, rounds of bulky tool output, answers, and a last request."""
    s = Session()
    s.user("Build the incident board: list open incidents from data/incidents.json in a table.")
    for i in range(6):
        out = "\n".join(
            f"incident-{i}-{k}: status open, site north-{k}, load {k * 7} MW" for k in range(120)
        )
        s.bash(f"cat data/incidents_{i}.json | head -120", out)
        notes = " ".join(
            f"Site north-{k} reports {k * 7} MW under incident-{i}-{k}." for k in range(40)
        )
        s.assistant([{"type": "text", "text": f"Read batch {i}: 120 incidents, all open. {notes}"}])
    s.user("Now add a filter by site to the board.")
    s.bash("npm test", "PASS src/board.test.ts\nTests: 14 passed, 14 total")
    s.assistant([{"type": "text", "text": "The site filter is in src/board.ts; 14 tests pass."}])
    return s


OLD_SUMMARY = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below:\nAnalysis:\nThe user asked to fix the DNS setup of "
    "the LiveCD build.\n\nSummary:\n1. Primary Request and Intent:\n   Fix DNS resolution "
    "inside the build chroot (build.sh)."
)
SIDECHAIN_PROMPT = "Create a strategic plan for deploying 6 parallel PATCHER agents to fix it"


def _sidechain(s: Session, call: str, prompt: str) -> None:
    """A ``Task`` call whose sub-agent conversation 1.0.x wrote inline (``isSidechain``,
    its prompt without parent), then the call's result."""
    s.assistant([{"type": "tool_use", "id": call, "name": "Task", "input": {"prompt": prompt}}])
    main = s.parent
    s.parent = None
    s.user(prompt)
    s.assistant([{"type": "text", "text": "I'll plan the PATCHER deployment in six waves."}])
    for rec in s.records[-2:]:
        rec["isSidechain"] = True
    s.parent = main
    s.user([{"type": "tool_result", "tool_use_id": call, "content": "Plan: six waves, done."}])


def old_compaction_session() -> Session:
    """A Claude Code 1.0.90 session holding its own compaction: the old chain (with an inline
    sub-agent), then the summary as a ``user`` record with ``isCompactSummary`` and no parent
    (1.0.x wrote no ``compact_boundary``), then the live chain (another inline sub-agent)."""
    s = Session()
    s.user("load claude.md")
    for i in range(4):
        out = "\n".join(f"old-{i}-{k}: module core_{k}.sh checked, 0 errors" for k in range(150))
        s.bash(f"bash tests/run_old_{i}.sh", out)
    _sidechain(s, "toolu_old_task", "Create a strategic debugging plan for 12 modules")
    s.assistant([{"type": "text", "text": "All 12 old modules pass."}])
    s.parent = None
    s.user(OLD_SUMMARY)
    s.records[-1]["isCompactSummary"] = True
    s.assistant([{"type": "text", "text": "I'll continue with the DNS fix in build.sh."}])
    for i in range(4):
        out = "\n".join(
            f"dns-{i}-{k}: resolv.conf line {k}: nameserver 10.0.{i}.{k}" for k in range(150)
        )
        s.bash(f"cat /tmp/chroot_{i}/etc/resolv.conf", out)
    _sidechain(s, "toolu_live_task", SIDECHAIN_PROMPT)
    s.user("retry")
    s.bash("sudo machinectl shell build", "Failed to get shell PTY: Protocol error")
    for rec in s.records:
        rec["version"] = "1.0.90"
        rec.pop("entrypoint", None)
    return s


def inflight_session() -> Session:
    """A Claude Code 2.0.19 session that stops with a call in flight: the "Warmup" exchange
    2.0.x wrote inline at the file's head (``isSidechain``, no parent), a request, rounds of
    bulky output, an offer of two options the user answers, and a last ``Bash`` call that has
    no result (the session ended while it ran)."""
    s = Session()
    s.user("Warmup")
    s.assistant([{"type": "text", "text": "Ready to help."}])
    for rec in s.records:
        rec["isSidechain"] = True
    s.parent = None
    s.user("Set up a git repo in my home folder for the agent prompts and push it to GitHub.")
    for i in range(12):
        out = "\n".join(
            f"prompts/agent_{i}_{k}.yaml: {k * 13} lines, owner dev" for k in range(150)
        )
        s.bash(f"ls -la prompts/batch_{i}", out)
        notes = " ".join(
            f"agent_{i}_{k}.yaml holds the {k}th prompt of batch {i}." for k in range(40)
        )
        s.assistant([{"type": "text", "text": f"Batch {i} listed. {notes}"}])
    s.assistant([{"type": "text", "text": "Option 1: you install gh. Option 2: manual steps."}])
    s.user("okay try again option 1")
    s.bash("brew install gh", "gh 2.82.0 installed")
    cmd = "cd ~ && git add .gitignore prompts/ && git status --short"
    s.assistant(
        [{"type": "tool_use", "id": "toolu_inflight", "name": "Bash", "input": {"command": cmd}}]
    )
    for rec in s.records:
        rec["version"] = "2.0.19"
        rec.pop("entrypoint", None)
    return s
