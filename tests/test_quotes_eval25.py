"""Blind check 25 (N6, E1): a request quoted "verbatim" keeps the user's double quotes (it
was shown with single quotes), and ``compact eval``'s stated-request check agrees with its
current-request check when the summary states the last request with other quote marks or
shortened: a changed quote mark is no other request."""

from __future__ import annotations

from compactor.models.local import summarize_transcript
from compactor.prompts import PREAMBLE
from compactor.runs.evalchecks import stated_request
from compactor.runs.evaluate import Evaluation, evaluate
from compactor.schema import AgenticMessage, Block

from .planted_session import SessionBuilder

_REQUEST = 'the build fails: Could not resolve "../../lib/api" from "src/pages/home.vue", fix it'


def _original() -> list[AgenticMessage]:
    s = SessionBuilder()
    s.user("set up the home page")
    s.call("Bash", {"command": "ls src/pages"}, "home.vue\n")
    s.say("The home page is set up in src/pages/home.vue.")
    s.user(_REQUEST)
    s.call("Bash", {"command": "ls src/lib"}, "client.ts\n")
    return s.messages


def _compacted(summary: str) -> list[AgenticMessage]:
    return [AgenticMessage("user", [Block("user_input_text", PREAMBLE + "\n" + summary)])]


def _cat(result: Evaluation, name: str) -> float:
    return next(c.score for c in result.categories if c.name == name and c.items)


def test_a_quoted_request_keeps_the_users_double_quotes() -> None:
    summary = summarize_transcript(_original())
    assert f'Current request: "{_REQUEST}"' in summary, summary
    assert "'../../lib/api'" not in summary, summary


def test_stated_request_ignores_changed_quote_marks_and_agrees_with_current_request() -> None:
    original = _original()
    summary = summarize_transcript(original)
    changed = summary.replace(
        '"../../lib/api" from "src/pages/home.vue"', "'../../lib/api' from 'src/pages/home.vue'"
    )
    assert changed != summary
    for text in (summary, changed):
        result = evaluate(original, _compacted(text))
        assert _cat(result, "current request") == 1.0, result.as_dict()
        assert _cat(result, "stated request") == 1.0, result.as_dict()


def _stated(summary: str) -> tuple[float, str]:
    found = stated_request(summary, _REQUEST, [])
    assert found is not None
    return found[0], found[1]


def test_stated_request_still_catches_another_request() -> None:
    said = 'Current request: "set up the home page"\n'
    assert _stated(said) == (0.0, "wrong: not the original's last request")
    curly = (
        'Current request: "the build fails: Could not resolve \u201c../../lib/api\u201d from '
        "'src/pages/home.vue', fix it\"\n"
    )
    assert _stated(curly) == (1.0, "agrees with the original's last request")
