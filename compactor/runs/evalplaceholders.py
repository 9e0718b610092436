"""``compact eval`` follows the placeholders of a reduced transcript (blind check 71 N6).

A result that ``reduce`` (or ``hybrid``) truncated or cleared is replaced by a placeholder that
names where its exact text is: an offload file (``<persisted-output>…Full output saved to: PATH``
or ``<persisted-output>Tool result saved to: PATH``, whatever the harness: a Claude Code, Codex or
OpenAI/Eino history) or, without an offload folder, the line of a transcript that holds it
(Eino's ``[Old tool result content cleared] (the full result is in the transcript PATH, line N)``).
A resuming agent reads it back, so its facts are kept, but *only when the named file exists and
holds exactly the original result*: its bytes are compared with the result as the original
transcript holds it (what the reduction writes: the text itself, else the content as the record
writes it, :func:`compactor.runs.run_reduce.originals`, or the parts as JSON). A missing, changed or
unreadable file is a finding (the result is lost), never an error; nothing but the named path is
opened, and no more of a file is read than the original result's length plus one byte.

A placeholder is followed only where the compacted result differs from every original result of
its call: a result the original already held as a harness's own placeholder (Claude Code writes
``<persisted-output>`` itself) is compared as text, like any other.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from compactor._json import JsonObject
from compactor.reduction.results import (
    CLEARED_TEXT,
    PERSISTED_OPEN,
    find_results,
    original_content,
    original_payload,
    result_payload,
    result_text,
)
from compactor.schema import AgenticMessage, Message

__all__ = ["Placeholders", "follow_placeholders"]

_SAVED_RE = re.compile(
    re.escape(PERSISTED_OPEN)
    + r"\s*(?:Output too large \([^)\n]*\)\.\s*Full output saved to|Tool result saved to):[ \t]*"
    r"(?P<path>[^\n]+?)[ \t]*(?:\n|\Z)"
)
_LINE_RE = re.compile(
    re.escape(CLEARED_TEXT)
    + r" \(the full result is in the transcript (?P<path>.+), line (?P<line>[1-9]\d{0,11})\)\s*\Z",
    re.DOTALL,
)
_SHOWN = 20
"""Placeholders that did not resolve, listed at most (the count says how many)."""

Original = Callable[[int, str], "str | None"]
"""``(message index, call id) → the result as its record holds it`` (None: unknown)."""


@dataclass(slots=True)
class Placeholders:
    """What following the compacted transcript's placeholders found."""

    resolved: int = 0
    missing: list[tuple[str, str]] = field(default_factory=list)
    """(the path named, why its content is not the original result), in order."""
    texts: list[str] = field(default_factory=list)
    """The original results the resolved placeholders name: kept, as the agent can read them."""

    @property
    def found(self) -> int:
        return self.resolved + len(self.missing)

    def as_dict(self) -> JsonObject:
        return {
            "resolved": self.resolved,
            "missing": len(self.missing),
            "not_resolved": [{"path": p, "why": w} for p, w in self.missing[:_SHOWN]],
        }

    def line(self) -> str:
        """``placeholders: N resolved, M missing/changed``."""
        return f"placeholders: {self.resolved:,} resolved, {len(self.missing):,} missing/changed"


@dataclass(frozen=True, slots=True)
class _Wanted:
    payloads: frozenset[bytes]
    text: str


def _originals(
    messages: Sequence[Message | AgenticMessage], original: Original | None
) -> dict[str, list[_Wanted]]:
    """Call id → the original results of that call: their possible file bytes and text."""
    found: dict[str, list[_Wanted]] = {}
    for ref in find_results(messages):
        if not ref.call_id:
            continue
        msg = messages[ref.index]
        payloads = {result_payload(msg, ref)}
        raw = original(ref.index, ref.call_id) if original is not None else None
        if raw is not None:
            payloads.add(raw)
        data = frozenset(p.encode("utf-8", "surrogatepass") for p in payloads)
        found.setdefault(ref.call_id, []).append(_Wanted(data, result_text(msg, ref)[0]))
    return found


def _read_file(path: str, limit: int) -> bytes | str:
    """At most ``limit`` bytes of the regular file ``path``, or why it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return "no such file"
    except OSError as err:
        return f"unreadable: {err.strerror or err}"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "not a regular file"
        chunks: list[bytes] = []
        left = limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError as err:
        return f"unreadable: {err.strerror or err}"
    finally:
        os.close(fd)


def _read_lines(path: str, numbers: set[int]) -> dict[int, bytes] | str:
    """The lines ``numbers`` (1-based) of the file ``path``, or why it cannot be read."""
    try:
        if not os.path.isfile(path):
            return "no such file" if not os.path.exists(path) else "not a regular file"
        found: dict[int, bytes] = {}
        last = max(numbers)
        with open(path, "rb") as f:
            for n, line in enumerate(f, 1):
                if n in numbers:
                    found[n] = line.rstrip(b"\r\n")
                if n >= last:
                    break
        return found
    except OSError as err:
        return f"unreadable: {err.strerror or err}"


def _in_line(line: bytes, call_id: str, wanted: list[_Wanted]) -> _Wanted | None:
    """The original result whose content the record ``line`` holds for ``call_id``, exactly."""
    try:
        record = json.loads(line)
    except ValueError:
        return None
    value = original_content(record, call_id)
    payload = original_payload(value, line)
    if payload is None:
        return None
    data = payload.encode("utf-8", "surrogatepass")
    return next((w for w in wanted if data in w.payloads), None)


def follow_placeholders(
    original: Sequence[Message | AgenticMessage],
    compacted: Sequence[Message | AgenticMessage],
    raw_original: Original | None = None,
) -> Placeholders:
    """Follow every placeholder of ``compacted`` that stands for a result of ``original``
    (see the module docstring); ``raw_original``: the results as the original's records hold
    them (:func:`compactor.runs.run_reduce.originals`), when it was read from a file."""
    out = Placeholders()
    wanted = _originals(original, raw_original)
    if not wanted:
        return out
    by_line: list[tuple[str, int, str, list[_Wanted]]] = []
    for ref in find_results(compacted):
        olds = wanted.get(ref.call_id)
        if not olds:
            continue
        text = result_text(compacted[ref.index], ref)[0]
        if any(text == w.text for w in olds):
            continue  # kept as it was (or the harness's own placeholder, in both)
        saved = _SAVED_RE.search(text[:4_000])
        if saved is not None:
            path = saved.group("path")
            limit = max(len(p) for w in olds for p in w.payloads) + 1
            data = _read_file(path, limit)
            if isinstance(data, str):
                out.missing.append((path, data))
                continue
            match = next((w for w in olds if data in w.payloads), None)
            if match is None:
                out.missing.append((path, "changed: its bytes are not the original result"))
                continue
            out.resolved += 1
            out.texts.append(match.text)
            continue
        at = _LINE_RE.match(text)
        if at is not None:
            by_line.append((at.group("path"), int(at.group("line")), ref.call_id, olds))
    _follow_lines(by_line, out)
    return out


def _follow_lines(asked: list[tuple[str, int, str, list[_Wanted]]], out: Placeholders) -> None:
    """Resolve the transcript-line placeholders, each file read once."""
    numbers: dict[str, set[int]] = {}
    for path, n, _, _ in asked:
        numbers.setdefault(path, set()).add(n)
    lines = {path: _read_lines(path, wanted) for path, wanted in numbers.items()}
    for path, n, call_id, olds in asked:
        got = lines[path]
        named = f"{path}, line {n}"
        if isinstance(got, str):
            out.missing.append((named, got))
            continue
        line = got.get(n)
        if line is None:
            out.missing.append((named, "the file has no such line"))
            continue
        match = _in_line(line, call_id, olds)
        if match is None:
            out.missing.append((named, "changed: the line does not hold the original result"))
            continue
        out.resolved += 1
        out.texts.append(match.text)
