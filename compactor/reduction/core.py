"""Eino's reduction (SPEC §10): truncate oversized tool results, then clear old tool rounds.

No model is called. Phase 1 replaces each tool result longer than ``max_length_for_trunc``
characters by a ``<persisted-output>`` preview naming the file that holds it. Phase 2, when the
history counts more than ``max_tokens_for_clear`` tokens (or ``force``), replaces every result
before the last ``clear_retention_suffix_limit`` tool rounds, unless that frees fewer than
``clear_at_least_tokens``. Tool calls, user and assistant texts, reasoning and the order of
messages never change; a reduced message is a copy, so the caller's messages stay as they were.
Every message of a reduced history drops its provider usage: it measured the history before the
reduction (as a kept tail after a summary does).
"""

from __future__ import annotations

import copy
import dataclasses
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic

from compactor._json import JsonObject
from compactor._util import maybe_await
from compactor.counting.tokens import (
    TokenCounter,
    TokenCounterInput,
    baseline_index,
    default_token_counter,
    estimate_message,
)
from compactor.counting.trigger import checked_count
from compactor.errors import ConfigError
from compactor.events import AfterReduce, BeforeReduce, Event, EventSink
from compactor.schema import AgentState, M, ToolInfo

from .jobs import reports_end, running_starts
from .offload import OffloadBackend, OffloadKind
from .results import (
    CLEARED_TEXT,
    PERSISTED_CLOSE,
    PERSISTED_OPEN,
    ResultRef,
    carries_user_words,
    find_results,
    replace_result,
    result_payload,
    result_state,
    result_text,
    retention_cutoff,
)

__all__ = [
    "DEFAULT_MAX_LENGTH_FOR_TRUNC",
    "DEFAULT_MAX_TOKENS_FOR_CLEAR",
    "ReduceOutcome",
    "Reduction",
    "ReductionConfig",
    "expected_where",
    "likely_where",
    "new",
    "read_hint",
    "too_little",
    "validate_reduction",
]

DEFAULT_MAX_LENGTH_FOR_TRUNC = 50_000
DEFAULT_MAX_TOKENS_FOR_CLEAR = 160_000

Locate = Callable[[int, str], "tuple[str, int] | None"]
"""``(message index, call id) → (transcript path, line)`` holding the original result."""
Original = Callable[[int, str], "str | None"]
"""``(message index, call id) → the result as the input record holds it``, ready for an offload
file (:func:`.results.original_payload`; None: unknown)."""


@dataclass(frozen=True, kw_only=True)
class ReductionConfig:
    """Eino's reduction options (SPEC §10) with its defaults, plus ours where noted."""

    max_length_for_trunc: int | None = DEFAULT_MAX_LENGTH_FOR_TRUNC
    """A result longer than this many characters is truncated to a preview; None: never."""
    trunc_exclude_tools: tuple[str, ...] = ()
    """Tools whose results are never truncated."""
    trunc_preview_chars: int = 2_000
    """Ours: characters of each preview (first and last) a truncated result keeps."""
    max_tokens_for_clear: int = DEFAULT_MAX_TOKENS_FOR_CLEAR
    """Old rounds are cleared when the history counts more tokens than this."""
    clear_retention_suffix_limit: int = 1
    """The newest tool rounds that are never cleared."""
    clear_at_least_tokens: int = 0
    """Clearing that would free fewer tokens is not done (a prompt cache is worth more)."""
    clear_exclude_tools: tuple[str, ...] = ()
    """Tools whose results are never cleared."""
    read_file_tool_name: str = "read_file"
    """The tool the placeholder tells the agent to read the file with; ``shell``: a shell
    command (``cat FILE``), as Codex reads files."""
    backend: OffloadBackend | None = None
    """Where results go; None: Eino's ``[Old tool result content cleared]`` (plus the
    transcript line when ``locate`` knows it; a result is then truncated only when it does)."""
    force: bool = False
    """Ours (``--force``): clear every round outside the retained suffix, whatever the count."""
    locate: Locate | None = None
    """Ours: where the original of a result is in a transcript file (no-offload placeholders)."""
    original: Original | None = None
    """Ours: a result's content as the input record holds it; an offload file holds that
    (text as it is; parts, images, ``tool_reference`` blocks as their original JSON) rather
    than the result as read (issue 30). None, or None for a result: the result as read."""
    token_counter: TokenCounter | None = None
    """Counts the history for the clearing threshold (default: the usage-aware estimate)."""
    on_event: EventSink | None = None
    """Receives :class:`~compactor.events.BeforeReduce` and :class:`AfterReduce`."""


@dataclass(slots=True)
class ReduceOutcome(Generic[M]):
    """The reduced history and what was done (for reports)."""

    messages: list[M]
    changed: bool = False
    truncated: list[str] = field(default_factory=list)
    """Call ids of the results truncated."""
    cleared: list[str] = field(default_factory=list)
    """Call ids of the results cleared."""
    kept: list[str] = field(default_factory=list)
    """Call ids of results left as they were: their placeholder would not be shorter."""
    job_ends: list[str] = field(default_factory=list)
    """Call ids of short results kept whole (not cleared) because they report that a
    background job ended (:func:`.jobs.reports_end`; blind check 68 N6)."""
    offloaded: list[str] = field(default_factory=list)
    """Files (or addresses) the backend named, one per reduced result."""
    tokens_before: int = 0
    """The history before, counted as ``tokens_after`` is (the text, when the counter read a
    provider's usage: see ``tokens_before_usage``), so ``tokens_freed`` compares like with like."""
    tokens_after: int = 0
    tokens_before_usage: int | None = None
    """The count before as the trigger read it, from the provider's usage of the newest turn,
    when the history had one (else None), whether the reduction changed it or not (then
    ``tokens_before`` and ``tokens_after`` are the text's count). That usage can be far below
    the text (Claude Code 2.1 clears old results server-side: blind check 19), or far above it
    (the system prompt and tools: blind check 71), so it is shown as its own figure, never set
    against the estimate after."""
    clear_skipped: str | None = None
    """Why phase 2 cleared nothing (under the threshold, nothing to clear, too little freed)."""
    retained_from: int = 0
    """Index of the first message of the retained suffix (kept whole by hybrid)."""

    @property
    def tokens_freed(self) -> int:
        return self.tokens_before - self.tokens_after

    @property
    def truncated_then_cleared(self) -> int:
        """Results truncated first, then cleared: counted in both lists, one placeholder each
        (blind check 54 N8: "1 truncated, 6 cleared" read as seven placeholders)."""
        return len(set(self.truncated).intersection(self.cleared)) if self.truncated else 0

    def after_event(self) -> AfterReduce:
        """The :class:`~compactor.events.AfterReduce` event that reports this outcome (the
        general path and the streaming pass emit the same one)."""
        return AfterReduce(
            truncated=len(self.truncated),
            cleared=len(self.cleared),
            kept=len(self.kept),
            tokens_before=self.tokens_before,
            tokens_after=self.tokens_after,
            clear_skipped=self.clear_skipped,
            tokens_before_usage=self.tokens_before_usage,
            truncated_then_cleared=self.truncated_then_cleared,
            job_ends_kept=len(self.job_ends),
        )

    def to_dict(self) -> JsonObject:
        return {
            "truncated": len(self.truncated),
            "cleared": len(self.cleared),
            "kept": len(self.kept),
            "offloaded": len(self.offloaded),
            "truncated_then_cleared": self.truncated_then_cleared,
            "job_ends_kept": len(self.job_ends),
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "tokens_freed": self.tokens_freed,
            "tokens_before_usage": self.tokens_before_usage,
            "clear_skipped": self.clear_skipped,
        }


def validate_reduction(config: ReductionConfig) -> None:
    """``ConfigError`` for a value Eino would not accept (negative limits, no read tool)."""
    checks: list[tuple[str, object, int]] = [
        ("max_tokens_for_clear", config.max_tokens_for_clear, 1),
        ("clear_retention_suffix_limit", config.clear_retention_suffix_limit, 0),
        ("clear_at_least_tokens", config.clear_at_least_tokens, 0),
        ("trunc_preview_chars", config.trunc_preview_chars, 0),
    ]
    if config.max_length_for_trunc is not None:
        checks.append(("max_length_for_trunc", config.max_length_for_trunc, 1))
    for key, value, least in checks:
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ConfigError(
                f"reduction.{key} must be an integer >= {least}, got {value!r}", key=key
            )
    if not config.read_file_tool_name.strip():
        raise ConfigError("reduction.read_file_tool_name must not be empty")


def read_hint(tool: str, path: str) -> str:
    """How the placeholder says to read ``path``: ``Use Read to view`` or, for a shell tool,
    ``Use shell (`cat '/x/y'`) to view``."""
    if tool == "shell":
        return f"Use shell (`cat {shlex.quote(path)}`) to view"
    return f"Use {tool} to view"


def _size(chars: int) -> str:
    return f"{chars:,} characters"


class Reduction(Generic[M]):
    """Truncates and clears tool results (SPEC §10). Build it with :func:`new`."""

    def __init__(self, config: ReductionConfig) -> None:
        validate_reduction(config)
        self.config = config

    async def _emit(self, event: Event) -> None:
        if self.config.on_event is not None:
            await maybe_await(self.config.on_event(event))

    async def count(self, messages: Sequence[M], tools: Sequence[ToolInfo] = ()) -> int:
        counter = self.config.token_counter or default_token_counter
        return checked_count(
            await maybe_await(counter(TokenCounterInput(list(messages), list(tools))))
        )

    async def before_model(self, state: AgentState[M]) -> AgentState[M]:
        """The reduced state (``state`` itself when nothing was reduced), as Eino's
        ``BeforeModelRewriteState``; stack it before :meth:`Middleware.before_model`."""
        outcome = await self.reduce(state)
        return (
            AgentState(messages=outcome.messages, tools=state.tools) if outcome.changed else state
        )

    async def reduce(self, state: AgentState[M], *, tokens: int | None = None) -> ReduceOutcome[M]:
        """Reduce ``state``'s history; the caller's messages are never changed. ``tokens``:
        the history's count by this config's counter, when the caller has it already."""
        cfg = self.config
        messages: list[M] = list(state.messages)
        results = find_results(messages)
        before = tokens if tokens is not None else await self.count(messages, state.tools)
        await self._emit(BeforeReduce(len(messages), len(results), before))
        outcome: ReduceOutcome[M] = ReduceOutcome(messages, tokens_before=before)
        running = running_starts(messages, results)  # a running job's start: kept whole
        if running:
            results = [r for i, r in enumerate(results) if i not in running]
        trunc_paths = self._truncate(messages, results, outcome)
        tokens = await self.count(messages, state.tools) if outcome.truncated else before
        cutoff = retention_cutoff(messages, cfg.clear_retention_suffix_limit)
        outcome.retained_from = cutoff
        if not cfg.force and tokens <= cfg.max_tokens_for_clear:
            outcome.clear_skipped = (
                f"{tokens:,} tokens, not over max_tokens_for_clear ({cfg.max_tokens_for_clear:,})"
            )
        else:
            candidates = [r for r in results if r.index < cutoff]
            await self._clear(messages, candidates, outcome, trunc_paths, (tokens, state.tools))
        sync = getattr(cfg.backend, "sync", None)
        if outcome.offloaded and callable(sync):
            sync()  # the files durable before anything names them
        if outcome.changed:
            freed = self._freed_by_text(state.messages, messages)
            for i, msg in enumerate(messages):
                if msg.usage is not None:
                    messages[i] = dataclasses.replace(copy.deepcopy(msg), usage=None)
            outcome.tokens_after = await self.count(messages, state.tools)
            if freed is not None:  # before: the provider's usage; after: the text
                outcome.tokens_before_usage = before
                outcome.tokens_before = outcome.tokens_after + freed
        else:
            outcome.messages = list(state.messages)
            outcome.tokens_after = before
            text = await self._text_count(state)
            if text is not None:  # counted as a reduction that changed it counts (check 71 N5)
                outcome.tokens_before_usage = before
                outcome.tokens_before = outcome.tokens_after = text
        await self._emit(outcome.after_event())
        return outcome

    async def _text_count(self, state: AgentState[M]) -> int | None:
        """The history's count without its provider usage, when the default counter read one
        (None otherwise): what a reduction that changed it reports, so a history left as it is
        reports the same kind of figure (blind check 71 N5: hybrid said 41,580, the usage, where
        reduce on the same file said 12,146, the text)."""
        if self.config.token_counter not in (None, default_token_counter):
            return None
        if baseline_index(state.messages) < 0:
            return None
        messages = state.messages
        bare = [m if m.usage is None else dataclasses.replace(m, usage=None) for m in messages]
        return await self.count(bare, state.tools)

    def _freed_by_text(self, original: Sequence[M], reduced: Sequence[M]) -> int | None:
        """What the reduction freed by the estimate of the text, when the default counter took
        its count before from a provider's usage (None otherwise: before and after were counted
        the same way). The estimate is a sum over messages, so only the replaced ones are
        estimated again: the count of the text before is the count after plus this."""
        if self.config.token_counter not in (None, default_token_counter):
            return None
        if baseline_index(original) < 0:
            return None
        return sum(
            estimate_message(old) - estimate_message(new)
            for old, new in zip(original, reduced, strict=True)
            if new is not old
        )

    # -- phase 1 ---------------------------------------------------------------------------------
    def _truncate(
        self, messages: list[M], results: list[ResultRef], outcome: ReduceOutcome[M]
    ) -> dict[tuple[int, str], str]:
        cfg = self.config
        limit = cfg.max_length_for_trunc
        paths: dict[tuple[int, str], str] = {}
        if limit is None:
            return paths
        for ref in results:
            msg = messages[ref.index]
            if ref.name in cfg.trunc_exclude_tools or result_state(msg, ref) is not None:
                continue
            text, media = result_text(msg, ref)
            if media or len(text) <= limit or carries_user_words(text):
                continue  # images, files: whole, or cleared with their round; the user's words
            if not self.shrinks("trunc", text, self._expected(ref.index, ref.call_id, "trunc")):
                outcome.kept.append(ref.call_id)
                continue
            where = self._store("trunc", msg, ref, outcome)
            if where is None:
                continue  # nowhere to keep the full text: not truncated
            placeholder = self.truncated_text(text, where)
            messages[ref.index] = replace_result(msg, ref, placeholder, "trunc")
            paths[(ref.index, ref.call_id)] = where
            outcome.truncated.append(ref.call_id)
            outcome.changed = True
        return paths

    def truncated_text(self, text: str, where: str) -> str:
        """Eino's ``<persisted-output>`` preview of a result ``text`` saved at ``where``."""
        n = self.config.trunc_preview_chars
        return (
            f"{PERSISTED_OPEN}\nOutput too large ({_size(len(text))}). "
            f"Full output saved to: {where}\n"
            f"Preview (first {_size(n)}):\n{text[:n]}\n\n"
            f"Preview (last {_size(n)}):\n{text[-n:] if n else ''}\n\n"
            f"{read_hint(self.config.read_file_tool_name, where)}\n{PERSISTED_CLOSE}"
        )

    def _store(
        self, kind: OffloadKind, msg: M, ref: ResultRef, outcome: ReduceOutcome[M]
    ) -> str | None:
        """Offload the result (its path), else its transcript line (``path, line N``)."""
        cfg = self.config
        if cfg.backend is not None:
            payload = None
            if cfg.original is not None:
                payload = cfg.original(ref.index, ref.call_id)
            if payload is None:
                payload = result_payload(msg, ref)
            where = cfg.backend.save(kind, ref.call_id, payload)
            outcome.offloaded.append(where)
            return where
        found = cfg.locate(ref.index, ref.call_id) if cfg.locate is not None else None
        return None if found is None else f"{found[0]}, line {found[1]}"

    # -- phase 2 ---------------------------------------------------------------------------------
    async def _clear(
        self,
        messages: list[M],
        candidates: list[ResultRef],
        outcome: ReduceOutcome[M],
        trunc_paths: dict[tuple[int, str], str],
        counted: tuple[int, Sequence[ToolInfo]],
    ) -> None:
        """Phase 2; ``counted``: the history's count now (after phase 1) and the tools."""
        cfg = self.config
        chosen: list[tuple[ResultRef, str | None]] = []  # each with the address it would get
        for ref in candidates:
            msg = messages[ref.index]
            state = result_state(msg, ref)
            if ref.name in cfg.clear_exclude_tools or state == "clear":
                continue
            text, media = result_text(msg, ref)
            if carries_user_words(text):  # the user's words are never cleared (issue 30)
                continue
            where = trunc_paths.get((ref.index, ref.call_id))
            if where is None and not media and reports_end(text):  # a job's end: kept whole
                outcome.job_ends.append(ref.call_id)
                continue
            if not media and not self.shrinks(
                "clear", text, where or self._expected(ref.index, ref.call_id, "clear")
            ):
                outcome.kept.append(ref.call_id)
                continue
            chosen.append((ref, where or self._likely(ref.index, ref.call_id)))
        if not chosen:
            outcome.clear_skipped = (
                "every tool result outside the retained rounds is shorter than its placeholder"
                if outcome.kept
                else "no tool result outside the retained rounds to clear"
            )
            return
        freed = await self.would_free(messages, chosen, counted)
        if freed < cfg.clear_at_least_tokens:
            outcome.clear_skipped = too_little(cfg, freed, len(chosen))
            return
        for ref, _ in chosen:
            msg = messages[ref.index]
            where = trunc_paths.get((ref.index, ref.call_id))
            if where is None:
                where = self._store("clear", msg, ref, outcome)
            text = self.cleared_text(where)
            messages[ref.index] = replace_result(msg, ref, text, "clear")
            outcome.cleared.append(ref.call_id)
            outcome.changed = True

    async def would_free(
        self,
        messages: Sequence[M],
        chosen: Sequence[tuple[ResultRef, str | None]],
        counted: tuple[int, Sequence[ToolInfo]],
    ) -> int:
        """What clearing the ``chosen`` results (each with the address its placeholder would
        name) frees, counted as :meth:`reduce` then counts it: by the default counter, each
        message holding one estimated (SPEC §3) before and with its placeholders in (not the
        result's text alone: its parts are not joined by newlines, every image counts, the
        placeholder names the real path; issue 30, blind check 21); by another counter
        (tiktoken), the history with them in and no usage, counted against ``counted``."""
        replaced: dict[int, M] = {}
        for ref, where in chosen:
            msg = replaced.get(ref.index, messages[ref.index])
            replaced[ref.index] = replace_result(msg, ref, self.cleared_text(where), "clear")
        if self.config.token_counter in (None, default_token_counter):
            return sum(
                estimate_message(messages[i]) - estimate_message(m) for i, m in replaced.items()
            )
        tokens, tools = counted
        after = [replaced.get(i, msg) for i, msg in enumerate(messages)]
        after = [m if m.usage is None else dataclasses.replace(m, usage=None) for m in after]
        return tokens - await self.count(after, tools)

    def _likely(self, index: int, call_id: str) -> str | None:
        """The address :meth:`_store` will most likely give this result (nothing is written)."""
        return likely_where(self.config.backend, self._expected(index, call_id, "clear"))

    def _expected(self, index: int, call_id: str, kind: OffloadKind) -> str | None:
        """The longest address :meth:`_store` may give this result (nothing is written)."""
        return expected_where(self.config.backend, self.config.locate, (index, call_id, kind))

    def shrinks(self, kind: OffloadKind, text: str, where: str | None) -> bool:
        """Whether the placeholder naming ``where`` is shorter than the result ``text``:
        only then does replacing it free anything (Eino replaces every result; we keep
        "(Bash completed with no output)" as it is rather than make it longer)."""
        if kind == "trunc":
            return where is not None and len(self.truncated_text(text, where)) < len(text)
        return len(self.cleared_text(where)) < len(text)

    def cleared_text(self, where: str | None) -> str:
        """The placeholder of a cleared result kept at ``where`` (None: nowhere known)."""
        cfg = self.config
        if cfg.backend is not None and where is not None:
            hint = read_hint(cfg.read_file_tool_name, where)
            return f"{PERSISTED_OPEN}Tool result saved to: {where}\n{hint}{PERSISTED_CLOSE}"
        if where is not None:
            return f"{CLEARED_TEXT} (the full result is in the transcript {where})"
        return CLEARED_TEXT


_HASH_TAIL = "-" + "0" * 12
"""What ``longest_path`` adds for a call id whose file name is taken (a short content hash)."""
HASH_TAIL_TOKENS = -(-len(_HASH_TAIL) // 4)
"""How far below what clearing frees its estimate may be, per result whose call id was used
before (its file gets the hash the estimate leaves out)."""

_GUESSED_PATH = "/" + "x" * 120
"""The address assumed for a backend that cannot say its paths in advance."""


def expected_where(
    backend: OffloadBackend | None,
    locate: Locate | None,
    where: tuple[int, str, OffloadKind],
) -> str | None:
    """The longest address a result would be stored at, computed without storing it: the
    backend's ``longest_path(kind, call_id)`` (a guess for a backend without one), else the
    transcript line ``locate`` names (None: nowhere known). ``where``: (message index,
    call id, kind)."""
    index, call_id, kind = where
    if backend is not None:
        longest = getattr(backend, "longest_path", None)
        return str(longest(kind, call_id)) if callable(longest) else _GUESSED_PATH
    found = locate(index, call_id) if locate is not None else None
    return None if found is None else f"{found[0]}, line {found[1]}"


def too_little(config: ReductionConfig, freed: int, results: int) -> str:
    """Why clearing is not done: it would free fewer than ``clear_at_least_tokens``; with what
    it would clear (the retained rounds are the config's: another config clears more)."""
    rounds = config.clear_retention_suffix_limit
    scope = (
        f"{results:,} result{'s' if results != 1 else ''} outside the newest {rounds:,} "
        f"tool round{'s' if rounds != 1 else ''}"
    )
    return (
        f"clearing would free about {freed:,} tokens ({scope}), fewer than "
        f"clear_at_least_tokens ({config.clear_at_least_tokens:,})"
    )


def likely_where(backend: OffloadBackend | None, longest: str | None) -> str | None:
    """The address a backend most likely gives a result whose longest one is ``longest``: that
    without the hash only a reused call id gets (for such a result, an estimate made with it
    is short by at most :data:`HASH_TAIL_TOKENS`)."""
    if longest is not None and backend is not None and longest.endswith(_HASH_TAIL):
        return longest[: -len(_HASH_TAIL)]
    return longest


def new(config: ReductionConfig | None = None) -> Reduction[Any]:
    """Validate ``config`` (None: Eino's defaults, no backend) and build the reduction; a bad
    value raises :class:`~compactor.errors.ConfigError`."""
    return Reduction(config or ReductionConfig())
