"""Exact results of the calls before Claude Code's own compaction (issue 28, blind check 58 N4).

After the CLI's compaction the summary drew only from the CLI's own summary, although the
records before the boundary, still in the file, held exact facts it lacked: the hashes of the
commits made, a push rejected and then rebased and pushed, a type-check's result. While
:mod:`._claude_earlier` scans those records for background jobs, :class:`EarlierFacts` notes,
one line each: successful ``git commit`` results (``[main 0855ca6] message``), ``git push``
results (``a..b main -> main``, ``! [rejected] …``, "Everything up-to-date"), a rebase's
"Successfully rebased", and the verdicts of the last test, build or type-check runs. They go on
the history's first message (``EARLIER_CALLS_KEY["facts"]``); the summarizer shows those the
earlier summary does not already name (:mod:`compactor.models.local_earlierfacts`).
"""

from __future__ import annotations

import re

from compactor._json import JsonObject, JsonValue
from compactor._util import lazy_pattern

from ._claude_texts import content_texts, one_line

__all__ = ["EarlierFacts"]

_COMMIT_RE = lazy_pattern(r"^\[([^\]\s]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$", re.M)
_PUSHED_RE = lazy_pattern(
    r"^\s*(?:\+ )?([0-9a-f]{7,40}\.\.\.?[0-9a-f]{7,40}|\* \[new branch\])\s+(\S+ -> \S+.*)$", re.M
)
_REJECTED_RE = lazy_pattern(r"^\s*! \[(?:rejected|remote rejected)\]\s+(.+)$", re.M)
_REBASED_RE = lazy_pattern(r"Successfully rebased and updated (\S+)")
_CHECK_RE = lazy_pattern(
    r"\b(?:tsc|pytest|jest|vitest|mypy|pyright|eslint|ruff|cargo (?:test|build|check|clippy)|"
    r"go (?:test|build|vet)|(?:npm|pnpm|yarn|bun)(?: run)? (?:test|build|lint|typecheck|check)\b|"
    r"make (?:test|check|build))"
)
_VERDICT_RE = lazy_pattern(
    r"(?im)^.*(?:\b\d+ (?:passed|failed|errors?|warnings?|tests?)\b|\bFound \d+ errors?\b|"
    r"\ball checks passed\b|\bbuild (?:succeeded|failed|complete)|\bcompiled successfully\b|"
    r"\bSuccess: no issues\b|\berror TS\d+|^FAIL\b|^ok\b|^PASS\b).*$"
)
_PUSH_PART_RE = lazy_pattern(r"git push\b[^\n;&|]*")
_REBASE_PART_RE = lazy_pattern(r"git (?:pull --rebase|rebase)\b[^\n;&|]*")
_QUIET = "(Bash completed with no output)"
_MOST = 12
_CHECKS = 3
"""The verdicts of this many last test, build or type-check runs are kept."""


def _text(content: JsonValue) -> str:
    return "\n".join(content_texts(content))


class EarlierFacts:
    """Collects the facts while :func:`._claude_earlier.earlier_jobs` walks the records."""

    __slots__ = ("answered", "calls", "checks", "found")

    def __init__(self) -> None:
        self.calls: dict[str, str] = {}  # call id → its shell command (the git and check ones)
        self.found: list[str] = []
        self.checks: list[str] = []
        self.answered = False
        """The records end with an assistant's text after the user's last message, no call
        after it: the session ended answered before the compaction."""

    def turn(self, rec: JsonObject, content: JsonValue) -> None:
        """Follow who spoke last: a user's own message, a call, or the assistant's text."""
        if rec.get("isMeta") or rec.get("isSidechain"):
            return
        blocks = content if isinstance(content, list) else [content]
        kinds = {b.get("type") for b in blocks if isinstance(b, dict)}
        if rec.get("type") == "assistant":
            if "tool_use" in kinds:
                self.answered = False
            elif "text" in kinds:
                self.answered = True
        elif isinstance(content, str) and not content.lstrip().startswith("<"):
            self.answered = False
        elif "text" in kinds and "tool_result" not in kinds:
            texts = [b.get("text") for b in blocks if isinstance(b, dict)]
            if any(isinstance(t, str) and not t.lstrip().startswith("<") for t in texts):
                self.answered = False

    def call(self, block: JsonObject) -> None:
        call_id, args = block.get("id"), block.get("input")
        if not isinstance(call_id, str) or not isinstance(args, dict):
            return
        command = args.get("command")
        if isinstance(command, str) and ("git " in command or _CHECK_RE.search(command)):
            self.calls[call_id] = command

    def result(self, block: JsonObject) -> None:
        command = self.calls.pop(str(block.get("tool_use_id")), None)
        if command is None:
            return
        text = _text(block.get("content"))[:20_000]
        shown = f"`{one_line(command.split(chr(10), 1)[0], 90)}`"
        failed = block.get("is_error") is True
        before = len(self.found)
        if "git commit" in command and (m := _COMMIT_RE.search(text)) and not failed:
            self.found.append(f"commit {m.group(2)} on {m.group(1)}: {one_line(m.group(3), 120)}")
        if "git push" in command:
            shown = _part(command, _PUSH_PART_RE, shown)  # the push, not a commit before it
            for m in _REJECTED_RE.finditer(text):
                self.found.append(
                    f"push rejected ({shown}): ! [rejected] {one_line(m.group(1), 100)}"
                )
            for m in _PUSHED_RE.finditer(text):
                self.found.append(f"pushed ({shown}): {m.group(1)} {one_line(m.group(2), 100)}")
            if "Everything up-to-date" in text and not failed:
                self.found.append(f"push ({shown}): Everything up-to-date")
        if (m := _REBASED_RE.search(text)) is not None:
            shown = _part(command, _REBASE_PART_RE, shown)
            self.found.append(f"rebased ({shown}): Successfully rebased and updated {m.group(1)}")
        if len(self.found) == before and _CHECK_RE.search(command):
            said = _verdict(text, failed)
            if said == "no output" and "| grep" in command:
                said += " (its grep matched no line)"
            self.checks.append(f"{shown} → {said}")

    def lines(self) -> list[str]:
        """The facts in order, the last check verdicts after them (at most :data:`_MOST`)."""
        return [*self.found[-(_MOST - _CHECKS) :], *self.checks[-_CHECKS:]]


def _part(command: str, pattern: re.Pattern[str], shown: str) -> str:
    """The segment of ``command`` the fact is about (``git push origin main``), else ``shown``."""
    m = pattern.search(command)
    return f"`{one_line(m.group(0).strip(), 90)}`" if m is not None else shown


def _verdict(text: str, failed: bool) -> str:
    body = text.strip()
    if not body or body == _QUIET:
        return "no output" + (" (failed)" if failed else "")
    errors = re.findall(r"error TS\d+", body)
    if errors:
        files = sorted(set(re.findall(r"^([^\s(]+)\(\d+,\d+\): error", body, re.M)))
        where = ", ".join(files[:4]) + (f" and {len(files) - 4} more" if len(files) > 4 else "")
        return (
            f"{len(errors)} type errors shown (in {where})"
            if where
            else f"{len(errors)} type errors"
        )
    found = _VERDICT_RE.findall(body)
    said = found[-1] if found else body.splitlines()[-1]
    return ("failed: " if failed else "") + one_line(said, 160)
