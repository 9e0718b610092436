"""Blind check 13's wrong statements and noise in the local summary (issue 28, quality pass 13),
each on a session built here by shape: a positive reply that names one option accepts only that
option; an assistant's table row or promise to report back is no proposal the user accepted."""

from __future__ import annotations

from pathlib import Path

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .cc_session import Session
from .test_models_local_session import section


def _summary(s: Session, tmp_path: Path) -> str:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


def _text(s: Session, text: str) -> None:
    s.assistant([{"type": "text", "text": text}])


def _options_session(reply: str, options: str) -> Session:
    s = Session()
    s.user("publish the home directory config as a private GitHub repo")
    s.bash("which gh && gh --version", "gh not found")
    _text(
        s,
        "The Xcode license blocks the install. Which would you prefer?\n\n" + options,
    )
    s.user(reply)
    s.bash("brew install gh", "==> Pouring gh--2.82.0.arm64_sonoma.bottle.tar.gz\ngh 2.82.0")
    return s


_TWO_OPTIONS = (
    "**Option 1:** You run that command, then I'll install `gh` and automate everything\n\n"
    "**Option 2:** I'll prepare everything locally and give you manual steps to create the repo"
)


def test_a_yes_that_names_one_option_accepts_only_that_option(tmp_path: Path) -> None:
    problem = section(
        _summary(_options_session("okay try again option 1", _TWO_OPTIONS), tmp_path), 5
    )
    assert "Accepted by the user: **Option 1:** You run that command" in problem, problem
    assert "Option 2" not in problem, problem


def test_an_option_named_by_letter_or_ordinal_picks_that_line(tmp_path: Path) -> None:
    lettered = (
        "A) I'll migrate the table in place with ALTER TABLE\n"
        "B) I'll create a new table and copy the rows over"
    )
    for reply, kept, dropped in (
        ("yes, plan B", "create a new table", "migrate the table in place"),
        ("ok the first one", "migrate the table in place", "create a new table"),
        ("B", "create a new table", "migrate the table in place"),
    ):
        problem = section(_summary(_options_session(reply, lettered), tmp_path), 5)
        accepted = [ln for ln in problem.splitlines() if "Accepted by the user:" in ln]
        assert len(accepted) == 1 and kept in accepted[0], (reply, problem)
        assert dropped not in problem, (reply, problem)


def test_a_plain_yes_still_accepts_every_proposal(tmp_path: Path) -> None:
    problem = section(_summary(_options_session("okay", _TWO_OPTIONS), tmp_path), 5)
    assert "Accepted by the user: **Option 1:**" in problem, problem
    assert "Accepted by the user: **Option 2:**" in problem, problem


def test_a_table_row_or_a_promise_to_report_back_is_not_accepted(tmp_path: Path) -> None:
    s = Session()
    s.user("list the changes still needed for the TDD agents")
    _text(
        s,
        "Here is the list.\n\n| # | What | Why |\n|---|---|---|\n"
        "| 6 | tdd-test-writer must report any constraint as a NOTE | If the agent had said "
        '"want me to add a test?" the conflict would never have been committed. |\n\n'
        "Running `npm install` after clearing `node_modules`. I'll let you know when it's done.",
    )
    s.user("ok")
    s.bash("npm install", "added 412 packages in 21s")
    problem = section(_summary(s, tmp_path), 5)
    assert "tdd-test-writer must report" not in problem, problem
    assert "let you know" not in problem, problem
