"""``compact run --strategy reduce|hybrid``: Eino's reduction (SPEC §10) in a file run.

* ``reduce`` only reduces: oversized results are truncated, and when the history is over the
  run's trigger (or with ``--force``) every tool round outside the retained suffix is cleared.
  No model is called, so the loop guard's ratio does not apply: a clearing that frees less than
  ``reduction.clear_at_least_tokens`` is refused (exit 4) when it was the run's whole point.
* ``hybrid`` reduces first and summarizes only when the reduced history still fires the
  trigger (or, with ``--force``, when there was nothing to clear; a clearing that frees too
  little is not applied, never refused, and then a history under its trigger stays as it is,
  ``--force`` or not: :func:`hybrid_why`): the oldest part, the retained rounds kept verbatim
  after the summary. A summary is kept only when smaller than the reduced history and under
  the trigger, else made again with one retained round fewer; when none gets under a trigger
  the history fired, exit 4 (:class:`HybridOverTriggerError`), nothing written.

The offload folder is chosen and checked at plan time (:func:`plan_offload`: exit 2 when it
cannot be written); its files are removed again when the run fails after writing them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from compactor._json import JsonObject
from compactor.configfile.strategy import (
    offload_enabled,
    offload_folder,
    reduction_config,
    strategy_of,
)
from compactor.errors import LoopGuardError
from compactor.io import Destination
from compactor.runs.hybrid_kept import forced_summary
from compactor.schema import AgenticMessage

if TYPE_CHECKING:
    from compactor.configfile import FileConfig
    from compactor.counting.trigger import TriggerDecision
    from compactor.formats.base import Transcript
    from compactor.reduction import FileOffload, ReduceOutcome
    from compactor.reduction.core import Locate, Original
    from compactor.reduction.stream import LineFormat
    from compactor.schema import M, Message

    from .run_plan import RunOptions, RunPlan
    from .runner import Run

__all__ = [
    "HybridOverTriggerError",
    "ReductionRefusedError",
    "hybrid_why",
    "locator",
    "loopless",
    "names",
    "originals",
    "plan_offload",
    "reduce_run",
    "replaced_results",
    "stream_reduce",
]


class ReductionRefusedError(LoopGuardError):
    """Clearing was the run's point (trigger fired, or ``--force``) but would free fewer tokens
    than ``reduction.clear_at_least_tokens``: nothing is written (exit 4)."""

    def __init__(self, reason: str, tokens: int) -> None:
        super().__init__(tokens, tokens, None)
        self.args = (f"reduction refused: {reason}",)

    def __str__(self) -> str:
        return str(self.args[0])


class HybridOverTriggerError(LoopGuardError):
    """``--strategy hybrid`` could not get the history under its trigger: neither reduction
    nor a summary with fewer retained rounds did (exit 4, as the loop guard: a result over the
    trigger would compact again at once); nothing is written."""

    def __init__(self, tokens_before: int, smallest: int, why: str) -> None:
        super().__init__(tokens_before, smallest, None)
        self.args = (f"hybrid: no result gets under the trigger: {why}",)

    def __str__(self) -> str:
        return str(self.args[0])


def loopless(plan: RunPlan) -> bool:
    """Whether the planned run awaits nothing that needs an event loop: ``reduce`` calls no
    model, and its counter (the estimate, or tiktoken's) is a plain function; a counter of
    the user's (``pkg.mod:func``) may be a coroutine that waits on I/O. Such a run is driven
    by :func:`compactor._util.run_without_loop` and never imports asyncio (the process's
    start-up is a third of ``reduce``'s time on a 50 MB file: BENCHMARKS.md, issue 30).

    So is a summarize (or hybrid) run whose every model is the embedded summarizer
    (``--model local``, its failovers ``local`` too) with none of the user's code to call
    (``callback``, ``gen_model_input``, a ``pkg.mod:func`` finalize): it computes in the
    process and awaits no I/O (a retry's wait is then a plain sleep,
    :func:`compactor.pipeline.retry.default_sleep`); asyncio is ~17 ms of its start-up."""
    name = plan.file_config.counter_name()
    if name != "estimate" and not name.startswith("tiktoken:"):
        return False
    return plan.strategy == "reduce" or _embedded_only(plan.file_config)


def _embedded_only(cfg: FileConfig) -> bool:
    """Every model of ``cfg``'s chain is the embedded summarizer and no user hook is set."""
    if cfg.callback or cfg.gen_model_input or isinstance(cfg.finalize, str):
        return False
    from compactor.configfile.build import model_settings

    models = [model_settings(cfg), *cfg.failover_models()]
    return all(m.get("provider") == "local" for m in models)


def plan_offload(options: RunOptions, file_cfg: FileConfig, output: Destination) -> Path | None:
    """The offload folder of a reduce/hybrid run, checked (None: summarize, or offload off);
    the ``reduction:`` values are checked too (exit 2 before the transcript is read)."""
    from compactor.reduction import check_offload_dir

    if strategy_of(file_cfg, options.strategy) == "summarize":
        return None
    reduction_config(file_cfg)
    if not offload_enabled(file_cfg):
        return None
    name = output.path if output.kind == "file" else None
    folder = offload_folder(file_cfg, options.offload_dir, name)
    check_offload_dir(folder)
    return folder


class _SourceLine(Protocol):
    """What a locator reads of a format's own line (``compactor.formats`` keeps its class)."""

    number: int

    @property
    def text(self) -> bytes: ...

    @property
    def obj(self) -> JsonObject: ...


def _origin_lines(parsed: Transcript, index: int) -> list[_SourceLine]:
    lines = parsed.meta.lines
    origin = parsed.meta.origin
    if index >= len(origin):
        return []
    return [lines[i] for i in origin[index] if 0 <= i < len(lines)]


def locator(parsed: Transcript, path: str | None) -> Locate | None:
    """``(message index, call id) → (path, line)`` of the record holding a result in the file
    ``path`` (the input, or its archive); None when there is no such file."""
    if path is None:
        return None

    def locate(index: int, call_id: str) -> tuple[str, int] | None:
        found = _origin_lines(parsed, index)
        if not found:
            return None
        needle = call_id.encode("utf-8", "surrogatepass")
        for line in found:
            if needle and needle in line.text:
                return path, int(line.number)
        return path, int(found[0].number)

    return locate


def originals(parsed: Transcript) -> Original:
    """``(message index, call id) → the result's content`` as the record it was read from holds
    it (what an offload file keeps: issue 30); None when no record of the message names it."""
    from compactor.reduction.results import original_content, original_payload

    def original(index: int, call_id: str) -> str | None:
        if not call_id:
            return None
        for line in _origin_lines(parsed, index):
            found = original_content(line.obj, call_id)
            if found is not None:
                return original_payload(found, line.text)
        return None

    return original


def _note_path(run: Run) -> str | None:
    opts, file_cfg = run.plan.options, run.plan.file_config
    setting = opts.transcript_path or file_cfg.transcript_file_path or "auto"
    if setting == "none":
        return None
    if setting != "auto":
        return setting
    if run.plan.archive_dir is not None:  # where the original will be archived
        from compactor.io import archive_path

        return archive_path(run.input_bytes(), run.plan.archive_dir)
    return None if opts.input == "-" else os.path.abspath(opts.input)


async def reduce_run(run: Run, parsed: Transcript, decision: TriggerDecision) -> bytes | None:
    """Reduce (and, for hybrid, maybe summarize) ``parsed``: the bytes to write, or None when
    the transcript stays as it is."""
    from compactor.schema import is_agentic

    messages = parsed.messages  # one type per history: the reduction is made for it
    if is_agentic(messages):
        return await _reduce_as(run, parsed, decision, list(messages))
    return await _reduce_as(run, parsed, decision, list(messages))


async def _reduce_as(
    run: Run, parsed: Transcript, decision: TriggerDecision, history: list[M]
) -> bytes | None:
    from compactor.formats.base import WriteMode
    from compactor.formats.records import dropped_records
    from compactor.formats.registry import write_transcript
    from compactor.reduction import FileOffload, Reduction
    from compactor.schema import AgentState

    plan, r = run.plan, run.result
    opts, file_cfg = plan.options, plan.file_config
    strategy = strategy_of(file_cfg, opts.strategy)
    backend = FileOffload(plan.offload_dir) if plan.offload_dir is not None else None
    run.offload = backend
    cfg = reduction_config(
        file_cfg,
        fmt=parsed.format,
        force=opts.force,
        backend=backend,
        locate=None if backend is not None else locator(parsed, _note_path(run)),
        on_event=run.emit,
    )
    cfg = dataclasses.replace(cfg, original=originals(parsed))
    reduction: Reduction[M] = Reduction(cfg)
    outcome = await reduction.reduce(
        AgentState(messages=history, tools=list(parsed.tools)),
        tokens=decision.tokens,  # the trigger counted it with this counter already
    )
    report: JsonObject = {"strategy": strategy, **outcome.to_dict(), "streamed": False}
    if outcome.tokens_before_usage is not None:  # before and after counted the same way
        r.tokens_before, r.tokens_after = outcome.tokens_before, outcome.tokens_after
        r.extras["tokens_counted"] = "text"  # (the usage: reduction.tokens_before_usage)
    if plan.offload_dir is not None:
        report["offload_dir"] = str(plan.offload_dir)
    r.extras["reduction"] = report
    if strategy == "hybrid":
        summarized = await _hybrid_summary(run, parsed, decision, outcome, report)
        if summarized is not None:
            if backend is not None:  # the summarized rounds' files: nothing names them now
                removed = backend.keep_only(lambda p: names(summarized, p))
                report["offload_removed"] = len(removed)
            return summarized
        if not outcome.changed:
            return None  # nothing cleared, no summary smaller: the transcript as it is
    if not outcome.changed:
        skipped = outcome.clear_skipped or ""
        if (decision.triggered or opts.force) and "clear_at_least_tokens" in skipped:
            raise ReductionRefusedError(skipped, outcome.tokens_before)
        return None
    await run.archive_original()  # the original first, as a summarizing run does
    r.messages_after = len(outcome.messages)
    r.tokens_after = outcome.tokens_after
    mode: WriteMode = "append" if opts.append else "shrink"
    from compactor.formats.registry import get_format

    spec = get_format(parsed.format).spec
    if spec.patch_reduced is not None and mode == "shrink":
        return spec.patch_reduced(parsed, replaced_results(parsed.messages, outcome))
    from compactor.formats.patching import set_known_matches
    from compactor.reduction import PROCESSED_KEY

    set_known_matches(
        parsed,
        outcome.messages,
        [
            None if new is not old and PROCESSED_KEY in new.extra else i
            for i, (old, new) in enumerate(zip(parsed.messages, outcome.messages, strict=True))
        ],
    )
    info = run.compaction_info(decision, outcome.tokens_after)
    data = write_transcript(parsed, outcome.messages, mode=mode, info=info)
    if spec.fix_appended is not None:  # --append: the re-emitted copies carry no old usage
        data = spec.fix_appended(data, parsed)
    r.dropped_records = dropped_records(parsed, outcome.messages, data, mode)
    return data


def _cuts(outcome: ReduceOutcome[M], rounds: int) -> list[int]:
    """Where the verbatim tail may start, most kept first: the reduction's retained rounds,
    then one round fewer each time (a round of calls whose results are not in yet counts
    too), down to none (a cut at 0: fewer rounds than that)."""
    from compactor.reduction.results import retention_cutoff, round_starts

    n = len(outcome.messages)
    cuts = [
        retention_cutoff(outcome.messages, keep) if keep else n for keep in range(rounds, -1, -1)
    ]
    first = min((cut for cut in cuts if cut > 0), default=n)
    cuts += [start for start in round_starts(outcome.messages) if start > first]
    return sorted({cut for cut in cuts if cut > 0})


async def _hybrid_summary(
    run: Run,
    parsed: Transcript,
    decision: TriggerDecision,
    outcome: ReduceOutcome[M],
    report: JsonObject,
) -> bytes | None:
    """Hybrid's summary of the oldest part: the bytes, or None when the reduced history
    stands (it is under the trigger, or no summary is smaller than it).

    It summarizes when the reduced history still fires the trigger, or with ``--force`` when
    there was nothing to clear (:func:`hybrid_why`; the report says which). A summary is kept
    only when it is smaller than the reduced history and under the trigger; else the summary is
    made again with one retained round fewer, down to none. When none gets under the trigger
    although the history fired it: :class:`HybridOverTriggerError` (exit 4, nothing written).
    """
    from compactor.counting.trigger import verdict
    from compactor.events import HybridOutcome

    plan, r = run.plan, run.result
    trigger = plan.file_config.trigger_condition()
    reduced = written_count(outcome)
    over = verdict(len(outcome.messages), reduced, trigger)
    why = over.reason if over.triggered else None
    forced, report["hybrid_why"] = hybrid_why(plan.options.force, outcome, why)
    report["summarized"] = False
    if not over.triggered and not forced:
        return None
    rounds = reduction_config(plan.file_config).clear_retention_suffix_limit
    tries: list[JsonObject] = []
    base = dict(r.extras)  # each try reports afresh
    for i, cut in enumerate(_cuts(outcome, rounds)):
        kept = len(outcome.messages) - cut
        r.extras = dict(base)
        try:  # the first try keeps up to keep.messages; the next ones exactly their rounds
            data = await run.summarize(
                parsed, decision, messages=outcome.messages, retained_from=cut, exact_tail=i > 0
            )
        except LoopGuardError as err:  # not small enough, or grown: fewer rounds may be
            tries.append(
                {"kept_messages": kept, "tokens_after": err.tokens_after, "refused": str(err)}
            )
            continue
        tokens, after = r.tokens_after or 0, r.messages_after or 0  # set by summarize
        tries.append({"kept_messages": r.extras.get("tail_messages", kept), "tokens_after": tokens})
        if tokens < reduced and not verdict(after, tokens, trigger).triggered:
            report.update(summarized=True, hybrid_tries=tries)
            await run.emit(HybridOutcome(reduced, tries, True, over.reason))
            return data
    report["hybrid_tries"] = tries
    await run.emit(HybridOutcome(reduced, tries, False, over.reason))
    if over.triggered:
        sizes = ", ".join(f"{t['tokens_after']:,} keeping {t['kept_messages']}" for t in tries)
        raise HybridOverTriggerError(
            decision.tokens or 0,  # always counted for a reduce/hybrid run (always_count)
            min([reduced, *(t["tokens_after"] for t in tries)]),
            f"reduced to {reduced:,} tokens, summarized to {sizes} messages; {over.reason}",
        )
    r.messages_after = len(outcome.messages)  # forced: the reduced history stands, smaller
    r.tokens_after = outcome.tokens_after  # counted as tokens_before is
    return None


def written_count(outcome: ReduceOutcome[M]) -> int:
    """The reduced history's count as ``check`` reads the file it is written to, which is what
    the trigger judges: the text's count when the reduction changed it (the changed records
    drop their usage), else the provider's usage the unchanged records still carry, when there
    was one (the report's ``tokens_after`` is then the text's count: blind check 71 N5)."""
    if outcome.changed or outcome.tokens_before_usage is None:
        return outcome.tokens_after
    return outcome.tokens_before_usage


def hybrid_why(force: bool, outcome: ReduceOutcome[M], over: str | None) -> tuple[bool, str]:
    """Whether a forced hybrid summarizes a history under its trigger, and why. Neither a clearing
    skipped as worth too little (blind check 24: a 20k-token session was summarized whole) nor an
    older part that is only the client's own summary (:mod:`.hybrid_kept`) makes a summary."""
    skipped = outcome.clear_skipped or ""
    if over:
        return False, f"the reduced history still fires the trigger: {over}"
    if outcome.cleared or not force:
        return False, "the reduced history is under the trigger: no summary"
    if "clear_at_least_tokens" in skipped:
        return False, f"--force, but {skipped}; under the trigger: the history stays as it is"
    return forced_summary(outcome, skipped)  # unless only the client's summary (check 53)


def names(data: bytes, path: str) -> bool:
    """Whether the written transcript ``data`` names ``path`` (as JSON writes it, escaped or
    not)."""
    import json

    forms = {path.encode("utf-8", "surrogatepass")}
    for ascii_only in (False, True):
        forms.add(json.dumps(path, ensure_ascii=ascii_only)[1:-1].encode("utf-8", "surrogatepass"))
    return any(form in data for form in forms)


STREAM_OFF_ENV = "COMPACT_TEST_NO_STREAMING"
"""Test hook, unset in normal use: ``1`` makes ``--strategy reduce`` parse every input (the
general path), so that tests can compare it with the streaming pass byte for byte."""


async def stream_reduce(run: Run) -> tuple[bool, bytes | None]:
    """``--strategy reduce`` as one streaming pass (:mod:`compactor.reduction.stream`):
    (False, None) when this input is not for it (nothing was done: parse it); else (True, the
    bytes to write, None when the transcript stays as it is)."""
    from compactor.counting.tokens import default_token_counter
    from compactor.counting.trigger import verdict
    from compactor.events import TranscriptRead, TriggerChecked
    from compactor.formats import json_document
    from compactor.formats.registry import FORMATS, detect_format
    from compactor.reduction import Reduction
    from compactor.reduction.speculate import Speculator
    from compactor.reduction.stream import scan
    from compactor.reduction.stream_reduce import reduce_scanned
    from compactor.reduction.writer import ProcessOffload

    plan, r = run.plan, run.result
    opts, file_cfg = plan.options, plan.file_config
    counter = file_cfg.counter()
    if opts.append or opts.in_place or counter is not default_token_counter:
        return False, None
    if os.environ.get(STREAM_OFF_ENV) == "1":
        return False, None
    raw = run.read_input()
    display = opts.input
    if json_document.is_array(raw):
        return False, None
    name = opts.format or file_cfg.format
    if name is None:
        try:
            name = detect_format(display, raw)
        except Exception:  # noqa: BLE001 - the general path reports it
            return False, None
    found = FORMATS.get(name)
    if found is None or not getattr(found, "streams_reduce", False):
        return False, None
    fmt = cast("LineFormat", found)  # a format that streams_reduce offers a LineFormat
    backend = _offload_backend(run, raw)
    note = None if backend is not None else _note_path(run)
    cfg = reduction_config(
        file_cfg,
        fmt=fmt.name,
        force=opts.force,
        backend=backend,
        locate=None if note is None else (lambda index, _call: (note, index + 1)),
        on_event=run.emit,
    )
    reduction = Reduction(cfg)
    ahead = Speculator(reduction, backend) if isinstance(backend, ProcessOffload) else None
    texts = plan.offload_dir is not None and ahead is None  # the writer reads its own
    scanned = scan(display, raw, fmt, texts=texts, ahead=ahead)
    if scanned is None:
        run.offload = None  # what the scan began is removed: the general path has its own
        return False, None
    n = len(scanned.spans)
    decision = verdict(n, scanned.tokens, file_cfg.trigger_condition())
    r.format = fmt.name
    r.triggered = decision.triggered or opts.force
    r.reason = decision.reason
    r.messages_before = r.messages_after = n
    r.tokens_before = r.tokens_after = scanned.tokens
    await run.emit(TranscriptRead(opts.input, fmt.name, n, n))
    await run.emit(
        TriggerChecked(
            decision.triggered, opts.force, decision.reason, decision.tokens, decision.messages
        )
    )
    outcome, data = await reduce_scanned(scanned, raw, reduction, fmt)
    if run.held is not None:  # a process that exits without freeing it
        run.held.append(scanned)
    report: JsonObject = {"strategy": "reduce", **outcome.to_dict(), "streamed": True}
    if plan.offload_dir is not None:
        report["offload_dir"] = str(plan.offload_dir)
    r.extras["reduction"] = report
    if data is None:
        skipped = outcome.clear_skipped or ""
        if (decision.triggered or opts.force) and "clear_at_least_tokens" in skipped:
            raise ReductionRefusedError(skipped, outcome.tokens_before)
        return True, None
    await run.archive_original()
    r.tokens_after = outcome.tokens_after
    r.dropped_records = {}  # one record per line, every one kept
    return True, data


INLINE_ENV = "COMPACT_OFFLOAD_INLINE"
"""``1``: every offload file is made by the run's own process (no writer process); ``0``: by
a writer process whatever the load; unset: a writer process when a CPU is free
(:func:`compactor.reduction.writer.cpu_to_spare`)."""


def _offload_backend(run: Run, raw: bytes) -> FileOffload | None:
    """The streaming pass's offload backend (also ``run.offload``): for a folder this run
    creates, one whose files a writer process makes (:mod:`compactor.reduction.writer`) while
    the scan goes on; else (a folder that exists: earlier runs' files to compare with) the
    files are made in line."""
    from compactor.reduction import FileOffload
    from compactor.reduction.writer import ProcessOffload, cpu_to_spare

    plan = run.plan
    if plan.offload_dir is None:
        return None
    backend = FileOffload(plan.offload_dir)
    inline = os.environ.get(INLINE_ENV)
    writer = inline == "0" or (inline != "1" and cpu_to_spare())
    if writer and hasattr(os, "fork") and not backend.root.exists():
        backend = ProcessOffload(plan.offload_dir, raw)
    run.offload = backend
    return backend


def replaced_results(
    originals: Sequence[Message | AgenticMessage], outcome: ReduceOutcome[M]
) -> dict[int, dict[str, str]]:
    """Message index → call id → the text that replaces that result (agentic messages)."""
    from compactor.reduction import PROCESSED_KEY

    replaced: dict[int, dict[str, str]] = {}
    for index, (old, new) in enumerate(zip(originals, outcome.messages, strict=True)):
        marker = new.extra.get(PROCESSED_KEY) if new is not old else None
        if not isinstance(marker, dict) or not isinstance(new, AgenticMessage):
            continue
        replaced[index] = {
            str(b.call_id): b.content[0].text or ""
            for b in new.blocks
            if b.type == "function_tool_result" and b.call_id in marker and b.content
        }
    return replaced
