"""Blind check 49 W4 (RELIABILITY rows 2330-2349), by shape, with invented sessions.

The user's last message, interrupted at once, was a long command template (a ``/speckit``
prompt the CLI expanded, its ``$ARGUMENTS`` slot unfilled) whose user words come at its END,
after the template (and Codex Desktop's IDE context before it). The summary called it "no
request ... do not act on it" and quoted only the template's head. The user's words are what
was asked: they are quoted (sections 8, 9, the analysis, the finalized section 6 listing and,
when not interrupted, section 1); an interrupted request is named as such and section 9 says
to ask the user whether to continue with it.
"""

from __future__ import annotations

from pathlib import Path

from .codex_rollout import codex_say, codex_summary, codex_user, rec
from .test_models_local_session import section

ASK = "Add a stock column to the warehouse list and keep the totals in the footer."
ANSWER = "The warehouse list has a stock column; the footer sums it. The 18 tests pass."
WORDS = (
    "quiero que en la tabla pieza agregues un campo de etiqueta y crees una tabla familia para "
    "asociar cada pieza a una familia, esto puede ser opcional"
)
NOTICE = (
    "<turn_aborted>\nThe user interrupted the previous turn on purpose. Any running processes may "
    "still be running in the background; verify current state before retrying.\n</turn_aborted>"
)


def _template() -> str:
    """A ``/speckit.specify``-like expansion: the ``$ARGUMENTS`` slot unfilled, pages of
    outline, then the user's own words at the end (after Codex Desktop's IDE context)."""
    outline = "\n".join(
        f"{k}. Step {k} of the outline: read the feature description, derive the scenario "
        f"number {k}, and write it to the spec with its acceptance criteria."
        for k in range(1, 120)
    )
    body = (
        "---\ndescription: Create the feature specification from a description.\n---\n\n"
        "## User Input\n\n```text\n$ARGUMENTS\n```\n\nYou **MUST** consider the user input before "
        f"proceeding (if not empty).\n\n## Outline\n\n{outline}\n\n## Quick Guidelines\n\n"
        "- Focus on WHAT users need and WHY.\n- Avoid HOW to implement.\n\n"
        f"{WORDS}"
    )
    return (
        "# Context from my IDE setup:\n\n## Active file: db/bodega_terceros.sql\n\n"
        f"## My request for Codex:\n{body}"
    )


def _aborted_template_rollout() -> list[dict[str, object]]:
    return [
        rec("turn_context", {"cwd": "/work/almacen"}),
        codex_user(ASK),
        rec("event_msg", {"type": "user_message", "message": ASK}),
        codex_say(ANSWER),
        rec("event_msg", {"type": "task_complete", "last_agent_message": ANSWER}),
        rec("event_msg", {"type": "task_started"}),
        codex_user(_template()),
        rec("turn_context", {"cwd": "/work/almacen"}),
        codex_user(NOTICE),
        rec("event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
    ]


def test_an_interrupted_template_quotes_the_users_words(tmp_path: Path) -> None:
    text = codex_summary(_aborted_template_rollout(), tmp_path, "s-tpl", "/work/almacen")
    current, step = section(text, 8), section(text, 9)
    assert "campo de etiqueta" in current and "tabla familia" in current, current
    assert "campo de etiqueta" in step and "tabla familia" in step, step
    assert "no request" not in current + step, current + step
    assert "ask the user whether to continue with it" in step, step
    assert "$ARGUMENTS" not in current + step, current + step


def test_the_finalized_listing_keeps_the_words_after_the_template() -> None:
    from compactor.facts.templates import bounded_template

    text = _template().split("## My request for Codex:\n", 1)[1]
    listed = bounded_template(text, 0, 600)
    assert listed is not None and "characters of a command template truncated" in listed
    assert listed.endswith(f"; the user's words at its end: {WORDS}"), listed[-300:]


def test_an_unfilled_slot_ending_in_template_lines_has_no_words() -> None:
    """Guard: the template's own last lines (a list, a placeholder) are not the user's words."""
    from compactor.facts.templates import tail_words

    text = _template().split("## My request for Codex:\n", 1)[1]
    assert tail_words(text) == WORDS
    assert tail_words(text.replace(WORDS, "- Keep it short.")) == ""
    assert tail_words(text.replace(WORDS, "Context for prioritization: $ARGUMENTS")) == ""
    filled = text.replace("$ARGUMENTS", "add a label field to parts")
    assert tail_words(filled) == ""  # a filled slot is the request (blind check 31 W1)


def test_a_templated_current_request_with_an_ide_note_quotes_the_users_words(
    tmp_path: Path,
) -> None:
    """Not interrupted: the request typed after the template, with the IDE context, is quoted
    by the user's words in sections 1 and 9, not by the template's head."""
    records = [
        rec("turn_context", {"cwd": "/work/almacen"}),
        codex_user(_template()),
        rec("event_msg", {"type": "task_started"}),
    ]
    text = codex_summary(records, tmp_path, "s-tpl2", "/work/almacen")
    assert "campo de etiqueta" in section(text, 1), section(text, 1)
    assert "$ARGUMENTS" not in section(text, 1), section(text, 1)


def test_words_typed_right_under_the_templates_last_list_are_the_users() -> None:
    """(set 49 cx_kardex_abort, seen: the words followed the last list item with no blank line
    between, so the last paragraph was a list and the words were lost.)"""
    from compactor.facts.templates import tail_words

    text = _template().split("## My request for Codex:\n", 1)[1]
    joined = text.replace(
        "- Avoid HOW to implement.\n\n" + WORDS, "- Avoid HOW to implement.\n" + WORDS
    )
    assert tail_words(joined) == WORDS
    wrapped = joined.replace("\n" + WORDS, "\n  continues the item above")
    assert tail_words(wrapped) == ""  # an indented line continues the list item
