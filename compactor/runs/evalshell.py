"""``compact eval``'s reading of two shapes blind check 22 found its other checks blind to, read
from the ORIGINAL by shape, independently of the embedded summarizer:

* **a machine record in the user's place** — a user-role text that is a whole JSON object of
  identifier keys and plain values (Claude Code 2.1.4x's ``queue-operation`` registration of a
  background task, ``{"task_id": "b87f28b", "tool_use_id": "toolu_…", "description": "…",
  "task_type": "local_bash"}``) is not a request: :func:`machine_record`;
* **the user's own command failing at the end** — after the agent's last reply the user ran a
  command themselves (Claude Code's ``!cmd``: ``<bash-input>cmd</bash-input>``, then its echo
  ``<bash-stdout>…</bash-stdout><bash-stderr>…</bash-stderr>``) and its output reports an error:
  the last request was answered, but work is not where the answer left it (:func:`shell_failure`);
  Codex's ``<user_shell_command><command>cmd</command><result>Exit code: 1 …</result>`` alike.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from compactor.facts import Entry
from compactor.facts.masked import failure_report

__all__ = ["machine_record", "shell_failure"]

_KEY_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,40}")
_INPUT_RE = re.compile(r"<bash-input>(.*?)</bash-input>", re.DOTALL)
_OUTPUT_RE = re.compile(r"<bash-(?:stdout|stderr)>(.*?)</bash-(?:stdout|stderr)>", re.DOTALL)
_ERROR_RE = re.compile(
    r"^\s*(?:error|fatal|panic)\b\s*[:\[(]?|\berror(?:\[\w+\])?:\s*\S|\bcommand not found\b|"
    r"\bno such file or directory\b|\bdoes not exist\b|\bexit(?:ed)? (?:code|status|with)"
    r"(?: code)? [1-9]\d*\b|\bTraceback \(most recent call last\)",
    re.IGNORECASE,
)
_CODEX_RE = re.compile(
    r"<user_shell_command>\s*<command>\s*(.*?)\s*</command>\s*<result>(.*?)(?:</result>|\Z)",
    re.DOTALL,
)
_EXIT_RE = re.compile(r"^\s*Exit code:\s*(-?\d+)\s*$", re.MULTILINE)
_WARNING_RE = re.compile(r"^\s*warn(?:ing)?\b", re.IGNORECASE)
_LINE_CHARS = 300


def machine_record(text: str) -> bool:
    """Whether ``text`` is a whole JSON object of identifier keys and plain values (a harness's
    record, not a person's words)."""
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")) or len(text) > 4_000:
        return False
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return (
        isinstance(value, dict)
        and len(value) >= 2
        and all(_KEY_RE.fullmatch(k) for k in value)
        and all(v is None or isinstance(v, str | int | float | bool) for v in value.values())
    )


def _error_line(output: str) -> str:
    """The first line of a command's output that reports an error (a warning is not one); a bare
    ``error:`` heading gives the next line that says what failed."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    for n, line in enumerate(lines):
        if _WARNING_RE.match(line) or not (_ERROR_RE.search(line) or failure_report(line)):
            continue
        if line.lower().rstrip(":") in ("error", "fatal") and n + 1 < len(lines):
            later = (x for x in lines[n + 1 :] if _ERROR_RE.search(x) and len(x) > len(line) + 2)
            line = next(later, f"{line} {lines[n + 1]}")
        return line[:_LINE_CHARS]
    return ""


def shell_failure(entries: Sequence[Entry]) -> tuple[str, str] | None:
    """(the command, its first error line) of the last command the user ran themselves after
    the agent's last reply, when its output reports an error; else None."""
    last_reply = max((e.index for e in entries if e.role == "assistant"), default=-1)
    command, found = "", None
    for e in entries:
        if e.index <= last_reply or e.role != "user":
            continue
        text = e.text
        if (codex := _CODEX_RE.search(text)) is not None:
            command = " ".join(codex.group(1).split())
            code = _EXIT_RE.search(codex.group(2))
            failed = code is not None and code.group(1) != "0"
            line = _error_line(codex.group(2)) if failed else ""
            found = (command, line or (code.group(0).strip() if code else "")) if failed else None
            continue
        if (given := _INPUT_RE.search(text)) is not None:
            command, found = " ".join(given.group(1).split()), None
        if command and "<bash-std" in text:
            output = "\n".join(m.group(1) for m in _OUTPUT_RE.finditer(text))
            line = _error_line(output)
            found = (command, line) if line else None
    return found
