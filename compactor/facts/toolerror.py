"""Whether a tool result is the tool's or harness's own error (moved from outcomes.py to make room).

A sandbox or spawn failure (``<tool_use_error>``, ``exec error``, ``CreateProcess… failed``)
means the command could not be run: a failure whatever the command was. So does Codex's
"apply_patch verification failed" (the legacy ``shell`` tool's ``apply_patch <<PATCH``, whose
plain output has no exit code; blind check 33 N2): the patch changed nothing. So does Codex
0.98's bare ``exec_command failed: CreateProcess { message: "Codex(Sandbox(Denied { … exit_code:
128, stderr: … }))" }`` (no "Process exited with code N" header, BENCH41 W1): its exit code and
stderr are read out of that text (:func:`sandbox_denied`). Codex 0.118 names the command:
``exec_command failed for `ps aux`: CreateProcess { … Denied { output: ExecToolCallOutput {
exit_code: 127, … } … }`` or ``… failed for `CMD`: SandboxDenied { message: "…", … }`` (BENCH44:
three denials were not counted as failures); the latter's message is its error line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compactor._util import lazy_pattern

from .text import FILE_KEYS

__all__ = [
    "TOOL_ERROR_RE",
    "Denied",
    "own_error_report",
    "own_failure",
    "sandbox_denied",
    "tool_error",
    "write_failed",
]

_TOOL_ERROR_STARTS = (
    r"<tool_use_error>|<error>|Error: |execution error:|(?:sandbox|spawn|exec) error\b"
    r"|(?i:failed to (?:spawn|execute|launch|start (?:the )?process|run (?:the )?command)\b)"
    r"|apply_patch verification failed\b"  # Codex's patch tool, with no exit code (check 33 N2)
)
TOOL_ERROR_RE = re.compile(
    rf"\A\s*(?:{_TOOL_ERROR_STARTS}|[^\n]{{0,200}}?\bCreateProcess\w* failed\b"
    r"|\w+ failed: CreateProcess\b"
    r"|\w{1,40} failed for `(?s:.{0,4000}?)`: (?:CreateProcess|SandboxDenied) \{)"
)
"""A result that is the tool's or harness's own error (the command could not be run: a sandbox
or spawn failure) rather than the command's output: a failure whatever the command was."""
_TOOL_ERROR_START_RE = lazy_pattern(rf"\A\s*(?:{_TOOL_ERROR_STARTS})")
_CREATE_PROCESS = "CreateProcess"
_FAILED_FOR = " failed for `"  # Codex 0.118's unified-exec error, naming the command (BENCH44)


def tool_error(text: str) -> bool:
    """``TOOL_ERROR_RE.match(text)``; its last branch, which reads up to 200 characters, only
    when ``CreateProcess`` stands where it can start (200 characters after the leading
    whitespace at most): most outputs are decided by their first characters. Codex 0.118's
    ``exec_command failed for `CMD`: CreateProcess|SandboxDenied { …`` (BENCH44) is one too."""
    lead = len(text) - len(text.lstrip())
    if _CREATE_PROCESS in text[: lead + 200 + len(_CREATE_PROCESS)] or (
        _FAILED_FOR in text[lead : lead + 40 + len(_FAILED_FOR)]
    ):
        return TOOL_ERROR_RE.match(text) is not None
    return _TOOL_ERROR_START_RE.match(text) is not None


def own_failure(text: str, name: str) -> bool:
    """Whether ``text`` starts with the tool's own ``<name> failed:`` (Codex's plain-text
    ``write_stdin failed: stdin is closed for this session …``, no exit code; blind check 43 W2):
    the call could not do what it was sent for, a failure whatever it asked."""
    if not name:
        return False
    head = text[: len(name) + 48].lstrip()  # (not the whole output: most results are long)
    return head[: len(name) + 8].lower() == f"{name.lower()} failed:"


_OWN_ERROR_RE = lazy_pattern(
    r"\A\s*(?:Error (?:calling|executing|invoking|running|from) [^\n]{1,120}?:\s*\S"
    r"|(?:Client|Server) error '[45]\d\d\b|HTTP(?: error| status)?:? [45]\d\d\b"
    r"|Request failed with status code [45]\d\d\b)"
)


def own_error_report(text: str, command: str | None) -> bool:
    """Whether a result of a tool that runs no shell command (an MCP server's tool) starts with
    that tool's own error report: ``Error calling X API: Client error '422 …'``, ``Error
    executing tool …: …``, ``HTTP 503 …`` (blind check 70 W2: not flagged, yet "0 failed"). A
    shell command's output is its program's: it may print a status on purpose."""
    return command is None and _OWN_ERROR_RE.match(text) is not None


_WRITE_FAILED_RE = lazy_pattern(
    r"\A\s*(?:Writing (?:the )?file failed|Failed to (?:write|save|create)(?: (?:the )?file)?|"
    r"Error (?:writing|saving|creating)(?: (?:the )?file)?|Internal error|Permission denied)\b",
    re.IGNORECASE,
)
_WRITE_FAILED_MAX = 400
"""A write's failure report is one short sentence; a longer result is the file or a listing."""
_CONTENT_KEYS = ("content", "file_text", "contents")


def write_failed(text: str, args: object, command: str | None) -> bool:
    """Whether a file-writing call (a file argument and its content, no shell command: an MCP or
    ACP adapter's ``Write``) got back only a failure sentence ("Writing file failed: Internal
    error", "Failed to write …", "Permission denied") without the error flag: the file was not
    written (blind check 80 W1: the write read as "created by mcp__acp__Write")."""
    if command is not None or not isinstance(args, dict) or len(text) > _WRITE_FAILED_MAX:
        return False
    if not any(isinstance(args.get(k), str) for k in FILE_KEYS):
        return False
    if not any(isinstance(args.get(k), str) for k in _CONTENT_KEYS):
        return False
    return _WRITE_FAILED_RE.match(text) is not None


_DENIED_RE = lazy_pattern(
    r"\A\s*\w+ failed(?: for `.{0,4000}?`)?: (?:CreateProcess \{ message: \"[^\n]{0,80}?\bDenied \{"
    r"|(SandboxDenied) \{)",
    re.DOTALL,
)
_MESSAGE_RE = lazy_pattern(r"\bmessage: \"((?:[^\"\\]|\\.){0,2000})\"")
_DENIED_EXIT_RE = lazy_pattern(r"\bexit_code: (-?\d+)")
_STREAM_RE = lazy_pattern(
    r"\b(stderr|aggregated_output|stdout): StreamOutput \{ text: \\*\"(.{0,2000}?)\\*\", truncated"
)


@dataclass(frozen=True, slots=True)
class Denied:
    """What Codex's bare sandbox denial says: the command's exit code and its output."""

    exit_code: int | None
    output: str


def _unescape(text: str) -> str:
    """A Rust ``Debug`` string's text, escaped once or twice (``\\n``, ``\\\\n``, ``\\"``)."""
    for _ in range(2):
        text = (
            text.replace("\\\\", "\\").replace('\\"', '"').replace("\\n", "\n").replace("\\t", "\t")
        )
    return text.rstrip("\\")


def sandbox_denied(text: str) -> Denied | None:
    """For Codex's bare ``exec_command failed: CreateProcess { message: "Codex(Sandbox(Denied {
    … exit_code: 128, … stderr: StreamOutput { text: "fatal: …" …`` (BENCH41 W1), the exit code
    and the command's output (its stderr, else its aggregated output or stdout); else None."""
    if "Denied" not in text[:200] and _FAILED_FOR not in text[:40]:
        return None
    matched = _DENIED_RE.match(text)
    if matched is None:
        return None
    code = _DENIED_EXIT_RE.search(text)
    streams = {m.group(1): _unescape(m.group(2)).strip() for m in _STREAM_RE.finditer(text)}
    output = next(
        (streams[k] for k in ("stderr", "aggregated_output", "stdout") if streams.get(k)), ""
    )
    if matched.group(1) and (message := _MESSAGE_RE.search(text, matched.end())):
        output = _unescape(message.group(1)).strip() or output  # SandboxDenied's own (BENCH44)
    return Denied(int(code.group(1)) if code else None, output)
