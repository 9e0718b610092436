"""A prompt file sent as the user's message (a Codex custom prompt, ``/prompts:NAME``, expanded
without a ``## User Input`` slot) is no list of the user's constraints (check 35 leftover of W6,
cx-butler: "On guardrail failure (…): respond with `Error: <reason>` only. Do NOT include
`Diff:` or `Tests:` sections." was listed as the user's constraint, and any other rule of the
command's text could be). Its list answers two cases or more ("On success: respond with …"):
the command's procedure, not rules typed for this request; the words before its rules stay."""

from __future__ import annotations

from pathlib import Path

from compactor.models.local_typed import typed_words

from .codex_rollout import codex_say, codex_summary, codex_user

PROMPT = """Apply the cleanup spec below to this repository, one target only.

Spec file: specs/drop-dead-code.yaml

Rules:
- Work on exactly one target file named by the spec.
- Never touch files outside the spec's target.
- On guardrail failure (spec not found, more than one target, >10 edits): respond with \
`Error: <reason>` only. Do NOT include `Changes:` or `Checks:` sections.
- On success: respond with `Outcome:`, `Changes:` and `Checks:` sections, in that order.
"""


def _summary(text: str, tmp_path: Path) -> str:
    records = [codex_user(text), codex_say("Outcome: removed 3 functions.\nChanges: src/x.py")]
    return codex_summary(records, tmp_path, "s-prompt", "/work/cleanup")


def _constraints(summary: str) -> str:
    """The items under "Constraints and preferences stated by the user", one a line."""
    lines = summary.splitlines()
    at = next((i for i, ln in enumerate(lines) if "Constraints and preferences" in ln), None)
    found = []
    for ln in lines[at + 1 :] if at is not None else ():
        if not ln.strip().startswith("- "):
            break
        found.append(ln.strip())
    return "\n".join(found)


def test_a_prompts_rules_are_not_the_users_constraints(tmp_path: Path) -> None:
    summary = _summary(PROMPT, tmp_path)
    assert "Do NOT include" not in _constraints(summary), summary
    assert "Never touch files" not in _constraints(summary), summary
    assert "On success" not in _constraints(summary), summary
    assert "Apply the cleanup spec below" in summary, summary  # the request is still quoted


def test_the_words_before_a_prompts_rules_are_typed() -> None:
    assert typed_words(PROMPT) == (
        "Apply the cleanup spec below to this repository, one target only.\n\n"
        "Spec file: specs/drop-dead-code.yaml"
    )


def test_a_typed_message_with_one_conditional_rule_keeps_its_rules(tmp_path: Path) -> None:
    typed = (
        "Refactor the parser into two modules, keep the public API as it is.\n"
        "- If the deploy check fails: stop there. Never push to the main branch.\n"
        "- Never rename the CLI flags.\n"
    ) + "The parser lives in src/parse.py and its tests in tests/test_parse.py.\n" * 2
    assert typed_words(typed) == typed
    rules = _constraints(_summary(typed, tmp_path))
    assert "If the deploy check fails: Never push to the main branch." in rules, rules
    assert "Never rename the CLI flags." in rules, rules
