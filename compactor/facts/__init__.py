"""Fact extraction shared by the embedded summarizer and the retention check.

Both :mod:`compactor.models.local` (which writes a summary from the transcript) and
:mod:`compactor.pipeline.retention` (which checks that a summary kept the hard facts) need the same
answers to the same questions: which text of a message is the user's own, which is injected
context; what is a file path, a URL, an identifier, a number worth keeping; which line of a tool
output reports an error, and did the command fail at all. Those answers live here, once.

* **Message views.** :func:`entry_of` turns either message shape into an :class:`Entry` (text,
  tool calls, tool results with their ``is_error`` flag, internal / injected marks);
  :func:`text_sources` yields the ``(source, text)`` pairs facts may come from.
* **Injected context is not the user.** :func:`is_injected` is true for text the agent CLI put in
  a user-role message (``extra["injected"]``, Codex ``<environment_context>`` / AGENTS.md, Claude
  Code ``<system-reminder>``, skill bodies, local-command output).
* **Patterns.** :func:`paths`, :func:`urls`, :func:`identifiers`, :func:`numbers`,
  :func:`instructions` and :func:`error_lines` yield ``(position, text)`` pairs.
* **Background jobs.** :func:`background_jobs` finds jobs by shape: a result that names a
  job/task/shell/process id, and whether anything later reported it finished.
* **Tool outcomes.** :func:`outcome` decides whether one tool result reports a failure: its
  ``is_error`` flag, a non-zero exit code, or (for commands that do not just print files) an
  error line. Output of commands that read or search files (``cat``, ``rg``, ``Read``…) is file
  content: a line in it that says ``raise ValueError`` is source code, not an error (which
  programs a command runs and whether they only read: :mod:`.commands`).

Everything is deterministic and linear in the input: long tool outputs are scanned on a bounded
head and tail only (:data:`SCAN_HEAD`, :data:`SCAN_TAIL`).
"""

from __future__ import annotations

from .commands import (
    command_of,
    exit_one_meaning,
    is_reading_call,
    is_reading_program,
    main_program,
    programs,
    shell_words,
)
from .jobs import Job, background_jobs, stopped_jobs, unlaunched_reports
from .outcomes import (
    SCAN_HEAD,
    SCAN_TAIL,
    Outcome,
    error_lines,
    exit_code,
    last_error_lines,
    outcome,
    scan_window,
    strip_output_header,
)
from .patterns import (
    MAX_URL,
    amount_spans,
    amounts,
    blank_urls,
    clean_path,
    has_known_extension,
    identifiers,
    instructions,
    numbers,
    paths,
    result_paths,
    urls,
    whole_paths,
    work_identifiers,
)
from .stops import ESCALATED, STOPPED, escalated, justification, user_stopped
from .text import (
    ASSISTANT,
    CALL,
    INTERRUPT_RE,
    MAX_LINE,
    READ_CHARS,
    RESULT,
    USER,
    Call,
    Entry,
    Result,
    argument_texts,
    clean,
    cut,
    entries_of,
    entry_of,
    finds_any,
    internal_text,
    is_injected,
    lines_of,
    lowers_exactly,
    newest_from,
    one_line,
    parse_arguments,
    sentence_spans,
    sentences,
    sentences_holding,
    shorten,
    text_sources,
)

__all__ = [
    "ASSISTANT",
    "CALL",
    "ESCALATED",
    "INTERRUPT_RE",
    "MAX_LINE",
    "MAX_URL",
    "READ_CHARS",
    "RESULT",
    "SCAN_HEAD",
    "SCAN_TAIL",
    "STOPPED",
    "USER",
    "Call",
    "Entry",
    "Job",
    "Outcome",
    "Result",
    "amount_spans",
    "amounts",
    "argument_texts",
    "background_jobs",
    "blank_urls",
    "clean",
    "clean_path",
    "command_of",
    "cut",
    "entries_of",
    "entry_of",
    "error_lines",
    "escalated",
    "exit_code",
    "exit_one_meaning",
    "finds_any",
    "has_known_extension",
    "identifiers",
    "instructions",
    "internal_text",
    "is_injected",
    "is_reading_call",
    "is_reading_program",
    "justification",
    "last_error_lines",
    "lines_of",
    "lowers_exactly",
    "main_program",
    "newest_from",
    "numbers",
    "one_line",
    "outcome",
    "parse_arguments",
    "paths",
    "programs",
    "result_paths",
    "scan_window",
    "sentence_spans",
    "sentences",
    "sentences_holding",
    "shell_words",
    "shorten",
    "stopped_jobs",
    "strip_output_header",
    "text_sources",
    "unlaunched_reports",
    "urls",
    "user_stopped",
    "whole_paths",
    "work_identifiers",
]
