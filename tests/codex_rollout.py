"""Records of a Codex rollout built inside a test: one owner for the timestamped record, the
rounds of shell reads that give reduce something to clear (each with its ``token_count``), the
header of an exec call's result, the user's and the assistant's messages, a rollout built call
by call (:class:`Rollout`), the summary of a rollout and its numbered sections."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

STAMP = "2026-01-02T03:04:05.000Z"


def rec(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """A rollout line of ``kind`` holding ``payload``."""
    return {"timestamp": STAMP, "type": kind, "payload": payload}


def read_rounds(rounds: int, file: str, read_as: str) -> list[dict[str, Any]]:
    """``rounds`` rounds of ``cat FILE``: the call, its 40-line output (each line ``{n}: line
    {i} of FILE {read_as}``) and the token count after it, growing by 1,000 a round."""
    records: list[dict[str, Any]] = []
    for n in range(rounds):
        out = "".join(f"{n}: line {i} of {file} {read_as}\n" for i in range(40))
        call = {"type": "function_call", "name": "shell", "call_id": f"call_{n}"}
        call["arguments"] = json.dumps({"command": ["cat", file]})
        usage = {"input_tokens": 1000 * (n + 1), "output_tokens": 10, "total_tokens": 1010}
        records += [
            rec("response_item", call),
            rec(
                "response_item",
                {"type": "function_call_output", "call_id": f"call_{n}", "output": out},
            ),
            rec("event_msg", {"type": "token_count", "info": {"last_token_usage": usage}}),
        ]
    return records


def exec_head(code: int | None, output: str, session: int = 0, *, chunk: str = "7a") -> str:
    """A Codex ``exec_command``/``write_stdin`` result: its header (``Chunk ID``, wall time, the
    exit code, or the session still running when ``code`` is None), then ``output``."""
    state = (
        f"Process exited with code {code}"
        if code is not None
        else f"Process running with session ID {session}"
    )
    return f"Chunk ID: {chunk}{session}\nWall time: 1.0 seconds\n{state}\nOutput:\n{output}"


def codex_user(text: str) -> dict[str, Any]:
    """The user's message ``text``."""
    message = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    return rec("response_item", message)


def codex_say(text: str) -> dict[str, Any]:
    """The assistant's message ``text``."""
    content = [{"type": "output_text", "text": text}]
    return rec("response_item", {"type": "message", "role": "assistant", "content": content})


def codex_summary(records: list[dict[str, Any]], tmp_path: Path, session: str, cwd: str) -> str:
    """The local summary of a rollout of ``records`` (after a ``session_meta`` of ``session``
    in ``cwd``), written to ``tmp_path/rollout.jsonl``."""
    head = rec("session_meta", {"id": session, "cwd": cwd})
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in [head, *records]))
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


class Rollout:
    """A rollout built call by call: a ``turn_context`` in ``cwd``, then ``function_call`` /
    ``function_call_output`` pairs (``call_1``, ``call_2``, ...) and whatever a test appends to
    :attr:`records`."""

    def __init__(self, cwd: str) -> None:
        self.records: list[dict[str, Any]] = [rec("turn_context", {"cwd": cwd})]
        self.n = 0

    def call(self, name: str, args: dict[str, Any], output: str) -> None:
        self.n += 1
        key = f"call_{self.n}"
        call = {"type": "function_call", "name": name, "call_id": key}
        call["arguments"] = json.dumps(args)
        out = {"type": "function_call_output", "call_id": key, "output": output}
        self.records += [rec("response_item", call), rec("response_item", out)]

    def exec(self, cmd: str, output: str) -> None:
        self.call("exec_command", {"cmd": cmd, "yield_time_ms": 1000}, output)

    def stdin(
        self,
        session: int,
        chars: str,
        output: str,
        *,
        yield_ms: int = 1000,
        tokens: int | None = None,
    ) -> None:
        """A ``write_stdin`` call (with ``max_output_tokens`` when ``tokens`` is given)."""
        args: dict[str, Any] = {"session_id": session, "chars": chars, "yield_time_ms": yield_ms}
        if tokens is not None:
            args["max_output_tokens"] = tokens
        self.call("write_stdin", args, output)


def sections(text: str, *, after: str | None = None) -> dict[str, str]:
    """A summary's numbered sections by number (and the text before the first as "0");
    ``after``: only what follows the first ``after`` in ``text`` (``"<summary>"``: the analysis
    before the summary left out of "0" and of the sections)."""
    if after is not None:
        text = text.split(after, 1)[-1]
    parts = re.split(r"(?m)^(\d+)\. [^\n]*:\n", text)
    return {"0": parts[0], **dict(zip(parts[1::2], parts[2::2], strict=True))}
