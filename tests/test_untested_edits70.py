"""Code edited for an answered request that no run followed says it was not run or tested (blind
check 70 N3: cj_compact relayed "API coverage: 100% … every feature implemented" after twelve new
tools were edited in, with no install, run or test call after the edits). Invented projects only."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary, section

APP = "/home/lee/shop/app.py"
UNTESTED = "were never run or tested"


def _session(*after: tuple[str, str]) -> Session:
    s = Session()
    s.user("add a discount endpoint")
    s.call("Read", {"file_path": APP}, "     1→from flask import Flask\n")
    s.bash("python -m pytest -q", "3 passed in 0.2s")
    s.call(
        "Edit",
        {"file_path": APP, "old_string": "app = Flask(__name__)", "new_string": "app = X()"},
        "The file has been updated.",
    )
    for command, out in after:
        s.bash(command, out)
    s.say("Done: the discount endpoint is implemented and fully working.")
    return s


def test_edits_no_run_followed_say_so_next_to_the_answer(tmp_path: Path) -> None:
    part = section(cc_summary(_session(), tmp_path), 8)
    assert "the code edits since `Bash: python -m pytest -q`" in part, part
    assert "were not run or tested" in part and "Edit(/home/lee/shop/app.py)" in part


def test_edits_never_run_at_all_say_so(tmp_path: Path) -> None:
    s = Session()
    s.user("add a discount endpoint")
    s.call("Write", {"file_path": APP, "content": "print('shop')\n"}, "File created successfully")
    s.bash("git add app.py && git commit -m discount", "[main 1a2b3c4] discount")
    s.say("Done: the endpoint is implemented.")
    assert UNTESTED in section(cc_summary(s, tmp_path), 8)


def test_a_run_after_the_edits_says_nothing(tmp_path: Path) -> None:
    summary = cc_summary(_session(("python -m pytest -q", "4 passed in 0.2s")), tmp_path)
    assert "not run or tested" not in summary and UNTESTED not in summary


def test_edits_of_docs_only_say_nothing(tmp_path: Path) -> None:
    s = Session()
    s.user("update the readme")
    s.call(
        "Write", {"file_path": "/home/lee/shop/README.md", "content": "# Shop\n"}, "File created"
    )
    s.say("Done: the readme is updated.")
    summary = cc_summary(s, tmp_path)
    assert "not run or tested" not in summary and UNTESTED not in summary
