"""``compact check``: a dry run over transcripts; never calls a model.

The library decides (:func:`compactor.dryrun.check_file`, :func:`compactor.explain.explain`);
this module renders one line (or one JSON object) per transcript. A bad file is reported and the
others still run; a closed, full or broken stdout stops at once with exit 6.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from compactor.configfile import FileConfig, load_default_config
from compactor.errors import StreamError
from compactor.trigger import TriggerDecision

from . import common
from .common import ConfigOpt, DebugOpt, FormatOpt
from .exitcodes import ExitCode, classify

__all__ = ["check", "check_line"]


def check(
    transcripts: Annotated[
        list[str], typer.Argument(metavar="TRANSCRIPT...", help="Transcript files, or - for stdin.")
    ],
    config: ConfigOpt = None,
    fmt: FormatOpt = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per transcript, one per line.")
    ] = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Also explain: tokens by role and tool, each trigger condition and its margin, "
            "what would be kept, summarized or cut, the summarizer input, the chunk plan, "
            "masked secrets and the estimated cost (prices: in the config).",
        ),
    ] = False,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            metavar="SPEC",
            help="With --explain: the summarizer to plan for (openai:NAME or local).",
        ),
    ] = None,
    debug: DebugOpt = False,
) -> None:
    """Dry run: would each transcript be compacted, and why? Never calls a model.

    Exit code 1 when at least one transcript would be compacted, else 0.

    Examples:

      compact check session.jsonl

      compact check --json sample_transcripts/*.jsonl

      compact check --explain -c configs/openai.yaml session.jsonl
    """
    try:
        file_cfg = load_default_config(config)
        job = _Check(file_cfg, fmt or file_cfg.format, as_json)
        if explain:
            job.explain = _explainer(file_cfg, model)
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        common.fail(err, debug)
    any_triggered = False
    failed: BaseException | None = None
    for path in transcripts:
        try:
            triggered = job(path)
        except (KeyboardInterrupt, StreamError) as err:
            common.fail(err, debug)
        except Exception as err:  # noqa: BLE001
            common.print_error(classify(err)[0], err, debug)
            failed = err
            continue
        any_triggered |= triggered
    if failed is not None:
        raise typer.Exit(int(classify(failed)[1]))
    raise typer.Exit(int(ExitCode.WOULD_COMPACT if any_triggered else ExitCode.OK))


def _explainer(file_cfg: FileConfig, model: str | None) -> Any:
    """The explain step for ``--explain`` (its config built once, no model imported)."""
    import asyncio

    from compactor.explain import explain, explain_config

    name, cfg = explain_config(file_cfg, model)

    def one(messages: list[Any], tools: list[Any], decision: TriggerDecision) -> Any:
        return asyncio.run(
            explain(cfg, messages, tools, decision, model=name, prices=file_cfg.prices)
        )

    return one


class _Check:
    """Checks (and explains) one transcript at a time and prints it."""

    def __init__(self, file_cfg: FileConfig, fmt: str | None, as_json: bool) -> None:
        self.fmt = fmt
        self.as_json = as_json
        self.counter = file_cfg.counter()
        self.trigger = file_cfg.trigger_condition()
        self.counter_name = file_cfg.counter_name()
        self.explain: Any = None

    def __call__(self, path: str) -> bool:
        """Whether ``path`` would be compacted (after printing its line)."""
        if self.explain is not None:
            return self._explained(path)
        from compactor.dryrun import check_file

        result = check_file(path, self.trigger, self.counter, self.fmt)
        if not self.as_json:
            common.say(check_line(result.path, result.format, self.counter_name, result.decision))
            return result.decision.triggered
        from .report import check_record

        record = check_record(
            result.path, result.format, self.counter_name, result.decision, result.messages
        )
        if result.tool_calls is not None:
            record["tool_calls"] = result.tool_calls
            record["tool_results"] = result.tool_results
        # Over every record of the file, also before an earlier compaction boundary.
        record["file_tool_calls"] = result.file_tool_calls
        record["file_tool_results"] = result.file_tool_results
        common.say(json.dumps(record, ensure_ascii=False), json_text=True)
        return result.decision.triggered

    def _explained(self, path: str) -> bool:
        from compactor.formats.registry import read_transcript
        from compactor.io import read_input
        from compactor.trigger import decide_sync

        display, raw = read_input(path)
        parsed = read_transcript(display, raw, format=self.fmt)
        decision = decide_sync(
            parsed.messages, parsed.tools, self.trigger, self.counter, always_count=True
        )
        data = self.explain(parsed.messages, parsed.tools, decision)
        counter_name = self.counter_name
        if self.as_json:
            from .report import check_record

            record = check_record(display, parsed.format, counter_name, decision, parsed.messages)
            record["explain"] = data
            common.say(json.dumps(record, ensure_ascii=False), json_text=True)
        else:
            from .report import render_explain

            common.say(check_line(display, parsed.format, counter_name, decision))
            common.say(render_explain(data, parsed.messages))
        return decision.triggered


def _n(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def check_line(path: str, fmt: str, counter: str, d: TriggerDecision) -> str:
    """The one-line verdict of ``compact check``."""
    limits = []
    if d.threshold_tokens is not None:
        limits.append(f"{d.threshold_tokens:,} tokens")
    if d.threshold_messages is not None:
        limits.append(f"{d.threshold_messages:,} messages")
    verdict = "WOULD COMPACT" if d.triggered else "ok"
    return (
        f"{path}: {verdict} — {fmt}, {d.messages:,} messages, {_n(d.tokens)} tokens ({counter}); "
        f"threshold {' or '.join(limits) or 'none'}; {d.reason}"
    )
