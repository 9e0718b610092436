"""A content-addressed cache of summaries: the same summarizer request never runs (or costs) twice.

The key is the SHA-256 of a canonical JSON document holding what makes a request what it is: the
endpoint it goes to (``base_url``; two servers never share an entry), the model's name, the model
options, the exact summarizer input and, for a model that runs in this process (the embedded
summarizer, a Python model handed to the library), the fingerprint of its code
(:func:`model_code`): a summary an older compact wrote is never served by a newer one. The
instructions are part of that input (the system instruction first, the user instruction last, or
whatever ``gen_model_input`` built), so a changed prompt is a different key. A hit returns the
stored reply text, so re-running CI on the same transcript gives the same bytes without a model
call.

Layout, one small JSON file per key with a two-level fan-out like git's object store::

    <dir>/ab/abcdef….json   {"version": 3, "key": "abcdef…", "model": "...", "text": "...",
                             "sha256": "<of text>", "usage": {...}}

Safety:

* **Secrets-free.** Entries hold the reply, the model's name, usage and the key (a hash); never
  the endpoint, an API key or a header. With secret masking on (the default for remote models)
  the input that was hashed and sent was already masked, and the OpenAI model scrubs its own key
  from replies.
* **Private.** Folders the cache creates are 0700, entries 0600 (a folder that already exists is
  left as it is). A folder another user can write, or that belongs to another user
  (:func:`compactor.io.unsafe_folder`, the archive's check too), is not used at all:
  :attr:`SummaryCache.refused` says why, nothing is read or written there, and a run says so in
  one line and goes on without the cache. A symlink at an entry's path, or at its fan-out
  folder's, is never followed.
* **Atomic, and safe for concurrent runs.** An entry is written to a temp file in its folder and
  renamed over the target: a reader sees the old entry, the new one or none, never half of one.
  Two runs storing the same key both rename complete files; the last one stays. No fsync: a
  machine crash may leave an empty or cut entry, which is a miss like any damaged entry.
* **A damaged entry is a miss.** Not a regular file (a FIFO, a device, a symlink), larger than
  :data:`MAX_ENTRY_BYTES`, not JSON, another version, another key, another model's name, a text
  whose SHA-256 does not match, a usage that is not counts: each is ignored, and overwritten by
  the next store.
* **A hit is checked like a fresh reply.** The summarizer hands :meth:`SummaryCache.get` the
  checks of the run asking (``summary_check``, ``max_summary_tokens``, a reply no longer than
  its input): a reply cached by a run without them is a miss for a run with them.
* **Never fatal.** A cache that cannot be written (read-only, full disk) counts an error in
  :attr:`SummaryCache.errors`; the run goes on with the reply it has.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import functools
import hashlib
import json
import os
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from compactor._json import JsonObject, JsonValue
from compactor._util import lazy_pattern
from compactor.io import make_private_dirs, unsafe_folder
from compactor.schema import AgenticMessage, M, Message, Usage, assistant_text, make_assistant

__all__ = [
    "CACHE_VERSION",
    "MAX_ENTRY_BYTES",
    "CacheStats",
    "SummaryCache",
    "cache_key",
    "default_cache_dir",
    "model_code",
    "model_endpoint",
    "request_key",
]

CACHE_VERSION = 3
"""Entries of another version are misses (version 1 keys had no endpoint, version 2 keys no code
fingerprint for in-process models)."""

MAX_ENTRY_BYTES = 16 * 1024 * 1024
"""An entry file larger than this (a reply is capped at 16 MiB too) is not read: a miss."""

_ENTRY_RE = lazy_pattern(r"[0-9a-f]{64}\.json")
_FANOUT_RE = lazy_pattern(r"[0-9a-f]{2}")
_USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/compact/summaries`` (an absolute ``XDG_CACHE_HOME`` only, as the XDG
    spec says), else ``~/.cache/compact/summaries``."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "compact" / "summaries"


def model_endpoint(model: object) -> str | None:
    """Where ``model`` sends its requests (its ``endpoint`` attribute, e.g. the OpenAI model's
    base URL without credentials); None for a model that runs in this process."""
    value = getattr(model, "endpoint", None)
    return value if isinstance(value, str) and value else None


@functools.cache
def _package_code() -> str:
    """The fingerprint of compact's own source: every ``.py`` file of the ``compactor`` package,
    by path and bytes. Any change to the code (an upgrade, a local edit) is a new fingerprint."""
    root = Path(__file__).resolve().parent.parent
    files = sorted(root.rglob("*.py"))
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode("utf-8", "surrogateescape") + b"\0")
        try:  # a FIFO, a device or a dangling link named *.py is never opened (it could block)
            regular = stat.S_ISREG(path.stat().st_mode)
            digest.update(path.read_bytes() if regular else b"(not a file)")
        except OSError:  # unreadable: this process's keys are its own (never stale, never fatal)
            digest.update(os.urandom(16))
        digest.update(b"\0")
    return digest.hexdigest()


@functools.cache
def _module_code(module: str) -> str | None:
    """The fingerprint of a model's own module file when it lives outside compact (None when it
    has no readable source file)."""
    found = sys.modules.get(module)
    source = getattr(found, "__file__", None)
    if not isinstance(source, str) or not source.endswith(".py"):
        return None
    try:
        return hashlib.sha256(Path(source).read_bytes()).hexdigest()
    except OSError:
        return None


def model_code(model: object) -> str | None:
    """The code identity of ``model`` for the cache key: None for a model behind an endpoint
    (its server owns its behaviour; the key has the endpoint and the model's name). For a model
    that runs in this process, its ``code_version`` attribute when it has a non-empty one, else
    the fingerprint of compact's source plus, for a class defined outside compact, its module
    file: an edited or upgraded summarizer never gets the summaries its older self wrote."""
    if model_endpoint(model) is not None:
        return None
    declared = getattr(model, "code_version", None)
    if isinstance(declared, str) and declared:
        return declared
    module = type(model).__module__
    if module == "compactor" or module.startswith("compactor."):
        return _package_code()
    own = _module_code(module)
    return _package_code() if own is None else f"{_package_code()}+{own}"


def _canonical(value: object) -> JsonValue:
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


def cache_key(
    model: str,
    options: JsonObject,
    messages: Sequence[Message | AgenticMessage],
    endpoint: str | None = None,
    code: str | None = None,
) -> str:
    """SHA-256 hex digest of (endpoint, model, options, summarizer input, code fingerprint)."""
    doc = {
        "v": CACHE_VERSION,
        "endpoint": endpoint,
        "code": code,
        "model": model,
        "options": options,
        "input": messages,
    }
    data = json.dumps(_canonical(doc), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def request_key(
    model: object, name: str, options: JsonObject, messages: Sequence[Message | AgenticMessage]
) -> tuple[str, object]:
    """The key of sending ``messages`` to ``model``, and the request body it was computed from
    when the model serialises its requests itself (a ``request_body`` method whose result has
    the ``sha256`` of its bytes, as the OpenAI model's has): then the key hashes the very bytes
    that are sent, with no canonical copy of the input, and the caller sends that body
    (``send_body``)."""
    build = getattr(model, "request_body", None)
    endpoint = model_endpoint(model)
    if not callable(build):
        return cache_key(name, options, messages, endpoint, model_code(model)), None
    body = build(messages, **options)
    head = {"v": CACHE_VERSION, "endpoint": endpoint, "model": name, "options": options}
    head["body_sha256"] = body.sha256  # of the bytes sent (hashed as they were serialised)
    data = json.dumps(_canonical(head), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest(), body


@dataclass(frozen=True, slots=True)
class CacheStats:
    """What a cache folder holds (``compact cache info``) or what a clear removed."""

    directory: str
    exists: bool
    entries: int = 0
    bytes: int = 0
    temp_files: int = 0
    """Temp files left by a run that was killed while storing (``clear`` removes them)."""
    oldest: float | None = None
    """Modification time (epoch seconds) of the oldest entry."""
    newest: float | None = None

    def to_dict(self) -> JsonObject:
        return dataclasses.asdict(self)


def _usage(value: JsonValue) -> Usage | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != set(_USAGE_FIELDS):
        raise ValueError("usage is not a set of counts")
    counts = [value[name] for name in _USAGE_FIELDS]
    if any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in counts):
        raise ValueError("usage is not a set of counts")
    return Usage(*counts)


class SummaryCache:
    """Reply cache in a folder; ``hits``, ``misses``, ``stores`` and ``errors`` count this
    process's lookups and writes."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        chosen = directory if directory is not None else default_cache_dir()
        self.directory = Path(os.path.abspath(os.path.expanduser(os.fspath(chosen))))
        self.hits = 0
        self.misses = 0
        self.stores = 0
        self.errors = 0
        self.refused: str | None = unsafe_folder(self.directory)
        """Why the folder is not used (None: it is safe, or does not exist yet)."""

    def __repr__(self) -> str:
        return f"SummaryCache({str(self.directory)!r})"

    def path(self, key: str) -> Path:
        """Where the entry of ``key`` lives."""
        return self.directory / key[:2] / f"{key}.json"

    def _read(self, key: str) -> bytes | None:
        """The entry's bytes: a regular file (no symlink, FIFO or device) of a sane size."""
        if self.refused is not None or not self._real_folder(self.path(key).parent):
            return None
        flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(self.path(key), flags | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_ENTRY_BYTES:
                return None
            chunks: list[bytes] = []
            size = 0
            while size <= MAX_ENTRY_BYTES:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            return None if size > MAX_ENTRY_BYTES else b"".join(chunks)
        except OSError:
            return None
        finally:
            os.close(fd)

    def peek(self, key: str, kind: type[M], model: str | None = None) -> M | None:
        """The stored reply as an assistant message of ``kind``, or None; not counted (the
        spend guard's plan uses it to tell which request a run would really send). With
        ``model``, an entry written for another model is a miss (the key covers the model's
        name, so such an entry was edited or planted)."""
        data = self._read(key)
        if data is None:
            return None
        try:
            doc = json.loads(data.decode("utf-8"))
            if not isinstance(doc, dict) or doc.get("version") != CACHE_VERSION:
                raise ValueError("another version")
            text = doc.get("text")
            if doc.get("key") != key or not isinstance(text, str) or not text:
                raise ValueError("another key or no text")
            if model is not None and doc.get("model") != model:
                raise ValueError("another model's entry")
            if doc.get("sha256") != hashlib.sha256(text.encode("utf-8")).hexdigest():
                raise ValueError("the text does not match its checksum")
            usage = _usage(doc.get("usage"))
        except (ValueError, UnicodeDecodeError, RecursionError):
            return None
        reply: M = make_assistant(kind, text, usage)
        return reply

    def get(
        self,
        key: str,
        kind: type[M],
        model: str | None = None,
        accept: Callable[[M], bool] | None = None,
    ) -> M | None:
        """:meth:`peek`, counted as a hit or a miss. ``accept``: the checks a fresh reply
        goes through (``summary_check``, ``max_summary_tokens``, ...); an entry it refuses is
        a miss, so the request is sent again (and its reply stored over the entry)."""
        reply = self.peek(key, kind, model)
        if reply is not None and accept is not None and not accept(reply):
            reply = None
        if reply is None:
            self.misses += 1
        else:
            self.hits += 1
        return reply

    def put(self, key: str, model: str, reply: object) -> None:
        """Store ``reply`` (an assistant message with text); anything else is not stored. A
        failure to write is counted in ``errors``, never raised."""
        if not isinstance(reply, Message | AgenticMessage) or reply.role != "assistant":
            return
        text = assistant_text(reply)
        if not text:
            return
        usage = dataclasses.asdict(reply.usage) if reply.usage is not None else None
        doc = {
            "version": CACHE_VERSION,
            "key": key,
            "model": model,
            "text": text,
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "usage": usage,
        }
        data = (json.dumps(doc, ensure_ascii=False) + "\n").encode("utf-8")
        target = self.path(key)
        tmp: str | None = None
        if self.refused is not None:
            return
        try:
            make_private_dirs(target.parent)
            if not self._real_folder(target.parent):
                raise OSError(f"{str(target.parent)!r} is not a private folder of the cache")
            fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=target.parent)  # 0600
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, target)
            tmp = None
        except OSError:
            self.errors += 1
            return
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        self.stores += 1

    @staticmethod
    def _real_folder(folder: Path) -> bool:
        """``folder`` (a fan-out folder) is a folder, not a symlink planted in its place, and
        no other user can write it."""
        try:
            st = os.lstat(folder)
        except OSError:
            return False
        return stat.S_ISDIR(st.st_mode) and unsafe_folder(folder) is None

    # -- maintenance (``compact cache info`` / ``compact cache clear``) -----------------------

    def _walk(self) -> list[tuple[Path, os.stat_result, bool]]:
        """(path, lstat, is_entry) of every entry and temp file the cache wrote; nothing else
        (another file someone put in the folder is neither counted nor removed)."""
        found: list[tuple[Path, os.stat_result, bool]] = []
        try:
            fanouts = [d for d in os.scandir(self.directory) if _FANOUT_RE.fullmatch(d.name)]
        except OSError:
            return found
        for fan in fanouts:
            if not fan.is_dir(follow_symlinks=False):
                continue
            try:
                files = list(os.scandir(fan.path))
            except OSError:
                continue
            for f in files:
                entry = bool(_ENTRY_RE.fullmatch(f.name)) and f.name.startswith(fan.name)
                temp = f.name.startswith(".") and f.name.endswith(".tmp")
                if not (entry or temp) or not f.is_file(follow_symlinks=False):
                    continue
                with contextlib.suppress(OSError):
                    found.append((Path(f.path), f.stat(follow_symlinks=False), entry))
        return found

    def stats(self) -> CacheStats:
        """What the folder holds: entries, their bytes, the oldest and newest, temp files."""
        files = self._walk()
        entries = [st for _, st, entry in files if entry]
        times = [st.st_mtime for st in entries]
        return CacheStats(
            directory=str(self.directory),
            exists=self.directory.is_dir(),
            entries=len(entries),
            bytes=sum(st.st_size for st in entries),
            temp_files=sum(1 for _, _, entry in files if not entry),
            oldest=min(times) if times else None,
            newest=max(times) if times else None,
        )

    def clear(self, older_than: float | None = None) -> CacheStats:
        """Remove every entry and temp file (only those last written more than
        ``older_than`` seconds ago, when given) and the fan-out folders left empty; the stats
        of what was removed. Nothing else in the folder is touched."""
        removed: list[os.stat_result] = []
        temps = 0
        cutoff = None if older_than is None else time.time() - older_than
        for path, st, entry in self._walk():
            if cutoff is not None and st.st_mtime >= cutoff:
                continue
            try:
                path.unlink()
            except FileNotFoundError:
                continue  # another clear, or a run's rename, got there first
            if entry:
                removed.append(st)
            else:
                temps += 1
        with contextlib.suppress(OSError):
            for fan in os.scandir(self.directory):
                if _FANOUT_RE.fullmatch(fan.name) and fan.is_dir(follow_symlinks=False):
                    try:
                        os.rmdir(fan.path)
                    except OSError as err:  # not empty: someone else's file, or a new entry
                        if err.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                            raise
        times = [st.st_mtime for st in removed]
        return CacheStats(
            directory=str(self.directory),
            exists=self.directory.is_dir(),
            entries=len(removed),
            bytes=sum(st.st_size for st in removed),
            temp_files=temps,
            oldest=min(times) if times else None,
            newest=max(times) if times else None,
        )
