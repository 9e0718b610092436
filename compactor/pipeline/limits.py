"""Spend guards: at most N requests and N input tokens to remote summarizers, per run or batch.

``limits: {max_requests: N, max_input_tokens: N}`` in a config file (both optional, 0 allowed:
``max_requests: 0`` lets only cached summaries through). One :class:`SpendMeter` holds the
budget of one ``compact run``: one file, or every file of a batch together.

Two checks, so that a run that would exceed a limit stops *before* it sends anything:

1. **The plan.** Before a file's first request (and before anything of that file is written,
   the archive included) the runner works out the requests the run needs if every call succeeds
   (:func:`compactor.runs.explain.plan_requests`: one, or one per chunk; none when the cache already
   holds the summary) and :meth:`SpendMeter.reserve` sets them aside. A plan that does not fit
   what is left is refused with :class:`~compactor.errors.SpendLimitError` (exit 3, nothing
   written for that file). In a batch, files reserve as they start, so two files running at once
   never both spend the last requests.
2. **Every request.** Retries, failover attempts and re-plans after a context-length error are
   not in the plan: each request is charged as it is about to be sent
   (:meth:`SpendHold.charge`), from the file's reservation first, then from what is left; one
   that would pass a limit is not sent, and the run stops there (no retry, no failover, no
   fallback: a limit is a hard stop).

Counted: every request to a model that is not embedded (the local summarizer costs nothing)
and not answered from the summary cache. Input tokens are the default estimate (UTF-8 bytes / 4
per message, the figure ``check --explain`` shows as the summarizer input); a provider's own
count may differ. A chunked plan counts every chunk as a request even when the cache may hold
some of them (a chunk's input depends on the summaries before it).
"""

from __future__ import annotations

from dataclasses import dataclass

from compactor.errors import SpendLimitError

__all__ = ["SpendHold", "SpendLimits", "SpendMeter"]


@dataclass(frozen=True, kw_only=True, slots=True)
class SpendLimits:
    """The most one ``compact run`` (one file, or a whole batch) may send; None = no limit."""

    max_requests: int | None = None
    max_input_tokens: int | None = None

    def to_dict(self) -> dict[str, int | None]:
        return {"max_requests": self.max_requests, "max_input_tokens": self.max_input_tokens}


def _fits(used: int, more: int, limit: int | None) -> bool:
    return limit is None or used + more <= limit


class SpendMeter:
    """The budget of one run or batch: what was sent, and what running files set aside."""

    def __init__(self, limits: SpendLimits) -> None:
        self.limits = limits
        self.requests = 0
        """Requests sent so far (every file of the batch)."""
        self.input_tokens = 0
        self.held_requests = 0
        """Requests that running files reserved and have not sent yet."""
        self.held_tokens = 0

    def _left(self) -> str:
        parts = []
        if self.limits.max_requests is not None:
            parts.append(
                f"limits.max_requests {self.limits.max_requests:,} "
                f"({self.requests:,} sent, {self.held_requests:,} reserved)"
            )
        if self.limits.max_input_tokens is not None:
            parts.append(
                f"limits.max_input_tokens {self.limits.max_input_tokens:,} "
                f"({self.input_tokens:,} sent, {self.held_tokens:,} reserved)"
            )
        return "; ".join(parts)

    def reserve(self, requests: int, input_tokens: int) -> SpendHold:
        """Set aside what a run plans to send; :class:`SpendLimitError` when it does not fit."""
        used_requests = self.requests + self.held_requests
        used_tokens = self.input_tokens + self.held_tokens
        if not (
            _fits(used_requests, requests, self.limits.max_requests)
            and _fits(used_tokens, input_tokens, self.limits.max_input_tokens)
        ):
            raise SpendLimitError(
                f"spend limit: this run needs {requests:,} "
                f"request{'' if requests == 1 else 's'} with about {input_tokens:,} input "
                f"tokens, more than is left under {self._left()}; nothing was sent",
                requests=requests,
                input_tokens=input_tokens,
            )
        self.held_requests += requests
        self.held_tokens += input_tokens
        return SpendHold(self, requests, input_tokens)


class SpendHold:
    """One run's share of a :class:`SpendMeter` (``Config.spend``): :meth:`charge` before each
    request, :meth:`release` when the run is over."""

    def __init__(self, meter: SpendMeter, requests: int, input_tokens: int) -> None:
        self.meter = meter
        self.planned_requests = requests
        self.planned_tokens = input_tokens
        self.requests_left = requests
        """Of the plan, not sent yet."""
        self.tokens_left = input_tokens
        self.requests = 0
        """Sent by this run."""
        self.input_tokens = 0

    def charge(self, input_tokens: int, model: str) -> None:
        """Count a request about to be sent to ``model``; :class:`SpendLimitError` (and no
        request) when it would pass a limit."""
        meter, limits = self.meter, self.meter.limits
        from_plan = 1 if self.requests_left > 0 else 0
        tokens_from_plan = min(input_tokens, self.tokens_left)
        extra_requests = 1 - from_plan
        extra_tokens = input_tokens - tokens_from_plan
        used_requests = meter.requests + meter.held_requests
        used_tokens = meter.input_tokens + meter.held_tokens
        if not (
            _fits(used_requests, extra_requests, limits.max_requests)
            and _fits(used_tokens, extra_tokens, limits.max_input_tokens)
        ):
            raise SpendLimitError(
                f"spend limit: one more request to {model} (about {input_tokens:,} input "
                f"tokens) would pass {meter._left()}; it was not sent",
                requests=1,
                input_tokens=input_tokens,
            )
        self.requests_left -= from_plan
        self.tokens_left -= tokens_from_plan
        meter.held_requests -= from_plan
        meter.held_tokens -= tokens_from_plan
        meter.requests += 1
        meter.input_tokens += input_tokens
        self.requests += 1
        self.input_tokens += input_tokens

    def release(self) -> None:
        """Give what the plan set aside and did not send back to the meter (other files of
        the batch may use it)."""
        self.meter.held_requests -= self.requests_left
        self.meter.held_tokens -= self.tokens_left
        self.requests_left = self.tokens_left = 0

    def report(self) -> dict[str, int | None]:
        """The ``limits`` object of the run's report."""
        return {
            **self.meter.limits.to_dict(),
            "planned_requests": self.planned_requests,
            "planned_input_tokens": self.planned_tokens,
            "requests": self.requests,
            "input_tokens": self.input_tokens,
        }
