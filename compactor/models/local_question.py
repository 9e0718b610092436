"""The agent's questions to the user, with their options (blind check 32, N1 and W1).

cc-ohc: the agent asked the user to choose between two bypasses (Claude Code's
``AskUserQuestion``, input ``questions[*].question`` and ``options[*].label/description``); the
user dismissed the question (the CLI's bare rejection, then its interrupt notice) and the session
ended. The summary wrote the call as ``AskUserQuestion(questions=[1 items])``: if the user's next
message is "the second one", the resuming agent cannot tell what to do.

By shape, whatever the tool's name: a call whose input holds a question for the user and its
options (``questions: [{question, options: [{label, description}]}]``, or ``question`` with
``options``/``choices`` given as strings or objects) is a **question to the user**:

* :func:`question_brief` writes it with the question and every option label wherever the summary
  names the call (never "[N items]");
* :func:`question_full` writes every option with a short description, for the question left
  open at the end of the session (dismissed or not answered: the options are still open);
* a dismissed question is not a proposal the user turned down (the user may still pick one).
"""

from __future__ import annotations

from compactor._json import JsonObject
from compactor.facts import Call, cut, one_line

__all__ = ["Question", "is_question_call", "question_brief", "question_full", "questions_of"]

Question = tuple[str, list[tuple[str, str]]]
"""The question's text and its options as (label, description)."""

_LIST_KEYS = ("questions",)
_OPTION_KEYS = ("options", "choices")
_TEXT_KEYS = ("question", "prompt", "text", "header")
_LABEL_KEYS = ("label", "title", "name", "value", "text")
_DESCRIPTION_KEYS = ("description", "detail", "details")
_MAX_QUESTIONS = 8
_MAX_OPTIONS = 12
_LABEL = 120  # characters of an option's label
_DESCRIPTION = 160  # characters of an option's description


def _text(value: object, keys: tuple[str, ...]) -> str:
    if isinstance(value, str):
        return one_line(value)
    if isinstance(value, dict):
        for key in keys:
            found = value.get(key)
            if isinstance(found, str) and found.strip():
                return one_line(found)
    return ""


def _options(item: JsonObject) -> list[tuple[str, str]]:
    for key in _OPTION_KEYS:
        raw = item.get(key)
        if isinstance(raw, list):
            found = [
                (_text(o, _LABEL_KEYS), _text(o, _DESCRIPTION_KEYS) if isinstance(o, dict) else "")
                for o in raw
            ]
            return [(label, more) for label, more in found if label][:_MAX_OPTIONS]
    return []


def _question(item: object) -> Question | None:
    if not isinstance(item, dict):
        return None
    text = _text(item, _TEXT_KEYS)
    options = _options(item)
    return (text, options) if text and (options or "question" in item) else None


def questions_of(args: JsonObject) -> list[Question]:
    """The questions a call's input asks the user, each with its options ([] for any other
    call): ``questions: [{question, options}]`` or a ``question`` with ``options``."""
    for key in _LIST_KEYS:
        raw = args.get(key)
        if isinstance(raw, list) and raw:
            found = [q for q in map(_question, raw[:_MAX_QUESTIONS]) if q is not None]
            if found:
                return found
    if isinstance(args.get("question"), str) and any(k in args for k in _OPTION_KEYS):
        one = _question(args)
        return [one] if one is not None and one[1] else []
    return []


def is_question_call(call: Call) -> bool:
    """Whether the call asks the user a question with options (``AskUserQuestion`` and alike)."""
    if "question" not in call.arguments:  # most calls: no parse needed
        return False
    return bool(questions_of(call.args))


def question_brief(name: str, questions: list[Question], limit: int) -> str:
    """``AskUserQuestion("Which bypass?" options: Temporary permitAll / Profile flag)``: every
    question with its option labels, cut at ``limit`` characters in all."""
    parts = []
    for text, options in questions:
        labels = " / ".join(label for label, _ in options)
        parts.append(f'"{text}" options: {labels}' if labels else f'"{text}"')
    return f"{name}({cut('; '.join(parts), limit)})"


def question_full(questions: list[Question]) -> list[str]:
    """One line per question and one per option (label — short description), for a question
    still open: a reply such as "the second one" names an option of these lines."""
    lines = []
    for text, options in questions:
        lines.append(f'Question: "{cut(text, 400)}"')
        for n, (label, more) in enumerate(options, 1):
            told = f" — {cut(more, _DESCRIPTION)}" if more else ""
            lines.append(f"  Option {n}: {cut(label, _LABEL)}{told}")
    return lines
