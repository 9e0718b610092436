"""Each earlier change of a file the current request is about is carried, one line each (blind check
69 N2: paq_mcp's structural fix of a JSON config — a nested block moved to the top level — was lost
because section 3 showed only the last of three edits, though the current request was about that
file). Invented projects only."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary, section

CONF = "/home/kim/robot/servers.json"


def _edit(s: Session, old: str, new: str) -> None:
    args = {"file_path": CONF, "old_string": old, "new_string": new}
    s.call("Edit", args, f"The file {CONF} has been updated.")


def _session(last_request: str, read_after: str = CONF) -> Session:
    s = Session()
    s.user("add the planner server to the servers json")
    s.call("Read", {"file_path": CONF}, '     1→{\n     2→  "servers": {\n     3→    "inner": {')
    _edit(s, '  "inner": {\n    "mapper": {', '  "mapper": {\n    "planner": {"port": 8051},')
    s.say("Moved mapper out of the nested block and added planner.")
    s.user("add the vision server as well")
    _edit(
        s, '"planner": {"port": 8051},', '"planner": {"port": 8051},\n    "vision": {"port": 8052},'
    )
    s.say("Added vision.")
    s.user(last_request)
    s.call("Read", {"file_path": read_after}, "     1→{")
    s.bash("robotctl servers list", "mapper: ok")
    return s


def test_each_earlier_change_of_the_requests_file_is_carried(tmp_path: Path) -> None:
    part = section(cc_summary(_session("load every server from that file"), tmp_path), 3)
    assert "the earlier changes, in order:" in part, part
    assert '- "inner": {' in part  # the structural fix, not only the last edit
    assert '"vision": {"port": 8052}' in part


def test_a_file_the_request_is_not_about_shows_only_its_latest_change(tmp_path: Path) -> None:
    s = _session("now write the release notes", read_after="/home/kim/robot/NOTES.md")
    assert "the earlier changes" not in cc_summary(s, tmp_path)
