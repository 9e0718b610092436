"""A content-addressed cache of summaries: the same summarizer call never runs (or costs) twice.

The key is the SHA-256 of a canonical JSON document holding the model's name, the model
options and the exact summarizer input (the instructions are part of that input, so a changed
prompt is a different key). A hit returns the stored reply text, so re-running CI on the same
transcript gives the same bytes without a model call. Entries are small JSON files written
atomically (``io.atomic_write``), one per key, two-level fan-out like git's object store::

    <dir>/ab/abcdef….json   {"version": 1, "model": "...", "text": "...", "usage": {...}}

Only replies are stored, never API keys; with secret masking on, the input that was hashed
was already masked. A damaged entry is ignored (a miss) and overwritten on the next store.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from .io import atomic_write
from .schema import AgenticMessage, Message, Usage, assistant_text, make_assistant

__all__ = ["CACHE_VERSION", "SummaryCache", "cache_key", "default_cache_dir"]

CACHE_VERSION = 1


def default_cache_dir() -> str:
    """``$XDG_CACHE_HOME/compact/summaries`` (``~/.cache/compact/summaries`` without it)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "compact", "summaries")


def _canonical(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {f.name: _canonical(getattr(value, f.name)) for f in dataclasses.fields(value)}
        data["__kind__"] = type(value).__name__
        return data
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return repr(value)


def cache_key(model: str, options: dict[str, Any], messages: list[Any]) -> str:
    """SHA-256 hex digest of (model, options, summarizer input)."""
    doc = {"v": CACHE_VERSION, "model": model, "options": options, "input": messages}
    data = json.dumps(_canonical(doc), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


class SummaryCache:
    """Reply cache in a folder; ``hits`` and ``misses`` count this process's lookups."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        chosen = directory if directory is not None else default_cache_dir()
        self.directory = Path(os.path.expanduser(os.fspath(chosen)))
        self.hits = 0
        self.misses = 0
        self.stores = 0

    def __repr__(self) -> str:
        return f"SummaryCache({str(self.directory)!r})"

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str, kind: type[Any]) -> Message | AgenticMessage | None:
        """The stored reply as an assistant message of ``kind``, or None (a miss)."""
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            text = data["text"]
            if data.get("version") != CACHE_VERSION or not isinstance(text, str) or not text:
                raise ValueError("stale or empty entry")
            usage_d = data.get("usage")
            usage = Usage(**usage_d) if isinstance(usage_d, dict) else None
        except (OSError, ValueError, KeyError, TypeError):
            self.misses += 1
            return None
        self.hits += 1
        reply: Message | AgenticMessage = make_assistant(kind, text, usage)
        return reply

    def put(self, key: str, model: str, reply: Any) -> None:
        """Store ``reply`` (an assistant message with text); anything else is not stored."""
        if not isinstance(reply, Message | AgenticMessage) or reply.role != "assistant":
            return
        text = assistant_text(reply)
        if not text:
            return
        usage = dataclasses.asdict(reply.usage) if reply.usage is not None else None
        doc = {"version": CACHE_VERSION, "model": model, "text": text, "usage": usage}
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, (json.dumps(doc, ensure_ascii=False) + "\n").encode("utf-8"))
        self.stores += 1
