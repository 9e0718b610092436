"""A Write in flight over a file an earlier listing showed to exist says it would overwrite it
(blind check 70 N2: rb_write ended with a Write of CLAUDE.md in flight after ``LS`` and
``Glob(**/*.md)`` had listed the user's CLAUDE.md; the summary said only to run it again if
still needed). Invented users and projects only."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cc_session import Session, cc_summary, section

ROOT = "/home/ana/tools/invoice"
NOTES = ROOT + "/NOTES.md"
EXISTS = "which existed already"


def _session(listing: tuple[str, dict[str, str], str], flying: str = NOTES) -> Session:
    s = Session()
    s.user("document this project in NOTES.md")
    name, args, out = listing
    s.call(name, args, out)
    s.call("Read", {"file_path": ROOT + "/main.py"}, "     1→print('invoice')\n")
    call = {"type": "tool_use", "id": "toolu_fly", "name": "Write"}
    s.assistant([{**call, "input": {"file_path": flying, "content": "# Notes\nInvoices.\n"}}])
    for record in s.records:
        record["cwd"] = ROOT
    return s


LISTINGS = {
    "LS tree": (
        "LS",
        {"path": ROOT},
        f"- {ROOT}/\n  - NOTES.md\n  - lib/\n    - x.py\n  - main.py\n",
    ),
    "Glob": ("Glob", {"pattern": "**/*.md"}, NOTES + "\n"),
    "ls": ("Bash", {"command": "ls"}, "NOTES.md\nmain.py\n"),
    "ls -la DIR": (
        "Bash",
        {"command": f"ls -la {ROOT}"},
        "total 8\ndrwxr-xr-x 2 ana ana 4096 Jan 1 10:00 .\n"
        "-rw-r--r-- 1 ana ana  120 Jan 1 10:00 NOTES.md\n"
        "-rw-r--r-- 1 ana ana   20 Jan 1 10:00 main.py\n",
    ),
    "find": ("Bash", {"command": "find . -name '*.md'"}, "./NOTES.md\n"),
}


@pytest.mark.parametrize("listing", LISTINGS.values(), ids=LISTINGS.keys())
def test_a_write_in_flight_over_a_listed_file_says_it_existed(
    listing: tuple[str, dict[str, str], str], tmp_path: Path
) -> None:
    summary = cc_summary(_session(listing), tmp_path)
    for n in (7, 8):
        part = section(summary, n)
        assert EXISTS in part and "overwrote that file" in part, part
    assert "writes over a file that existed already" in section(summary, 7)
    step = section(summary, 9)
    assert "writes over a file that existed already" in step, step
    assert "and run them again if still needed" not in step


def test_a_file_the_listing_did_not_show_says_nothing(tmp_path: Path) -> None:
    s = _session(LISTINGS["LS tree"], flying=ROOT + "/lib/NOTES.md")
    summary = cc_summary(s, tmp_path)
    assert EXISTS not in summary
    assert "run them again if still needed" in section(summary, 9)


def test_a_nested_file_of_the_same_name_is_not_the_listed_one(tmp_path: Path) -> None:
    out = f"- {ROOT}/\n  - lib/\n    - NOTES.md\n  - main.py\n"
    summary = cc_summary(_session(("LS", {"path": ROOT}, out)), tmp_path)
    assert EXISTS not in summary


def test_a_file_the_session_wrote_itself_is_not_the_users(tmp_path: Path) -> None:
    s = Session()
    s.user("document this project in NOTES.md")
    s.call("Write", {"file_path": NOTES, "content": "# Notes\n"}, "File created successfully")
    s.call("LS", {"path": ROOT}, f"- {ROOT}/\n  - NOTES.md\n")
    call = {"type": "tool_use", "id": "toolu_fly", "name": "Write"}
    s.assistant([{**call, "input": {"file_path": NOTES, "content": "# Notes\nMore.\n"}}])
    assert EXISTS not in cc_summary(s, tmp_path)
