"""Blind check 78 W2 and W3: two errors that differ only in a path are one error; a later
success of the same command fixes its failure, whatever failed in between. Names invented."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary, section

_BLOCKED = (
    "ERROR: cd to '{}' was blocked. For security, the agent may only change directories to "
    "child directories of the original working directory (/home/dev/dots) for this session."
)


def test_a_rerun_failing_with_the_same_error_but_another_path_got_past_nothing(
    tmp_path: Path,
) -> None:
    s = Session()
    s.user("rebuild the key-menu plugin")
    s.call(
        "Bash",
        {"command": "cd ~/.tmux/plugins/key-menu && python plugin/build.py"},
        _BLOCKED.format("/home/dev/dots/~/.tmux/plugins/key-menu"),
        error=True,
    )
    s.call(
        "Bash",
        {"command": "cd /home/dev/.tmux/plugins/key-menu && python plugin/build.py"},
        _BLOCKED.format("/home/dev/.tmux/plugins/key-menu"),
        error=True,
    )
    s.say("I cannot cd there.")
    errors = section(cc_summary(s, tmp_path), 4)
    assert "Got past" not in errors and "cd to" in errors, errors


_CONFIG = "/home/dev/.querytool/config/cloud.spc"
_DENIED = "Error: {}: operation error EC2: DescribeInstances, https response error StatusCode: 403"


def _query(s: Session, conn: str, ok: bool, extra: str = "") -> None:
    s.call(
        "Bash",
        {"command": f'querytool query "SELECT instance_id{extra} FROM {conn}.instances LIMIT 5"'},
        _DENIED.format(conn) if not ok else "+-------------+\n| i-0abc12345 |\n+-------------+",
        error=not ok,
    )


def _name_regions(s: Session, conn: str) -> None:
    s.call(
        "Edit",
        {"file_path": _CONFIG, "old_string": f'{conn}\n  regions = ["*"]',
         "new_string": f'{conn}\n  regions = ["us-east-1"]'},
        f"The file {_CONFIG} has been updated.",
    )  # fmt: skip


def _first_item(s: Session, tmp_path: Path) -> str:
    errors = section(cc_summary(s, tmp_path), 4)
    return errors.split("lab.instances LIMIT 5", 1)[1].split("\n   - ", 1)[0]


def test_a_403_fixed_and_another_query_s_403_fixed_too_did_not_come_back(
    tmp_path: Path,
) -> None:
    s = Session()
    s.user("list the lab instances")
    _query(s, "lab", ok=False)
    _name_regions(s, "lab")
    _query(s, "lab", ok=True)
    s.user("and the prod ones")
    _query(s, "prod", ok=False, extra=", state")
    _name_regions(s, "prod")
    _query(s, "prod", ok=True, extra=", state")
    s.say("Both work now.")
    item = _first_item(s, tmp_path)
    assert "came back" not in item and "Fixed" in item, item


def test_a_later_success_of_the_same_query_fixes_it_whatever_failed_between(
    tmp_path: Path,
) -> None:
    s = Session()
    s.user("list the lab instances")
    _query(s, "lab", ok=False)
    _name_regions(s, "lab")
    _query(s, "lab", ok=True)
    _query(s, "prod", ok=False, extra=", state")
    _query(s, "lab", ok=True)
    s.say("The lab query works; prod is still denied.")
    item = _first_item(s, tmp_path)
    assert "came back" not in item and "Fixed" in item, item


def test_a_403_that_stays_still_reopens_the_fix(tmp_path: Path) -> None:
    s = Session()
    s.user("list the lab instances")
    _query(s, "lab", ok=False)
    _name_regions(s, "lab")
    _query(s, "lab", ok=True)
    _query(s, "prod", ok=False, extra=", state")
    s.say("Prod is still denied.")
    item = _first_item(s, tmp_path)
    assert "the same cause came back: 403" in item, item
