"""A rule that a command's text gives under a condition keeps its condition (blind check 35
W6): "On guardrail failure (…): respond with `Error: <reason>` only. Do NOT include `Diff:` or
`Tests:` sections." was listed as the user's bare constraint "Do NOT include Diff: or Tests:
sections.", which on success tells a resuming agent to leave out the sections required."""

from __future__ import annotations

from pathlib import Path

from compactor.facts.patterns import instructions
from compactor.models.local_rules import conditioned

from .codex_rollout import codex_say, codex_summary, codex_user

COMMAND = """Run the tidy-up spec given below against this repository.

Spec file: specs/tidy-imports.yaml

Rules:
- Work on exactly one target file named by the spec.
- On guardrail failure (spec not found, more than one target, >10 edits): respond with \
`Error: <reason>` only. Do NOT include `Changes:` or `Checks:` sections.
- On success: respond with `Outcome:`, `Changes:` and `Checks:` sections, in that order.
- Never touch files outside the spec's target.
"""


def _constraints(text: str) -> list[str]:
    lines = text.splitlines()
    at = next((i for i, ln in enumerate(lines) if "Constraints and preferences" in ln), None)
    found = []
    for ln in lines[at + 1 :] if at is not None else ():
        if not ln.strip().startswith("- "):
            break
        found.append(ln.strip())
    return found


def test_a_rule_under_a_condition_keeps_its_condition(tmp_path: Path) -> None:
    records = [
        codex_user(COMMAND),
        codex_say("Outcome: imports sorted.\nChanges: src/app.py\nChecks: ruff passed."),
    ]
    rules = _constraints(codex_summary(records, tmp_path, "s-cond", "/work/tidy"))
    # (a command whose list answers two cases is a prompt file: none of its rules is the user's
    # since fix37b, row 1654; tests/test_prompt_template37.py)
    bare = [r for r in rules if "Do NOT include" in r and "guardrail failure" not in r]
    assert not bare, rules  # never the bare rule, without its condition


def test_the_condition_is_given_with_its_rule() -> None:
    text = "Rules:\n- If the deploy check fails: stop there. Never push to the main branch.\n"
    assert [s for _, s in conditioned(text, instructions(text))] == [
        "If the deploy check fails: Never push to the main branch."
    ]
    plain = "When done, tell me. Never push to the main branch."
    assert [s for _, s in conditioned(plain, instructions(plain))] == [
        "Never push to the main branch."
    ]  # a comma's scope in prose is unclear: no condition
