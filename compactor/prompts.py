"""Built-in texts: the summarizer instructions and the notes around a summary (constants only)."""

from __future__ import annotations

__all__ = [
    "BREVITY_NOTE",
    "CHUNK_NOTE",
    "CLEARED_NOTE",
    "CONCISE_INSTRUCTION",
    "CONTINUE_INSTRUCTION",
    "DEGRADED_NOTE",
    "FOCUS_HEADER",
    "INSTRUCTIONS_PREAMBLE",
    "INSTRUCTIONS_TRUNCATED_MARKER",
    "PLAN_EARLIER_HEADING",
    "PLAN_HEADING",
    "PREAMBLE",
    "PREVIOUS_SUMMARY",
    "SKILLS_PREAMBLE",
    "SKILL_TRUNCATED_MARKER",
    "STDIN_NOTE",
    "SYSTEM_INSTRUCTION",
    "TRANSCRIPT_NOTE",
    "USER_INSTRUCTION",
]

SYSTEM_INSTRUCTION = (
    "You are a summarization assistant: your only job is to write a faithful, detailed summary "
    "of the conversation you are given."
)

USER_INSTRUCTION = """\
The conversation above is about to be replaced by your summary, so that the work can go on in a \
fresh context. Write that summary now. Reply with text only: do not call any tool.

First, inside <analysis> and </analysis>, walk through the conversation in order. For each part, \
note what the user asked for and how, what the assistant did about it, the decisions taken, the \
file names, code, function signatures and edits involved, the errors met and how they were fixed, \
and any correction or feedback the user gave. Check that nothing technical is missing.

Then write the summary inside <summary> and </summary>, with exactly these nine numbered sections:

1. Primary Request and Intent: everything the user explicitly asked for and wants, in detail.
2. Key Technical Concepts: the technologies, frameworks, libraries and ideas that matter here.
3. Files and Code Sections: every file looked at, changed or created, why it matters, and the \
code snippets that matter, in full where they are short.
4. Errors and fixes: each error met, how it was fixed, and any user feedback about it.
5. Problem Solving: problems solved and troubleshooting still going on.
6. All user messages: every message the user wrote that is not a tool result, in order, wrapped \
in <all_user_messages> and </all_user_messages>, one per line, each line written as "    - text".
7. Pending Tasks: the tasks the user asked for that are not done yet.
8. Current Work: exactly what was being worked on just before this summary, with file names and \
code where relevant.
9. Optional Next Step: the next step, only if it follows directly from the user's latest explicit \
request; quote, verbatim, the most recent messages that show where the work stopped.

If the conversation contains further instructions about how to summarize it, follow them too."""

CONCISE_INSTRUCTION = """\
The conversation above is about to be replaced by your summary, so that the work can go on in a \
fresh context. Reply with text only, in at most {words} words: no tool calls, no analysis. \
Inside <summary> and </summary>, write these numbered sections, each brief:
1. Primary Request and Intent
2. Key Technical Concepts
3. Files and Code Sections
4. Errors and fixes
5. Problem Solving
6. All user messages, one per line as "    - text", inside <all_user_messages> and \
</all_user_messages>
7. Pending Tasks
8. Current Work
9. Optional Next Step"""
"""The stricter instruction: used instead of the built-in one when a reply was cut at the token
limit (asked again at once), and from the start when the built-in one would take more than a
quarter of a small summarizer window (``{words}``: the reply's word budget)."""

BREVITY_NOTE = (
    "Keep your whole reply under {words} words: an earlier reply was cut off at the length limit."
)
"""Appended to a user's own instruction where the built-in one would become concise."""

PREAMBLE = (
    "This session continues an earlier conversation that ran out of context; "
    "the summary below covers that earlier part."
)

CONTINUE_INSTRUCTION = (
    "Continue with the last task you were working on, right where it stopped, without asking the "
    "user any further questions; do not recap the summary or acknowledge it."
)

STDIN_NOTE = "The full transcript before the compaction was read from stdin; no copy was kept."
"""The note instead of :data:`TRANSCRIPT_NOTE` when ``transcript_file_path`` is ``-``."""

TRANSCRIPT_NOTE = (
    "If you need exact details from before the compaction (code, error messages, or your own "
    "earlier output), read the full transcript at: {path}"
)

CLEARED_NOTE = "(Earlier user messages were cleared to save context; the most recent ones follow.)"

SKILLS_PREAMBLE = "These skills were loaded earlier in this session; keep following them."

INSTRUCTIONS_PREAMBLE = (
    "These instruction files were injected into this session by the agent CLI (rules for the "
    "agent, not requests); keep following them."
)

INSTRUCTIONS_TRUNCATED_MARKER = (
    "\n\n[… {name!r} was cut to fit the context; read the file again to see all of it]"
)

PLAN_HEADING = "The agent's latest plan ({tool}), every item with its status:"
PLAN_EARLIER_HEADING = (
    "The agent's plan ({tool}) as of the summarized part (the kept messages below hold a later"
    " one), every item with its status:"
)
"""PLAN_HEADING when the tail kept after the summary holds a newer plan (blind check 15)."""

SKILL_TRUNCATED_MARKER = (
    "\n\n[… skill {name!r} was cut to fit the context; load the skill again to read all of it]"
)


CHUNK_NOTE = (
    "This conversation is too long for one pass, so it is summarized in {total} sequential parts; "
    "the messages above are part {index} of {total}.{previous} Write one summary, as asked below, "
    "that covers everything so far."
)
"""Put before the user instruction of every chunk (``{previous}`` names the running summary)."""

PREVIOUS_SUMMARY = (
    "<previous_summary>\nSummary of parts 1-{upto} of this conversation, written earlier:\n\n"
    "{text}\n</previous_summary>"
)
"""The running summary handed to chunk 2 onwards, as the first message after the system one."""

DEGRADED_NOTE = (
    "(Degraded summary: the configured summarization models failed, so compact's embedded "
    "extractive summarizer wrote this from the conversation itself.)"
)
"""Put at the start of a summary written by the last-resort ``fallback_model``."""

FOCUS_HEADER = "Additional instructions from the user (focus the summary on this):"
"""Put between the user instruction and the focus instructions appended to it (``--instructions``,
as Claude Code's ``/compact <instructions>``); the embedded summarizer finds the focus by it."""
