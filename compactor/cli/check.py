"""``compact check``: a dry run over transcripts; never calls a model.

The library decides (:func:`compactor.runs.dryrun.check_file`,
:func:`compactor.runs.explain.explain`); this module renders one line (or one JSON object) per
transcript. A bad file is reported and the others still run; a closed, full or broken stdout stops
at once with exit 6.
"""

import json
import os
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from compactor.configfile import FileConfig, load_default_config
from compactor.counting.trigger import TriggerDecision
from compactor.errors import StreamError
from compactor.models.registry import model_flag_choices

if TYPE_CHECKING:
    from compactor.events import UnknownRecords
    from compactor.runs.dryrun import Explainer

from . import common
from .common import ConfigOpt, DebugOpt, FormatOpt, ThresholdOpt, TokenCounterOpt, count
from .exitcodes import EXIT_CODES_HELP, ExitCode, classify
from .helptext import epilog
from .safe_text import visible_line

__all__ = ["EPILOG", "check", "check_line"]

EPILOG = epilog(
    [
        (
            "one line per transcript: format, messages, tokens, threshold, decision",
            "compact check session.jsonl",
        ),
        (
            "every transcript of a folder, as JSON lines (exit 1 if any would compact)",
            "compact check --json logs/",
        ),
        (
            "where the tokens are, and what a run would keep, summarize and send",
            "compact check --explain -c configs/robust.yaml session.jsonl",
        ),
        (
            "would it compact above 50,000 exact tokens?",
            "compact check --threshold 50000 --token-counter tiktoken:o200k_base session.jsonl",
        ),
    ],
    EXIT_CODES_HELP,
)


def check(
    transcripts: Annotated[
        list[str],
        typer.Argument(
            metavar="TRANSCRIPT...",
            help="Transcript files, - for stdin, or folders (their *.jsonl).",
        ),
    ],
    config: ConfigOpt = None,
    fmt: FormatOpt = None,
    threshold: ThresholdOpt = None,
    token_counter: TokenCounterOpt = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="One JSON object per transcript, one per line (an unreadable one has its error).",
        ),
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
            metavar="MODEL",
            autocompletion=common.complete_model,
            help=f"With --explain: the summarizer to plan for ({model_flag_choices()}).",
        ),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            help="Print nothing on stdout: the exit code tells (errors still go to stderr).",
        ),
    ] = False,
    debug: DebugOpt = False,
) -> None:
    """Dry run: would each transcript compact, and why? No model call.

    Reads each transcript and decides as a run would, without importing a model SDK.
    Exit code 1 when at least one transcript would be compacted, else 0; 2 when one could not
    be read (the others are still checked).
    """
    try:
        file_cfg = load_default_config(config).with_flags(
            threshold=common.tokens(threshold), token_counter=token_counter
        )
        job = _Check(file_cfg, fmt or file_cfg.format, as_json)
        job.quiet = quiet
        if explain and not quiet:
            from compactor.runs.dryrun import Explainer

            job.explain = Explainer(file_cfg, model)
        from compactor.runs.inputs import expand_inputs

        if any("://" in t for t in transcripts):  # object-store URLs: fsspec, imported then
            from compactor.distributed.objects import expand_urls, is_url, localize

            transcripts = [localize(t) for t in transcripts]
            urls = [t for t in transcripts if is_url(t)]
            found = expand_urls(urls, skip_outputs=False).files if urls else []
            rest = [t for t in transcripts if not is_url(t)]
            paths = [*found, *(expand_inputs(rest, skip_outputs=False).files if rest else [])]
        else:
            paths = expand_inputs(transcripts, skip_outputs=False).files
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        common.fail(err, debug)
    any_triggered = False
    failed: BaseException | None = None
    for path in paths:
        try:
            triggered = job(path)
        except (KeyboardInterrupt, StreamError) as err:
            common.fail(err, debug)
        except Exception as err:  # noqa: BLE001
            common.print_error(classify(err)[0], err, debug)
            if as_json and not quiet:
                try:
                    job.error_record(path, err)
                except StreamError as stream_err:
                    common.fail(stream_err, debug)
            failed = err
            continue
        any_triggered |= triggered
    if failed is not None:
        raise typer.Exit(int(classify(failed)[1]))
    raise typer.Exit(int(ExitCode.WOULD_COMPACT if any_triggered else ExitCode.OK))


class _Check:
    """Checks (and explains) one transcript at a time and prints it."""

    def __init__(self, file_cfg: FileConfig, fmt: str | None, as_json: bool) -> None:
        self.fmt = fmt
        self.as_json = as_json
        self.file_cfg = file_cfg
        self.counter = file_cfg.counter()
        self.trigger = file_cfg.trigger_condition()
        self.counter_name = file_cfg.counter_name()
        self.limits = file_cfg.input_limits()
        self.explain: Explainer | None = None
        self.colour = not as_json and use_colour()
        self.quiet = False
        """``-q``: decide only, print nothing (the exit code tells)."""

    def __call__(self, path: str) -> bool:
        """Whether ``path`` would be compacted (after printing its line)."""
        if self.explain is not None:
            return self._explained(self.explain, path)
        from compactor.runs.dryrun import check_file

        result = check_file(path, self.trigger, self.counter, self.fmt, self.limits, _warn)
        if self.quiet:
            return result.decision.triggered
        if not self.as_json:
            self._line(result.path, result.format, result.decision)
            return result.decision.triggered
        from compactor.runs.dryrun import check_record

        record = check_record(result, self.counter_name)
        common.say(json.dumps(record, ensure_ascii=False), json_text=True)
        return result.decision.triggered

    def error_record(self, path: str, err: BaseException) -> None:
        """``--json``: the object of a transcript that could not be checked (its error)."""
        from compactor.runs.dryrun import error_record

        message, code = classify(err)
        record = error_record(path, self.counter_name, self.trigger, message, int(code))
        common.say(json.dumps(record, ensure_ascii=False), json_text=True)

    def _line(self, path: str, fmt: str, decision: TriggerDecision) -> None:
        line = visible_line(check_line(path, fmt, self.counter_name, decision))  # one line
        if not self.colour:
            common.say(line)
            return
        verdict = _verdict(decision)
        head, _, tail = line.partition(f": {verdict} — ")
        style = _WOULD_COMPACT if decision.triggered else _OK
        common.say_styled([(f"{head}: ", None), (verdict, style), (f" — {tail}", None)])

    def _explained(self, explainer: "Explainer", path: str) -> bool:
        done = explainer(path, self.fmt, self.limits, _warn)
        if self.as_json:
            record = done.record(self.counter_name)
            common.say(json.dumps(record, ensure_ascii=False), json_text=True)
        else:
            from compactor.runs.explain_reduce import render_strategies

            from .report import render_explain

            self._line(done.path, done.format, done.decision)
            common.say(render_explain(done.data, done.messages))
            strategies = render_strategies(done.data["strategies"])
            common.say("\n".join(visible_line(x) for x in strategies))
        return done.decision.triggered


def _warn(note: "UnknownRecords") -> None:
    """A reader's warning, one line on stderr (``-q`` and ``--json`` too: it is no verdict)."""
    try:
        sys.stderr.write(visible_line(note.message()) + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # a closed stderr: the verdict still stands


_WOULD_COMPACT = "1;33"  # bold yellow
_OK = "32"  # green


def use_colour() -> bool:
    """Colour on stdout: on a terminal, unless ``NO_COLOR`` is set (or ``TERM=dumb``);
    ``FORCE_COLOR`` forces it. (Plain SGR codes: ``check`` must not pay for importing rich.)"""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def _verdict(d: TriggerDecision) -> str:
    return "WOULD COMPACT" if d.triggered else "ok"


def check_line(path: str, fmt: str, counter: str, d: TriggerDecision) -> str:
    """The one-line verdict of ``compact check``."""
    limits = []
    if d.threshold_tokens is not None:
        limits.append(count(d.threshold_tokens, "token"))
    if d.threshold_messages is not None:
        limits.append(count(d.threshold_messages, "message"))
    return (
        f"{path}: {_verdict(d)} — {fmt}, {count(d.messages, 'message')}, "
        f"{count(d.tokens, 'token')} ({counter}); "
        f"threshold {' or '.join(limits) or 'none'}; {d.reason}"
    )
