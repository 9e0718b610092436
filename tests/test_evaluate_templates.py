"""``compact eval`` on a request typed into a command template (blind check 32: a
``/speckit.plan`` expansion scored 28.9 % for a summary that stated the request right): the
current request a summary must keep is the user's words in the template's input slot, or the
template's opening when the slot is empty, never the template's pages of outline."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.runs.evaluate import evaluate_files

from .test_cli_run import compact
from .test_evaluate import SESSION, _compacted, _flat, _write

OUTLINE = "\n".join(
    f"{n}. Step {n}: load the plan template, fill section {n} with the design notes, and check"
    f" gate {n} against the constitution before the next phase."
    for n in range(1, 31)
)


def _template(words: str) -> str:
    return (
        f"## User Input\n\n```text\n{words}\n```\n\n"
        "You **MUST** consider the user input before proceeding (if not empty).\n\n"
        f"## Outline\n\n{OUTLINE}\n\n## Key rules\n\n- Use absolute paths\n"
        "- ERROR on gate failures\n"
    )


def _current(original: Path, compacted: Path) -> tuple[str, float]:
    report = evaluate_files(str(original), str(compacted))
    item = next(c for c in report.categories if c.name == "current request").items[0]
    return item.text, item.score


def _summarized(tmp_path: Path, original: Path) -> Path:
    out = tmp_path / "c.jsonl"
    run = compact(
        tmp_path,
        "run",
        str(original),
        "--model",
        "local",
        "--force",
        "--no-cache",
        "-q",
        "-o",
        str(out),
    )
    assert run.code == 0, run.stderr
    return out


@pytest.mark.parametrize(
    "words", ["add a member-removal action to the group pages, teachers only", ""]
)
def test_a_template_request_is_scored_on_the_users_words(tmp_path: Path, words: str) -> None:
    request = _template(words)
    original = _write(tmp_path / "s.jsonl", [*SESSION, {"role": "user", "content": request}])
    asked, score = _current(original, _summarized(tmp_path, original))
    assert len(asked) < 200 and "Step 30" not in asked, asked
    if words:
        assert asked == words
    else:
        assert asked.startswith("You **MUST** consider the user input before proceeding")
    assert score >= 0.8, (asked, score)  # the summary states the request; the outline is left out
    lost = _compacted(tmp_path / "lost.jsonl", _flat(SESSION))  # a compaction without it
    assert _current(original, lost)[1] < 0.5
