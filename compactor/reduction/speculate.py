"""Which results a ``reduce`` scan makes certain to be cleared, named while it still scans.

:class:`Speculator` is called by :func:`~.stream.scan` at each finished round: outside the
retained rounds, once clearing is certain (``--force``, or the count of what the scan read so
far, without what truncation may free, already over the threshold), it names each result's file
as the clearing will and hands it to the :class:`~.writer.ProcessOffload` writer process, which
creates the files while the parent still scans. Apart from the writer, which only creates what
it is told.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .results import carries_user_words, text_state

if TYPE_CHECKING:
    from compactor.schema import AgenticMessage, Message

    from .core import Reduction
    from .stream import StreamResult
    from .writer import ProcessOffload

__all__ = ["Speculator"]

_MAYBE = ("", "[", "<")
_BATCH = 256
"""Files named before they are handed to the child (one pipe write, one wake-up)."""


class Speculator:
    """Names the files of the results a scan makes certain to be cleared, round by round
    (:class:`ProcessOffload`): called by :func:`~.stream.scan` at each finished round."""

    def __init__(
        self, reduction: Reduction[Message] | Reduction[AgenticMessage], backend: ProcessOffload
    ) -> None:
        cfg = reduction.config
        self.backend = backend
        self.keep = cfg.clear_retention_suffix_limit
        self.force = cfg.force
        self.threshold = cfg.max_tokens_for_clear
        self.at_least = cfg.clear_at_least_tokens
        self.limit = cfg.max_length_for_trunc
        self.exclude = frozenset(cfg.clear_exclude_tools)
        self.trunc_exclude = frozenset(cfg.trunc_exclude_tools)
        self.reduction = reduction
        from compactor.counting.tokens import estimate_text

        self.placeholder_tokens = estimate_text(reduction.cleared_text("/" + "x" * 80))
        self.done = 0
        """Results before this position are decided (named, or not to clear)."""
        self.seen = 0
        """Results before this position are counted in ``uncertain``."""
        self.uncertain = 0
        """Tokens of the results seen whose count truncation may lower."""
        self.freed = 0
        self.certain = self.force
        """Clearing will happen (``--force``, or the count so far over the threshold)."""
        self.pending: list[StreamResult] = []
        self.spans: list[tuple[int, int]] = []
        self.short = len(self.cleared("x" * 113))
        """No placeholder is longer (a file name has at most 113 characters, all safe in a
        shell): a longer result shrinks whatever its name."""

    def round_done(self, results: list[StreamResult], events: list[int], tokens: int) -> None:
        """``events``: the positions in ``results`` where a finished round's first result is;
        ``tokens``: the scan's count so far."""
        limit = self.limit
        if not self.certain:
            for r in results[self.seen :]:
                if r.text is None or (limit is not None and len(r.text) > limit):
                    self.uncertain += r.tokens
            self.seen = len(results)
            self.certain = tokens - self.uncertain > self.threshold
        if self.keep:
            if len(events) < self.keep:
                return
            upto = events[-self.keep]
        else:
            upto = len(results)
        if upto <= self.done:
            return
        pending, exclude, short = self.pending, self.exclude, self.short
        ptok = self.placeholder_tokens
        for i in range(self.done, upto):
            r = results[i]
            if r.message is not None or r.job or r.ends:
                continue  # a running job's start, a job's end report are not cleared: no file
            text = r.text
            if text is None:  # a plain result the scan did not keep: what it noted of it
                if r.user:
                    continue
                n, state = r.chars, r.was
            else:
                if carries_user_words(text):
                    continue  # never truncated nor cleared (issue 30): no file
                n = len(text)
                first = text[:1]  # a placeholder starts with "[" or "<" after blanks
                state = text_state(text) if first in _MAYBE or first.isspace() else None
            if limit is not None and n > limit and self.truncated(r, text, state):
                continue  # its file is the truncated one's
            if r.name in exclude or state == "clear":
                continue
            if n <= short and len(self.cleared(r.call_id)) >= n:
                continue  # its placeholder would not be shorter: kept
            pending.append(r)
            if r.tokens > ptok:
                self.freed += r.tokens - ptok
        self.done = upto
        if not self.certain or self.freed < self.at_least or not pending:
            return
        backend, spans = self.backend, self.spans
        for r in pending:
            backend.claim_ahead(r.index, r.call_id, r.text, spans[r.index], r.size)
        pending.clear()
        if len(backend.frames) >= _BATCH:
            backend.send()

    def truncated(self, r: StreamResult, text: str | None, state: str | None) -> bool:
        """Whether the truncation (which runs before the clearing) replaces ``r``, as
        :func:`~.stream_reduce._truncate` decides it (``text`` None: read again from its line)."""
        if r.name in self.trunc_exclude or state is not None:
            return False
        where = self.backend.longest_path("trunc", r.call_id)
        if text is None:
            text = self.backend.text_at(self.spans[r.index])
        return self.reduction.shrinks("trunc", text, where)

    def cleared(self, call_id: str) -> str:
        """The longest placeholder of a cleared result ``call_id`` (as the clearing tests it)."""
        return self.reduction.cleared_text(self.backend.longest_path("clear", call_id))
