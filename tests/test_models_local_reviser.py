"""Blind check 36 W6 (cx-worldtime): an older long answer was labelled "REVISED since by the
answer above" when the answer above was about something else; the answer that did revise it was
not quoted, so the summary still showed the language set it had replaced."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_PAD = " ".join(f"Detail {i}: the row keeps its place." for i in range(14))
_LANGUAGES = (
    "Done. Added an output-language setting to the settings drawer: a JA/EN/FR/ZH segmented "
    "control in the right panel; the candidate header reads 'Candidate N' in English mode and "
    "the language is saved in localStorage. Changed scripts/app.js and index.html. " + _PAD
)
_DROPPED = (
    "Removed FR and ZH from the output-language segmented control; a saved fr/zh language "
    "falls back to JA. Changed scripts/app.js."
)
_ORDINALS = (
    "Dates in the city list now show ordinals (1st, 2nd, 3rd, 11th-13th handled); the "
    "formatter lives next to the clock code. Changed scripts/app.js."
)


def _edit(s: SessionBuilder, new: str) -> None:
    args: dict[str, object] = {"file_path": "scripts/app.js", "old_string": "x", "new_string": new}
    s.call("Edit", args, "scripts/app.js updated")


def _session(between: list[tuple[str, str]]) -> str:
    s = SessionBuilder()
    s.user("add an output language setting for the candidate list")
    _edit(s, "a")
    s.say(_LANGUAGES)
    for n, (request, answer) in enumerate(between):
        s.user(request)
        _edit(s, f"b{n}")
        s.say(answer)
    s.user("push it")
    s.call("Bash", {"command": "git push"}, "fatal: Permission denied", error=True)
    return section(summarize_transcript(s.messages), 8)


def test_the_answer_that_revised_an_earlier_one_is_named_not_the_one_above() -> None:
    work = _session([("drop French and Chinese from it", _DROPPED), ("show ordinals", _ORDINALS)])
    assert "REVISED since by the answer above" not in work, work
    assert f'REVISED since by a later answer, "{_DROPPED}"' in work, work


def test_an_answer_about_other_work_revised_nothing() -> None:
    work = _session([("show ordinal dates in the city list", _ORDINALS)])
    assert "REVISED" not in work, work
    assert "An earlier substantial answer, verbatim (the answer above came after it)" in work, work


def test_the_answer_above_that_revised_it_is_still_said_so() -> None:
    reply = "Done; the city list is sorted by offset now. Changed scripts/app.js."
    work = _session([("show ordinals", _ORDINALS), ("drop French and Chinese", _DROPPED),
                     ("sort the city list by offset", reply)])  # fmt: skip
    assert f'REVISED since by a later answer, "{_DROPPED}"' in work, work
    work = _session([("show ordinals", _ORDINALS), ("drop French and Chinese", _DROPPED)])
    assert "REVISED since by the answer above" in work, work
