"""Codex's ``request_user_input`` answers are the user's words (blind check 34 N1): the user's
typed answer to a menu ("start a new project, do not touch any live project") was the decision
behind the whole run, and neither the summary nor ``compact eval`` saw it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.facts.useranswers import json_answers
from compactor.runs.evaluate import evaluate_files

from .codex_rollout import codex_say, codex_summary, codex_user, rec

TYPED = "Wait - start a separate new project, do not touch any project that is live!"
QUESTIONS = [
    {
        "id": "implementation_bias",
        "header": "Focus",
        "question": "Which focus should the plan take for the contest system?",
        "options": [
            {"label": "Acceptance first (Recommended)", "description": "red-line checks first"},
            {"label": "Demo first", "description": "a nicer front end first"},
        ],
    }
]


def _records(answer: Any) -> list[dict[str, Any]]:
    call = {"type": "function_call", "name": "request_user_input", "call_id": "call_ask"}
    call["arguments"] = json.dumps({"questions": QUESTIONS})
    output = json.dumps({"answers": {"implementation_bias": {"answers": answer}}})
    return [
        codex_user("Build a web system for the asset-management contest from these documents."),
        codex_say("Before planning I need one choice from you."),
        rec("response_item", call),
        rec(
            "response_item",
            {"type": "function_call_output", "call_id": "call_ask", "output": output},
        ),
        codex_say("Understood: a new project in its own folder, nothing live is touched."),
        codex_user("Put it in the it-asset-codex repository."),
        codex_say("I will clone it-asset-codex into a new folder and work there."),
    ]


def test_a_typed_answer_to_a_question_menu_is_the_users_decision(tmp_path: Path) -> None:
    text = codex_summary(_records([TYPED]), tmp_path, "s-ask", "/work/contest")
    assert TYPED in text, text
    line = next(ln for ln in text.splitlines() if TYPED in ln)
    assert "The user answered" in line and "Which focus should the plan take" in line, line


def test_a_picked_option_is_named_with_its_question(tmp_path: Path) -> None:
    text = codex_summary(_records(["Demo first"]), tmp_path, "s-pick", "/work/contest")
    assert (
        'The user answered "Which focus should the plan take for the contest system?": Demo first'
        in text
    )


def test_eval_looks_for_the_answer_in_the_compacted_text(tmp_path: Path) -> None:
    original = tmp_path / "rollout.jsonl"
    codex_summary(_records([TYPED]), tmp_path, "s-eval", "/work/contest")  # writes the rollout
    lost = tmp_path / "lost.jsonl"
    lost.write_text(
        json.dumps({"role": "user", "content": "Put it in the it-asset-codex repository."}) + "\n"
    )
    kept = tmp_path / "kept.jsonl"
    kept.write_text(json.dumps({"role": "user", "content": f"The user answered: {TYPED}"}) + "\n")

    def words(path: Path) -> list[Any]:
        report = evaluate_files(str(original), str(path))
        return next(c for c in report.categories if c.name == "user words in results").items

    assert [i.text for i in words(lost)] == [TYPED] and not words(lost)[0].kept
    assert words(kept)[0].kept


def test_json_answers_reads_only_an_answers_object() -> None:
    assert json_answers('{"answers": {"q": {"answers": ["a", "b"]}}}') == [("q", "a; b")]
    assert json_answers('{"answers": {"q": "typed"}}') == [("q", "typed")]
    for other in ('{"answer": 1}', '{"answers": [1]}', '{"answers": {"q": {"answers": []}}}',
                  '{"answers": {', "answers: yes", ""):  # fmt: skip
        assert json_answers(other) == [], other
