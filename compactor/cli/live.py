"""The live view of ``compact run`` on stderr: an event sink driving ``rich.live.Live``.

On a terminal it shows a status line (the attempt in flight, or a retry countdown) with a log of
finished steps above it. When stderr is not a terminal it prints plain lines without animation:
one per failed attempt, wait or failover switch, and one summary line at the end. ``quiet``
silences everything.
"""

from __future__ import annotations

import time

from rich.console import Console, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.spinner import Spinner
from rich.text import Text

from compactor.cli.common import count
from compactor.cli.safe_text import visible_line
from compactor.events import (
    AfterReduce,
    AfterSummarize,
    AttemptStart,
    BeforeReduce,
    BeforeSummarize,
    CacheRefused,
    ChunkStart,
    CircuitOpen,
    ContextLimit,
    Event,
    GenerateSummary,
    HybridOutcome,
    InputRendered,
    ModelSkipped,
    RetryWait,
    RunEvent,
    ShorterSummary,
    TranscriptRead,
    TriggerChecked,
    UnknownRecords,
    WindowAssumed,
)

__all__ = ["LiveView"]


def _one_line(err: BaseException | None) -> str:
    if err is None:
        return ""
    text = " ".join(str(err).split())
    if len(text) > 160:
        text = text[:157] + "..."
    from compactor.errors import CompactorError

    return text if isinstance(err, CompactorError) else f"{type(err).__name__}: {text}"


class _Countdown:
    """A renderable that shows the seconds left until ``deadline`` each time it is drawn."""

    def __init__(self, label: str, deadline: float) -> None:
        self.label = label
        self.deadline = deadline

    def __rich__(self) -> RenderableType:
        left = max(0.0, self.deadline - time.monotonic())
        return Text.from_markup(f"[yellow]⏳ {escape(self.label)} in {left:4.1f}s[/]", emoji=False)


def elapsed_text(seconds: float) -> str:
    """``7s``, ``1m05s``: how long a step has taken, for the spinner."""
    whole = int(seconds)
    return f"{whole}s" if whole < 60 else f"{whole // 60}m{whole % 60:02d}s"


class _Elapsed:
    """A spinner whose label ends with the time since it started (from 1 s on): a long model
    call shows that it is still going, and for how long."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.start = time.monotonic()
        self.spinner = Spinner("dots", Text(label))

    def __rich__(self) -> RenderableType:
        seconds = time.monotonic() - self.start
        text = self.label if seconds < 1 else f"{self.label} {elapsed_text(seconds)}"
        self.spinner.update(text=Text(text))
        return self.spinner


class LiveView:
    """Renders the run's progress; call it with events, and with the CLI's own steps."""

    def __init__(
        self,
        console: Console,
        *,
        quiet: bool = False,
        primary_attempts: int = 1,
        failover_attempts: int = 0,
        verbose: bool = False,
    ) -> None:
        self.console = console
        self.quiet = quiet
        self.verbose = verbose and not quiet
        """``-v``: every step is a line, also when stderr is not a terminal: what was read,
        decided and sent (never a traceback: that is ``--debug``)."""
        self.animate = console.is_terminal and not quiet
        self.primary_attempts = primary_attempts
        self.failover_attempts = failover_attempts
        self.live: Live | None = None
        self._last_model: str | None = None
        self._model_by_attempt: dict[tuple[str, int], str] = {}

    # -- lifecycle -------------------------------------------------------------------------------
    def __enter__(self) -> LiveView:
        if self.animate:
            self.live = Live(Text(""), console=self.console, refresh_per_second=10, transient=True)
            self.live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None

    # -- helpers ---------------------------------------------------------------------------------
    def _log(self, markup: str, plain: str | None = None, *, always: bool = False) -> None:
        """A finished step: a log line on a terminal; in plain mode only when ``always``.

        Paths, model names and server errors inside it are shown with their control
        characters made visible (:func:`visible_line`, a newline too): a server cannot drive
        this terminal, and a file name cannot add a line.
        """
        if self.quiet:
            return
        if self.animate:
            self.console.print(visible_line(markup), highlight=False)
        elif always or self.verbose:
            self.console.print(
                visible_line(
                    plain if plain is not None else Text.from_markup(markup, emoji=False).plain
                ),
                markup=False,
                highlight=False,
                soft_wrap=True,
            )

    def _status(self, label: str) -> None:
        """The status line: ``label`` (plain text, made visible) after a spinner, and the
        time it has been showing."""
        if self.live is not None:
            self.live.update(_Elapsed(visible_line(label)), refresh=True)

    def _show(self, renderable: RenderableType) -> None:
        if self.live is not None:
            self.live.update(renderable, refresh=True)

    def _total(self, phase: str) -> int:
        if phase == "fallback":
            return 1
        return self.primary_attempts if phase == "primary" else self.failover_attempts

    def _say(self, line: str) -> None:
        """A ``-v`` line (plain text), on a terminal too."""
        if self.verbose:
            self._log(f"[dim]{escape(line)}[/]", line)

    def config(self, path: str | None, model: str, output: str) -> None:
        """``-v``: the config file, the summarizer and the destination a run uses."""
        self._say(f"config: {path or 'none (defaults)'} · model {model} · output {output}")

    # -- CLI steps -------------------------------------------------------------------------------
    def read(self, path: str, fmt: str, messages: int) -> None:
        self._log(f"[dim]read[/] {escape(path)} · {escape(fmt)} · {count(messages, 'message')}")

    def decision(self, triggered: bool, reason: str, forced: bool) -> None:
        if triggered:
            self._log(f"[bold]trigger fired[/]: {escape(reason)}")
        elif forced:
            self._log(f"[bold]forced[/] (trigger did not fire: {escape(reason)})")
        else:
            self._log(f"[green]no compaction needed[/]: {escape(reason)}")

    def summary(self, line: str) -> None:
        """The final line (shown in plain mode too)."""
        self._log(f"[bold green]✔[/] {escape(line)}", line, always=True)

    def failure(self, line: str) -> None:
        self._log(f"[bold red]✘[/] {escape(line)}", line, always=True)

    # -- events ----------------------------------------------------------------------------------
    def __call__(self, event: Event | RunEvent) -> None:
        match event:
            case TranscriptRead(path=path, format=fmt, messages=messages):
                self.read(path, fmt, messages)
            case CacheRefused(reason=reason):
                line = f"compact: summary cache not used: {reason}"
                self._log(f"[yellow]{escape(line)}[/]", line, always=True)
            case TriggerChecked(triggered=triggered, reason=reason, forced=forced):
                self.decision(triggered, reason, forced)
            case UnknownRecords():
                line = event.message()
                self._log(f"[yellow]{escape(line)}[/]", line, always=True)
            case WindowAssumed(model=model, tokens=tokens):
                line = (
                    f"{model} is not a model compact knows and has no model.context_tokens: "
                    f"planning for a {tokens:,}-token window"
                )
                self._log(f"[yellow]{escape(line)}[/]", line, always=True)
            case HybridOutcome(tries=tries, reached=reached):
                sizes = ", ".join(f"{t['tokens_after']:,}" for t in tries)
                many = "summary" if len(tries) == 1 else "summaries"
                state = "under the trigger" if reached else "none under the trigger and smaller"
                line = (
                    f"hybrid: reduced to {event.tokens_reduced:,} tokens; summarized to {sizes} "
                    f"tokens ({len(tries)} {many}): {state}"
                )
                self._log(f"[{'cyan' if reached else 'yellow'}]{escape(line)}[/]", line,
                          always=True)  # fmt: skip
            case BeforeReduce(tool_results=results, tokens=tokens):
                self._status(
                    f"reducing {count(results, 'tool result')} ({count(tokens, 'token')})…"
                )
            case AfterReduce(truncated=truncated, cleared=cleared):
                skipped = f"; not cleared: {event.clear_skipped}" if event.clear_skipped else ""
                kept = f", {event.kept:,} kept (shorter than a placeholder)" if event.kept else ""
                if event.job_ends_kept:
                    kept += f", {count(event.job_ends_kept, 'job end report')} kept"
                usage = ""
                if event.tokens_before_usage is not None:
                    provider = event.tokens_before_usage
                    usage = f"; estimates of the text, the provider's usage before: {provider:,}"
                both = event.truncated_then_cleared
                first = f" ({both:,} of them truncated first)" if both else ""
                line = (
                    f"reduced: {count(truncated, 'result')} truncated, {count(cleared, 'result')} "
                    f"cleared{first}{kept}, {event.tokens_before:,} → {event.tokens_after:,} "
                    f"tokens ({event.tokens_freed:,} freed{usage}){skipped}"
                )
                self._log(f"[cyan]{escape(line)}[/]", line.replace("→", "->"), always=True)
            case BeforeSummarize(messages=messages):
                self._say(f"summarizing {count(len(messages), 'message')}")
                self._status(f"summarizing {count(len(messages), 'message')}…")
            case ChunkStart(index=index, total=total, start=start, end=end, tokens=tokens):
                cut = ", texts cut to fit" if event.oversized else ""
                line = (
                    f"chunk {index}/{total}: messages {start + 1}-{end} "
                    f"({count(end - start, 'message')}, {count(event.chunk_tokens, 'token')}; "
                    f"request {count(tokens, 'token')}{cut})"
                )
                self._log(f"[cyan]{escape(line)}[/]", line, always=True)
            case ContextLimit(cause="length", planned_with=planned):
                line = (
                    "replies were cut at the token limit even when asked to be shorter: "
                    f"re-planning in smaller chunks ({planned:,} tokens at most)"
                )
                self._log(f"[yellow]{escape(line)}[/]", line, always=True)
            case ContextLimit(reported=reported, planned_with=planned, scale=scale):
                said = f"its window is {reported:,} tokens" if reported else "it names no window"
                if scale is not None:
                    said += f"; it counts {scale:.2f} tokens per estimated token"
                line = (
                    f"the summarizer refused the input as too long ({said}): "
                    f"re-planning in chunks of at most {planned:,} tokens"
                )
                self._log(f"[yellow]{escape(line)}[/]", line, always=True)
            case InputRendered(model=model, error=error):
                line = (
                    f"{model} refused structured messages ({_one_line(error)}): sending the "
                    "conversation as a transcript from now on"
                )
                self._log(f"[yellow]{escape(line)}[/]", line, always=True)
            case ShorterSummary(model=model, words=words):
                line = (
                    f"{model}'s reply was cut at the token limit: asking again for a summary "
                    f"of at most {words:,} words"
                )
                self._log(f"[yellow]{escape(line)}[/]", line, always=True)
            case CircuitOpen(model=model, error=error):
                line = (
                    f"circuit breaker open for {model}: not called again in this run "
                    f"({_one_line(error)})"
                )
                self._log(f"[red]{escape(line)}[/]", line, always=True)
            case ModelSkipped(phase=phase, attempt=attempt, model=model):
                line = f"{phase} attempt {attempt} · {model} skipped (circuit breaker open)"
                self._log(f"[dim]{escape(line)}[/]", line)
            case AttemptStart(phase="fallback", model=model):
                self._log(
                    f"[bold yellow]fallback[/] → {escape(model)} (the configured models failed)",
                    f"fallback -> {model} (the configured models failed)",
                    always=True,
                )
                self._last_model = model
                self._status(f"fallback · {model} …")
            case AttemptStart(phase=phase, attempt=attempt, model=model):
                self._model_by_attempt[(phase, attempt)] = model
                if phase == "failover" and attempt >= 1 and model != self._last_model:
                    self._log(
                        f"[magenta]failover[/] → {escape(model)}",
                        f"failover -> {model} (attempt {attempt}/{self._total(phase)})",
                        always=True,
                    )
                self._last_model = model
                label = f"{phase} attempt {attempt}/{self._total(phase)} · {model}"
                part = f" (chunk {event.chunk})" if event.chunk is not None else ""
                self._say(
                    f"sending{part} to {model}: {phase} attempt {attempt}/{self._total(phase)}"
                )
                self._status(f"{label} …")
            case GenerateSummary(attempt=attempt, phase=phase, error=error, model=model):
                name = model or self._model_by_attempt.get((phase, attempt), "?")
                where = f"{phase} attempt {attempt}/{self._total(phase)} · {name}"
                if error is None and event.cached:
                    self._log(
                        f"[green]✔[/] {escape(where)}: summary from the cache (no model call)",
                        f"{where}: summary from the cache (no model call)",
                        always=True,
                    )
                elif error is None:
                    self._log(f"[green]✔[/] {escape(where)}: summary received")
                else:
                    line = f"{where} failed: {_one_line(error)}"
                    self._log(f"[red]✘[/] {escape(line)}", line, always=True)
            case RetryWait(phase=phase, attempt=attempt, delay=delay):
                nxt = f"{phase} attempt {attempt + 1}"
                self._say(f"waiting {delay:.1f}s before {nxt}")
                if self.live is not None:
                    self._show(_Countdown(nxt, time.monotonic() + delay))
                else:
                    self._log("", f"waiting {delay:.1f}s before {nxt}", always=True)
            case AfterSummarize(messages=messages):
                self._show(Text(f"finalized: {count(len(messages), 'message')}"))
