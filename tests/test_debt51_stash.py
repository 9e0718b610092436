"""Work said parked in a git stash no longer holds once a later ``git stash list`` shows no
stash the agent made (debt51; BENCH49 W1's second half). Sessions are invented, by shape."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_SAVED = "Saved working directory and index state WIP on main: 1a2b3c4 parser tweaks"
_PARKED = "Decision: keep the parser work in the stash until the baseline passes."
_LABEL = "No longer holds (a later `git stash list` showed no stash the agent made)"


def _session(listing: str | None, said: str = _PARKED, pop: bool = True) -> str:
    s = SessionBuilder()
    s.user("check whether the test failure is pre-existing, then finish the parser fix")
    s.call("Bash", {"command": "git stash"}, _SAVED)
    s.say(said)
    s.call("Bash", {"command": "python -m pytest -q tests/test_parse.py"}, "1 failed, 12 passed")
    s.say("The failure is pre-existing.")
    if pop:
        popped = "On branch main\n\tmodified:   src/parse.py\nDropped refs/stash@{0} (9f8e7d6)"
        s.call("Bash", {"command": "git stash pop"}, popped)
    if listing is not None:
        s.call("Bash", {"command": "git stash list"}, listing)
    s.say(
        "Done: the failure of tests/test_parse.py is pre-existing and unrelated to the parser"
        " change, and the parser fix is back in the working tree for the next step."
    )
    return summarize_transcript(s.messages)


def test_work_said_stashed_no_longer_holds_after_an_empty_stash_list() -> None:
    decisions = section(_session(""), 5)
    assert f"{_LABEL}: {_PARKED}" in decisions, decisions
    old = "stash@{0}: On feat/x: Tower Auto-Stash: 2025-07-28 10:00:00"  # another's stash only
    decisions = section(_session(old, pop=False), 5)
    assert f"{_LABEL}: {_PARKED}" in decisions, decisions


def test_a_stash_list_showing_the_agent_s_stash_or_no_list_leaves_it() -> None:
    listing = "stash@{0}: WIP on main: 1a2b3c4 parser tweaks"
    for summary in (_session(listing, pop=False), _session(None, pop=False)):
        decisions = section(summary, 5)
        assert _PARKED in decisions and _LABEL not in decisions, decisions


def test_a_sentence_about_taking_work_out_of_the_stash_is_not_labelled() -> None:
    said = "Decision: I will pop the stash once the baseline run is done, then apply the fix."
    decisions = section(_session("", said=said), 5)
    assert said in decisions and _LABEL not in decisions, decisions


def _replied(listed: bool) -> str:
    s = SessionBuilder()
    s.user("park my parser changes and check whether the test failure is pre-existing")
    s.call("Bash", {"command": "git stash"}, _SAVED)
    s.call("Bash", {"command": "python -m pytest -q tests/test_parse.py"}, "1 failed, 12 passed")
    s.say(_REPLY)
    s.call("Bash", {"command": "git stash pop"}, "Dropped refs/stash@{0} (9f8e7d6)")
    if listed:
        s.call("Bash", {"command": "git stash list"}, "")
    s.say("Ok.")
    return section(summarize_transcript(s.messages), 8)


_REPLY = "The failure is pre-existing. Your parser changes are stashed in stash@{0}."


def test_a_reply_saying_work_is_stashed_is_titled_so_after_an_empty_stash_list() -> None:
    work = _replied(listed=True)
    title = "The answer to it, verbatim (written before a later `git stash list` showed no stash"
    assert title in work and _REPLY in work, work
    work = _replied(listed=False)  # no `git stash list`: the usual title
    assert "The answer to it, verbatim\n" in work or "The answer to it, verbatim:" in work, work
    assert "git stash list" not in work, work
