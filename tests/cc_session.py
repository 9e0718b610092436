"""A small synthetic Claude Code session (2.1.x record shapes) for the tests of the reader."""

from __future__ import annotations

import uuid
from typing import Any

import orjson

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
