"""The second half of ``reduce``'s streaming pass (:mod:`.stream`): a scanned transcript reduced.

:func:`reduce_scanned` takes what :func:`~.stream.scan` kept of each line and makes the general
path's decisions (truncate, then clear, with the same placeholders and offloaded files), then
renders the transcript: only the records whose result it replaced are rebuilt, every other line
is written back as its original bytes. Apart from the scan, which decides whether a file can
take this path at all and reads it once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import orjson

from compactor._json import JsonObject
from compactor._util import maybe_await
from compactor.counting.tokens import estimate_message, estimate_text
from compactor.events import BeforeReduce
from compactor.schema import AgenticMessage, M, Message

from .core import (
    ReduceOutcome,
    Reduction,
    ReductionConfig,
    expected_where,
    likely_where,
    too_little,
)
from .offload import FileOffload, OffloadKind
from .results import (
    ResultRef,
    carries_user_words,
    cutoff_of,
    original_content,
    original_payload,
    replace_result,
    result_payload,
    result_state,
    result_text,
    rounds_of,
)
from .results import text_state as _text_state
from .stream import LineFormat, Scan, StreamResult
from .writer import ProcessOffload

__all__ = ["reduce_scanned"]


@dataclass(slots=True)
class _Pass:
    """The streaming pass's own state: the reduction's config and where results went."""

    reduction: Reduction[Message] | Reduction[AgenticMessage]
    scanned: Scan
    outcome: ReduceOutcome[Message] | ReduceOutcome[AgenticMessage]
    locate: Callable[[int, str], tuple[str, int] | None] | None
    raw: bytes = b""
    """The transcript's bytes (a result's original JSON is written in its line's style)."""
    trunc_paths: dict[int, str] = field(default_factory=dict)

    def ref(self, r: StreamResult) -> ResultRef:
        return ResultRef(r.index, None, r.call_id, r.name)

    def text(self, r: StreamResult) -> tuple[str, bool]:
        if r.message is None:
            if r.text is None:  # not kept by the scan: its line read again
                start, end = self.scanned.spans[r.index]
                text = orjson.loads(memoryview(self.raw)[start:end])["content"]
                assert type(text) is str
                return text, False
            return r.text, False
        return result_text(r.message, self.ref(r))

    def has_user_words(self, r: StreamResult) -> bool:
        """:func:`carries_user_words` of ``r``'s text (for a result the scan did not keep, the
        scan's answer: its line is not read again)."""
        if r.message is None:  # a plain result: its text, else the scan's answer
            return r.user if r.text is None else carries_user_words(r.text)
        return carries_user_words(self.text(r)[0])

    def chars(self, r: StreamResult) -> int | None:
        """The length of a plain result's text that the scan did not keep (None: read it)."""
        return r.chars if r.message is None and r.text is None else None

    def state(self, r: StreamResult) -> str | None:
        if r.kind is not None:
            return r.kind
        if r.message is None:
            if r.text is None:
                return r.was
            return _text_state(r.text)
        return result_state(r.message, self.ref(r))

    def expected(self, r: StreamResult, kind: OffloadKind) -> str | None:
        """The longest address :meth:`store` may give ``r`` (nothing is written)."""
        backend = self.reduction.config.backend
        if isinstance(backend, FileOffload):  # the default backend: its own answer, directly
            return backend.longest_path(kind, r.call_id)
        return expected_where(backend, self.locate, (r.index, r.call_id, kind))

    def likely(self, r: StreamResult) -> str | None:
        """The address :meth:`store` most likely gives ``r`` when cleared (nothing is written)."""
        backend = self.reduction.config.backend
        if isinstance(backend, FileOffload):  # likely_where() of its longest_path(), directly
            return backend.likely_path("clear", r.call_id)
        return likely_where(backend, self.expected(r, "clear"))

    def frees(self, r: StreamResult, text: str) -> int:
        """The tokens replacing ``r``'s result by ``text`` would free, as :meth:`replace`
        counts them (nothing is replaced)."""
        if r.message is None:
            return r.tokens - estimate_text(text)
        return r.tokens - estimate_message(replace_result(r.message, self.ref(r), text, "clear"))

    def store(self, kind: str, r: StreamResult) -> str | None:
        cfg = self.reduction.config
        if cfg.backend is not None:
            if kind == "clear" and isinstance(cfg.backend, ProcessOffload):
                ahead = cfg.backend.use_ahead(r.index)  # named during the scan
                if ahead is not None:
                    self.outcome.offloaded.append(ahead)
                    return ahead
            payload = r.text
            if payload is None and r.message is None:  # a plain result not kept: read again
                payload = self.text(r)[0]
            if payload is None:  # parts: the record's own content, as written (issue 30)
                start, end = self.scanned.spans[r.index]
                line = self.raw[start:end]
                payload = original_payload(original_content(r.rec, r.call_id), line)
            if payload is None:
                assert r.message is not None
                payload = result_payload(r.message, self.ref(r))
            where = cfg.backend.save("trunc" if kind == "trunc" else "clear", r.call_id, payload)
            self.outcome.offloaded.append(where)
            return where
        found = self.locate(r.index, r.call_id) if self.locate is not None else None
        return None if found is None else f"{found[0]}, line {found[1]}"

    def replace(self, r: StreamResult, text: str, kind: str) -> int:
        """Replace ``r``'s result by ``text``; the tokens that freed."""
        before = r.tokens
        if r.message is None:
            r.text = text
            r.tokens = estimate_text(text)
        else:
            r.message = replace_result(r.message, self.ref(r), text, kind)
            r.tokens = estimate_message(r.message)
        r.kind = kind
        self.outcome.changed = True
        return before - r.tokens


async def reduce_scanned(
    scanned: Scan,
    raw: bytes,
    reduction: Reduction[M],
    fmt: LineFormat,
    locate: Callable[[int, str], tuple[str, int] | None] | None = None,
) -> tuple[ReduceOutcome[M], bytes | None]:
    """Reduce a scanned transcript as :meth:`Reduction.reduce` reduces its messages; the
    outcome (its ``messages`` empty) and the bytes to write (None: nothing changed)."""
    cfg: ReductionConfig = reduction.config
    results = scanned.results
    emit = cfg.on_event
    if emit is not None:
        await maybe_await(emit(BeforeReduce(len(scanned.spans), len(results), scanned.tokens)))
    outcome: ReduceOutcome[M] = ReduceOutcome([], tokens_before=scanned.tokens)
    run = _Pass(reduction, scanned, outcome, locate if locate is not None else cfg.locate, raw)
    tokens = scanned.tokens - _truncate(run)
    rounds = rounds_of(scanned.starts, [r.index for r in results], scanned.others)
    cutoff = cutoff_of(rounds, cfg.clear_retention_suffix_limit, len(scanned.spans))
    outcome.retained_from = cutoff
    if not cfg.force and tokens <= cfg.max_tokens_for_clear:
        outcome.clear_skipped = (
            f"{tokens:,} tokens, not over max_tokens_for_clear ({cfg.max_tokens_for_clear:,})"
        )
    else:
        tokens -= _clear(run, [r for r in results if r.index < cutoff])
    named = outcome.offloaded or (isinstance(cfg.backend, ProcessOffload) and cfg.backend.ahead)
    sync = getattr(cfg.backend, "sync", None) if named else None
    start_sync = getattr(cfg.backend, "start_sync", None) if callable(sync) else None
    if callable(start_sync):
        start_sync()  # the disk's writeback runs while the transcript is rendered
    elif callable(sync):
        sync()  # the files durable before anything names them
    outcome.tokens_after = tokens if outcome.changed else scanned.tokens
    if emit is not None:
        await maybe_await(emit(outcome.after_event()))  # (tokens_before_usage: never set here)
    data = _render(scanned, raw, fmt) if outcome.changed else None
    if callable(start_sync) and callable(sync):
        sync()  # the files durable before anything names them
    return outcome, data


def _truncate(run: _Pass) -> int:
    cfg = run.reduction.config
    limit = cfg.max_length_for_trunc
    freed = 0
    if limit is None:
        return freed
    for r in run.scanned.results:
        chars = run.chars(r)
        if (chars is not None and chars <= limit) or r.job:
            continue  # short, or a running job's start (kept whole)
        text, media = run.text(r)
        if media or len(text) <= limit or carries_user_words(text):
            continue
        if r.name in cfg.trunc_exclude_tools or run.state(r) is not None:
            continue
        if not run.reduction.shrinks("trunc", text, run.expected(r, "trunc")):
            run.outcome.kept.append(r.call_id)
            continue
        where = run.store("trunc", r)
        if where is None:
            continue
        freed += run.replace(r, run.reduction.truncated_text(text, where), "trunc")
        run.trunc_paths[r.index] = where
        run.outcome.truncated.append(r.call_id)
    return freed


def _clear(run: _Pass, candidates: list[StreamResult]) -> int:
    cfg, outcome = run.reduction.config, run.outcome
    backend, trunc_paths = cfg.backend, run.trunc_paths
    cleared_text = run.reduction.cleared_text
    # each with the address its placeholder would name, and that placeholder when made already
    chosen: list[tuple[StreamResult, str | None, str | None]] = []
    named = backend.ahead if isinstance(backend, ProcessOffload) else {}
    longest = _longest_placeholder(run)
    exclude = cfg.clear_exclude_tools
    for r in candidates:
        if r.index in named:  # the scan found it to clear (these same tests) and named its file
            chosen.append((r, trunc_paths.get(r.index) or named[r.index], None))
            continue
        if r.name in exclude or run.state(r) == "clear":
            continue
        if run.has_user_words(r) or r.job:  # the user's words, a running job's start: kept
            continue
        if r.ends and r.index not in trunc_paths:  # a job's end report: kept, counted
            outcome.job_ends.append(r.call_id)
            continue
        if r.message is None and r.text is not None and len(r.text) > longest:
            # a plain result longer than any placeholder
            chosen.append((r, trunc_paths.get(r.index) or run.likely(r), None))
            continue
        trunc = trunc_paths.get(r.index)
        where = trunc or run.expected(r, "clear")
        # run.likely(r) without asking for the expected address again
        likely = trunc or likely_where(backend, where)
        chars = run.chars(r)
        if chars is not None:  # a plain result not kept: what shrinks() compares
            text = cleared_text(where)
            if len(text) >= chars:
                outcome.kept.append(r.call_id)
                continue
            chosen.append((r, likely, text if likely == where else None))
            continue
        text, media = run.text(r)
        if not media and not run.reduction.shrinks("clear", text, where):
            outcome.kept.append(r.call_id)
            continue
        chosen.append((r, likely, None))
    if not chosen:
        outcome.clear_skipped = (
            "every tool result outside the retained rounds is shorter than its placeholder"
            if outcome.kept
            else "no tool result outside the retained rounds to clear"
        )
        return 0
    texts = [cleared_text(where) if text is None else text for _, where, text in chosen]
    # what each would free (a plain result's new estimate kept for its replacement below)
    estimates = [
        estimate_text(text) if r.message is None else -1
        for (r, _, _), text in zip(chosen, texts, strict=True)
    ]
    freed = sum(
        r.tokens - e if e >= 0 else run.frees(r, text)
        for (r, _, _), text, e in zip(chosen, texts, estimates, strict=True)
    )
    if freed < cfg.clear_at_least_tokens:
        outcome.clear_skipped = too_little(cfg, freed, len(chosen))
        return 0
    total = 0
    cleared = outcome.cleared
    for (r, likely, _), text, e in zip(chosen, texts, estimates, strict=True):
        where = trunc_paths.get(r.index)
        if where is None:
            where = run.store("clear", r)
        # the placeholder made for the estimate, unless the file got another name (a hash)
        if where != likely:
            total += run.replace(r, cleared_text(where), "clear")
        elif e >= 0:  # a plain result: run.replace() without estimating it again
            total += r.tokens - e
            r.text, r.tokens, r.kind = text, e, "clear"
            outcome.changed = True
        else:
            total += run.replace(r, text, "clear")
        cleared.append(r.call_id)
    return total


_NO_LENGTH = 1 << 62


def _longest_placeholder(run: _Pass) -> int:
    """No cleared placeholder of the default backend is longer than this (another backend: a
    length no text has). Its file names have at most 113 characters (a hash added to 100), all
    safe in a shell: the longest placeholder names a 113-character call id
    (:meth:`FileOffload.longest_path`); a longer result shrinks whatever its name (the test
    :meth:`Reduction.shrinks` makes)."""
    backend = run.reduction.config.backend
    if not isinstance(backend, FileOffload):
        return _NO_LENGTH
    return len(run.reduction.cleared_text(backend.longest_path("clear", "x" * 113)))


def _render(scanned: Scan, raw: bytes, fmt: LineFormat) -> bytes:
    """Every line as it was, but the records whose result was replaced (rendered as the
    format's writer renders a changed message); one final newline. The unchanged stretches
    between them are copied once, straight from ``raw`` (its lines end in ``\n`` only)."""
    dumps, spans, view = orjson.dumps, scanned.spans, memoryview(raw)
    # The new lines go into one buffer as they are made: each ``dumps`` result is freed at
    # once and its memory reused (kept, 8,000 of them took 10,000 fresh pages: page faults
    # cost more than the rendering itself).
    lines = bytearray()
    marks: list[tuple[int, int, int]] = []  # (record index, start, end in lines)
    for r in scanned.results:
        if r.kind is None:
            continue
        if r.message is not None:
            line = dumps(fmt.record_of(r.message))
        else:
            rec: JsonObject = {"role": "tool", "content": r.text}
            if "tool_call_id" in r.rec:
                rec["tool_call_id"] = r.rec["tool_call_id"]
            if r.rec.get("name") is not None:
                rec["name"] = r.rec["name"]
            line = dumps(rec)
        at = len(lines)
        lines += line
        marks.append((r.index, at, len(lines)))
    made = memoryview(lines)
    pieces: list[memoryview] = []
    done = 0  # where the next unchanged stretch starts
    for index, at, end_at in marks:
        start, end = spans[index]
        pieces.append(view[done:start])
        pieces.append(made[at:end_at])
        done = end
    pieces.append(view[done:])
    if not raw.endswith(b"\n"):
        pieces.append(memoryview(b"\n"))
    return b"".join(pieces)
