"""The prompt a user's own slash command expands into (blind check 34 W4: Claude Code's
``/create-checkpoint``, a command the user wrote, was shown as "/create-checkpoint (a CLI
command)" and the prompt it ran, "… git commit -m "Checkpoint: …" and report the hash", was
dropped, so its pending commit step appeared nowhere).

Claude Code records such a command as its ``<command-name>`` markup, then an ``isMeta`` user
record holding the command's expanded prompt (the reader marks that one injected). Only the
CLI's built-in commands (:data:`~compactor.facts.noise.CLI_COMMANDS`) are "a CLI command";
any other slash command is the user's request: ``/name args``, as the user typed it; the prompt
it expanded into is the command's text, durable context (the System reminder keeps it, or names
it when older than the current work: :func:`compactor.pipeline.skill_focus.injected_skills`), not
the user's words (blind check 57 N2: the initial request quoted 600 characters of a skill's
protocol instead of the command the user typed)."""

from __future__ import annotations

from collections.abc import Sequence

from compactor.schema import AgenticMessage, Message, user_text

from .noise import CLI_COMMANDS, command_name
from .text import Entry, is_injected

__all__ = [
    "COMMAND_NOTE",
    "PROMPT_CHARS",
    "command_prompts",
    "markup_echoes",
    "prompt_head",
    "users_command",
    "with_prompt",
]

COMMAND_NOTE = " (a slash command the user typed; its prompt is durable context, not their words)"
"""What the user messages say after a user's own slash command whose prompt was injected."""
_NOTE_HEAD = (
    "The user's slash commands expanded into prompts, each the command's own text (durable "
    "context: see the System reminder), not the user's words: "
)
PROMPT_CHARS = 600
"""How much of a command's expanded prompt (on one line) its request shows; the rest is cut."""
_CLI_TEXT_HEADS = ("<", "Caveat:", "Base directory for this skill:", "[Request interrupted")


def users_command(text: str) -> str | None:
    """The name (``/create-checkpoint``) of a slash command in Claude Code's markup that is not
    one of the CLI's built-in commands; None for a built-in one and for other texts."""
    if not text.lstrip().startswith(("<command-name>", "<command-message>")):
        return None
    name = command_name(text)
    return None if name is None or name in CLI_COMMANDS else name


def prompt_head(text: str) -> str | None:
    """The first :data:`PROMPT_CHARS` characters of a command's expanded prompt on one line
    (`` …`` where cut); None for a text the CLI wrote by shape (its output, a caveat, a
    reminder, a skill's base directory: not a prompt)."""
    stripped = text.strip()
    if not stripped or stripped.startswith(_CLI_TEXT_HEADS):
        return None
    flat = " ".join(stripped.split())
    return flat if len(flat) <= PROMPT_CHARS else flat[:PROMPT_CHARS].rstrip() + " …"


def command_prompts(
    context: Sequence[Message | AgenticMessage], users: Sequence[Message | AgenticMessage]
) -> dict[int, str]:
    """``id(message)`` → :data:`COMMAND_NOTE` for each user's own slash command of ``users``
    (messages of ``context``) whose next message is an injected prompt (:func:`prompt_head`):
    the prompt is the command's text, kept as durable context, not the user's words."""
    wanted = {id(m) for m in users if m.role == "user" and users_command(user_text(m))}
    found: dict[int, str] = {}
    if not wanted:
        return found
    for i, msg in enumerate(context[:-1]):
        after = context[i + 1]
        if id(msg) in wanted and after.role == "user" and is_injected(after):
            if prompt_head(user_text(after)) is not None:  # (blind check 57 N2)
                found[id(msg)] = COMMAND_NOTE
    return found


def with_prompt(
    requests: list[Entry], entries: Sequence[Entry], e: Entry, context: list[str] | None = None
) -> bool:
    """When the injected ``e`` is the expanded prompt of the request just before it (a user's
    own slash command): the request stays the command the user typed (``/name args``), and
    ``context`` notes that its prompt, the skill's text, is durable context (the System
    reminder keeps it), not the user's words (blind check 57 N2: the initial request quoted
    600 characters of a skill's protocol); whether it was."""
    if not requests or requests[-1].index != e.index - 1 or e.index < 1:
        return False
    name = users_command(entries[e.index - 1].text)
    if name is None or prompt_head(e.text) is None:
        return False
    if context is not None:  # one line for all of them
        said = f"{name} ({len(e.text.strip()):,} characters)"
        at = next((i for i, x in enumerate(context) if x.startswith(_NOTE_HEAD)), -1)
        if at < 0:
            context.append(f"{_NOTE_HEAD}{said}")
        elif f"{name} (" not in context[at]:
            context[at] += f", {said}"
    return True


def markup_echoes(
    context: Sequence[Message | AgenticMessage], users: Sequence[Message | AgenticMessage]
) -> dict[int, str]:
    """:func:`~.usershell.shell_echoes` and :func:`command_prompts` of ``users`` together, the
    users walked once: both look only at a message whose text opens with markup (``<bash-input>``,
    ``<command-name>``), and a chat of a million tiny messages holds none."""
    from .usershell import shell_echoes

    marked = [m for m in users if user_text(m).lstrip().startswith("<")]
    if not marked:
        return {}
    return shell_echoes(context, marked) | command_prompts(context, marked)
